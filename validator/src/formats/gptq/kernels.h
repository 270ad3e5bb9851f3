/* GPTQ qweight unpacking: the literal oracle (oracle.c), the portable fast path (fast.c) and AVX2 (avx2.c). */
#ifndef PC_GPTQ_KERNELS_H
#define PC_GPTQ_KERNELS_H

#include "kernels/kernels.h"

/* GPTQ qweight (FORMATS.md 5.1-5.2): src is the I32 tensor [K*b/32, N], row-major, little-endian
 * words; each column n is one LE bit stream running down the rows, field k at stream bit k*b (3-bit
 * fields straddle words). out receives the codes in the stored orientation [K, N], row-major.
 * b is 2, 3, 4 or 8 and K is a multiple of 32. The qzeros rows are plain LE streams: decode them
 * with pc_stream_unpack_*. */
void pc_gptq_unpack_ref(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
void pc_gptq_unpack_fast(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);

typedef void (*pc_gptq_fn)(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
static inline pc_gptq_fn pc_gptq_unpack_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_gptq_unpack_ref : pc_gptq_unpack_fast; }
void pc_gptq_unpack_scalar(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_gptq_unpack_avx2(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
#endif

#endif
