/* Fast scalar Q4_0 decoder: the fp16 scale by bit manipulation, then per block a 16-entry table of
 * the possible weights (f32(k - 8) * d, the same single rounding the contract defines), and the
 * 16 code bytes split into low and high halves. */
#include "../kernels.h"

#include <string.h>

static inline float f32_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float half_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 31u, man = h & 1023u;
    if (exp == 31) return f32_bits(sign | 0x7f800000u | (man << 13));
    if (exp) return f32_bits(sign | ((exp + 112) << 23) | (man << 13));
    if (!man) return f32_bits(sign);
    /* subnormal: normalise the fraction into an f32 exponent */
    unsigned shift = 0;
    while (!(man & 0x400u)) { man <<= 1; shift++; }
    return f32_bits(sign | ((113 - shift) << 23) | ((man & 1023u) << 13));
}

void pc_q4_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 18) {
        const uint8_t *qs = src + 2;
        if (codes) {
            uint8_t *c = codes + 32 * b;
            for (int j = 0; j < 16; j++) {
                c[j] = qs[j] & 15u;
                c[j + 16] = qs[j] >> 4;
            }
        }
        if (weights) {
            float d = half_to_f32((uint16_t)(src[0] | (src[1] << 8))), lut[16];
            for (int k = 0; k < 16; k++) lut[k] = (float)(k - 8) * d;
            float *w = weights + 32 * b;
            for (int j = 0; j < 16; j++) {
                w[j] = lut[qs[j] & 15u];
                w[j + 16] = lut[qs[j] >> 4];
            }
        }
    }
}
