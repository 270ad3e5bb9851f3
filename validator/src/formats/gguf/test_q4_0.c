/* Q4_0 kernels: the fast decoder against the oracle on random blocks of every kind (random fp16
 * scales including subnormals, zeros, infinities and NaNs; random nibbles; random counts and
 * NULL outputs), and the oracle against FORMATS.md 7.6's worked vectors. */
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"


static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }

static void worked_vectors(void)
{
    static const uint8_t qs[16] = {0x80, 0x91, 0x91, 0xa2, 0xa2, 0xb3, 0xb3, 0xc4, 0xc4, 0xd5, 0xd5, 0xe6, 0xe6, 0xf7, 0xf7, 0xf8};
    uint8_t blk[4][18];
    memset(blk, 0, sizeof blk);
    blk[0][1] = 0x80; memset(blk[0] + 2, 0x88, 16);          /* all zero: d = -0.0 */
    blk[1][1] = 0x40; memcpy(blk[1] + 2, qs, 16);            /* x_j = j - 16, d = +2 */
    blk[2][1] = 0xc0; memcpy(blk[2] + 2, qs, 16);            /* x_j = 16 - j, d = -2 */
    blk[3][0] = 0x46; blk[3][1] = 0xf0; blk[3][2] = 0x80; memset(blk[3] + 3, 0x88, 15); /* 70000: d = -8752 */
    uint8_t codes[128];
    float w[128];
    pc_q4_0_decode_ref(&blk[0][0], 4, codes, w);
    int ok = 1;
    for (int j = 0; j < 32; j++) {
        ok &= w[j] == 0.0f && (memcmp(&w[j], &(float){-0.0f}, 4) == 0) == (codes[j] <= 8);
        ok &= w[64 + j] == -w[32 + j];                      /* same codes, d negated */
        ok &= w[96 + j] == (j == 0 ? 70016.0f : -0.0f);
    }
    CHECK(ok, "worked vectors");
    /* x_1 = -15 rounds half up in code space: code 1, -14 (FORMATS.md 7.5) */
    CHECK(w[32] == -16.0f && w[33] == -14.0f && w[48] == 0.0f && w[63] == 14.0f, "x_j = j - 16: %g %g %g %g", w[32], w[33], w[48], w[63]);
    CHECK(codes[32] == 0 && codes[48] == 8 && codes[63] == 15, "codes of x_j = j - 16");
}

static void property(void)
{
    enum { MAXB = 257 };
    uint8_t *src = malloc(MAXB * 18), rc[MAXB * 32], fc[MAXB * 32];
    float rw[MAXB * 32], fw[MAXB * 32];
    int bad = 0;
    for (int iter = 0; iter < 2000 && src; iter++) {
        size_t nb = rnd() % MAXB;
        for (size_t i = 0; i < nb * 18; i++) src[i] = (uint8_t)rnd();
        for (size_t b = 0; b < nb; b++) {
            uint64_t r = rnd() % 8;  /* steer some scales to the edge cases */
            if (r == 0) src[18 * b + 1] &= 0x83;        /* subnormal or zero exponent */
            if (r == 1) src[18 * b + 1] |= 0x7c;        /* inf / NaN exponent */
            if (r == 2) src[18 * b] = 0, src[18 * b + 1] &= 0x80; /* +-0 */
        }
        int mode = (int)(rnd() % 3); /* both outputs, codes only, weights only */
        memset(rc, 0xAA, sizeof rc); memset(fc, 0x55, sizeof fc);
        pc_q4_0_decode_ref(src, nb, mode == 2 ? NULL : rc, mode == 1 ? NULL : rw);
        pc_q4_0_decode_fast(src, nb, mode == 2 ? NULL : fc, mode == 1 ? NULL : fw);
        if (mode != 2 && memcmp(rc, fc, nb * 32)) bad++;
        if (mode != 1 && memcmp(rw, fw, nb * 32 * sizeof *rw)) bad++;
        /* neither writes past its output */
        if (mode != 2 && nb < MAXB && (rc[nb * 32] != 0xAA || fc[nb * 32] != 0x55)) bad++;
    }
    CHECK(bad == 0, "fast differs from the oracle in %d runs", bad);
    free(src);
}

/* Outputs of 8 MiB and more take the streaming-store path (non-temporal, 32-byte-aligned
 * destination only): the same bits as the oracle there too, with and without codes, aligned and
 * not, and nothing written past the end. */
static void large_outputs(void)
{
    size_t nb = ((size_t)8 << 20) / 128 + 7;
    uint8_t *src = malloc(nb * 18), *rc = malloc(nb * 32), *fc = malloc(nb * 32);
    float *rw = aligned_alloc(64, (nb * 32 + 16) * sizeof *rw), *fw = aligned_alloc(64, (nb * 32 + 16) * sizeof *fw);
    CHECK(src && rc && fc && rw && fw, "allocation");
    if (!src || !rc || !fc || !rw || !fw) return;
    for (size_t i = 0; i < nb * 18; i++) src[i] = (uint8_t)rnd();
    for (size_t b = 0; b < nb; b += 97) src[18 * b + 1] |= 0x7c; /* some inf / NaN scales */
    for (int shift = 0; shift < 2; shift++) {   /* 0: aligned (streamed), 1: 4 bytes off (plain) */
        for (int with_codes = 0; with_codes < 2; with_codes++) {
            memset(rw, 0, (nb * 32 + 16) * sizeof *rw);
            memset(fw, 0, (nb * 32 + 16) * sizeof *fw);
            fw[nb * 32 + shift] = 42.0f;
            pc_q4_0_decode_ref(src, nb, with_codes ? rc : NULL, rw + shift);
            pc_q4_0_decode_fast(src, nb, with_codes ? fc : NULL, fw + shift);
            CHECK(!memcmp(rw + shift, fw + shift, nb * 32 * sizeof *rw), "large f32 output (shift %d, codes %d)", shift, with_codes);
            CHECK(!with_codes || !memcmp(rc, fc, nb * 32), "large codes output (shift %d)", shift);
            CHECK(fw[nb * 32 + shift] == 42.0f, "nothing past the large output (shift %d)", shift);
        }
    }
    free(src); free(rc); free(fc); free(rw); free(fw);
}

int main(void)
{
    worked_vectors();
    property();
    large_outputs();
    return test_finish();
}
