/* Oracle: GGUF Q4_0, read literally off the block layout (FORMATS.md 7.5), one element at a time.
 * The fp16 scale is decoded from its fields with exact power-of-two arithmetic, independently of
 * the fast path's bit manipulation. */
#include "../kernels.h"

#include <string.h>

/* IEEE binary16: sign, 5-bit exponent (bias 15), 10-bit fraction. */
static float half_from_fields(unsigned h)
{
    unsigned sign = h >> 15, exp = (h >> 10) & 31, frac = h & 1023;
    float v;
    if (exp == 31) {
        /* inf or NaN: the f32 with the same sign and fraction bits (payload shifted left by 13). */
        uint32_t bits = ((uint32_t)sign << 31) | 0x7f800000u | ((uint32_t)frac << 13);
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    if (exp == 0) {
        v = (float)frac; /* subnormal: frac * 2^-24 */
        for (int i = 0; i < 24; i++) v *= 0.5f;
    } else {
        v = (float)(1024 + frac); /* (1024 + frac) * 2^(exp - 25) */
        for (int i = 0; i < 25; i++) v *= 0.5f;
        for (unsigned i = 0; i < exp; i++) v *= 2.0f;
    }
    return sign ? -v : v;
}

void pc_q4_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 18 * b;
        float d = half_from_fields((unsigned)block[0] | ((unsigned)block[1] << 8));
        for (unsigned e = 0; e < 32; e++) {
            unsigned byte = block[2 + e % 16];
            unsigned q = e < 16 ? (byte & 15u) : (byte >> 4);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) weights[32 * b + e] = (float)((int)q - 8) * d;
        }
    }
}
