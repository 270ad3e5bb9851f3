/* AMD Quark: the element grids against the OCP MX values, the int4 slot order of both pack methods
 * on a hand-packed word, and the fast path held equal to the oracle on random shapes (partial MX
 * blocks, N not a multiple of 8). The library-written cases live in fixtures/quark. */
#include "kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static uint64_t g_rng = 0x13198a2e03707344ull;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* OCP MX v1.0 table 2/3: largest normals, smallest subnormals, a sign. */
static void grids(void)
{
    CHECK(pc_qk_elem_value_ref(PC_QK_FP4, 0x7) == 6.0f && pc_qk_elem_value_ref(PC_QK_FP4, 0x1) == 0.5f, "E2M1 max 6, min 0.5");
    CHECK(pc_qk_elem_value_ref(PC_QK_E2M3, 0x1F) == 7.5f && pc_qk_elem_value_ref(PC_QK_E2M3, 0x01) == 0.125f, "E2M3 max 7.5, min 0.125");
    CHECK(pc_qk_elem_value_ref(PC_QK_E3M2, 0x1F) == 28.0f && pc_qk_elem_value_ref(PC_QK_E3M2, 0x01) == 0.0625f, "E3M2 max 28, min 0.0625");
    CHECK(pc_qk_elem_value_ref(PC_QK_E2M3, 0x28) == -1.0f && u_of(pc_qk_elem_value_ref(PC_QK_E3M2, 0x20)) == 0x80000000u, "sign bit 5: -1, -0");
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

static void random_mx(pc_qk_elem k, size_t rows, size_t K)
{
    size_t n = rows * K, S = (K + 31) / 32;
    uint8_t *c = malloc(n), *e = malloc(rows * S);
    float *a = malloc(n * 4), *b = malloc(n * 4);
    for (size_t i = 0; i < n; i++) c[i] = (uint8_t)(rnd() & ((1u << pc_qk_elem_bits(k)) - 1));
    for (size_t i = 0; i < rows * S; i++) e[i] = (uint8_t)(rnd() % 255);
    pc_qk_mx_dequant_ref(c, rows, K, k, e, a);
    pc_qk_mx_dequant_fast(c, rows, K, k, e, b);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += u_of(a[i]) != u_of(b[i]);
    CHECK(bad == 0, "mx kind %d rows %zu K %zu: %zu elements differ", (int)k, rows, K, bad);
    free(c); free(e); free(a); free(b);
}

static void random_int4(size_t N, size_t K, size_t g, bool reorder)
{
    size_t W = (N + 7) / 8, G = K / g;
    uint8_t *src = malloc(K * W * 4), *c1 = malloc(N * K), *c2 = malloc(N * K);
    float *s = malloc(N * G * 4), *a = malloc(N * K * 4), *b = malloc(N * K * 4);
    int8_t *z = malloc(N * G);
    for (size_t i = 0; i < K * W * 4; i++) src[i] = (uint8_t)rnd();
    for (size_t i = 0; i < N * G; i++) { s[i] = (float)(int32_t)rnd() * 0x1p-30f; z[i] = (int8_t)(rnd() % 16) - 8; }
    pc_qk_int4_unpack_ref(src, K, N, reorder, c1);
    pc_qk_int4_unpack_fast(src, K, N, reorder, c2);
    CHECK(!memcmp(c1, c2, N * K), "int4 unpack N %zu K %zu reorder %d: fast = oracle", N, K, reorder);
    pc_qk_int4_dequant_ref(c1, N, K, g, true, s, z, a);
    pc_qk_int4_dequant_fast(c1, N, K, g, true, s, z, b);
    size_t bad = 0;
    for (size_t i = 0; i < N * K; i++) bad += u_of(a[i]) != u_of(b[i]);
    CHECK(bad == 0, "int4 dequant N %zu K %zu g %zu: %zu elements differ", N, K, g, bad);
    free(src); free(c1); free(c2); free(s); free(a); free(b); free(z);
}

int main(void)
{
    grids();
    slot_order();
    const pc_qk_elem kinds[3] = {PC_QK_FP4, PC_QK_E2M3, PC_QK_E3M2};
    for (int t = 0; t < 3; t++) {
        random_mx(kinds[t], 5, 64);
        random_mx(kinds[t], 3, 40); /* a partial block of 8 */
    }
    random_int4(24, 64, 32, true);
    random_int4(12, 96, 32, false); /* N not a multiple of 8: the last word half used */
    random_int4(20, 128, 64, true);
    random_int4(8, 96, 12, true); /* a group not a multiple of 8: the portable path */
    return test_finish();
}
