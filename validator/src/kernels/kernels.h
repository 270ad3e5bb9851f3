/* The bit-level code. Kernels know nothing of files, configs or rules: plain arrays in, plain
 * arrays out. Each layout has a literal oracle (oracle/, compiled without vectorisation and with
 * -ffp-contract=off) and a fast version (fast/), chosen at run time by pc_kernels_get(). Callers
 * guarantee the sizes stated; kernels never read or write outside them. */
#ifndef PC_KERNELS_H
#define PC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "packcheck.h"

/* LE bit stream (ct-dense rows, GPTQ columns, NVFP4 and Q4 nibbles): field i of width b (1..8)
 * is stream bits [i*b, i*b + b). src holds at least ceil(count*b/8) bytes. */
void pc_stream_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
void pc_stream_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out);

/* Word-aligned (ct-legacy): floor(32/b) whole fields per little-endian 32-bit word, field j in
 * word j / pf at bit (j % pf) * b. src holds at least ceil(count/pf) words (4 bytes each). */
void pc_wordalign_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
void pc_wordalign_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out);

/* Run-time dispatch (kernels/dispatch.c). The fast entry points above call the best implementation
 * this CPU runs ("avx2" needs AVX2, BMI2 and F16C; "scalar" runs everywhere), chosen once per process;
 * the environment variable PACKCHECK_KERNELS=scalar|avx2 overrides the choice. */
const char *pc_kernels_name(void);              /* the implementation in use */
const char *pc_kernels_available(size_t i);     /* i-th implementation this CPU runs, NULL past the end */
int pc_kernels_select(const char *name);        /* switch (tests, bench); -1 if not available here */

/* Select an implementation: the oracle or the fast path. */
typedef void (*pc_unpack_fn)(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
static inline pc_unpack_fn pc_stream_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_stream_unpack_ref : pc_stream_unpack_fast; }
static inline pc_unpack_fn pc_wordalign_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_wordalign_unpack_ref : pc_wordalign_unpack_fast; }

#endif
