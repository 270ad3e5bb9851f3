/* The oracles' fp16 decoder: IEEE binary16 read from its fields with exact power-of-two arithmetic,
 * independently of the fast paths' bit manipulation (shared by oracle/q4_0.c and gguf_blocks.c). */
#ifndef PC_ORACLE_HALF_H
#define PC_ORACLE_HALF_H

#include <stdint.h>
#include <string.h>

/* sign, 5-bit exponent (bias 15), 10-bit fraction. */
static inline float pc_oracle_half(unsigned h)
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

#endif
