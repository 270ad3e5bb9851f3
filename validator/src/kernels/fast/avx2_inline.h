/* Shared by the AVX2 kernel files (x86-64 only; include after kernel_set.h). Functions carry the
 * target attribute themselves: the build has no -march, and nothing here runs unless dispatch.c
 * saw AVX2, BMI2 and F16C on the CPU. */
#ifndef PC_AVX2_INLINE_H
#define PC_AVX2_INLINE_H

#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,bmi2,f16c")))

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

#endif
