/* MLX affine: the oracle and the fast dequantizer held equal (random groups in f32, bf16 and f16,
 * with subnormal, overflowing and tie-producing scales), the rounding into T checked against the
 * exact widening of every bf16/f16 value, and the MLX-007 limit on a sparse file. The
 * library-written cases (mx.quantize, mlx_lm) live in fixtures/mlx. */
#include "harness/logical.h"
#include "core/util.h"
#include "kernels.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) { return test_xorshift(&g_rng); }

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* A value of T, widened: any bit pattern of T that is finite. */
static float random_t(pc_mlx_t t)
{
    for (;;) {
        uint16_t h = (uint16_t)rnd();
        float v = t == PC_MLX_T_F16 ? pc_f16_to_f32(h) : t == PC_MLX_T_BF16 ? pc_bf16_to_f32(h) : f_of(rnd());
        if (isfinite(v)) return v;
    }
}

static bool same(float a, float b) { return test_f32_bits(a) == test_f32_bits(b) || (isnan(a) && isnan(b)); }

/* One random case at the given misalignments: codes at +ms bytes, out at +md floats, both
 * buffers exactly sized (ASan sees a read or write past them). */
static void one_case(size_t rows, size_t cols, size_t group, pc_mlx_t t, unsigned bits, size_t ms, size_t md, const char *impl)
{
    size_t ng = rows * (cols / group), n = rows * cols;
    uint8_t *qb = malloc(ms + n);
    float *s = malloc(ng * 4), *b = malloc(ng * 4), *o1 = malloc(n * 4), *ob = malloc((md + n) * 4);
    uint8_t *q = qb + ms;
    float *o2 = ob + md;
    for (size_t i = 0; i < n; i++) q[i] = (uint8_t)(rnd() & ((1u << bits) - 1));
    for (size_t g = 0; g < ng; g++) {
        s[g] = random_t(t);
        b[g] = random_t(t);
    }
    pc_mlx_affine_ref(q, rows, cols, group, s, b, t, o1);
    pc_mlx_affine_fast(q, rows, cols, group, s, b, t, o2);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !same(o1[i], o2[i]);
    CHECK(bad == 0, "%s: T %d, %zux%zu, group %zu, codes+%zu out+%zu: %zu elements differ", impl, (int)t, rows, cols, group,
          ms, md, bad);
    free(qb); free(s); free(b); free(o1); free(ob);
}

/* Every kernel set this CPU runs (avx2, scalar) against the oracle: mlx's groups (32, 64, 128) and
 * odd ones (the vector loops' tails), every T, misaligned codes and outputs. */
static void oracle_vs_fast(void)
{
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int iter = 0; iter < 300; iter++) {
            pc_mlx_t t = (pc_mlx_t)(iter % 3);
            size_t group = iter % 4 == 3 ? 1 + rnd() % 40 : (size_t)32 << (rnd() % 3);
            size_t rows = 1 + rnd() % 4, cols = group * (1 + rnd() % 3);
            one_case(rows, cols, group, t, 1 + rnd() % 8, rnd() % 32, rnd() % 8, impl);
        }
        /* past the non-temporal threshold (1 MiB of f32), aligned and not */
        for (int ti = 0; ti < 3; ti++) {
            one_case(512, 1024, 64, (pc_mlx_t)ti, 4, 0, 0, impl);
            one_case(512, 1024, 64, (pc_mlx_t)ti, 8, 3, 1, impl);
        }
    }
    pc_kernels_reset();
}

/* Every finite value of T is kept; every midpoint between two neighbours rounds to the even one;
 * f16 overflows at 65520. Each value is the scale of one group of 8 codes equal to 1 (bias 0), so
 * w = rT(rT(s) + 0) = rT(s), and the AVX2 set rounds it in its vector lanes, not a scalar tail. */
