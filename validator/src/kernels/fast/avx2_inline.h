/* Shared by the AVX2 kernel files (x86-64 only; include after kernels/simd.h). Functions carry the
 * target attribute themselves: the build has no -march, and nothing here runs unless simd.c
 * saw AVX2, BMI2 and F16C on the CPU. */
#ifndef PC_AVX2_INLINE_H
#define PC_AVX2_INLINE_H

#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,bmi2,f16c")))

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt.h"

/* An fp16 field (little-endian bytes) that is a NaN: such a block takes the scalar path, whose NaN
 * payload is the oracle's (a compiler may commute a vector multiply's operands). */
static inline bool half_is_nan(const uint8_t *p)
{
    unsigned h = (unsigned)p[0] | ((unsigned)p[1] << 8);
    return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu);
}

static inline AVX2_FN float half_f32(const uint8_t *p)
{
    unsigned h = (unsigned)p[0] | ((unsigned)p[1] << 8);
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128((int)h))); /* exact, subnormals included */
}

/* out[i] = f32(q[i] - off) * s for n (multiple of 8) codes: (q - off) is exact in f32. */
static inline AVX2_FN void f32_offset_mul(const uint8_t *q, size_t n, int off, float s, float *out)
{
    const __m256i o = _mm256_set1_epi32(off);
    const __m256 vs = _mm256_set1_ps(s);
    for (size_t i = 0; i < n; i += 8) {
        __m256i v = _mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + i))), o);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtepi32_ps(v), vs));
    }
}

/* 64 codes from 32 bytes: low nibble first. unpacklo/hi interleave within 128-bit lanes, so the
 * two vperm2i128 put the halves back in order. */
static inline AVX2_FN void nibble_pair(const uint8_t *s, __m256i *first, __m256i *second)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    __m256i x = _mm256_loadu_si256((const __m256i *)s);
    __m256i lo = _mm256_and_si256(x, m), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
    __m256i a = _mm256_unpacklo_epi8(lo, hi), c = _mm256_unpackhi_epi8(lo, hi);
    *first = _mm256_permute2x128_si256(a, c, 0x20);
    *second = _mm256_permute2x128_si256(a, c, 0x31);
}

static inline AVX2_FN void nibble_step(const uint8_t *s, uint8_t *d)
{
    __m256i a, c;
    nibble_pair(s, &a, &c);
    _mm256_storeu_si256((__m256i *)d, a);
    _mm256_storeu_si256((__m256i *)(d + 32), c);
}

/* The streaming decision (PC_NT_MIN_BYTES, pc_nt_wanted) is nt.h's; a kernel with its own streaming
 * variant stores through store_f32 and fences once at the end. */
static inline __attribute__((always_inline)) AVX2_FN void store_f32(float *p, __m256 v, bool nt)
{
    if (nt) _mm256_stream_ps(p, v);
    else _mm256_storeu_ps(p, v);
}

#endif
