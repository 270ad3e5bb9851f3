/* AMD Quark: the element grids against the OCP MX values, the int4 slot order of both pack methods
 * on a hand-packed word, and the fast path held equal to the oracle under every kernel set this CPU
 * runs (scalar, AVX2) on random shapes (partial MX blocks, rows shorter than a block, N not a
 * multiple of 8, groups not a multiple of 8), on every code value under every E8M0 scale (255
 * included: inf scale, NaN for a zero element; 0: a subnormal scale), on code bytes with bits above
 * the element set, and with every input ending at a PROT_NONE page (an over-read faults).
 * The streamed (DRAM-size) outputs are test_kernels_nt's. The library-written cases live in
 * fixtures/quark. */
#include "kernels.h"
#include "kernels/simd.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "testlib.h"

static uint64_t g_rng = 0x13198a2e03707344ull;
static uint32_t rnd(void) { return test_xorshift(&g_rng); }


/* A copy of in[0..n) that ends exactly at a PROT_NONE page. */
#define GUARD_SPAN ((size_t)1 << 20)
static uint8_t *g_guard_end;
static void *guarded(const void *in, size_t n)
{
    if (n > GUARD_SPAN) { printf("FAIL input of %zu bytes exceeds the guard span\n", n); exit(2); }
    memcpy(g_guard_end - n, in, n);
    return g_guard_end - n;
}

static size_t differ(const float *a, const float *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += test_f32_bits(a[i]) != test_f32_bits(b[i]);
    return bad;
}

/* OCP MX v1.0 table 2/3: largest normals, smallest subnormals, a sign. */
static void grids(void)
{
    CHECK(pc_qk_elem_value_ref(PC_QK_FP4, 0x7) == 6.0f && pc_qk_elem_value_ref(PC_QK_FP4, 0x1) == 0.5f, "E2M1 max 6, min 0.5");
    CHECK(pc_qk_elem_value_ref(PC_QK_E2M3, 0x1F) == 7.5f && pc_qk_elem_value_ref(PC_QK_E2M3, 0x01) == 0.125f, "E2M3 max 7.5, min 0.125");
    CHECK(pc_qk_elem_value_ref(PC_QK_E3M2, 0x1F) == 28.0f && pc_qk_elem_value_ref(PC_QK_E3M2, 0x01) == 0.0625f, "E3M2 max 28, min 0.0625");
    CHECK(pc_qk_elem_value_ref(PC_QK_E2M3, 0x28) == -1.0f && test_f32_bits(pc_qk_elem_value_ref(PC_QK_E3M2, 0x20)) == 0x80000000u, "sign bit 5: -1, -0");
}

