/* HQQ bit packing (hqq 0.2.8 hqq/core/bitpack.py BitPack): the codes of a [R, C] matrix (the weight
 * reshaped to groups) are split into S row blocks of P = R/S rows (P = ceil(R/10) for 3 bits, the
 * rows past R zero), and row p of the packed tensor holds rows p, p + P, ..., p + (S-1)P, slot j at
 * bit shift (S-1-j)*b from the top of its unit:
 *   8bit_u8  S = 1  u8     (nbits 8)
 *   4bit_u8  S = 2  u8     row p high nibble, row p + P low nibble
 *   2bit_u8  S = 4  u8     shifts 6, 4, 2, 0
 *   1bit_u8  S = 8  u8     shifts 7 .. 0
 *   3bit_32  S = 10 int32  little-endian words, shifts 27, 24, .., 0 (bits 30-31 unused)
 * Literal oracle (oracle.c), portable fast path (fast.c), AVX2 unpacker and dequantisation (avx2.c,
 * the 3-bit words in avx2_3bit.c). */
#ifndef PC_HQQ_KERNELS_H
#define PC_HQQ_KERNELS_H

#include "kernels/kernels.h"

/* codes[r*C + c] for the R x C matrix, r < R, from `src` (P*C units of 1 or 4 bytes). b is 1, 2, 3, 4
 * or 8; P = R/S (ceil(R/10) for b = 3). */
void pc_hqq_unpack_ref(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes);
void pc_hqq_unpack_fast(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes);
void pc_hqq_unpack_scalar(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes);
#ifdef PC_HAVE_X86_KERNELS
void pc_hqq_unpack_avx2(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes);
void pc_hqq_unpack3_avx2(const uint8_t *src, size_t R, size_t C, uint8_t *codes); /* b = 3 (avx2_3bit.c) */
#endif
typedef void (*pc_hqq_unpack_fn)(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes);
static inline pc_hqq_unpack_fn pc_hqq_unpack(pc_impl impl) { return impl == PC_IMPL_REF ? pc_hqq_unpack_ref : pc_hqq_unpack_fast; }

/* Slots per packed unit and packed rows for R rows (the layout table above). */
static inline unsigned pc_hqq_slots(unsigned b) { return b == 3 ? 10 : 8 / b; }
static inline size_t pc_hqq_packed_rows(unsigned b, size_t R) { return b == 3 ? (R + 9) / 10 : R / pc_hqq_slots(b); }

/* HQQ's dequantize (Quantizer.dequantize: ((W_r - zero) * scale), in the compute dtype T): for the
 * R x C matrix, w = rT(rT(q - z) * s) with one zero point and scale per group: per row (axis 1, the
 * groups are rows) or per column (axis 0). z and s already hold values of T (widened exactly). */
void pc_hqq_dequant_ref(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                        pc_round_t t, float *out);
void pc_hqq_dequant_fast(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                         pc_round_t t, float *out);
typedef void (*pc_hqq_dequant_fn)(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero,
                                  const float *scale, pc_round_t t, float *out);
void pc_hqq_dequant_scalar(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                           pc_round_t t, float *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_hqq_dequant_avx2(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                         pc_round_t t, float *out);
#endif
static inline pc_hqq_dequant_fn pc_hqq_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_hqq_dequant_ref : pc_hqq_dequant_fast; }

#endif
