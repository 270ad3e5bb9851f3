/* The GGUF block types: literal oracles (oracle_*.c), portable fast paths (fast_*.c), AVX2 (avx2_*.c).
 * The grid i-quants read their tables from iq_grids.h. */
#ifndef PC_GGUF_KERNELS_H
#define PC_GGUF_KERNELS_H

#include "kernels/kernels.h"

/* GGUF Q4_0 blocks (FORMATS.md 7.5): 18 bytes each, fp16 d (LE) then 16 bytes where byte j holds
 * element j in its low nibble and element j+16 in its high nibble. Decodes nblocks blocks into
 * codes[32*nblocks] (the nibble as stored) and weights[32*nblocks] = f32(q - 8) * f32(d); either
 * output may be NULL. src holds at least 18*nblocks bytes. */
void pc_q4_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
typedef void (*pc_q4_0_fn)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
static inline pc_q4_0_fn pc_q4_0_fn_for(pc_impl impl) { return impl == PC_IMPL_REF ? pc_q4_0_decode_ref : pc_q4_0_decode_fast; }

/* The other GGUF legacy block types (ggml src/ggml-common.h), same interface as Q4_0: nblocks
 * blocks of 32 elements into codes[32*nblocks] and weights[32*nblocks], either may be NULL.
 *   Q8_0, 34 bytes: fp16 d, int8 qs[32]; codes = the int8 byte as stored (read as u8),
 *                   w = f32(qs) * f32(d).
 *   Q4_1, 20 bytes: fp16 d, fp16 m, qs[16] (Q4_0's nibble order); codes = the nibble q,
 *                   w = f32(f32(q) * d) + m.
 *   Q5_0, 22 bytes: fp16 d, LE u32 qh, qs[16]; q = nibble | (qh bit e) << 4 (0..31) is the code,
 *                   w = f32(q - 16) * f32(d).
 *   Q5_1, 24 bytes: fp16 d, fp16 m, LE u32 qh, qs[16]; codes = q, w = f32(f32(q) * d) + m.
 * The operation order is ggml's dequantize_row_<type> (src/ggml-quants.c): a multiply, then an
 * add. The product of a <= 8-bit integer and an fp16 value is exact in f32, so only the add rounds
 * and a fused multiply-add gives the same bits. A NaN d or m gives a NaN weight whose payload is
 * the first NaN in operation order (the product's, else m's): x86 SSE's rule for q * d + m, made
 * explicit because compilers may swap an add's operands (such scales break GQ-002 anyway). */
typedef pc_q4_0_fn pc_block_fn;
void pc_q8_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q8_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* K-quants, super-blocks of 256 elements (codes[256*nblocks], weights[256*nblocks]):
 *   Q4_K, 144 bytes: fp16 d, fp16 dmin, 12 bytes of eight 6-bit scales and mins (ggml's
 *         get_scale_min_k4), qs[128]; codes = the nibble q, w = f32(f32(d * sc) * q) - f32(dmin * m).
 *   Q6_K, 210 bytes: ql[128], qh[64], int8 scales[16], fp16 d last; codes = the 6-bit q (0..63),
 *         w = f32(d * sc) * f32(q - 32), sc = scales[e / 16].
 * Every product is exact in f32 (at most 11 + 7 + 6 significant bits); Q4_K rounds once. */
void pc_q4_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_k_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/*   Q5_K, 176 bytes: fp16 d, fp16 dmin, scales[12] as Q4_K, qh[32], qs[128]; codes = Q4_K's nibble
 *         | bit (e / 32) of qh[e % 32] << 4 (0..31), w as Q4_K. */
void pc_q5_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_k_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/*   Q2_K, 84 bytes: scales[16] (low nibble scale, high nibble min), qs[64], fp16 d, fp16 dmin;
 *         codes = the 2-bit q, w = f32(f32(d * sc) * q) - f32(dmin * m), scale byte e / 16.
 *   Q3_K, 110 bytes: hmask[32], qs[64], 12 bytes of sixteen 6-bit scales, fp16 d; codes = the
 *         3-bit q = low 2 bits | hmask bit << 2, w = f32(d * (sc - 32)) * (q - 4) (exact). */
