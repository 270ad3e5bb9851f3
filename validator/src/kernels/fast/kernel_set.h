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

/* Portable C: builds and runs everywhere. */
extern const pc_kernel_set pc_kernel_set_scalar;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PC_HAVE_X86_KERNELS 1
/* AVX2 + BMI2, compiled with function-level target attributes (no -march in the build). Only
 * called after the CPU reported both features. */
extern const pc_kernel_set pc_kernel_set_avx2;
/* Build the shuffle tables (plain C, any CPU); called once by dispatch before first use. */
void pc_avx2_plans_init(void);
#endif

#endif