static void rounding_cases(pc_mlx_t t, float *vals, float *want, size_t *nv)
{
    size_t n = 0;
    for (uint32_t h = 0; h < 0x7c00u || (t == PC_MLX_T_BF16 && h < 0x7f80u); h++) {
        float a = t == PC_MLX_T_F16 ? pc_f16_to_f32((uint16_t)h) : pc_bf16_to_f32((uint16_t)h);
        float c = t == PC_MLX_T_F16 ? pc_f16_to_f32((uint16_t)(h + 1)) : pc_bf16_to_f32((uint16_t)(h + 1));
        vals[n] = a; want[n++] = a;
        if (!isfinite(c)) continue;
        vals[n] = (float)(((double)a + (double)c) / 2); /* exact in f32 for both types */
        want[n++] = (h & 1) ? c : a;
        vals[n] = -vals[n - 1]; want[n] = -want[n - 1] + 0.0f; n++; /* -0.0 + 0.0 is +0.0 */
    }
    if (t == PC_MLX_T_F16) {
        vals[n] = 65519.0f; want[n++] = 65504.0f;
        vals[n] = 65520.0f; want[n++] = INFINITY;
    }
    *nv = n;
}

static void rounding_exhaustive(void)
{
    size_t cap = 3 * 0x7f80u + 8, nv;
    float *vals = malloc(cap * 4), *want = malloc(cap * 4), *zero = calloc(cap, 4);
    float *o1 = malloc(cap * 32 * 4), *o2 = malloc(cap * 32 * 4);
    uint8_t *ones = malloc(cap * 32);
    memset(ones, 1, cap * 32);
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int ti = 1; ti <= 2; ti++)
            for (size_t g = 8; g <= 32; g += 24) { /* groups of 8: lanes; of 32: the AVX2 set's table */
                pc_mlx_t t = (pc_mlx_t)ti;
                rounding_cases(t, vals, want, &nv);
                pc_mlx_affine_ref(ones, nv, g, g, vals, zero, t, o1);
                pc_mlx_affine_fast(ones, nv, g, g, vals, zero, t, o2);
                size_t bad = 0;
                for (size_t i = 0; i < nv * g; i++) bad += !same(o1[i], want[i / g]) || !same(o2[i], want[i / g]);
                CHECK(bad == 0, "%s T %d group %zu: %zu of %zu values or midpoints rounded wrongly", impl, ti, g, bad, nv * g);
            }
    }
    pc_kernels_reset();
    free(vals); free(want); free(zero); free(o1); free(o2); free(ones);
}

/* Scales and biases that are not finite or sit at the edges (NaN with payloads in either half,
 * +-inf, +-0, subnormal, the largest finite values of each T) on groups of 4-bit codes, which the
 * AVX2 set decodes by table (or, for a bf16 table that kept a NaN's low payload bits, lane by lane),
 * beside groups with one code of 16 or more (lanes). Every T must give the oracle's bits, NaN
 * payloads included (the AVX2 set hands a group with a NaN or infinite scale or bias to the
 * portable path). */
static void edge_groups(void)
{
    static const uint32_t k_edge[] = {0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7f812345u, 0xffa0ffffu, 0x7f800000u,
                                      0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu,
                                      0xff7f0000u, 0x477fe000u, 0x47800000u, 0x3f800000u, 0xbc000000u, 0x3f808000u};
    enum { NE = sizeof k_edge / sizeof *k_edge, G = 64, NG = NE * NE };
    uint8_t *q = malloc((size_t)NG * G);
    float *s = malloc(NG * 4), *b = malloc(NG * 4), *o1 = malloc((size_t)NG * G * 4), *o2 = malloc((size_t)NG * G * 4);
    for (size_t g = 0; g < NG; g++) {
        s[g] = f_of(k_edge[g % NE]), b[g] = f_of(k_edge[g / NE]);
        for (size_t j = 0; j < G; j++) q[g * G + j] = (uint8_t)(rnd() & 15);
        if (g % 5 == 4) q[g * G + rnd() % G] = 16 + (uint8_t)(rnd() % 240); /* one wide code: the lanes */
    }
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int ti = 0; ti <= 2; ti++) {
            pc_mlx_t t = (pc_mlx_t)ti;
            pc_mlx_affine_ref(q, NG, G, G, s, b, t, o1);
            pc_mlx_affine_fast(q, NG, G, G, s, b, t, o2);
            size_t bad = 0;
            for (size_t i = 0; i < (size_t)NG * G; i++) {
                bool d = test_f32_bits(o1[i]) != test_f32_bits(o2[i]);
                if (d && getenv("MLX_DEBUG") && bad < 20) printf("  g %zu q %u s %08x b %08x: %08x vs %08x\n", i / G, q[i], test_f32_bits(s[i / G]), test_f32_bits(b[i / G]), test_f32_bits(o1[i]), test_f32_bits(o2[i]));
                bad += d;
            }
            CHECK(bad == 0, "%s T %d: %zu edge-case elements differ", impl, ti, bad);
        }
    }
    pc_kernels_reset();
    free(q); free(s); free(b); free(o1); free(o2);
}

