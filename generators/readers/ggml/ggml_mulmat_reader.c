/* packcheck certify adapter (CONTRACT 5), compute depth: ggml's CPU backend mul_mat, the path every
 * llama.cpp CPU user runs, on an identity input (the same ggml build as ggml_reader.c, build.sh).
 *
 *     ggml_mulmat_reader INPUT OUTPUT
 *
 * INPUT is a .gguf file, loaded by gguf_init_from_file (no_alloc = false) as ggml_reader does. For
 * every quantized tensor W (ne0 = K inputs, ne1 = N outputs, each 2-D slice of a 3-D/4-D tensor on
 * its own) the adapter builds the graph C = ggml_mul_mat(W, A) with A the F32 activations 127 * I_K
 * (in chunks of CHUNK rows) and runs it with ggml_graph_compute (one thread). ggml's CPU mul_mat
 * first converts A to the type's vec_dot partner (ggml_get_type_traits_cpu(type)->vec_dot_type:
 * Q8_0, Q8_1 or Q8_K) with the backend's own from_float, then calls the type's vec_dot kernel per
 * (row of W, row of A). C[k][n] is W[n][k] * 127; the adapter writes M.weight[n][k] = C[k][n] / 127
 * (F32, the reader's precision; M = the name without a trailing ".weight").
 *
 * Why 127: an activation row holding one non-zero value x quantizes to the single code +-127 with
 * scale x/127 (Q8_0/Q8_1: d = fp16(amax/127), q = round(x/d); Q8_K: d = 1/(-127/max), an f32,
 * q = -127). x = 127 makes that scale exactly 1 (Q8_K: -1), so the partner holds exactly 127 * e_k
 * and no rounding enters on the activation side (x = 1 would give d = fp16(1/127), not exact).
 * Expected value per element, every type: the kernel computes d_w * (integer dot of the weight's
 * codes with 127 * e_k), with every other block of the row contributing an exact 0, so C[k][n] =
 * 127 * W[n][k] in exact arithmetic, and C / 127 is W[n][k] exactly when the kernel's f32 result
 * is exact. Where rounding can enter: the f32 product d_w * sum when the significand of the block
 * scale(s) times the integer sum (which carries the factor 127, 7 bits) needs more than 24 bits
 * (K-quants: fp16 d * 6-8-bit sub-scale * code * 127), and the addition of a min/offset term
 * (Q4_1/Q5_1: m * s_y; Q2_K/Q4_K/Q5_K: dmin * mins * bsums) whose f32 sum rounds once in the
 * 127-scaled domain. The division by 127 is exact when C is. Non-finite block scales poison the
 * whole output row (0 * inf in the other blocks' products): such files are invalid cases anyway.
 * Compute depth compares modulo the sign of zero (an accumulating kernel answers +0.0 for -0.0).
 *
 * Non-GGUF inputs are out of scope (exit 1); a quantized type without a CPU vec_dot is refused. */
#include <ggml.h>
#include <ggml-cpu.h>
#include <gguf.h>

#include "st_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 64 };                       /* activation rows per graph: bounds the F32 buffers */
static const float PROBE = 127.0f;          /* the identity's value: quantizes with scale exactly 1 */
static const int64_t MAX_ELEMENTS = 1 << 26; /* per tensor: the probe is for corpus-sized tensors */

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* C = mul_mat(W2, 127 * rows k0..k0+c of I_K) for one 2-D slice W2 [K, N]; out[n*K + k] = C[k][n]/127. */
static int mulmat_chunk(struct ggml_tensor *w, size_t offset, int64_t k0, int64_t c, float *out)
{
    int64_t K = w->ne[0], N = w->ne[1];
    size_t mem = ggml_tensor_overhead() * 4 + ggml_graph_overhead() + (size_t)(K + N) * (size_t)c * sizeof(float) + 1024;
    struct ggml_init_params ip = {.mem_size = mem, .mem_buffer = NULL, .no_alloc = false};
    struct ggml_context *ctx = ggml_init(ip);
    if (!ctx) return -1;
    struct ggml_tensor *a = ggml_view_2d(ctx, w, K, N, w->nb[1], offset);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, c);
    float *bd = b->data;
    memset(bd, 0, (size_t)K * (size_t)c * sizeof(float));
    for (int64_t r = 0; r < c; r++) bd[r * K + k0 + r] = PROBE;
    struct ggml_tensor *y = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    struct ggml_cplan plan = ggml_graph_plan(gf, 1, NULL);
    void *work = plan.work_size ? malloc(plan.work_size) : NULL;
    int rc = -1;
    if (!plan.work_size || work) {
        plan.work_data = work;
        if (ggml_graph_compute(gf, &plan) == GGML_STATUS_SUCCESS) {
            const float *yd = y->data;
            for (int64_t r = 0; r < c; r++)
                for (int64_t n = 0; n < N; n++) out[n * K + k0 + r] = yd[r * N + n] / PROBE;
            rc = 0;
        }
    }
    free(work);
    ggml_free(ctx);
    return rc;
}

