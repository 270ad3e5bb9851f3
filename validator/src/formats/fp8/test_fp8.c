/* FP8 E4M3 / INT8 kernels (formats/fp8.c): the oracle against the E4M3 worked values and all 256
 * encodings of core's decoder; the fast path of every kernel set the CPU runs against the oracle on
 * random shapes and scale grids (partial edge blocks, bh/bw from 1 to past the matrix), every source
 * and destination misalignment, NaN encodings, with and without zero points. */
#include "kernels/kernels.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }

static float ref1(uint8_t v)
{
    float s = 1.0f, o;
    pc_fp8_dequant_ref(&v, 1, 1, 1, 1, &s, &o);
    return o;
}

static void worked_values(void)
{
    CHECK(ref1(0x00) == 0.0f && !signbit(ref1(0x00)), "0x00 = +0");
    CHECK(ref1(0x80) == 0.0f && signbit(ref1(0x80)), "0x80 = -0");
    CHECK(ref1(0x01) == 0x1p-9f, "0x01 = 2^-9 (smallest subnormal)");
    CHECK(ref1(0x07) == 7 * 0x1p-9f, "0x07 = 7 * 2^-9");
    CHECK(ref1(0x08) == 0x1p-6f, "0x08 = 2^-6 (smallest normal)");
    CHECK(ref1(0x38) == 1.0f, "0x38 = 1");
    CHECK(ref1(0x7E) == 448.0f && ref1(0xFE) == -448.0f, "0x7E = 448, 0xFE = -448 (largest)");
    CHECK(isnan(ref1(0x7F)) && isnan(ref1(0xFF)), "0x7F, 0xFF are NaN");
    int same = 0;
    for (int v = 0; v < 256; v++) {
        float a = ref1((uint8_t)v), b = pc_f8e4m3_to_f32((uint8_t)v);
        same += (isnan(a) && isnan(b)) || !memcmp(&a, &b, 4);
    }
    CHECK(same == 256, "oracle = core decoder on all 256 encodings (%d)", same);
    uint8_t q[3] = {0x80, 0x7F, 0x00}; /* int8: -128, 127, 0 */
    float s[1] = {0.5f}, o[3];
    int8_t z[1] = {-3};
    pc_int8_dequant_ref(q, 1, 3, 1, 3, s, z, o);
    CHECK(o[0] == -62.5f && o[1] == 65.0f && o[2] == 1.5f, "int8 (q - zp) * s: %g %g %g", o[0], o[1], o[2]);
}

static int same_f32(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isnan(a[i]) && isnan(b[i])) && memcmp(&a[i], &b[i], 4)) return 0;
    return 1;
}

static size_t pick_block(size_t dim)
{
    switch (rnd() % 5) {
    case 0: return 1;
    case 1: return dim ? dim : 1;          /* tensor / channel */
    case 2: return dim + 1 + rnd() % 7;    /* one partial block */
    case 3: return 128;
    default: return 1 + rnd() % 40;
    }
}

static void property(void)
{
    enum { MAXR = 37, MAXC = 300, PAD = 64 };
    uint8_t *src = malloc(MAXR * MAXC + PAD);
    float *ro = malloc((MAXR * MAXC + PAD) * sizeof *ro), *fo = malloc((MAXR * MAXC + PAD) * sizeof *fo);
    float *sc = malloc(MAXR * MAXC * sizeof *sc);
    int8_t *zp = malloc(MAXR * MAXC);
    if (!src || !ro || !fo || !sc || !zp) { CHECK(0, "oom"); return; }
    for (size_t ks = 0; pc_kernels_available(ks); ks++) {
        const char *name = pc_kernels_available(ks);
        CHECK(pc_kernels_select(name) == 0, "select %s", name);
        int bad = 0, runs = 0;
        for (int it = 0; it < 1500; it++) {
            size_t rows = 1 + rnd() % MAXR, cols = 1 + rnd() % MAXC, bh = pick_block(rows), bw = pick_block(cols);
            size_t so = rnd() % 32, doff = rnd() % 32, gr = (rows + bh - 1) / bh, gc = (cols + bw - 1) / bw;
            for (size_t i = 0; i < rows * cols; i++) src[so + i] = (uint8_t)rnd();
            if (it % 3 == 0) for (size_t i = 0; i < rows * cols; i += 1 + rnd() % 16) src[so + i] |= 0x7F; /* NaNs */
            for (size_t i = 0; i < gr * gc; i++) {
                uint32_t u = (uint32_t)rnd();
                u = (u & 0x807FFFFFu) | ((uint32_t)(100 + rnd() % 56) << 23); /* 2^-27 .. 2^28, both signs */
                memcpy(&sc[i], &u, 4);
                zp[i] = (int8_t)rnd();
            }
            memset(ro, 0xA5, (MAXR * MAXC + PAD) * sizeof *ro);
            memset(fo, 0xA5, (MAXR * MAXC + PAD) * sizeof *fo);
            if (it & 1) {
                pc_fp8_dequant_ref(src + so, rows, cols, bh, bw, sc, ro + doff);
                pc_fp8_dequant_fast(src + so, rows, cols, bh, bw, sc, fo + doff);
            } else {
                const int8_t *z = it % 4 == 0 ? NULL : zp;
                pc_int8_dequant_ref(src + so, rows, cols, bh, bw, sc, z, ro + doff);
                pc_int8_dequant_fast(src + so, rows, cols, bh, bw, sc, z, fo + doff);
            }
            /* equal, and neither wrote outside [doff, doff + rows * cols) */
            bad += !same_f32(ro, fo, MAXR * MAXC + PAD) || memcmp(&fo[doff + rows * cols], &(uint32_t){0xA5A5A5A5u}, 4) ||
                   (doff && memcmp(&fo[doff - 1], &(uint32_t){0xA5A5A5A5u}, 4));
            runs++;
        }
        CHECK(bad == 0, "%s: fast = oracle on %d random shapes (%d differ)", name, runs, bad);
    }
    pc_kernels_reset();
    free(src); free(ro); free(fo); free(sc); free(zp);
}

