/* AVX2 ModelOpt INT4 AWQ kernels: each packed row of K bytes gives two output rows (low nibbles for
 * row 2j, high for 2j + 1). Dequantisation sign-extends 8 nibbles per 32-bit lane shift pair and
 * multiplies by the group's scale (the same single rounding as the oracle); groups that are not a
 * multiple of 8 take the portable path. Same rules as kernels/fast/stream_avx2.c: target attributes,
 * run only after the CPU reported AVX2 (kernels/simd.c), any alignment, no byte outside the sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

AVX2_FN void pc_mo_int4_unpack_avx2(const uint8_t *packed, size_t N, size_t K, uint8_t *codes)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    for (size_t j = 0; j < N / 2; j++) {
        const uint8_t *p = packed + j * K;
        uint8_t *lo = codes + 2 * j * K, *hi = lo + K;
        size_t k = 0;
        for (; k + 32 <= K; k += 32) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(p + k));
            _mm256_storeu_si256((__m256i *)(lo + k), _mm256_and_si256(v, m));
            _mm256_storeu_si256((__m256i *)(hi + k), _mm256_and_si256(_mm256_srli_epi16(v, 4), m));
        }
        for (; k < K; k++) {
            lo[k] = (uint8_t)(p[k] & 0x0F);
            hi[k] = (uint8_t)(p[k] >> 4);
        }
    }
}

/* Rows 2j and 2j + 1 from one packed row; g a multiple of 8. */
static AVX2_FN void row_pair(const uint8_t *p, size_t K, size_t g, const float *slo, const float *shi, float *olo, float *ohi)
{
    for (size_t k0 = 0; k0 < K; k0 += g) {
        const __m256 a = _mm256_set1_ps(slo[k0 / g]), b = _mm256_set1_ps(shi[k0 / g]);
        for (size_t k = k0; k < k0 + g; k += 8) {
            __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + k)));
            __m256i ql = _mm256_srai_epi32(_mm256_slli_epi32(v, 28), 28);
            __m256i qh = _mm256_srai_epi32(_mm256_slli_epi32(v, 24), 28);
            _mm256_storeu_ps(olo + k, _mm256_mul_ps(_mm256_cvtepi32_ps(ql), a));
            _mm256_storeu_ps(ohi + k, _mm256_mul_ps(_mm256_cvtepi32_ps(qh), b));
        }
    }
}

/* One output row from one nibble half (shift 4: the low nibbles, 0: the high), as the portable one. */
AVX2_FN void pc_mo_int4_half_avx2(const uint8_t *p, size_t K, size_t g, unsigned shift, const float *s, float *o)
{
    if (g % 8) { pc_mo_int4_half_scalar(p, K, g, shift, s, o); return; }
    const __m128i left = _mm_cvtsi32_si128((int)(24 + shift));
    for (size_t k0 = 0; k0 < K; k0 += g) {
        const __m256 a = _mm256_set1_ps(s[k0 / g]);
        for (size_t k = k0; k < k0 + g; k += 8) {
            __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + k)));
            __m256i q = _mm256_srai_epi32(_mm256_sll_epi32(v, left), 28);
            _mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), a));
        }
    }
}

AVX2_FN void pc_mo_int4_dequant_avx2(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out)
{
    if (g % 8) { pc_mo_int4_dequant_scalar(packed, N, K, g, scale, out); return; }
    size_t G = K / g;
    for (size_t j = 0; j < N / 2; j++)
        row_pair(packed + j * K, K, g, scale + 2 * j * G, scale + (2 * j + 1) * G, out + 2 * j * K, out + (2 * j + 1) * K);
}

#endif /* PC_HAVE_X86_KERNELS */
