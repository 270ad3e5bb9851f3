/* MLX affine fast path, portable part: one scale and bias per group, the F32 case a plain loop for
 * the auto-vectoriser; BF16/F16 round through bit manipulation (the oracle, kernels/oracle/mlx.c,
 * rounds arithmetically). -ffp-contract=off keeps the two roundings mlx makes. The AVX2 version
 * (fast/mlx_avx2.c) does eight lanes at a time; pc_mlx_affine_fast picks the active set's. */
#include "kernels.h"

#include <math.h>
#include <string.h>

static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* RNE to bf16: add 0x7fff plus the lowest kept bit, drop 16 bits (inf stays inf, NaN is kept). */
static inline float to_bf16(float x)
{
    uint32_t u = bits_of(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return x;
    u += 0x7fffu + ((u >> 16) & 1u);
    return float_of(u & 0xffff0000u);
}

/* Exact f16 -> f32, inline (the hot loop calls it per element). */
static inline float widen_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, mant = h & 0x3ffu;
    if (e == 0) { /* zero or subnormal: mant * 2^-24 is exact */
        float f = (float)mant * 0x1p-24f;
        return float_of(bits_of(f) | sign);
    }
    if (e == 31) return float_of(sign | 0x7f800000u | (mant << 13));
    return float_of(sign | ((e + 112u) << 23) | (mant << 13));
}

/* RNE to f16 (F. Giesen's float_to_half_fast3_rtne scheme), widened back exactly. */
static inline float to_f16(float x)
{
    uint32_t u = bits_of(x), sign = u & 0x80000000u;
    u ^= sign;
    uint16_t h;
    if (u >= 0x47800000u) { /* >= 65536 (rounds to inf) or inf/NaN */
        h = u > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (u < 0x38800000u) { /* below 2^-14: f16 subnormal, let the FPU round at 2^-24 */
        float f = float_of(u) + 0.5f;
        h = (uint16_t)(bits_of(f) - 0x3f000000u);
    } else {
        uint32_t odd = (u >> 13) & 1u;
        u += 0xc8000fffu + odd; /* rebias exponent (15 - 127) << 23, then round */
        h = (uint16_t)(u >> 13);
    }
    return widen_f16((uint16_t)(h | (sign >> 16)));
}

static void group_f32(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) {
        float sq = s * (float)q[j];
        o[j] = sq + b;
    }
}

static void group_bf16(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) o[j] = to_bf16(to_bf16(s * (float)q[j]) + b);
}

static void group_f16(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) o[j] = to_f16(to_f16(s * (float)q[j]) + b);
}

void pc_mlx_run_scalar(const uint8_t *q, size_t n, float s, float b, pc_mlx_t t, float *out)
{
    (t == PC_MLX_T_F32 ? group_f32 : t == PC_MLX_T_BF16 ? group_bf16 : group_f16)(q, n, s, b, out);
}

static void mlx_affine_scalar(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                              const float *biases, pc_mlx_t t, float *out)
{
    void (*fn)(const uint8_t *, size_t, float, float, float *) =
        t == PC_MLX_T_F32 ? group_f32 : t == PC_MLX_T_BF16 ? group_bf16 : group_f16;
    size_t ngroups = rows * (cols / group);
    for (size_t g = 0; g < ngroups; g++) fn(codes + g * group, group, scales[g], biases[g], out + g * group);
}

void pc_mlx_affine_fast(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                        const float *biases, pc_mlx_t t, float *out)
{
    PC_PICK(mlx_affine_scalar, pc_mlx_affine_avx2)(codes, rows, cols, group, scales, biases, t, out);
}
