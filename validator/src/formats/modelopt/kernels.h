/* ModelOpt INT4 AWQ packing (nvidia-modelopt 0.47 modelopt/torch/export/quant_utils.py
 * pack_int4_in_uint8): a [N, K] matrix of signed 4-bit values is stored as U8 [N/2, K], packed along
 * the OUTPUT dimension: byte (j, k) holds element (2j, k) in its low nibble and (2j + 1, k) in its
 * high nibble, each the two's-complement nibble of round(w / scale).clamp(-8, 7). The codes of the
 * logical view are those stored nibbles (0..15); the weight is f32(sign-extended nibble) times the
 * f32 scale of its group: w[n, k] = f32(q) * scale[n * G + k / g], G = K / g (one rounding: q is
 * exact in f32). Literal oracle (oracle.c), portable fast path (fast.c), AVX2 (avx2.c). */
#ifndef PC_MODELOPT_KERNELS_H
#define PC_MODELOPT_KERNELS_H

#include "kernels/kernels.h"

/* codes[n*K + k] for n < N (N even) from packed[N/2 * K]. */
void pc_mo_int4_unpack_ref(const uint8_t *packed, size_t N, size_t K, uint8_t *codes);
void pc_mo_int4_unpack_fast(const uint8_t *packed, size_t N, size_t K, uint8_t *codes);
void pc_mo_int4_unpack_scalar(const uint8_t *packed, size_t N, size_t K, uint8_t *codes);
/* f32 weights straight from the packed bytes: out[n*K + k] = f32(q(n, k)) * scale[n*G + k/g], K = G*g. */
void pc_mo_int4_dequant_ref(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out);
void pc_mo_int4_dequant_fast(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out);
void pc_mo_int4_dequant_scalar(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out);
/* One output row (K elements from K packed bytes): the low nibbles for shift 4, the high for 0. */
void pc_mo_int4_half_scalar(const uint8_t *p, size_t K, size_t g, unsigned shift, const float *s, float *o);
#ifdef PC_HAVE_X86_KERNELS
void pc_mo_int4_half_avx2(const uint8_t *p, size_t K, size_t g, unsigned shift, const float *s, float *o);
void pc_mo_int4_unpack_avx2(const uint8_t *packed, size_t N, size_t K, uint8_t *codes);
void pc_mo_int4_dequant_avx2(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out);
#endif
typedef void (*pc_mo_unpack_fn)(const uint8_t *packed, size_t N, size_t K, uint8_t *codes);
typedef void (*pc_mo_dequant_fn)(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out);
static inline pc_mo_unpack_fn pc_mo_int4_unpack(pc_impl impl) { return impl == PC_IMPL_REF ? pc_mo_int4_unpack_ref : pc_mo_int4_unpack_fast; }
static inline pc_mo_dequant_fn pc_mo_int4_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_mo_int4_dequant_ref : pc_mo_int4_dequant_fast; }

#endif
