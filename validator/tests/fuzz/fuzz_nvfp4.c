/* libFuzzer harness: NVFP4 detection, rules and decoding over an arbitrary safetensors file.
 * The first input byte picks the sidecar config (none, compressed-tensors nvfp4-pack-quantized, or
 * ModelOpt hf_quant_config.json); the rest is the file. Every module that validates is decoded
 * with the oracle and the fast path, which must agree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness/logical.h"
#include "packcheck_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64];

static void write_file(const char *name, const void *data, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n && fwrite(data, 1, n, f) != n) abort();
    fclose(f);
}

static void remove_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    unlink(path);
}

static void cleanup(void)
{
    remove_file("config.json");
    remove_file("hf_quant_config.json");
    remove_file("model.safetensors");
    rmdir(g_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char ct_cfg[] = "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": \"nvfp4-pack-quantized\","
                                 " \"ignore\": [\"lm_head\", \"re:.*gate$\"], \"config_groups\": {\"g\": {\"targets\": [\"Linear\"],"
                                 " \"weights\": {\"num_bits\": 4, \"type\": \"float\", \"group_size\": 16},"
                                 " \"input_activations\": {\"dynamic\": \"local\"}}}}}";
    static const char mo_cfg[] = "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": {\"quant_algo\": \"NVFP4\","
                                 " \"group_size\": 16, \"exclude_modules\": [\"lm_head\", \"model.*.gate\"]}}";
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/pc-fuzz-nvfp4-XXXXXX");
        if (!mkdtemp(g_dir)) abort();
        atexit(cleanup);
    }
    if (size < 1) return 0;
    remove_file("config.json");
    remove_file("hf_quant_config.json");
    if (data[0] % 3 == 1) write_file("config.json", ct_cfg, sizeof ct_cfg - 1);
    if (data[0] % 3 == 2) write_file("hf_quant_config.json", mo_cfg, sizeof mo_cfg - 1);
    write_file("model.safetensors", data + 1, size - 1);
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return 0;
    pc_input *in = pc_input_open(g_dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    for (size_t i = 0; in && !pc_rejected(&cx) && i < in->nmodules; i++) {
        uint8_t *rc, *fc;
        float *rw, *fw;
        if (in->modules[i].numel > (1u << 20)) continue;
        if (pc_logical_decode(in, &in->modules[i], PC_IMPL_REF, &rc, &rw, &cx)) continue;
        if (!pc_logical_decode(in, &in->modules[i], PC_IMPL_FAST, &fc, &fw, &cx)) {
            size_t n = (size_t)in->modules[i].numel;
            if (memcmp(rc, fc, n) || memcmp(rw, fw, n * sizeof *rw)) abort();
            free(fc);
            free(fw);
        }
        free(rc);
        free(rw);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    return 0;
}
