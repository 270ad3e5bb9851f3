/* The bit-level code. Kernels know nothing of files, configs or rules: plain arrays in, plain
 * arrays out. Each layout has a literal oracle (oracle/, compiled without vectorisation and with
 * -ffp-contract=off) and a fast version (fast/), chosen at run time. Callers guarantee the sizes
 * stated; kernels never read or write outside them, and src may have any alignment.
 *
 * Dispatch (kernels/dispatch.c): the fast entry points below go through a pc_kernel_set, one
 * function per layout and width b = 1..8, chosen once per process from what the CPU offers: "avx2"
 * (AVX2 + BMI2 + F16C, compiled with function target attributes, no -march in the build) or the
 * portable "scalar" set. PACKCHECK_KERNELS=scalar|avx2 overrides the choice. */
#ifndef PC_KERNELS_H
#define PC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "packcheck_internal.h"

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

/* NVFP4 (FORMATS.md 4.1): the E2M1 value of a 4-bit code, sign in bit 3 (0x8 is -0.0). The codes
 * themselves are the LE 4-bit stream above (element 2i in the low nibble of byte i). */
float pc_e2m1_value(uint8_t code);
/* OCP MX E8M0 scale byte e: 2^(e - 127), built from its bits (exact in f32: e = 0 is the subnormal
 * 2^-127). e = 255 is NaN in the OCP spec; this gives 2^128 = +inf for it, as MLX's CPU dequantize
 * does: callers reject 255 (MX-002, MLX-010) before decoding. Shared by the MXFP4 and MLX modules. */
static inline float pc_e8m0_value(uint8_t e)
{
    union { uint32_t u; float f; } v = {e == 0 ? 0x00400000u : (uint32_t)e << 23};
    return v.f;
}
/* out[r*cols + c] = f32(e2m1(codes[r*cols + c]) * group_scale[r*(cols/16) + c/16]): one rounding.
 * cols is a multiple of 16; codes and out hold rows*cols entries, group_scale rows*cols/16. */
void pc_nvfp4_dequant_ref(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
void pc_nvfp4_dequant_fast(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
/* The fast path's portable branch (pc_nvfp4_dequant_fast picks AVX2 when the CPU has it), for tests. */
void pc_nvfp4_dequant_fast_scalar(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);

/* GPTQ qweight (FORMATS.md 5.1-5.2): src is the I32 tensor [K*b/32, N], row-major, little-endian
 * words; each column n is one LE bit stream running down the rows, field k at stream bit k*b (3-bit
 * fields straddle words). out receives the codes in the stored orientation [K, N], row-major.
 * b is 2, 3, 4 or 8 and K is a multiple of 32. The qzeros rows are plain LE streams: decode them
 * with pc_stream_unpack_*. */
void pc_gptq_unpack_ref(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
void pc_gptq_unpack_fast(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);

/* AWQ GEMM (FORMATS.md 6.1): src is the I32 tensor [rows, N/8], row-major, little-endian words;
 * nibble i (bits 4i..4i+3) of word [r, c] holds column 8c + ORDER[i], ORDER = 0,2,4,6,1,3,5,7.
 * out receives [rows, N] codes (unsigned, no offset) in the stored orientation. N is a multiple
 * of 8. Used for qweight (rows = K) and qzeros (rows = K / group_size) alike. */
void pc_awq_unpack_ref(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
void pc_awq_unpack_fast(const uint8_t *src, size_t rows, size_t N, uint8_t *out);

/* GGUF Q4_0 blocks (FORMATS.md 7.5): 18 bytes each, fp16 d (LE) then 16 bytes where byte j holds
 * element j in its low nibble and element j+16 in its high nibble. Decodes nblocks blocks into
 * codes[32*nblocks] (the nibble as stored) and weights[32*nblocks] = f32(q - 8) * f32(d); either
 * output may be NULL. src holds at least 18*nblocks bytes. */
void pc_q4_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
void pc_q4_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
typedef void (*pc_q4_0_fn)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights);
static inline pc_q4_0_fn pc_q4_0_fn_for(pc_impl impl) { return impl == PC_IMPL_REF ? pc_q4_0_decode_ref : pc_q4_0_decode_fast; }

/* MLX affine (FORMATS-2.md D; ml-explore/mlx mlx/backend/cpu/quantized.cpp _dequantize): the codes
 * are the LE bit stream above over the whole U32 tensor (rows are whole words). T is the dtype of
 * scales and biases; mlx computes in T, so the weight is w = rT(rT(s * q) + b), rT the
 * round-to-nearest-even into T (identity for F32: two f32 roundings, no FMA). scales and biases
 * hold rows*(cols/group) values already widened exactly to f32; cols is a multiple of group;
 * codes and out hold rows*cols entries. */
typedef enum { PC_MLX_T_F32 = 0, PC_MLX_T_BF16, PC_MLX_T_F16 } pc_mlx_t;
void pc_mlx_affine_ref(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                       const float *biases, pc_mlx_t t, float *out);
void pc_mlx_affine_fast(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                        const float *biases, pc_mlx_t t, float *out);
typedef void (*pc_mlx_affine_fn)(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                                 const float *biases, pc_mlx_t t, float *out);
static inline pc_mlx_affine_fn pc_mlx_affine(pc_impl impl) { return impl == PC_IMPL_REF ? pc_mlx_affine_ref : pc_mlx_affine_fast; }

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
/* Low-bit types since ggml 0.25 (formats/gguf/oracle_lowbit.c gives each struct):
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

/* Select an implementation: the oracle or the fast path. */
typedef void (*pc_unpack_fn)(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
static inline pc_unpack_fn pc_stream_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_stream_unpack_ref : pc_stream_unpack_fast; }
typedef void (*pc_nvfp4_dequant_fn)(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
static inline pc_nvfp4_dequant_fn pc_nvfp4_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_nvfp4_dequant_ref : pc_nvfp4_dequant_fast; }
typedef void (*pc_gptq_fn)(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out);
typedef void (*pc_awq_fn)(const uint8_t *src, size_t rows, size_t N, uint8_t *out);
static inline pc_gptq_fn pc_gptq_unpack_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_gptq_unpack_ref : pc_gptq_unpack_fast; }
static inline pc_awq_fn pc_awq_unpack_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_awq_unpack_ref : pc_awq_unpack_fast; }
static inline pc_unpack_fn pc_wordalign_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_wordalign_unpack_ref : pc_wordalign_unpack_fast; }