/* The two roundings mlx makes: with f32 scales, s*q + b is not fused. s = 1 + 2^-23, q = 3, b = -3:
 * an FMA gives 3 * 2^-23 exactly, mlx rounds s*q first. */
static void two_roundings(void)
{
    float s = 1.0f + 0x1p-23f, b = -3.0f, o1[8], o2[8];
    uint8_t q[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    volatile float sq = s * 3.0f;
    float want = sq + b;
    for (size_t k = 0; pc_kernels_available(k); k++) {
        CHECK(pc_kernels_select(pc_kernels_available(k)) == 0, "select");
        pc_mlx_affine_ref(q, 1, 8, 8, &s, &b, PC_MLX_T_F32, o1);
        pc_mlx_affine_fast(q, 1, 8, 8, &s, &b, PC_MLX_T_F32, o2);
        for (int i = 0; i < 8; i++)
            CHECK(same(o1[i], want) && same(o2[i], want) && want != 0x3p-23f, "%s f32: %a / %a, want %a", pc_kernels_available(k),
                  (double)o1[i], (double)o2[i], (double)want);
    }
    pc_kernels_reset();
}

static void limit_sparse(void)
{
    char dir[256], p[512];
    test_tmpdir(dir, sizeof dir, "mlx");
    const uint64_t R = 32768, W = 1025; /* 1-bit: in = 32800, R * in > 2^30 */
    uint64_t wb = R * W * 4, sb = R * W * 2;
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr,
                     "{\"m.biases\":{\"dtype\":\"BF16\",\"shape\":[%llu,%llu],\"data_offsets\":[0,%llu]},"
                     "\"m.scales\":{\"dtype\":\"BF16\",\"shape\":[%llu,%llu],\"data_offsets\":[%llu,%llu]},"
                     "\"m.weight\":{\"dtype\":\"U32\",\"shape\":[%llu,%llu],\"data_offsets\":[%llu,%llu]}}",
                     (unsigned long long)R, (unsigned long long)W, (unsigned long long)sb, (unsigned long long)R,
                     (unsigned long long)W, (unsigned long long)sb, (unsigned long long)(2 * sb), (unsigned long long)R,
                     (unsigned long long)W, (unsigned long long)(2 * sb), (unsigned long long)(2 * sb + wb));
    while (n % 8) hdr[n++] = ' ';
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    uint8_t len[8] = {(uint8_t)n, (uint8_t)(n >> 8), 0, 0, 0, 0, 0, 0};
    bool ok = fd >= 0 && write(fd, len, 8) == 8 && write(fd, hdr, (size_t)n) == n && !ftruncate(fd, 8 + n + (off_t)(2 * sb + wb));
    if (fd >= 0) close(fd);
    char cp[512];
    snprintf(cp, sizeof cp, "%s/config.json", dir);
    FILE *f = fopen(cp, "w");
    if (f) { fputs("{\"quantization\": {\"bits\": 1, \"group_size\": 32, \"mode\": \"affine\"}}\n", f); fclose(f); }
    CHECK(ok && f, "write the sparse checkpoint");
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    CHECK(in && pc_rule_status(&cx, pc_rule_find("MLX-007")) == PC_STATUS_FAIL, "MLX-007 fails on a %llu-element module",
          (unsigned long long)(R * W * 32));
    CHECK(in && pc_rule_status(&cx, pc_rule_find("MLX-005")) == PC_STATUS_PASS, "the geometry itself holds");
    pc_input_free(in);
    pc_ctx_free(&cx);
    unlink(p);
    unlink(cp);
    rmdir(dir);
}

int main(void)
{
    oracle_vs_fast();
    rounding_exhaustive();
    edge_groups();
    two_roundings();
    limit_sparse();
    return test_finish();
}
