/* MLX affine dequantisation: the literal oracle (oracle.c), the portable fast path (fast.c), AVX2 (avx2.c). */
#ifndef PC_MLX_KERNELS_H
#define PC_MLX_KERNELS_H

#include "kernels/kernels.h"

/* MLX affine (FORMATS-2.md D; ml-explore/mlx mlx/backend/cpu/quantized.cpp _dequantize): the codes
 * are the LE bit stream above over the whole U32 tensor (rows are whole words). T is the dtype of
 * scales and biases; mlx computes in T, so the weight is w = rT(rT(s * q) + b), rT the
 * round-to-nearest-even into T (identity for F32: two f32 roundings, no FMA). scales and biases
 * hold rows*(cols/group) values already widened exactly to f32; cols is a multiple of group;
 * codes and out hold rows*cols entries. */
typedef pc_round_t pc_mlx_t;
#define PC_MLX_T_F32 PC_ROUND_F32
#define PC_MLX_T_BF16 PC_ROUND_BF16
#define PC_MLX_T_F16 PC_ROUND_F16
void pc_mlx_affine_ref(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                       const float *biases, pc_mlx_t t, float *out);
void pc_mlx_affine_fast(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                        const float *biases, pc_mlx_t t, float *out);
typedef void (*pc_mlx_affine_fn)(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                                 const float *biases, pc_mlx_t t, float *out);
static inline pc_mlx_affine_fn pc_mlx_affine(pc_impl impl) { return impl == PC_IMPL_REF ? pc_mlx_affine_ref : pc_mlx_affine_fast; }

void pc_mlx_run_scalar(const uint8_t *q, size_t n, float s, float b, pc_mlx_t t, float *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_mlx_affine_avx2(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                        const float *biases, pc_mlx_t t, float *out);
#endif

#endif