/* FP8 E4M3 (torch.float8_e4m3fn: bias 7, no infinities, S.1111.111 NaN) and INT8 weights with a
 * 2-D grid of f32 scales (formats/fp8.c, CONTRACT 3). Element (n, k) of a rows x cols matrix uses
 * scale[(n / bh) * gc + k / bw] with gc = ceil(cols / bw); partial edge blocks are the same lookup.
 *   fp8:  out = f32(e4m3(w)) * scale             (e4m3 is exact in f32: one rounding)
 *   int8: out = f32((int8)w - zp) * scale        (zp = zero[same index], 0 when zero is NULL)
 * bh, bw >= 1. The oracle decodes the fields literally; the fast path moves the 7 magnitude bits
 * into f32 position and rebiases the exponent (subnormal bytes from the integer mantissa). */
void pc_fp8_dequant_ref(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out);
void pc_fp8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out);
void pc_int8_dequant_ref(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                         const int8_t *zero, float *out);
void pc_int8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                          const int8_t *zero, float *out);
typedef void (*pc_fp8_dequant_fn)(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out);
typedef void (*pc_int8_dequant_fn)(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                                   const int8_t *zero, float *out);
static inline pc_fp8_dequant_fn pc_fp8_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_fp8_dequant_ref : pc_fp8_dequant_fast; }
static inline pc_int8_dequant_fn pc_int8_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_int8_dequant_ref : pc_int8_dequant_fast; }
/* One run of n elements sharing one scale (and zero point): what a kernel set provides. */
typedef void (*pc_fp8_run_fn)(const uint8_t *w, size_t n, float s, float *out);
typedef void (*pc_int8_run_fn)(const uint8_t *w, size_t n, int zp, float s, float *out);
/* One row of cols elements in blocks of bw, block j scaled by srow[j] (NULL in a set: fp8_run per block). */
typedef void (*pc_fp8_row_fn)(const uint8_t *w, size_t cols, size_t bw, const float *srow, float *out);

/* One fast implementation: per-width functions (index b = 1..8; index 0 unused) and one function
 * per other layout (NULL: the scalar set's). */
typedef void (*pc_unpack_b_fn)(const uint8_t *src, size_t count, uint8_t *out);
typedef struct pc_kernel_set {
    const char *name;                 /* "scalar", "avx2", ... */
    pc_unpack_b_fn stream[9];
    pc_unpack_b_fn wordalign[9];
    pc_gptq_fn gptq;
    pc_awq_fn awq;
    pc_q4_0_fn q4_0;
    pc_nvfp4_dequant_fn nvfp4_dequant;
    pc_block_fn q8_0, q4_1, q5_0, q5_1, q4_k, q6_k, q5_k, iq4_nl, iq4_xs, mxfp4, q2_k, q3_k, tq1_0, tq2_0, gguf_nvfp4, q1_0, q2_0,
        iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m;
    pc_fp8_run_fn fp8_run;
    pc_int8_run_fn int8_run;
    pc_mlx_affine_fn mlx_affine;      /* NULL: the portable one (fast/mlx.c, bnb4.c) */
    pc_bnb4_unpack_fn bnb4_unpack;
    pc_bnb4_dequant_fn bnb4_dequant;
    pc_fp8_row_fn fp8_row;
    pc_bnb8_dequant_fn bnb8_dequant;  /* NULL: fast/bnb8.c's portable paths */
    pc_bnb8_codes_fn bnb8_codes;
} pc_kernel_set;

extern const pc_kernel_set pc_kernels_scalar;
/* The set the fast entry points use (chosen on first use, thread-safe). */
const pc_kernel_set *pc_kernels_active(void);
/* Force a set (tests and bench compare sets side by side); NULL restores the automatic choice.
 * The caller must only force a set the CPU runs (pc_kernels_select checks). */
void pc_kernels_force(const pc_kernel_set *set);
/* Which fast implementation runs here, for bench and reports. */
const char *pc_kernels_name(void);
/* The i-th implementation this CPU runs ("avx2", "scalar"), NULL past the end. */
const char *pc_kernels_available(size_t i);
/* Force an implementation by name; -1 when this CPU (or build) does not have it. */
int pc_kernels_select(const char *name);

#endif
