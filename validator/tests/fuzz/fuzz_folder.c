/* libFuzzer harness for a whole checkpoint folder, config and shard together: the input is
 * a 4-byte little-endian length L, then L bytes of config.json, then the bytes of model.safetensors.
 * Seeds (corpus/folder/, made by make_folder_seeds.py from pinned corpus cases) are bitsandbytes
 * 4-bit and LLM.int8, MLX affine and microscaling, and transformers' fused 3-D FP8 MoE experts, so
 * mutations reach those formats' config readers, the bitsandbytes quant_state JSON inside the shard
 * and their decoders. The folder is validated and every decodable module is decoded. */
#include "fuzz_decode_all.h"
#include "packcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];

static void path_of(char *p, size_t n, const char *name) { snprintf(p, n, "%s/%s", g_dir, name); }

static void write_file(const char *name, const void *b, size_t n)
{
    char p[512];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    if (!f) { perror(p); abort(); }
    if (n && fwrite(b, 1, n, f) != n) abort();
    if (fclose(f)) abort();
}

/* Leave no folder behind when the fuzzer exits. */
static void cleanup(void)
{
    char p[512];
    path_of(p, sizeof p, "config.json");
    unlink(p);
    path_of(p, sizeof p, "model.safetensors");
    unlink(p);
    rmdir(g_dir);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/pc-fuzz-folder-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); abort(); }
    atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) setup();
    if (size < 4) return 0;
    size_t clen = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    if (clen > size - 4) clen = size - 4;
    write_file("config.json", data + 4, clen);
    write_file("model.safetensors", data + 4 + clen, size - 4 - clen);
    fuzz_validate_and_decode(g_dir, NULL);
    return 0;
}
