/* FP8 E4M3 / INT8 runs, AVX2 (kernels.h; the scalar runs and the grid walk are in fast/fp8.c).
 * E4M3: eight bytes widened to 32-bit lanes; normal lanes are magnitude << 20 plus 120 << 23 (the
 * f32 bits of the same value), subnormal lanes (magnitude < 8) m * 2^-9 from the integer, NaN lanes
 * (magnitude 0x7F) blended in, the sign ORed on, then one multiply by the scale. INT8: sign-extend, subtract the zero point, convert (exact), multiply. */
#include "kernel_set.h"

#ifdef PC_HAVE_X86_KERNELS
#include "avx2_inline.h"

#include <math.h>

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

AVX2_FN void pc_fp8_run_avx2(const uint8_t *w, size_t n, float s, float *out)
{
    __m256 vs = _mm256_set1_ps(s);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_ps(out + i, e4m3_8(w + i, vs));
        _mm256_storeu_ps(out + i + 8, e4m3_8(w + i + 8, vs));
    }
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, e4m3_8(w + i, vs));
    if (i < n) pc_fp8_run_scalar(w + i, n - i, s, out + i);
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