void pc_q2_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_k_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q3_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q3_k_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* Ternary types (256 per block, one fp16 d last; w = f32(x - 1) * d, exact):
 *   TQ1_0, 54 bytes: qs[48] with 5 base-3 trits per byte, qh[4] with 4, d; codes = the trit (0..2),
 *         extracted as ggml does, ((byte * 3^n) mod 256) * 3 >> 8 (see oracle/gguf_ternary.c).
 *   TQ2_0, 66 bytes: qs[64] (Q2_K's 2-bit order), d; codes = the 2-bit x (0..3). */
void pc_tq1_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq1_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* Grid i-quants (256 per block; tables in kernels/iq_grids.h, oracle/gguf_grid.c gives each
 * struct): IQ2_XXS 66, IQ2_XS 74, IQ2_S 82, IQ3_XXS 98, IQ3_S 110, IQ1_S 50, IQ1_M 56 bytes.
 * codes = the signed grid value as int8 (IQ2/IQ3: grid byte negated by its sign bit; IQ1: -1, 0, 1). */
void pc_iq2_xxs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xxs_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_s_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_m_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_m_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* Non-linear 4-bit types; codes = the nibble (an index into the type's 16-value table):
 *   IQ4_NL, 18 bytes per 32: fp16 d, qs[16] (Q4_0's order); w = f32(d * kvalues_iq4nl[q]).
 *   IQ4_XS, 136 bytes per 256: fp16 d, LE u16 scales_h, scales_l[4], qs[128]; sub-block j's 6-bit
 *         ls = nibble (j % 2) of scales_l[j / 2] | bits 2j..2j+1 of scales_h << 4;
 *         w = f32(d * (ls - 32)) * kvalues_iq4nl[q].
 *   MXFP4 (type 39), 17 bytes per 32: E8M0 e, then qs[16] (Q4_0's order); the nibble is E2M1 (sign
 *         bit 3); w = kvalues_mxfp4[q] * 2^(e - 128) (the doubled E2M1 value times half the scale).
 * Every product is exact in f32. */
void pc_iq4_nl_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_nl_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* Low-bit types of ggml 0.25 (oracle_lowbit.c reads each struct literally):
 *   NVFP4 (type 40), 36 bytes per 64: d[4] UE4M3 (one per 16), qs[32]; element 16s + j is the low
 *         nibble of qs[8s + j] (j < 8) or the high nibble of qs[8s + j - 8]; codes = the E2M1 nibble;
 *         w = f32(kvalues_fp4[q]) * ue4m3_half(d[s]) (ggml_ue4m3_to_fp32: 0x00 and 0x7F give 0, bit 7
 *         ignored), exact.
 *   Q1_0 (41), 18 bytes per 128: fp16 d, qs[16]; codes = bit j % 8 of qs[j / 8]; w = bit ? d : -d.
 *   Q2_0 (42), 18 bytes per 64: fp16 d, qs[16]; codes = bits 2(j % 4) of qs[j / 4]; w = f32(q - 1) * d. */
void pc_gguf_nvfp4_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_gguf_nvfp4_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);

/* The portable fast paths and the AVX2 paths behind each pc_<type>_decode_fast. */
void pc_q4_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q8_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q3_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_nl_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_m_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
float pc_ue4m3_half(uint8_t x); /* ggml_ue4m3_to_fp32, halved (fast_lowbit.c) */
void pc_gguf_nvfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
#ifdef PC_HAVE_X86_KERNELS
void pc_q4_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q8_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q5_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_xs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q6_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq4_nl_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_mxfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q3_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_tq2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_gguf_nvfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xxs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_s_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq1_m_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* The avx512 set's (avx512_grid.c): the same loops, signs applied from mask registers. */
void pc_iq2_xxs_decode_avx512(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_xs_decode_avx512(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq2_s_decode_avx512(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_xxs_decode_avx512(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_iq3_s_decode_avx512(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
/* The avx512 set's IQ3 kernels run by byte permutes where the CPU has AVX-512 VBMI (avx2_grid.c),
 * else by row loads; tests turn the VBMI path off (0) and on again (1) to hold both to the oracle. */
void pc_iq3_vbmi_allow(int allow);
/* Bench references (avx2_grid.c): the row loads and stores of the codes kernels, no signs. */
void pc_iq2_xxs_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq2_xs_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq2_s_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq3_xxs_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq3_s_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq1_s_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
void pc_iq1_m_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out);
#endif

#endif
