/* HQQ: the oracle and the fast path held equal on random shapes at every width, both kernel
 * implementations and every compute dtype (zero points and scales drawn from all finite values of
 * T), and the row-block layout checked on a hand-packed tensor. The library-written cases
 * (hqq's HQQLinear and AutoHQQHFModel) live in fixtures/hqq. */
#include "core/util.h"
#include "kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static uint64_t g_rng = 0x243f6a8885a308d3ull;
static uint32_t rnd(void) { return test_xorshift(&g_rng); }

static bool same(float a, float b) { return test_f32_bits(a) == test_f32_bits(b) || (isnan(a) && isnan(b)); }

static float random_t(pc_round_t t)
{
    for (;;) {
        uint16_t h = (uint16_t)rnd();
        float v = t == PC_ROUND_F16 ? pc_f16_to_f32(h) : t == PC_ROUND_BF16 ? pc_bf16_to_f32(h) : (float)(int32_t)rnd() * 0x1p-20f;
        if (isfinite(v)) return v;
    }
}

/* The 4-bit layout by hand: R = 4 rows, C = 2; packed row p holds rows p (high) and p + 2 (low). */
static void hand_packed(void)
{
    const uint8_t packed[4] = {0x1A, 0x2B, 0x3C, 0x4D}; /* [2, 2] */
    const uint8_t want[8] = {0x1, 0x2, 0x3, 0x4, 0xA, 0xB, 0xC, 0xD};
    uint8_t got[8];
    pc_hqq_unpack_ref(packed, 4, 4, 2, got);
    CHECK(!memcmp(got, want, 8), "oracle: rows 0-1 from the high nibbles, rows 2-3 from the low ones");
    pc_hqq_unpack_fast(packed, 4, 4, 2, got);
    CHECK(!memcmp(got, want, 8), "fast: the same");
    /* 3 bits, R = 3 (P = 1, rows 3..9 padding): word 0b000 001 010 011 ... slot j at shift 27 - 3j */
    const uint8_t w3[4] = {0x00, 0x00, 0x00, (1u << 27 | 2u << 24 | 3u << 21) >> 24};
    uint32_t word = 1u << 27 | 2u << 24 | 3u << 21;
    uint8_t b3[4] = {(uint8_t)word, (uint8_t)(word >> 8), (uint8_t)(word >> 16), (uint8_t)(word >> 24)};
    (void)w3;
    uint8_t g3[3];
    pc_hqq_unpack_ref(b3, 3, 3, 1, g3);
    CHECK(g3[0] == 1 && g3[1] == 2 && g3[2] == 3, "3-bit oracle: slots from the top of the word");
    pc_hqq_unpack_fast(b3, 3, 3, 1, g3);
    CHECK(g3[0] == 1 && g3[1] == 2 && g3[2] == 3, "3-bit fast: the same");
}

static void random_case(unsigned b, size_t R, size_t C, int axis, pc_round_t t)
{
    size_t P = pc_hqq_packed_rows(b, R), unit = b == 3 ? 4 : 1, n = R * C, ng = axis == 1 ? R : C;
    uint8_t *src = malloc(P * C * unit + 1), *c1 = malloc(n + 1), *c2 = malloc(n + 1);
    float *z = malloc(ng * 4 + 4), *s = malloc(ng * 4 + 4), *w1 = malloc(n * 4 + 4), *w2 = malloc(n * 4 + 4);
    if (!src || !c1 || !c2 || !z || !s || !w1 || !w2) exit(2);
    for (size_t i = 0; i < P * C * unit; i++) src[i] = (uint8_t)rnd();
    for (size_t g = 0; g < ng; g++) { z[g] = random_t(t); s[g] = random_t(t); }
    pc_hqq_unpack_ref(src, b, R, C, c1);
    pc_hqq_unpack_fast(src, b, R, C, c2);
    CHECK(!memcmp(c1, c2, n), "unpack b=%u R=%zu C=%zu: fast = oracle", b, R, C);
    pc_hqq_dequant_ref(c1, R, C, axis, z, s, t, w1);
    pc_hqq_dequant_fast(c1, R, C, axis, z, s, t, w2);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !same(w1[i], w2[i]);
    CHECK(bad == 0, "dequant b=%u R=%zu C=%zu axis %d T %d: %zu elements differ", b, R, C, axis, (int)t, bad);
    free(src); free(c1); free(c2); free(z); free(s); free(w1); free(w2);
}

/* Rows the AVX2 set decodes by table (axis 1, C a multiple of 32, codes below 16) beside rows it
 * cannot (a code of 16 or more at 8 bits, a NaN entry from a NaN or infinite zero or scale): every
 * T, bit for bit against the oracle, NaN payloads included. */
