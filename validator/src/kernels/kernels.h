/* The bit-level code. Kernels know nothing of files, configs or rules: plain arrays in, plain
 * arrays out. Each layout has a literal oracle (oracle/, compiled without vectorisation and with
 * -ffp-contract=off) and a fast version (fast/), chosen at run time. Callers guarantee the sizes
 * stated; kernels never read or write outside them, and src may have any alignment.
 *
 * This header holds the layouts several formats share (bit streams, word-aligned fields, E2M1 and
 * E4M3/int8 grids, E8M0); a format's own kernels live in its folder (formats/<name>/kernels.h).
 * Every fast entry point picks its implementation with PC_PICK (kernels/simd.h): one CPU-feature
 * choice per process, the same convention for every layout. */
#ifndef PC_KERNELS_H
#define PC_KERNELS_H

#include <string.h>

#include <stddef.h>
#include <stdint.h>

#include "packcheck_internal.h"
#include "simd.h"

/* Oracles stay out of interprocedural optimisation, so a constant b is never propagated into a
 * specialised (and possibly vectorised) clone of the literal code. */
#if defined(__clang__)
#define PC_ORACLE_FN __attribute__((noinline))
#else
#define PC_ORACLE_FN __attribute__((noipa))
#endif

/* A little-endian 32-bit word at any alignment (byte-swapped on a big-endian host). */
static inline uint32_t pc_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* The dtype T a library computes in and rounds to after each operation (kernels/oracle/round.h, kernels/fast/round.h). */
typedef enum { PC_ROUND_F32 = 0, PC_ROUND_BF16, PC_ROUND_F16 } pc_round_t;

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

/* Select an implementation: the oracle or the fast path. */
typedef void (*pc_unpack_fn)(const uint8_t *src, unsigned b, size_t count, uint8_t *out);
static inline pc_unpack_fn pc_stream_fn(pc_impl impl) { return impl == PC_IMPL_REF ? pc_stream_unpack_ref : pc_stream_unpack_fast; }
typedef void (*pc_nvfp4_dequant_fn)(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
static inline pc_nvfp4_dequant_fn pc_nvfp4_dequant(pc_impl impl) { return impl == PC_IMPL_REF ? pc_nvfp4_dequant_ref : pc_nvfp4_dequant_fast; }
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

/* The implementations behind the shared fast entry points (kernels/fast/). */
typedef void (*pc_unpack_b_fn)(const uint8_t *src, size_t count, uint8_t *out); /* one width b */
extern const pc_unpack_b_fn pc_stream_scalar[9], pc_wordalign_scalar[9];
void pc_nvfp4_dequant_scalar(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
void pc_fp8_run_scalar(const uint8_t *w, size_t n, float s, float *out);
void pc_int8_run_scalar(const uint8_t *w, size_t n, int zp, float s, float *out);
#ifdef PC_HAVE_X86_KERNELS
void pc_nvfp4_dequant_avx2(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out);
void pc_fp8_run_avx2(const uint8_t *w, size_t n, float s, float *out);
void pc_fp8_row_avx2(const uint8_t *w, size_t cols, size_t bw, const float *srow, float *out);
void pc_int8_run_avx2(const uint8_t *w, size_t n, int zp, float s, float *out);
extern const pc_unpack_b_fn pc_stream_avx2[9], pc_wordalign_avx2[9];
/* Build the stream shuffle tables (plain C, any CPU); kernels/simd.c calls it once before first use. */
void pc_avx2_plans_init(void);
#endif

#endif