/* One word 0x76543210 of a [1, 8] weight: order puts nibble i at element i, reorder at 0,2,4,6,1,3,5,7. */
static void slot_order(void)
{
    const uint8_t word[4] = {0x10, 0x32, 0x54, 0x76};
    uint8_t o[8], r[8], f[8];
    const uint8_t want_r[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    pc_qk_int4_unpack_ref(word, 1, 8, false, o);
    pc_qk_int4_unpack_ref(word, 1, 8, true, r);
    pc_qk_int4_unpack_fast(word, 1, 8, true, f);
    CHECK(o[0] == 0 && o[7] == 7 && o[3] == 3, "order: nibble i is element i");
    CHECK(!memcmp(r, want_r, 8), "reorder: element 2 in nibble 1, element 1 in nibble 4");
    CHECK(!memcmp(r, f, 8), "reorder fast = oracle");
}

/* The fast path against the oracle on codes c and scales e, under every kernel set; the codes are
 * read from the guard page. */
static void check_mx(pc_qk_elem k, const uint8_t *c, size_t rows, size_t K, const uint8_t *e, const char *what)
{
    size_t n = rows * K;
    float *a = malloc(n * 4 + 4), *b = malloc(n * 4 + 4);
    if (!a || !b) exit(2);
    pc_qk_mx_dequant_ref(c, rows, K, k, e, a);
    for (size_t i = 0; pc_kernels_available(i); i++) {
        pc_kernels_select(pc_kernels_available(i));
        memset(b, 0xA5, n * 4 + 4);
        pc_qk_mx_dequant_fast(guarded(c, n), rows, K, k, e, b);
        CHECK(differ(a, b, n) == 0, "mx %s kind %d rows %zu K %zu [%s]: %zu elements differ", what, (int)k, rows, K,
              pc_kernels_name(), differ(a, b, n));
        CHECK(test_f32_bits(b[n]) == 0xA5A5A5A5u, "mx %s kind %d [%s]: wrote past the output", what, (int)k, pc_kernels_name());
    }
    pc_kernels_reset();
    free(a); free(b);
}

static void random_mx(pc_qk_elem k, size_t rows, size_t K)
{
    size_t n = rows * K, S = (K + 31) / 32;
    uint8_t *c = malloc(n + 1), *e = malloc(rows * S);
    if (!c || !e) exit(2);
    for (size_t i = 0; i < n; i++) c[i] = (uint8_t)(rnd() & ((1u << pc_qk_elem_bits(k)) - 1));
    for (size_t i = 0; i < rows * S; i++) e[i] = (uint8_t)(rnd() % 255);
    check_mx(k, c, rows, K, e, "random");
    for (size_t i = 0; i < n; i++) c[i] = (uint8_t)rnd(); /* bits above the element: ignored, as the oracle does */
    check_mx(k, c, rows, K, e, "wide bytes");
    free(c); free(e);
}

/* Every code value in every lane position under every E8M0 byte 0..255: 256 rows of one block
 * each, the codes of row r rotated by r so each code meets each of the 32 positions. */
static void every_code_mx(pc_qk_elem k)
{
    unsigned ncodes = 1u << pc_qk_elem_bits(k);
    size_t rows = 256 * 2, K = 32; /* two rows per scale: codes 0..31 and 32..63 (E2M1 repeats) */
    uint8_t *c = malloc(rows * K), e[512];
    if (!c) exit(2);
    for (size_t r = 0; r < rows; r++) {
        e[r] = (uint8_t)(r / 2);
        for (size_t j = 0; j < K; j++) c[r * K + j] = (uint8_t)(((r % 2) * 32 + (j + r / 2) % 32) % ncodes);
    }
    check_mx(k, c, rows, K, e, "every code x every scale");
    free(c);
}

static void check_int4(size_t N, size_t K, size_t g, bool is_signed, const uint8_t *c, const float *s, const int8_t *z,
                       const char *what)
{
    size_t n = N * K;
    float *a = malloc(n * 4 + 4), *b = malloc(n * 4 + 4);
    if (!a || !b) exit(2);
    pc_qk_int4_dequant_ref(c, N, K, g, is_signed, s, z, a);
    for (size_t i = 0; pc_kernels_available(i); i++) {
        pc_kernels_select(pc_kernels_available(i));
        memset(b, 0xA5, n * 4 + 4);
        pc_qk_int4_dequant_fast(guarded(c, n), N, K, g, is_signed, s, z, b);
        CHECK(differ(a, b, n) == 0, "int4 %s N %zu K %zu g %zu signed %d [%s]: %zu elements differ", what, N, K, g, is_signed,
              pc_kernels_name(), differ(a, b, n));
        CHECK(test_f32_bits(b[n]) == 0xA5A5A5A5u, "int4 %s [%s]: wrote past the output", what, pc_kernels_name());
    }
    pc_kernels_reset();
    free(a); free(b);
}

static void random_int4(size_t N, size_t K, size_t g, bool reorder)
{
    size_t W = (N + 7) / 8, G = K / g;
    uint8_t *src = malloc(K * W * 4), *c1 = malloc(N * K), *c2 = malloc(N * K);
    float *s = malloc(N * G * 4);
    int8_t *z = malloc(N * G);
    if (!src || !c1 || !c2 || !s || !z) exit(2);
    for (size_t i = 0; i < K * W * 4; i++) src[i] = (uint8_t)rnd();
    for (size_t i = 0; i < N * G; i++) { s[i] = (float)(int32_t)rnd() * 0x1p-30f; z[i] = (int8_t)(rnd() % 16) - 8; }
    pc_qk_int4_unpack_ref(src, K, N, reorder, c1);
    for (size_t i = 0; pc_kernels_available(i); i++) {
        pc_kernels_select(pc_kernels_available(i));
        memset(c2, 0xA5, N * K);
        pc_qk_int4_unpack_fast(guarded(src, K * W * 4), K, N, reorder, c2);
        CHECK(!memcmp(c1, c2, N * K), "int4 unpack N %zu K %zu reorder %d [%s]: fast = oracle", N, K, reorder, pc_kernels_name());
    }
    pc_kernels_reset();
    check_int4(N, K, g, true, c1, s, z, "signed");
    for (size_t i = 0; i < N * G; i++) z[i] = (int8_t)(rnd() % 16); /* uint4: zero points 0..15 */
    check_int4(N, K, g, false, c1, s, z, "unsigned");
    for (size_t i = 0; i < N * G; i++) z[i] = (int8_t)rnd(); /* any int8 zero point */
    check_int4(N, K, g, true, c1, s, z, "wide zero");
    free(src); free(c1); free(c2); free(s); free(z);
}

/* Every nibble under zero points -128..127 and scales that are zero, negative, subnormal, huge
 * (overflow to inf), inf and NaN: one group of 16 codes per (zero, scale). */
static void every_code_int4(void)
{
    static const float k_scales[] = {0.0f, -0.0f, 1.0f, -0.37f, 0x1p-140f, 0x1p125f, 1.0f / 0.0f, -1.0f / 0.0f, 0.0f / 0.0f, 3.1e-3f};
    size_t ns = sizeof k_scales / sizeof *k_scales, N = 256, g = 16, K = g * ns;
    uint8_t *c = malloc(N * K);
    float *s = malloc(N * ns * 4);
    int8_t *z = malloc(N * ns);
    if (!c || !s || !z) exit(2);
    for (size_t n = 0; n < N; n++)
        for (size_t j = 0; j < ns; j++) {
            s[n * ns + j] = k_scales[j];
            z[n * ns + j] = (int8_t)(n - 128);
            for (size_t i = 0; i < g; i++) c[n * K + j * g + i] = (uint8_t)((i + n + j) % 16);
        }
    check_int4(N, K, g, true, c, s, z, "every code");
    check_int4(N, K, g, false, c, s, z, "every code");
    free(c); free(s); free(z);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, GUARD_SPAN + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + GUARD_SPAN, (size_t)page, PROT_NONE)) { perror("mmap"); return 2; }
    g_guard_end = map + GUARD_SPAN;
    grids();
    slot_order();
    const pc_qk_elem kinds[3] = {PC_QK_FP4, PC_QK_E2M3, PC_QK_E3M2};
    for (int t = 0; t < 3; t++) {
        every_code_mx(kinds[t]);
        random_mx(kinds[t], 5, 64);
        random_mx(kinds[t], 3, 40);  /* a partial block of 8 */
        random_mx(kinds[t], 7, 100); /* a partial block of 4, rows not 32-byte aligned */
        random_mx(kinds[t], 9, 7);   /* rows shorter than a block */
        random_mx(kinds[t], 1, 1);
        random_mx(kinds[t], 33, 4096 + 96);
    }
    random_int4(24, 64, 32, true);
    random_int4(12, 96, 32, false); /* N not a multiple of 8: the last word half used */
    random_int4(20, 128, 64, true);
    random_int4(8, 96, 12, true);  /* a group not a multiple of 8: vector steps and a scalar tail */
    random_int4(13, 60, 20, false); /* odd N, g 20 */
    random_int4(3, 35, 5, true);    /* g 5: scalar only */
    random_int4(5, 512, 512, true);  /* one group a row, longer than the unrolled step */
    random_int4(31, 6000, 40, false);
    every_code_int4();
    return test_finish();
}
