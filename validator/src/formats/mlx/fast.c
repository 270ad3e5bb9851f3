/* MLX affine fast path, portable part: one scale and bias per group, the F32 case a plain loop for
 * the auto-vectoriser; BF16/F16 round through bit manipulation (the oracle, kernels/oracle/mlx.c,
 * rounds arithmetically). -ffp-contract=off keeps the two roundings mlx makes. The AVX2 version
 * (fast/mlx_avx2.c) does eight lanes at a time; pc_mlx_affine_fast picks the active set's. */
#include "kernels.h"
#include "kernels/fast/round.h"

#include <math.h>
#include <string.h>

static void group_f32(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) {
        float sq = s * (float)q[j];
        o[j] = sq + b;
    }
}

static void group_bf16(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) o[j] = pc_round_bf16(pc_round_bf16(s * (float)q[j]) + b);
}

static void group_f16(const uint8_t *q, size_t n, float s, float b, float *o)
{
    for (size_t j = 0; j < n; j++) o[j] = pc_round_f16(pc_round_f16(s * (float)q[j]) + b);
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
