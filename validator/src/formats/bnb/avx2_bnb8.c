/* bitsandbytes LLM.int8, AVX2 (kernels.h; the portable paths are in fast/bnb8.c). Eight int8 bytes
 * widen to i32 (vpmovsxbd), convert to f32 (exact), then two vmulps: by the row's SCB, then by the
 * f32 1/127, the oracle's two roundings in the oracle's order (no FMA: the target has none and the
 * build says -ffp-contract=off). Codes: the byte xor 0x80, 32 at a time. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

AVX2_FN void pc_bnb8_dequant_avx2(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out)
{
    const __m256 c = _mm256_set1_ps(PC_BNB8_RECIP);
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *s = src + r * cols;
        float *o = out + r * cols, sc = scb[r];
        __m256 vs = _mm256_set1_ps(sc);
        size_t i = 0;
        for (; i + 8 <= cols; i += 8) {
            __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s + i)));
            __m256 a = _mm256_mul_ps(_mm256_cvtepi32_ps(q), vs);
            _mm256_storeu_ps(o + i, _mm256_mul_ps(a, c));
        }
        for (; i < cols; i++) {
            float a = (float)(int8_t)s[i] * sc;
            o[i] = a * PC_BNB8_RECIP;
        }
    }
}

AVX2_FN void pc_bnb8_codes_avx2(const uint8_t *src, size_t n, uint8_t *out)
{
    const __m256i m = _mm256_set1_epi8((char)0x80);
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(src + i)), m));
    for (; i < n; i++) out[i] = (uint8_t)(src[i] ^ 0x80);
}
#endif
