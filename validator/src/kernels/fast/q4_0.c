/* Fast scalar Q4_0 decoder: the fp16 scale by bit manipulation, the 16 code bytes split into low
 * and high halves in a local array, and w = f32(q - 8) * d (the contract's single rounding) in
 * loops the compiler can vectorise. */
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
        /* Local copies: the compiler may not assume the byte arrays do not alias, and would
         * otherwise keep every loop scalar. */
        uint8_t qs[16], q[32];
        memcpy(qs, src + 2, 16);
        for (int j = 0; j < 16; j++) {
            q[j] = qs[j] & 15u;
            q[j + 16] = qs[j] >> 4;
        }
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) {
            const float d = half_to_f32((uint16_t)(src[0] | (src[1] << 8)));
            float w[32];
            for (int j = 0; j < 32; j++) w[j] = (float)((int)q[j] - 8) * d;
            memcpy(weights + 32 * b, w, sizeof w);
        }
    }
}
