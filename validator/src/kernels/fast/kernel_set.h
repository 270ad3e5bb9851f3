/* Internal to kernels/: one implementation of every fast kernel, as a table of function pointers.
 * dispatch.c picks one table per process (the best the CPU runs, or PACKCHECK_KERNELS) and the
 * public pc_*_fast entry points call through it. Adding a layout: add its pointer here, fill it
 * in kernel_scalar (always) and in every SIMD table that has it (NULL falls back to scalar). */
#ifndef PC_KERNEL_SET_H
#define PC_KERNEL_SET_H

#include "../kernels.h"

typedef struct pc_kernel_set {
    const char *name;
    pc_unpack_fn stream;
    pc_unpack_fn wordalign;
} pc_kernel_set;

/* The other layouts (GPTQ, AWQ, Q4_0, NVFP4 dequantisation), with the signatures of kernels.h. */
typedef void (*pc_gptq_fn)(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
typedef void (*pc_awq_fn)(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
typedef void (*pc_q4_0_decode_fn)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
typedef void (*pc_nvfp4_dequant_fn)(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
typedef struct pc_layout_kernels {
    pc_gptq_fn gptq;
    pc_awq_fn awq;
    pc_q4_0_decode_fn q4_0;
    pc_nvfp4_dequant_fn nvfp4_dequant;
} pc_layout_kernels;

/* Portable C: builds and runs everywhere. */
extern const pc_kernel_set pc_kernel_set_scalar;

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PC_NO_SIMD)
#define PC_HAVE_X86_KERNELS 1
/* AVX2 + BMI2, compiled with function-level target attributes (no -march in the build). Only
 * called after the CPU reported both features. */
extern const pc_kernel_set pc_kernel_set_avx2;
extern const pc_layout_kernels pc_layout_kernels_avx2;
/* Build the shuffle tables (plain C, any CPU); called once by dispatch before first use. */
void pc_avx2_plans_init(void);
#endif

#endif
