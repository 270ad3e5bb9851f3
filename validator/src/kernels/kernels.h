/* The bit-level code. Kernels know nothing of files, configs or rules: plain arrays in, plain
 * arrays out. Each layout has a literal oracle (oracle/, compiled without vectorisation and with
 * -ffp-contract=off) and a fast version (fast/), chosen at run time. Callers guarantee the sizes
 * stated; kernels never read or write outside them, and src may have any alignment.
 *
 * Dispatch: the fast entry points below go through a pc_kernel_set, one function per layout and
 * width b = 1..8, chosen once by pc_kernels_select() from what the CPU offers. A SIMD set (the
 * performance issue) fills the widths it speeds up and keeps the scalar functions for the rest. */
#ifndef PC_KERNELS_H
#define PC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "packcheck.h"

/* Oracles stay out of interprocedural optimisation, so a constant b is never propagated into a
 * specialised (and possibly vectorised) clone of the literal code. */
#if defined(__clang__)
#define PC_ORACLE_FN __attribute__((noinline))
#else
#define PC_ORACLE_FN __attribute__((noipa))
#endif

/* LE bit stream (ct-dense rows, GPTQ columns, NVFP4 and Q4 nibbles): field i of width b (1..8)
 * is stream bits [i*b, i*b + b). src holds at least ceil(count*b/8) bytes. */
void pc_stream_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
void pc_stream_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out);

/* Word-aligned (ct-legacy): floor(32/b) whole fields per little-endian 32-bit word, field j in
 * word j / pf at bit (j % pf) * b. src holds at least ceil(count/pf) words (4 bytes each). */
void pc_wordalign_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
void pc_wordalign_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out);

/* Select an implementation: the oracle or the fast path. */
typedef void (*pc_unpack_fn)(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
static inline pc_unpack_fn pc_stream_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_stream_unpack_ref : pc_stream_unpack_fast; }
static inline pc_unpack_fn pc_wordalign_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_wordalign_unpack_ref : pc_wordalign_unpack_fast; }

/* One fast implementation: per-width functions (index b = 1..8; index 0 unused). */
typedef void (*pc_unpack_b_fn)(const uint8_t *src, size_t count, uint8_t *out);
typedef struct pc_kernel_set {
    const char *name;                 /* "scalar", "avx2", ... */
    pc_unpack_b_fn stream[9];
    pc_unpack_b_fn wordalign[9];
} pc_kernel_set;

extern const pc_kernel_set pc_kernels_scalar;
/* The set the fast entry points use (selected on first use; thread-safe: idempotent). */
const pc_kernel_set *pc_kernels_active(void);
/* Force a set (tests and bench compare sets side by side); NULL restores the automatic choice. */
void pc_kernels_force(const pc_kernel_set *set);
/* Which fast implementation runs here, for bench and reports. */
const char *pc_kernels_name(void);

#endif
