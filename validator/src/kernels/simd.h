/* One CPU-feature choice for every fast kernel. The build has no -march: SIMD code is compiled with
 * function target attributes and only called once the CPU has reported the features, so one binary
 * runs on any x86-64 (the x86 code compiles away elsewhere, or with PACKCHECK_NO_SIMD). The choice
 * is made once per process; PACKCHECK_KERNELS=scalar|avx2|avx512 overrides it, pc_kernels_select
 * lets tests and bench switch.
 *
 * The sets are ordered: avx512 is the avx2 set (which also runs wherever avx512 does) with a few
 * kernels replaced where AVX-512 BW/VL measured faster (the grid i-quants' signs, and IQ3 by VBMI
 * byte permutes where the CPU has them: avx512_grid.c); a layout with no avx512 kernel runs its avx2
 * one under both. PC_PICK3 names the three.
 *
 * The convention, the same for every layout in kernels/ and in each format folder: a layout's fast
 * entry point is
 *     void pc_<layout>_fast(args) { PC_PICK(pc_<layout>_scalar, pc_<layout>_avx2)(args); }
 * with the AVX2 function declared only under PC_HAVE_X86_KERNELS. A layout without a SIMD path
 * has no _scalar/_avx2 pair: its _fast is the portable code itself. */
#ifndef PC_SIMD_H
#define PC_SIMD_H

#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PC_NO_SIMD)
#define PC_HAVE_X86_KERNELS 1
#endif

typedef enum { PC_SIMD_SCALAR = 0, PC_SIMD_AVX2 = 1, PC_SIMD_AVX512 = 2 } pc_simd;

/* The implementation the fast entry points use (chosen on first use, thread-safe). */
pc_simd pc_simd_active(void);

#ifdef PC_HAVE_X86_KERNELS
#define PC_PICK(scalar_fn, avx2_fn) (pc_simd_active() >= PC_SIMD_AVX2 ? (avx2_fn) : (scalar_fn))
#define PC_PICK3(scalar_fn, avx2_fn, avx512_fn) \
    (pc_simd_active() == PC_SIMD_AVX512 ? (avx512_fn) : PC_PICK(scalar_fn, avx2_fn))
#else
#define PC_PICK(scalar_fn, avx2_fn) (scalar_fn)
#define PC_PICK3(scalar_fn, avx2_fn, avx512_fn) (scalar_fn)
#endif

/* Which implementation runs here ("avx512", "avx2", "scalar"), for bench and reports. */
const char *pc_kernels_name(void);
/* The i-th implementation this CPU runs, NULL past the end. */
const char *pc_kernels_available(size_t i);
/* Force an implementation by name (tests, bench); -1 when this CPU or build lacks it. */
int pc_kernels_select(const char *name);
/* Back to the automatic choice. */
void pc_kernels_reset(void);

#endif
