/* Internal to kernels/: the pieces dispatch.c assembles into pc_kernel_set tables (kernels.h).
 * Adding a SIMD version of a layout: write it in fast/<x>_avx2.c, put it in pc_kernels_avx2, and
 * test_kernels_simd.c compares it with the oracle. */
#ifndef PC_KERNEL_SET_H
#define PC_KERNEL_SET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../kernels.h"

/* A little-endian 32-bit word at any alignment (byte-swapped on a big-endian host). */
static inline uint32_t pc_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* The portable fast paths of the other layouts (fast/gptq.c, awq.c, q4_0.c), in pc_kernels_scalar. */
void pc_gptq_unpack_scalar(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
void pc_awq_unpack_scalar(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
void pc_q4_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_nvfp4_dequant_scalar(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
/* fast/gguf_blocks.c */
void pc_q8_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* fast/gguf_kquants.c */
void pc_q4_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q3_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* fast/gguf_iquants.c */
void pc_iq4_nl_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* fast/gguf_ternary.c */
void pc_tq1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* formats/gguf/fast_lowbit.c */
float pc_ue4m3_half(uint8_t x);
void pc_gguf_nvfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* fast/gguf_grid.c */
void pc_iq2_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_m_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_fp8_run_scalar(const uint8_t *w, size_t n, float s, float *out);
void pc_int8_run_scalar(const uint8_t *w, size_t n, int zp, float s, float *out);
/* fast/mlx.c: one group of n codes sharing scale s and bias b (the AVX2 path's tails). */
void pc_mlx_run_scalar(const uint8_t *q, size_t n, float s, float b, pc_mlx_t t, float *out);
/* fast/bnb4.c: the portable bitsandbytes paths (the kernel set's NULL slots). */
void pc_bnb4_unpack_scalar(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb4_dequant_scalar(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
/* fast/bnb8.c: the portable LLM.int8 paths. */
void pc_bnb8_dequant_scalar(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_codes_scalar(const uint8_t *src, size_t n, uint8_t *out);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PC_NO_SIMD)
#define PC_HAVE_X86_KERNELS 1
/* AVX2 + BMI2 + F16C, compiled with function-level target attributes (no -march in the build).
 * Only called after dispatch.c saw the features on the CPU. */
extern const pc_kernel_set pc_kernels_avx2;
/* Build the shuffle tables (plain C, any CPU); dispatch calls it once before first use. */
void pc_avx2_plans_init(void);
void pc_gptq_unpack_avx2(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
void pc_awq_unpack_avx2(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
void pc_q4_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* NVFP4 -> f32 (out[i] = e2m1(codes[i]) * group_scale[i / 16], rows * cols values, cols % 16 == 0). */
void pc_nvfp4_dequant_avx2(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
/* FP8 E4M3 / INT8 runs sharing one scale (fast/fp8_avx2.c). */
void pc_fp8_run_avx2(const uint8_t *w, size_t n, float s, float *out);
void pc_fp8_row_avx2(const uint8_t *w, size_t cols, size_t bw, const float *srow, float *out);
void pc_int8_run_avx2(const uint8_t *w, size_t n, int zp, float s, float *out);
/* MLX affine and bitsandbytes 4-bit (fast/mlx_avx2.c, bnb4_avx2.c). */
void pc_mlx_affine_avx2(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                        const float *biases, pc_mlx_t t, float *out);
void pc_bnb4_unpack_avx2(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb4_dequant_avx2(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
/* bitsandbytes LLM.int8 (fast/bnb8_avx2.c). */
void pc_bnb8_dequant_avx2(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_codes_avx2(const uint8_t *src, size_t n, uint8_t *out);
/* GGUF block types (fast/gguf_avx2.c). */
void pc_q8_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_nl_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* fast/gguf_avx2_more.c */
void pc_q3_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* formats/gguf/avx2_lowbit.c */
void pc_gguf_nvfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
#endif

#endif
