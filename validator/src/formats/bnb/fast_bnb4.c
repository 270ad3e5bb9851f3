/* bitsandbytes 4-bit fast path, portable part: two codes per byte, and per block a 16-entry table
 * already scaled by the block's absmax, so each weight is one lookup; table[k] * absmax is the same
 * single f32 rounding the oracle makes per element. The AVX2 version (fast/bnb4_avx2.c) does the
 * lookup with two vpermps; the entry points below pick the active set's. */
#include "kernels.h"

void pc_bnb4_unpack_scalar(const uint8_t *src, size_t n, uint8_t *out)
{
    size_t pairs = n / 2;
    for (size_t i = 0; i < pairs; i++) {
        out[2 * i] = (uint8_t)(src[i] >> 4);
        out[2 * i + 1] = (uint8_t)(src[i] & 15);
    }
    if (n % 2) out[n - 1] = (uint8_t)(src[pairs] >> 4);
}

void pc_bnb4_dequant_scalar(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out)
{
    float scaled[16];
    for (size_t b0 = 0, blk = 0; b0 < n; b0 += blocksize, blk++) {
        for (int k = 0; k < 16; k++) scaled[k] = table[k] * absmax[blk];
        size_t end = n - b0 < blocksize ? n : b0 + blocksize;
        for (size_t i = b0; i < end; i++) out[i] = scaled[codes[i] & 15];
    }
}

void pc_bnb4_unpack_fast(const uint8_t *src, size_t n, uint8_t *out)
{
    PC_PICK(pc_bnb4_unpack_scalar, pc_bnb4_unpack_avx2)(src, n, out);
}

void pc_bnb4_dequant_fast(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out)
{
    PC_PICK(pc_bnb4_dequant_scalar, pc_bnb4_dequant_avx2)(codes, n, table, absmax, blocksize, out);
}
