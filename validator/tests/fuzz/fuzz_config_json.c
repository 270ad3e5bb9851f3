/* libFuzzer harness for the sidecar config loader: a checkpoint folder holding a small valid
 * safetensors file (one module in each format's layout) and a sidecar JSON file whose bytes are the
 * input. The first input byte picks the sidecar (config.json, quantize_config.json, quant_config.json,
 * hf_quant_config.json, or an explicit --config); the rest are its contents. The folder is opened,
 * validated by every format module that detects itself, and every decodable module is decoded. */
#include "container/safetensors.h"
#include "fuzz_decode_all.h"
#include "formats/format.h"

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

/* model.safetensors holds one small module in each format's tensor layout, so whatever scheme the
 * fuzzed config declares, its format module finds tensors to check and decode:
 *   ct.*  compressed-tensors pack-quantized, 4-bit [2, 8]: weight_packed I32 [2,1], weight_scale
 *         F16 [2,1], weight_shape I64 [2]
 *   nv.*  compressed-tensors NVFP4 [2, 16]: weight_packed U8 [2,8], weight_scale F8_E4M3 [2,1],
 *         weight_global_scale F32 [1]
 *   mo.*  ModelOpt NVFP4 [2, 16]: weight U8 [2,8], weight_scale F8_E4M3 [2,1], weight_scale_2 F32 []
 *   gq.*  GPTQ 4-bit, K = N = 8, one group: qweight I32 [1,8], qzeros I32 [1,1], scales F16 [1,8],
 *         g_idx I32 [8]
 *   aw.*  AWQ GEMM 4-bit, K = N = 8: qweight I32 [8,1], qzeros I32 [1,1], scales F16 [1,8]
 * Data bytes are a fixed pseudo-random pattern; scales are halves of 0.5, weight_shape [2, 8], g_idx 0. */
static uint8_t g_pool[1024];

static size_t add(st_out_tensor *t, size_t *n, const char *name, pc_dtype dt, int ndim, uint64_t d0, uint64_t d1,
                  size_t *at)
{
    st_out_tensor *x = &t[(*n)++];
    x->name = name;
    x->dtype = dt;
    x->ndim = ndim;
    x->shape[0] = d0;
    x->shape[1] = d1;
    uint64_t numel = ndim == 0 ? 1 : ndim == 1 ? d0 : d0 * d1;
    x->nbytes = numel * pc_dtype_bits(dt) / 8;
    x->data = g_pool + *at;
    size_t start = *at;
    *at += (size_t)x->nbytes;
    return start;
}

static void halves(size_t at, size_t count)
{
    for (size_t i = 0; i < count; i++) g_pool[at + 2 * i] = 0, g_pool[at + 2 * i + 1] = 0x38;
}

/* Leave no folder behind when the fuzzer exits. */
static void cleanup(void)
{
    char p[512];
    for (size_t i = 0; i < NNAMES; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, k_names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/model.safetensors", g_dir);
    unlink(p);
    rmdir(g_dir);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/pc-fuzz-config-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); abort(); }
    uint32_t x = 0x2545f491u;
    for (size_t i = 0; i < sizeof g_pool; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; g_pool[i] = (uint8_t)x; }
    st_out_tensor t[24];
    size_t n = 0, at = 0;
    add(t, &n, "ct.weight_packed", PC_DT_I32, 2, 2, 1, &at);
    halves(add(t, &n, "ct.weight_scale", PC_DT_F16, 2, 2, 1, &at), 2);
    size_t shape_at = add(t, &n, "ct.weight_shape", PC_DT_I64, 1, 2, 0, &at);
    add(t, &n, "nv.weight_packed", PC_DT_U8, 2, 2, 8, &at);
    add(t, &n, "nv.weight_scale", PC_DT_F8_E4M3, 2, 2, 1, &at);
    add(t, &n, "nv.weight_global_scale", PC_DT_F32, 1, 1, 0, &at);
    add(t, &n, "mo.weight", PC_DT_U8, 2, 2, 8, &at);
    add(t, &n, "mo.weight_scale", PC_DT_F8_E4M3, 2, 2, 1, &at);
    add(t, &n, "mo.weight_scale_2", PC_DT_F32, 0, 0, 0, &at);
    add(t, &n, "gq.qweight", PC_DT_I32, 2, 1, 8, &at);
    add(t, &n, "gq.qzeros", PC_DT_I32, 2, 1, 1, &at);
    halves(add(t, &n, "gq.scales", PC_DT_F16, 2, 1, 8, &at), 8);
    size_t gidx_at = add(t, &n, "gq.g_idx", PC_DT_I32, 1, 8, 0, &at);
    add(t, &n, "aw.qweight", PC_DT_I32, 2, 8, 1, &at);
    add(t, &n, "aw.qzeros", PC_DT_I32, 2, 1, 1, &at);
    halves(add(t, &n, "aw.scales", PC_DT_F16, 2, 1, 8, &at), 8);
    memset(g_pool + shape_at, 0, 16);
    g_pool[shape_at] = 2, g_pool[shape_at + 8] = 8;
    memset(g_pool + gidx_at, 0, 32);
    char path[512];
    snprintf(path, sizeof path, "%s/model.safetensors", g_dir);
    if (st_write_file(path, t, n)) abort();
    atexit(cleanup);
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
    fuzz_validate_and_decode(g_dir, which == NNAMES - 1 ? override : NULL);
    return 0;
}
