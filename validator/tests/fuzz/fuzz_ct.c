/* libFuzzer harness for the compressed-tensors module: input = config.json bytes, one NUL, then a
 * safetensors file. Both go to a private folder that is validated as a checkpoint; every module that
 * passes is decoded with the oracle and the fast path, which must agree bit for bit. Seeds in
 * corpus/ct/ are library-made fixtures in that form. */
#define _XOPEN_SOURCE 700
#include "harness/logical.h"
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[64], g_cfg[96], g_st[96];

static void put(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n && fwrite(p, 1, n, f) != n) abort();
    fclose(f);
}

static void decode_both(const pc_input *in, const pc_module *m, pc_ctx *cx)
{
    uint8_t *rc, *fc;
    float *rw, *fw;
    if (pc_logical_decode(in, m, PC_IMPL_REF, &rc, &rw, cx)) return;
    if (pc_logical_decode(in, m, PC_IMPL_FAST, &fc, &fw, cx)) { free(rc); free(rw); return; }
    size_t n = (size_t)m->numel;
    if (memcmp(rc, fc, n) || memcmp(rw, fw, n * sizeof *rw)) __builtin_trap();
    free(rc); free(rw); free(fc); free(fw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) {
        strcpy(g_dir, "/tmp/pc-fuzz-ct-XXXXXX");
        if (!mkdtemp(g_dir)) abort();
        snprintf(g_cfg, sizeof g_cfg, "%s/config.json", g_dir);
        snprintf(g_st, sizeof g_st, "%s/model.safetensors", g_dir);
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t cfg_len = nul ? (size_t)(nul - data) : size;
    put(g_cfg, data, cfg_len);
    put(g_st, nul ? nul + 1 : data + size, nul ? size - cfg_len - 1 : 0);
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return 0;
    pc_input *in = pc_input_open(g_dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    if (in && !cx.io_error && !cx.oom && !pc_rejected(&cx))
        for (size_t i = 0; i < in->nmodules; i++) decode_both(in, &in->modules[i], &cx);
    pc_input_free(in);
    pc_ctx_free(&cx);
    return 0;
}
