/* FP8 E4M3 / INT8 runs, AVX2 (kernels.h; the scalar runs and the grid walk are in fast/fp8.c).
 * E4M3: sixteen bytes as f16 through F16C (e4m3_16), or, for scales |s| >= 2^120, eight bytes widened to 32-bit lanes; normal lanes are magnitude << 20 plus 120 << 23 (the
 * f32 bits of the same value), subnormal lanes (magnitude < 8) m * 2^-9 from the integer, NaN lanes
 * (magnitude 0x7F) blended in, the sign ORed on, then one multiply by the scale. INT8: sign-extend, subtract the zero point, convert (exact), multiply. */
#include "../kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "avx2_inline.h"

#include <math.h>
#include <stdbool.h>

static inline AVX2_FN __m256 e4m3_8(const uint8_t *p, __m256 s)
{
    const __m256i m7f = _mm256_set1_epi32(0x7F), m80 = _mm256_set1_epi32(0x80);
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    __m256i mag = _mm256_and_si256(v, m7f), sign = _mm256_slli_epi32(_mm256_and_si256(v, m80), 24);
    __m256 normal = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_slli_epi32(mag, 20), _mm256_set1_epi32(120 << 23)));
    __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(mag), _mm256_set1_ps(0x1p-9f));
    __m256 f = _mm256_blendv_ps(normal, sub, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(8), mag)));
    f = _mm256_blendv_ps(f, _mm256_set1_ps(NAN), _mm256_castsi256_ps(_mm256_cmpeq_epi32(mag, m7f)));
    return _mm256_mul_ps(_mm256_or_ps(f, _mm256_castsi256_ps(sign)), s);
}

/* Sixteen bytes through F16C: the E4M3 byte is an f16 with the same mantissa bits and exponent
 * bias 15 instead of 7 once its magnitude moves to f16 bits 7..13 and its sign to bit 15, i.e.
 * f16 = x * 2^-8 exactly, subnormals included (e4m3 exponent 0 -> f16 exponent 0, m/8 * 2^-14);
 * vcvtph2ps widens it exactly in hardware (no f32 subnormal is formed, no assist). Magnitude 0x7F
 * becomes the f16 quiet NaN 0x7E00 (f32 0x7FC00000, the bits the scalar path gives), sign kept.
 * Then (x * 2^-8) * (s * 2^8): s * 2^8 is exact for |s| < 2^120, so the product is the same real
 * number as x * s and is rounded once, to the same f32 (pc_fp8_run_avx2 checks the range). */
/* Sixteen bytes at once: sign-extended byte << 7 puts the magnitude at bits 7..13 and the sign at
 * 14 and 15 (14 cleared); magnitude 0x7F is then f16 0x3F80 (| sign), and xor 0x4180 makes it 0x7E00.
 * with_nan = false skips that fix-up: only for runs e4m3_has_nan found free of NaN bytes. */
static inline AVX2_FN void e4m3_16(const uint8_t *p, __m256 s8, float *out, bool with_nan)
{
    __m256i h = _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p)), 7),
                                 _mm256_set1_epi16((short)0xBF80));
    if (with_nan) {
        __m256i nan = _mm256_cmpeq_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x3F80)), _mm256_set1_epi16(0x3F80));
        h = _mm256_xor_si256(h, _mm256_and_si256(nan, _mm256_set1_epi16(0x4180)));
    }
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(h)), s8));
    _mm256_storeu_ps(out + 8, _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)), s8));
}

/* Does w[0..n) hold a NaN byte (magnitude 0x7F, i.e. byte | 0x80 == 0xFF)? Three operations per
 * 32 bytes, against four per 16 for the fix-up it lets a row skip (valid files have no NaN: FP8-006). */
static inline AVX2_FN bool e4m3_has_nan(const uint8_t *w, size_t n)
{
    const __m256i hi = _mm256_set1_epi8((char)0x80), ff = _mm256_set1_epi8((char)0xFF);
    __m256i acc = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        acc = _mm256_or_si256(acc, _mm256_cmpeq_epi8(_mm256_or_si256(_mm256_loadu_si256((const __m256i *)(w + i)), hi), ff));
    bool found = !_mm256_testz_si256(acc, acc);
    for (; i < n && !found; i++) found = (w[i] & 0x7F) == 0x7F;
    return found;
}

AVX2_FN void pc_fp8_run_avx2(const uint8_t *w, size_t n, float s, float *out)
{
    size_t i = 0;
    /* A NaN scale times a NaN byte: x86 keeps the first operand's payload and a compiler may swap
     * a vector multiply's operands, so such runs take the scalar path (the oracle's bits). */
    if (isnan(s)) { pc_fp8_run_scalar(w, n, s, out); return; }
    if (!(fabsf(s) >= 0x1p120f) || isinf(s)) { /* s * 2^8 exact (or inf as s is) */
        __m256 s8 = _mm256_set1_ps(s * 0x1p8f);
        for (; i + 16 <= n; i += 16) e4m3_16(w + i, s8, out + i, true);
    } else { /* |s| >= 2^120 finite: s * 2^8 could overflow; the f32-bits path, one multiply by s */
        __m256 vs = _mm256_set1_ps(s);
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, e4m3_8(w + i, vs));
    }
    if (i < n) pc_fp8_run_scalar(w + i, n - i, s, out + i);
}

/* A whole row: the per-block work of pc_fp8_run_avx2 inlined (no call per 128 bytes through the
 * kernel pointer), the NaN fix-up skipped when the row has no NaN byte (the row is scanned first,
 * while it is in L1: +15% here); a block with a tail or a scale outside the F16C range goes to
 * pc_fp8_run_avx2, so every element takes exactly the path it took before. */
AVX2_FN void pc_fp8_row_avx2(const uint8_t *w, size_t cols, size_t bw, const float *srow, float *out)
{
    bool with_nan = e4m3_has_nan(w, cols);
    for (size_t j = 0, k = 0; k < cols; j++, k += bw) {
        size_t len = cols - k < bw ? cols - k : bw;
        float s = srow[j];
        if (len % 16 || !(fabsf(s) < 0x1p120f)) { pc_fp8_run_avx2(w + k, len, s, out + k); continue; }
        __m256 s8 = _mm256_set1_ps(s * 0x1p8f);
        for (size_t i = 0; i < len; i += 16) e4m3_16(w + k + i, s8, out + k + i, with_nan);
    }
}

AVX2_FN void pc_int8_run_avx2(const uint8_t *w, size_t n, int zp, float s, float *out)
{
    __m256 vs = _mm256_set1_ps(s);
    __m256i vz = _mm256_set1_epi32(zp);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(w + i)));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(q, vz)), vs));
    }
    if (i < n) pc_int8_run_scalar(w + i, n - i, zp, s, out + i);
}

#endif /* PC_HAVE_X86_KERNELS */
