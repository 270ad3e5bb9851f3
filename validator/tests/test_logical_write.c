/* pc_logical_write (the unpack command) reuses its output buffers across modules and, for formats
 * with decode_rows (every decoding format), decodes each module in row slices into two reused slots written by a
 * second thread: every module it writes must equal that module's own decode into fresh buffers,
 * byte for byte, on fixtures with several modules of different sizes and block types (a larger
 * module followed by smaller ones, so stale bytes of the previous module would show), and on ct
 * fixtures of every scale strategy (tensor, channel, group, block, g_idx, MoE), GGUF block types and
 * a fixture or two of every other format with decode_rows (all that decode) with slices forced
 * far smaller than their modules (PACKCHECK_UNPACK_SLICE: one row, a few rows, a partial last
 * slice), on one thread and on two. */
#include "harness/logical.h"

#include "core/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_pass, g_fail;
#define CHECK(c, ...) do { if (c) g_pass++; else { g_fail++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Bytes of tensor `name` in the written view equal `want`. */
static void same_tensor(const pc_input *view, const char *name, const void *want, size_t n, const char *fixture)
{
    const pc_tensor *t = pc_input_find(view, name);
    CHECK(t && t->nbytes == n, "%s: %s missing or wrong size in the view", fixture, name);
    if (!t || t->nbytes != n) return;
    uint8_t *got = malloc(n ? n : 1);
    CHECK(got && !pc_file_read(t->file, t->offset, got, n), "%s: cannot read %s", fixture, name);
    if (got) CHECK(!memcmp(got, want, n), "%s: %s differs from the module's own decode", fixture, name);
    free(got);
}

static void check_fixture(const char *rel, const char *out, size_t min_modules)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/%s", PC_SOURCE_DIR, rel);
    pc_ctx cx, vx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(path, NULL, &cx);
    CHECK(in != NULL, "%s: cannot open", rel);
    if (!in) { pc_ctx_free(&cx); return; }
    pc_validate(in, &cx);
    CHECK(!pc_rejected(&cx) && in->nmodules >= min_modules, "%s: rejected or fewer than %zu modules (%zu)", rel, min_modules, in->nmodules);
    CHECK(pc_logical_write(in, out, &cx) == 0, "%s: pc_logical_write failed", rel);
    const char *slice = getenv("PACKCHECK_UNPACK_SLICE");
    uint64_t most = 0;
    for (size_t i = 0; i < in->nmodules; i++)
        if (in->modules[i].numel > most) most = in->modules[i].numel;
    if (slice) CHECK(most > (uint64_t)atol(slice), "%s: no module larger than a slice of %s elements: the sliced path is not exercised", rel, slice);
    pc_ctx_init(&vx, PC_PROFILE_STRICT);
    pc_input *view = pc_input_open(out, NULL, &vx);
    CHECK(view != NULL, "%s: cannot open the written view", rel);
    for (size_t i = 0; view && i < in->nmodules; i++) {
        const pc_module *m = &in->modules[i];
        uint8_t *codes;
        float *w;
        if (pc_logical_decode(in, m, PC_IMPL_FAST, &codes, &w, &cx)) { CHECK(0, "%s: %s: decode failed", rel, m->prefix); continue; }
        char name[1100];
        snprintf(name, sizeof name, "%s.codes", m->prefix);
        same_tensor(view, name, codes, (size_t)m->numel, rel);
        snprintf(name, sizeof name, "%s.weight", m->prefix);
        same_tensor(view, name, w, (size_t)m->numel * sizeof *w, rel);
        free(codes);
        free(w);
    }
    pc_input_free(view);
    pc_ctx_free(&vx);
    pc_input_free(in);
    pc_ctx_free(&cx);
    unlink(out);
}

int main(void)
{
    char dir[] = "/tmp/pc-test-lw-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char out[600];
    snprintf(out, sizeof out, "%s/view.safetensors", dir);
    static const char *const k_fixtures[] = {
        "gq/kquant-probes", "gq/more-types-probes", "gq/mixed-q4_0-q4_1-q8_0", "gq/ternary", "llama/grid-probes",
        "llama/llama-q4-k-m", "awq/autoawq-gemm-g32-two-modules-bias", "ct/dense-mixed-groups",
    };
    static const char *const k_sliced[] = {
        "ct/dense-mixed-groups", "ct/dense-b4-block-asym", "ct/dense-b4-tensor", "ct/dense-b5-tensor-asym", "ct/dense-b6-channel-asym",
        "ct/dense-b3-group32-asym", "ct/legacy-b3-group32-actorder", "ct/dense-b3-moe", "ct/legacy-b6-moe-asym", "ct/legacy-b3-k200-no-version",
        "gq/kquant-probes", "gq/more-types-probes", "gq/mixed-q4_0-q4_1-q8_0", "gq/ternary", "llama/llama-q4-k-m",
        /* every other format with a row decoder (test_decode_rows holds each on every fixture; here through unpack) */
        "fp8/deepseek-fp8-rows-1000", "fp8/ct-fp8-block", "fp8/ct-naive-int8-group-asym", "nvfp4/ct-compressor",
        "gptq/autogptq-v1-3bit-asym-descact-g16-random", "awq/autoawq-gemm-g32-random", "mlx/model-mixed-3-6", "mlx/model-mxfp4",
        "bnb/probe-fp4-dq-row-tail", "bnb/model-int8", "hqq/probe-3bit-g64-f16", "hqq/probe-4bit-g32-axis0-f16",
        "quark/model-int4-reorder", "quark/model-mxfp6-e2m3-e3m2", "modelopt/int4-awq", "modelopt/fp8-block", "mxfp4/gptoss-moe",
    };
    /* elements per slice: 1 and 7 (one row per slice), 100 and 300 (a few rows, a partial last slice), the default */
    static const char *const k_slice[] = {"1", "7", "100", "300", NULL};
    static const char *const k_threads[] = {"1", "2"};
    for (size_t t = 0; t < 2; t++) {
        setenv("PACKCHECK_THREADS", k_threads[t], 1);
        for (size_t i = 0; i < sizeof k_fixtures / sizeof *k_fixtures; i++) check_fixture(k_fixtures[i], out, 2);
        for (size_t k = 0; k < sizeof k_slice / sizeof *k_slice; k++) {
            if (k_slice[k]) setenv("PACKCHECK_UNPACK_SLICE", k_slice[k], 1);
            else unsetenv("PACKCHECK_UNPACK_SLICE");
            for (size_t i = 0; i < sizeof k_sliced / sizeof *k_sliced; i++) check_fixture(k_sliced[i], out, 1);
        }
    }
    rmdir(dir);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
