/* The fast paths' fp16 -> f32 by bit manipulation (exact for every input: NaN payloads keep their
 * bits shifted left by 13, as the oracle's field decoder gives them). */
#ifndef PC_FAST_HALF_H
#define PC_FAST_HALF_H

#include <stdint.h>
#include <string.h>

static inline float pc_f32_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float pc_half_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 31u, man = h & 1023u;
    if (exp == 31) return pc_f32_bits(sign | 0x7f800000u | (man << 13));
    if (exp) return pc_f32_bits(sign | ((exp + 112) << 23) | (man << 13));
    if (!man) return pc_f32_bits(sign);
    /* subnormal: normalise the fraction into an f32 exponent */
    unsigned shift = 0;
    while (!(man & 0x400u)) { man <<= 1; shift++; }
    return pc_f32_bits(sign | ((113 - shift) << 23) | ((man & 1023u) << 13));
}

static inline uint16_t pc_le16_at(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

#endif
