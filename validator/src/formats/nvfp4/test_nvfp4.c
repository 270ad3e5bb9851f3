/* NVFP4 kernels and the equiv tolerance parser: the E2M1 table (FORMATS.md 4.1), nibble order,
 * the fast dequantizer against the oracle on random shapes, and tolerance strings. */
#include "harness/equiv.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"


static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) { return test_xorshift(&rng_state); }

static void test_table(void)
{
    static const float mags[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (uint8_t c = 0; c < 16; c++) {
        float v = pc_e2m1_value(c);
        CHECK(fabsf(v) == mags[c & 7], "code %u magnitude %g", c, (double)v);
        CHECK((signbit(v) != 0) == ((c & 8) != 0), "code %u sign", c);
    }
    CHECK(bits(pc_e2m1_value(8)) == 0x80000000u, "code 8 is -0.0");
}

static void test_nibble_order(void)
{
    /* FORMATS.md 4.7: [0 .5 1 1.5 2 3 4 6 | -0 -.5 ...] packs to 10 32 54 76 98 ba dc fe. */
    const uint8_t packed[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
    uint8_t ref[16], fast[16];
    pc_stream_unpack_ref(packed, 4, 16, ref);
    pc_stream_unpack_fast(packed, 4, 16, fast);
    for (int i = 0; i < 16; i++) CHECK(ref[i] == i && fast[i] == i, "element %d: ref %u fast %u", i, ref[i], fast[i]);
}

static void test_dequant_random(void)
{
    for (int t = 0; t < 200; t++) {
        size_t rows = 1 + rnd() % 9, cols = 16 * (1 + rnd() % 7), n = rows * cols, g = n / 16;
        uint8_t *codes = malloc(n);
        float *s = malloc(g * sizeof *s), *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        for (size_t i = 0; i < n; i++) codes[i] = (uint8_t)(rnd() & 0xff); /* high bits must be ignored */
        for (size_t i = 0; i < g; i++) {
            uint32_t u = (rnd() & 0x7fffffu) | ((uint32_t)(100 + rnd() % 50) << 23);
            memcpy(&s[i], &u, 4);
        }
        pc_nvfp4_dequant_ref(codes, rows, cols, s, a);
        pc_nvfp4_dequant_fast(codes, rows, cols, s, b);
        pc_nvfp4_dequant_scalar(codes, rows, cols, s, c);
        CHECK(!memcmp(a, b, n * sizeof *a), "fast dequant differs from the oracle (%zu x %zu)", rows, cols);
        CHECK(!memcmp(a, c, n * sizeof *a), "scalar fast dequant differs from the oracle (%zu x %zu)", rows, cols);
        size_t i = rnd() % n;
        float want = pc_e2m1_value(codes[i] & 15) * s[(i / cols) * (cols / 16) + (i % cols) / 16];
        CHECK(bits(a[i]) == bits(want), "oracle element %zu", i);
        free(codes); free(s); free(a); free(b); free(c);
    }
}

/* Outputs of 1 MiB and more take the streaming-store path when 32-byte aligned: same bits as the
 * oracle, aligned (streamed) and 4 bytes off (plain stores), nothing written past the end. */
static void test_dequant_large(void)
{
    size_t rows = 70, cols = 4096, n = rows * cols, g = n / 16;
    uint8_t *codes = malloc(n);
    float *s = malloc(g * sizeof *s), *a = malloc(n * sizeof *a), *b = aligned_alloc(64, (n + 16) * sizeof *b);
    CHECK(codes && s && a && b, "allocation");
    if (!codes || !s || !a || !b) return;
    for (size_t i = 0; i < n; i++) codes[i] = (uint8_t)rnd();
    for (size_t i = 0; i < g; i++) s[i] = 0.25f + (float)(rnd() % 64);
    pc_nvfp4_dequant_ref(codes, rows, cols, s, a);
    for (int shift = 0; shift < 2; shift++) {
        memset(b, 0, (n + 16) * sizeof *b);
        b[n + shift] = 42.0f;
        pc_nvfp4_dequant_fast(codes, rows, cols, s, b + shift);
        CHECK(!memcmp(a, b + shift, n * sizeof *a), "large dequant differs from the oracle (shift %d)", shift);
        CHECK(b[n + shift] == 42.0f, "nothing past the large output (shift %d)", shift);
    }
    free(codes); free(s); free(a); free(b);
}

static void test_tolerance(void)
{
    pc_tolerance t;
    CHECK(pc_tolerance_parse("exact", &t) == 0 && t.kind == PC_TOL_EXACT && t.given, "exact");
    CHECK(pc_tolerance_parse("ulp:4", &t) == 0 && t.kind == PC_TOL_ULP && t.value == 4, "ulp:4");
    CHECK(!strcmp(pc_tolerance_str(&t), "ulp:4"), "ulp:4 round trip");
    CHECK(pc_tolerance_parse("abs:1e-3", &t) == 0 && t.kind == PC_TOL_ABS, "abs");
    CHECK(pc_tolerance_parse("rel:0.5", &t) == 0 && t.kind == PC_TOL_REL, "rel");
    const char *bad[] = {"", "ulp:", "ulp:1.5", "ulp:-1", "abs:nan", "abs:inf", "rel:1x", "fuzzy", "ulp:99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(pc_tolerance_parse(bad[i], &t) != 0, "\"%s\" is rejected", bad[i]);
}

int main(void)
{
    test_table();
    test_nibble_order();
    test_dequant_random();
    test_dequant_large();
    test_tolerance();
    return test_finish();
}