static void table_rows(void)
{
    static const uint32_t k_edge[] = {0x7fc00000u, 0xffc00001u, 0x7f812345u, 0x7f800000u, 0xff800000u,
                                      0x00000000u, 0x80000000u, 0x00000001u, 0x7f7fffffu, 0x477fe000u};
    static const unsigned k_bits[] = {1, 2, 3, 4, 8};
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int iter = 0; iter < 60; iter++) {
            unsigned b = k_bits[iter % 5];
            pc_round_t t = (pc_round_t)(iter / 5 % 3);
            size_t C = 32 * (1 + rnd() % 4), R = b == 3 ? 1 + rnd() % 60 : pc_hqq_slots(b) * (1 + rnd() % 8), n = R * C;
            size_t P = pc_hqq_packed_rows(b, R), bytes = P * C * (b == 3 ? 4 : 1);
            uint8_t *src = malloc(bytes), *q = malloc(n);
            float *z = malloc(R * 4), *sc = malloc(R * 4), *w1 = malloc(n * 4), *w2 = malloc(n * 4);
            if (!src || !q || !z || !sc || !w1 || !w2) exit(2);
            for (size_t i = 0; i < bytes; i++) src[i] = (uint8_t)rnd();
            pc_hqq_unpack_ref(src, b, R, C, q);
            for (size_t r = 0; r < R; r++) {
                z[r] = random_t(t), sc[r] = random_t(t);
                uint32_t e = k_edge[rnd() % (sizeof k_edge / sizeof *k_edge)];
                float f;
                memcpy(&f, &e, 4);
                if (rnd() % 4 == 0) *(rnd() % 2 ? &z[r] : &sc[r]) = f;
            }
            pc_hqq_dequant_ref(q, R, C, 1, z, sc, t, w1);
            pc_hqq_dequant_fast(q, R, C, 1, z, sc, t, w2);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += test_f32_bits(w1[i]) != test_f32_bits(w2[i]);
            CHECK(bad == 0, "%s: b=%u R=%zu C=%zu T %d: %zu elements differ in their bits", impl, b, R, C, (int)t, bad);
            free(src); free(q); free(z); free(sc); free(w1); free(w2);
        }
    }
    pc_kernels_reset();
}

/* 3-bit words on larger and odd shapes: the AVX2 set's 32-word steps, the row block that ends
 * inside a step (R not a multiple of 10), the portable tail. */
static void three_bit_shapes(void)
{
    static const size_t k_cols[] = {1, 3, 31, 32, 33, 64, 100, 257};
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (size_t ci = 0; ci < sizeof k_cols / sizeof *k_cols; ci++)
            for (int it = 0; it < 6; it++) {
                size_t C = k_cols[ci], R = 1 + rnd() % 320, P = pc_hqq_packed_rows(3, R), n = R * C;
                uint8_t *src = malloc(P * C * 4), *c1 = malloc(n), *c2 = malloc(n + 64);
                if (!src || !c1 || !c2) exit(2);
                for (size_t i = 0; i < P * C * 4; i++) src[i] = (uint8_t)rnd();
                memset(c2, 0xEE, n + 64);
                pc_hqq_unpack_ref(src, 3, R, C, c1);
                pc_hqq_unpack_fast(src, 3, R, C, c2);
                bool past = false;
                for (size_t i = n; i < n + 64; i++) past |= c2[i] != 0xEE;
                CHECK(!memcmp(c1, c2, n) && !past, "%s: 3-bit R=%zu C=%zu: fast = oracle, nothing written past R*C", impl, R, C);
                free(src); free(c1); free(c2);
            }
    }
    pc_kernels_reset();
}

int main(void)
{
    table_rows();
    three_bit_shapes();
    hand_packed();
    static const unsigned k_bits[] = {1, 2, 3, 4, 8};
    for (int impl = 0; impl < 2; impl++) {
        const char *name = pc_kernels_available((size_t)impl);
        if (!name || pc_kernels_select(name)) continue;
        for (size_t bi = 0; bi < sizeof k_bits / sizeof *k_bits; bi++)
            for (int r = 0; r < 12; r++) {
                unsigned b = k_bits[bi];
                size_t S = pc_hqq_slots(b), R = b == 3 ? 1 + rnd() % 97 : S * (1 + rnd() % 24), C = 1 + rnd() % 70;
                random_case(b, R, C, r % 2, (pc_round_t)(r % 3));
            }
    }
    pc_kernels_reset();
    return test_finish();
}
