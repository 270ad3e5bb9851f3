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
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static bool same(float a, float b) { return u_of(a) == u_of(b) || (isnan(a) && isnan(b)); }

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

int main(void)
{
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