/* Every 2-D slice of w through mul_mat; out holds ggml_nelements(w) floats in [.., N, K] order. */
static int mulmat_tensor(struct ggml_tensor *w, float *out)
{
    int64_t K = w->ne[0], N = w->ne[1];
    for (int64_t i3 = 0; i3 < w->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < w->ne[2]; i2++) {
            size_t off = (size_t)i2 * w->nb[2] + (size_t)i3 * w->nb[3];
            float *o = out + (i3 * w->ne[2] + i2) * N * K;
            for (int64_t k0 = 0; k0 < K; k0 += CHUNK)
                if (mulmat_chunk(w, off, k0, K - k0 < CHUNK ? K - k0 : CHUNK, o)) return -1;
        }
    return 0;
}

static int probe_one(const char *name, struct ggml_tensor *t, out_tensor *o)
{
    const struct ggml_type_traits_cpu *cpu = ggml_get_type_traits_cpu(t->type);
    if (!cpu->vec_dot) { fprintf(stderr, "refused: %s: no CPU vec_dot for %s\n", name, ggml_type_name(t->type)); return 1; }
    int64_t ne = ggml_nelements(t);
    if (ne > MAX_ELEMENTS) { fprintf(stderr, "refused: %s: %lld elements, past the probe's bound\n", name, (long long)ne); return 1; }
    o->data = malloc((size_t)(ne ? ne : 1) * sizeof(float));
    if (!o->data) { fprintf(stderr, "out of memory\n"); return 2; }
    if (ne && mulmat_tensor(t, o->data)) { fprintf(stderr, "%s: mul_mat failed\n", name); return 2; }
    o->nbytes = (size_t)ne * sizeof(float);
    int nd = ggml_n_dims(t) < 2 ? 2 : ggml_n_dims(t);
    o->ndim = nd;
    for (int d = 0; d < nd; d++) o->shape[d] = t->ne[nd - 1 - d];
    size_t len = strlen(name);
    if (ends_with(name, ".weight")) len -= 7;
    o->key = malloc(len + 8);
    if (!o->key) return 2;
    memcpy(o->key, name, len);
    memcpy(o->key + len, ".weight", 8);
    fprintf(stderr, "%s: %s x %s (vec_dot)\n", name, ggml_type_name(t->type), ggml_type_name(cpu->vec_dot_type));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) { printf("%s\n", ggml_version()); return 0; }
    if (argc != 3) { fprintf(stderr, "usage: %s INPUT OUTPUT | --version\n", argv[0]); return 2; }
    if (!ends_with(argv[1], ".gguf")) { fprintf(stderr, "refused: not a GGUF file: out of scope\n"); return 1; }
    ggml_cpu_init();
    struct ggml_context *ctx = NULL;
    struct gguf_init_params params = {.no_alloc = false, .ctx = &ctx};
    struct gguf_context *g = gguf_init_from_file(argv[1], params);
    if (!g) { fprintf(stderr, "refused: gguf_init_from_file failed\n"); return 1; }
    int64_t nt = gguf_get_n_tensors(g);
    out_tensor *out = calloc((size_t)(nt > 0 ? nt : 1), sizeof *out);
    if (!out) return 2;
    size_t n = 0;
    for (int64_t i = 0; i < nt; i++) {
        const char *name = gguf_get_tensor_name(g, i);
        struct ggml_tensor *t = ggml_get_tensor(ctx, name);
        if (!t || !ggml_is_quantized(t->type)) continue;
        int rc = probe_one(name, t, &out[n++]);
        if (rc) return rc;
    }
    fprintf(stderr, "ggml %s CPU mul_mat: %lld tensors, %zu quantized\n", ggml_version(), (long long)nt, n);
    int rc = write_view(argv[2], out, n) ? 2 : 0;
    gguf_free(g);
    ggml_free(ctx);
    return rc;
}
