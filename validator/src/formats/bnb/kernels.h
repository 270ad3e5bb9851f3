/* bitsandbytes 4-bit and LLM.int8: literal oracles (oracle_*.c), portable fast paths (fast_*.c), AVX2 (avx2_*.c). */
#ifndef PC_BNB_KERNELS_H
#define PC_BNB_KERNELS_H

#include "kernels/kernels.h"

/* bitsandbytes 4-bit (FORMATS-2.md E; bitsandbytes backends/default/ops.py): the blocks run over the
 * flattened tensor; byte i holds element 2i in its HIGH nibble and element 2i+1 in its low one (an
 * odd n leaves the last low nibble as padding). src holds ceil(n/2) bytes, out n codes. */
void pc_bnb4_unpack_ref(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb4_unpack_fast(const uint8_t *src, size_t n, uint8_t *out);
/* The 16-entry codebook as f32: NF4 (get_4bit_type("nf4")) or bitsandbytes' own FP4 (not E2M1:
 * 0, 1/192, 2/3, 1, 1/3, 1/2, 1/6, 1/4, then the same negated). FP4 code 8 is +0.0: the saved
 * quant_map, the default (torch) backend and the vectorised CPU kernel give +0.0; only the scalar CPU
 * kernel gives -0.0, so the sign bit lives in the code alone. */
const float *pc_bnb4_table(bool fp4);
/* out[i] = f32(table[codes[i]] * absmax[i / blocksize]), one rounding; codes and out hold n
 * entries, absmax ceil(n / blocksize). */
void pc_bnb4_dequant_ref(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
void pc_bnb4_dequant_fast(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
typedef void (*pc_bnb4_unpack_fn)(const uint8_t *src, size_t n, uint8_t *out);
typedef void (*pc_bnb4_dequant_fn)(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
static inline pc_bnb4_unpack_fn pc_bnb4_unpack(pc_impl impl) { return impl == PC_IMPL_REF ? pc_bnb4_unpack_ref : pc_bnb4_unpack_fast; }
static inline pc_bnb4_dequant_fn pc_bnb4_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_bnb4_dequant_ref : pc_bnb4_dequant_fast; }
/* bitsandbytes LLM.int8 (bitsandbytes 0.50.2 _ops.py, the "default" int8_vectorwise_dequant kernel:
 * A * stats.view(-1, 1) * 7.874015718698502e-3): src holds rows x cols int8 bytes row-major, scb one
 * f32 per row; out[r][c] = f32(f32(f32(q) * scb[r]) * 0x1.020408p-7f), two roundings in that order
 * (the constant is exactly an f32, so torch's f32 scalar multiply is this one). codes = q + 128. */
#define PC_BNB8_RECIP 0x1.020408p-7f
void pc_bnb8_dequant_ref(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_dequant_fast(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_codes_ref(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb8_codes_fast(const uint8_t *src, size_t n, uint8_t *out);
typedef void (*pc_bnb8_dequant_fn)(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
typedef void (*pc_bnb8_codes_fn)(const uint8_t *src, size_t n, uint8_t *out);
static inline pc_bnb8_dequant_fn pc_bnb8_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_bnb8_dequant_ref : pc_bnb8_dequant_fast; }
static inline pc_bnb8_codes_fn pc_bnb8_codes(pc_impl impl) { return impl == PC_IMPL_REF ? pc_bnb8_codes_ref : pc_bnb8_codes_fast; }
void pc_bnb4_unpack_scalar(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb4_dequant_scalar(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
void pc_bnb8_dequant_scalar(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_codes_scalar(const uint8_t *src, size_t n, uint8_t *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_bnb4_unpack_avx2(const uint8_t *src, size_t n, uint8_t *out);
void pc_bnb4_dequant_avx2(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize, float *out);
void pc_bnb8_dequant_avx2(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out);
void pc_bnb8_codes_avx2(const uint8_t *src, size_t n, uint8_t *out);
#endif

#endif
