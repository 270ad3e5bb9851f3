/* libFuzzer harness for the sidecar config loader: a checkpoint folder holding a small valid
 * safetensors file (one compressed-tensors-shaped module) and a sidecar JSON file whose bytes are the
 * input. The first input byte picks the sidecar (config.json, quantize_config.json, quant_config.json,
 * hf_quant_config.json, or an explicit --config); the rest are its contents. The folder is opened,
 * validated by every format module that detects itself, and every decodable module is decoded. */
#include "harness/logical.h"
#include "packcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256];
static const char *const k_names[] = {"config.json", "quantize_config.json", "quant_config.json",
                                      "hf_quant_config.json", "override.json"};
#define NNAMES (sizeof k_names / sizeof *k_names)

static void write_file(const char *name, const void *b, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f) { perror(p); abort(); }
    if (n && fwrite(b, 1, n, f) != n) abort();
    if (fclose(f)) abort();
}

/* model.safetensors: a 4-bit compressed-tensors module [2, 8] (weight_packed I32 [2,1],
 * weight_scale F16 [2,1], weight_shape I64 [2]), so config fuzzing reaches the format modules. */
static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/pc-fuzz-config-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); abort(); }
    static const char hdr[] =
        "{\"m.weight_packed\":{\"dtype\":\"I32\",\"shape\":[2,1],\"data_offsets\":[0,8]},"
        "\"m.weight_scale\":{\"dtype\":\"F16\",\"shape\":[2,1],\"data_offsets\":[8,12]},"
        "\"m.weight_shape\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[12,28]}}";
    size_t hl = sizeof hdr - 1, padded = (hl + 7) / 8 * 8;
    uint8_t buf[512] = {0};
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)(padded >> (8 * i));
    memcpy(buf + 8, hdr, hl);
    memset(buf + 8 + hl, ' ', padded - hl);
    uint8_t *d = buf + 8 + padded;
    static const uint8_t words[8] = {0x30, 0x96, 0xfc, 0x52, 0xa7, 0x0d, 0x63, 0xc9};
    memcpy(d, words, 8);
    d[8] = 0x00, d[9] = 0x3c, d[10] = 0x00, d[11] = 0x38; /* f16 1.0, 0.5 */
    d[12] = 2, d[20] = 8;                               /* weight_shape [2, 8] */
    write_file("model.safetensors", buf, 8 + padded + 28);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) setup();
    if (size == 0) return 0;
    size_t which = data[0] % NNAMES;
    for (size_t i = 0; i < NNAMES; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", g_dir, k_names[i]);
        unlink(p);
    }
    write_file(k_names[which], data + 1, size - 1);
    char override[512];
    snprintf(override, sizeof override, "%s/%s", g_dir, k_names[NNAMES - 1]);
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return 0;
    pc_input *in = pc_input_open(g_dir, which == NNAMES - 1 ? override : NULL, &cx);
    if (in) {
        pc_validate(in, &cx);
        for (size_t i = 0; i < in->nmodules && !pc_rejected(&cx); i++) {
            const pc_module *m = &in->modules[i];
            if (m->numel > (1u << 22)) continue;
            uint8_t *codes = NULL;
            float *w = NULL;
            if (pc_logical_decode(in, m, PC_IMPL_REF, &codes, &w, &cx) == 0) { free(codes); free(w); }
        }
        (void)pc_input_format(in);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    return 0;
}
