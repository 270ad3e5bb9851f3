/* Rounding an f32 into the dtype T a library computes in (bf16, f16), by bit manipulation, for the
 * fast paths of formats whose reference rounds per operation in T (MLX affine, HQQ). Round to
 * nearest even; inf stays inf, NaN is kept. kernels/oracle/round.h does the same arithmetically. */
#ifndef PC_FAST_ROUND_H
#define PC_FAST_ROUND_H

#include <stdint.h>
#include <string.h>

static inline uint32_t pc_bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float pc_float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* RNE to bf16: add 0x7fff plus the lowest kept bit, drop 16 bits (inf stays inf, NaN is kept). */
static inline float pc_round_bf16(float x)
{
    uint32_t u = pc_bits_of(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return x;
    u += 0x7fffu + ((u >> 16) & 1u);
    return pc_float_of(u & 0xffff0000u);
}

/* Exact f16 -> f32, inline (the hot loop calls it per element). */
static inline float pc_widen_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, mant = h & 0x3ffu;
    if (e == 0) { /* zero or subnormal: mant * 2^-24 is exact */
        float f = (float)mant * 0x1p-24f;
        return pc_float_of(pc_bits_of(f) | sign);
    }
    if (e == 31) return pc_float_of(sign | 0x7f800000u | (mant << 13));
    return pc_float_of(sign | ((e + 112u) << 23) | (mant << 13));
}

/* RNE to f16 (F. Giesen's float_to_half_fast3_rtne scheme), widened back exactly. A NaN is kept
 * as it is, payload and all, as the oracle keeps it (the AVX2 paths hand NaN groups to this one). */
static inline float pc_round_f16(float x)
{
    uint32_t u = pc_bits_of(x), sign = u & 0x80000000u;
    if ((u & 0x7fffffffu) > 0x7f800000u) return x;
    u ^= sign;
    uint16_t h;
    if (u >= 0x47800000u) { /* >= 65536 (rounds to inf) or inf/NaN */
        h = u > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (u < 0x38800000u) { /* below 2^-14: f16 subnormal, let the FPU round at 2^-24 */
        float f = pc_float_of(u) + 0.5f;
        h = (uint16_t)(pc_bits_of(f) - 0x3f000000u);
    } else {
        uint32_t odd = (u >> 13) & 1u;
        u += 0xc8000fffu + odd; /* rebias exponent (15 - 127) << 23, then round */
        h = (uint16_t)(u >> 13);
    }
    return pc_widen_f16((uint16_t)(h | (sign >> 16)));
}

#endif
