/* Oracles: GGUF ternary types TQ1_0 and TQ2_0 (super-blocks of 256), read literally off ggml's block
 * structs (src/ggml-common.h block_tq1_0, block_tq2_0), one element at a time, as ggml's
 * dequantize_row_tq1_0 / _tq2_0 (src/ggml-quants.c) read them: w = f32(x - 1) * d, exact. */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

static unsigned half_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }

/* Trit n (0..4) of a base-3 byte as ggml extracts it: the byte times 3^n modulo 256, then the top
 * of (that * 3) >> 8 (0..2 for every byte value). */
static unsigned trit(uint8_t byte, unsigned n)
{
    unsigned p = 1;
    for (unsigned i = 0; i < n; i++) p *= 3;
    unsigned q = (byte * p) % 256u;
    return (q * 3u) >> 8;
}

/* block_tq1_0, 54 bytes: qs[48] (5 trits per byte), qh[4] (4 trits per byte), fp16 d.
 * Elements 0..159: trit e / 32 of qs[e % 32]; 160..239: trit (e - 160) / 16 of qs[32 + e % 16];
 * 240..255: trit (e - 240) / 4 of qh[e % 4]. codes = the trit (0..2). */
PC_ORACLE_FN void pc_tq1_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 54 * b;
        float d = pc_oracle_half(half_at(block + 52));
        for (unsigned e = 0; e < 256; e++) {
            unsigned x;
            if (e < 160) x = trit(block[e % 32], e / 32);
            else if (e < 240) x = trit(block[32 + (e - 160) % 16], (e - 160) / 16);
            else x = trit(block[48 + (e - 240) % 4], (e - 240) / 4);
            if (codes) codes[256 * b + e] = (uint8_t)x;
            if (weights) weights[256 * b + e] = (float)((int)x - 1) * d;
        }
    }
}

/* block_tq2_0, 66 bytes: qs[64], fp16 d. Element 128h + 32l + m is bits 2l..2l+1 of qs[32h + m];
 * codes = that 2-bit q (3 is stored as ggml reads it: w = 2d). */
PC_ORACLE_FN void pc_tq2_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 66 * b;
        float d = pc_oracle_half(half_at(block + 64));
        for (unsigned e = 0; e < 256; e++) {
            unsigned q = (block[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3u;
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) weights[256 * b + e] = (float)((int)q - 1) * d;
        }
    }
}
