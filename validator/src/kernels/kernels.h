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

/* NVFP4 (FORMATS.md 4.1): the E2M1 value of a 4-bit code, sign in bit 3 (0x8 is -0.0). The codes
 * themselves are the LE 4-bit stream above (element 2i in the low nibble of byte i). */
float pc_e2m1_value(uint8_t code);
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
    pc_fp8_run_fn fp8_run;
    pc_int8_run_fn int8_run;
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
