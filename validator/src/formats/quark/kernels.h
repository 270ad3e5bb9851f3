/* AMD Quark kernels (amd-quark 0.13, quark/torch/utils/pack.py and
 * quark/torch/kernel/hw_emulation/hw_emulation_interface.py).
 *
 * MX elements (Pack_fp4, Pack_fp6; OCP MX v1.0): codes of one row of K elements, blocks of 32 along K
 * each scaled by one E8M0 byte e (2^(e - 127)).
 *   fp4       E2M1, 2 codes per byte, element 2i in the low nibble of byte i (Pack_fp4.pack).
 *   fp6_e2m3  sign bit 5, 2 exponent bits (bias 1), 3 mantissa bits; fp6_e3m2: 3 exponent bits (bias 3),
 *             2 mantissa bits. No infinity or NaN. 4 codes per 3 bytes: v0 | v1 << 6 | v2 << 12 |
 *             v3 << 18 stored least significant byte first (Pack_fp6.pack): the little-endian 6-bit
 *             bit stream of kernels/kernels.h.
 * Quark's dequantisation (dequantize_fp4_fp6_per_group): f32(element) * f32(2^(e - 127)); the element
 * and the power of two are exact in f32, so the product is one rounding (exact unless it overflows).
 *
 * int4 (Pack_4_bits, per_group): the weight [N, K] is stored transposed, int32 [K, ceil(N/8)]; word c of
 * row k holds element n = 8c + map[i] in nibble i (bits 4i..4i+3), map = 0..7 for pack_method
 * "order" and 0, 2, 4, 6, 1, 3, 5, 7 for "reorder". The code is the nibble as stored (a two's-complement
 * int4 for dtype int4). Zero points are packed the same way, [K/g, ceil(N/8)] words.
 * Quark's dequantisation (dequantize_int_per_group_affine): (f32(q) - f32(z)) * f32(s), q and z
 * sign-extended, in f32.
 *
 * Literal oracle (oracle.c), portable fast path (fast.c), AVX2 MX and int4 dequantisation (avx2.c). */
#ifndef PC_QUARK_KERNELS_H
#define PC_QUARK_KERNELS_H

#include "kernels/kernels.h"

#include <stdbool.h>

typedef enum { PC_QK_FP4 = 4, PC_QK_E2M3 = 6, PC_QK_E3M2 = 7 } pc_qk_elem; /* bits: 4, 6, 6 */
static inline unsigned pc_qk_elem_bits(pc_qk_elem k) { return k == PC_QK_FP4 ? 4 : 6; }

/* The f32 value of one MX element code of kind k (oracle: the fields decoded literally). */
float pc_qk_elem_value_ref(pc_qk_elem k, uint8_t code);

/* The 64 values of kind k's codes 0..63 (the oracle's, built once; E2M1 codes 16..63 as c & 15). */
const float *pc_qk_value_table(pc_qk_elem k);

/* out[r*K + c] = value(codes[r*K + c]) * 2^(e8m0[r*S + c/32] - 127), S = ceil(K/32). */
void pc_qk_mx_dequant_ref(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out);
void pc_qk_mx_dequant_fast(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out);
void pc_qk_mx_dequant_scalar(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_qk_mx_dequant_avx2(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out);
#endif
typedef void (*pc_qk_mx_dequant_fn)(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out);
static inline pc_qk_mx_dequant_fn pc_qk_mx_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_qk_mx_dequant_ref : pc_qk_mx_dequant_fast; }

/* codes[n*K + k] (n < N, k < K) from the int32 words src[k*W + c], W = ceil(N/8) (the layout above). */
void pc_qk_int4_unpack_ref(const uint8_t *src, size_t K, size_t N, bool reorder, uint8_t *codes);
void pc_qk_int4_unpack_fast(const uint8_t *src, size_t K, size_t N, bool reorder, uint8_t *codes);
typedef void (*pc_qk_int4_unpack_fn)(const uint8_t *src, size_t K, size_t N, bool reorder, uint8_t *codes);
static inline pc_qk_int4_unpack_fn pc_qk_int4_unpack(pc_impl impl) { return impl == PC_IMPL_REF ? pc_qk_int4_unpack_ref : pc_qk_int4_unpack_fast; }

/* out[n*K + k] = (f32(q) - f32(zero[n*G + k/g])) * scale[n*G + k/g], q the sign-extended nibble
 * codes[n*K + k] (raw nibble when !is_signed), G = K/g; K is a multiple of g. The fast paths read
 * only the low nibble of each code byte (the unpacker writes nothing else). */
void pc_qk_int4_dequant_ref(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                            const int8_t *zero, float *out);
void pc_qk_int4_dequant_fast(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                             const int8_t *zero, float *out);
void pc_qk_int4_dequant_scalar(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                               const int8_t *zero, float *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_qk_int4_dequant_avx2(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                             const int8_t *zero, float *out);
#endif
typedef void (*pc_qk_int4_dequant_fn)(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed,
                                      const float *scale, const int8_t *zero, float *out);
static inline pc_qk_int4_dequant_fn pc_qk_int4_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_qk_int4_dequant_ref : pc_qk_int4_dequant_fast; }

/* The element of word slot i (the pack map of pack_method). */
static inline unsigned pc_qk_slot_elem(bool reorder, unsigned i) { return reorder ? (i < 4 ? 2 * i : 2 * (i - 4) + 1) : i; }

#endif
