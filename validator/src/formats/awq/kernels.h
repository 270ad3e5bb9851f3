/* AWQ GEMM unpacking: the literal oracle (oracle.c), the portable fast path (fast.c) and AVX2 (avx2.c). */
#ifndef PC_AWQ_KERNELS_H
#define PC_AWQ_KERNELS_H

#include "kernels/kernels.h"

/* AWQ GEMM (FORMATS.md 6.1): src is the I32 tensor [rows, N/8], row-major, little-endian words;
 * nibble i (bits 4i..4i+3) of word [r, c] holds column 8c + ORDER[i], ORDER = 0,2,4,6,1,3,5,7.
 * out receives [rows, N] codes (unsigned, no offset) in the stored orientation. N is a multiple
 * of 8. Used for qweight (rows = K) and qzeros (rows = K / group_size) alike. */
void pc_awq_unpack_ref(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
void pc_awq_unpack_fast(const uint8_t *src, size_t rows, size_t N, uint8_t *out);

typedef void (*pc_awq_fn)(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
static inline pc_awq_fn pc_awq_unpack_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_awq_unpack_ref : pc_awq_unpack_fast; }
void pc_awq_unpack_scalar(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_awq_unpack_avx2(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
#endif

#endif