/* Every encoding under scales that stress the F16C path's (x * 2^-8) * (s * 2^8) (subnormal,
 * near 2^120 where s * 2^8 overflows, the largest finite, inf, NaN, zero, both signs), at every
 * source and destination misalignment 0..31 and every run length 0..80 (vector body and tails):
 * bit-identical to the oracle, NaN payloads included (except a NaN byte times a NaN scale: which
 * operand's payload survives is the compiler's operand order, C does not fix it), nothing written
 * past the run. */
static int same_bits(const float *a, const float *b, size_t n, float sc)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], 4) && !(isnan(sc) && isnan(a[i]) && isnan(b[i]))) return 0;
    return 1;
}

static void all_encodings_misaligned(void)
{
    static const uint32_t sbits[] = {0x3F800000u, 0x00000001u, 0x00400000u, 0x00800000u, 0x7B800000u, 0x7B7FFFFFu,
                                     0x7C000000u, 0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u, 0x00000000u, 0x3A83126Fu};
    enum { N = 256 + 80, PAD = 32 };
    uint8_t src[N + PAD];
    float ro[N + PAD], fo[N + PAD];
    for (size_t ks = 0; pc_kernels_available(ks); ks++) {
        const char *name = pc_kernels_available(ks);
        CHECK(pc_kernels_select(name) == 0, "select %s", name);
        int bad = 0, runs = 0;
        for (size_t si = 0; si < sizeof sbits / sizeof *sbits; si++)
            for (int neg = 0; neg < 2; neg++) {
                float sc;
                uint32_t u = sbits[si] | (neg ? 0x80000000u : 0);
                memcpy(&sc, &u, 4);
                for (size_t so = 0; so < PAD; so++) {
                    size_t doff = (so * 7 + si) % PAD;
                    for (size_t i = 0; i < N; i++) src[so + i] = (uint8_t)(i + so);
                    memset(ro, 0xA5, sizeof ro);
                    memset(fo, 0xA5, sizeof fo);
                    pc_fp8_dequant_ref(src + so, 1, N, 1, N, &sc, ro + doff);
                    pc_fp8_dequant_fast(src + so, 1, N, 1, N, &sc, fo + doff);
                    bad += !same_bits(ro, fo, N + PAD, sc);
                    runs++;
                }
                for (size_t len = 0; len <= 80; len++) {
                    size_t so = len % PAD, doff = (len * 3) % PAD;
                    for (size_t i = 0; i < len; i++) src[so + i] = (uint8_t)(i * 29 + len);
                    memset(ro, 0xA5, sizeof ro);
                    memset(fo, 0xA5, sizeof fo);
                    if (len) {
                        pc_fp8_dequant_ref(src + so, 1, len, 1, len, &sc, ro + doff);
                        pc_fp8_dequant_fast(src + so, 1, len, 1, len, &sc, fo + doff);
                    }
                    bad += !same_bits(ro, fo, N + PAD, sc);
                    runs++;
                }
            }
        CHECK(bad == 0, "%s: fast = oracle bit for bit, 256 encodings x 24 scales x 32 misalignments + lengths 0..80 (%d of %d differ)",
              name, bad, runs);
    }
    pc_kernels_reset();
}

int main(void)
{
    worked_values();
    all_encodings_misaligned();
    property();
    return test_finish();
}
