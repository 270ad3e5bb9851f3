/* NVFP4 fast path: one scale load per 16-element group; the E2M1 value by a table lookup (AVX2:
 * an in-register permute of the 8 magnitudes, the sign bit moved into place). Every product is the
 * same single f32 rounding as the oracle (no FMA: -ffp-contract=off; _mm256_mul_ps is IEEE). */
#include "../kernels.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PC_NVFP4_AVX2 1
#endif

static const float k_e2m1_fast[16] = {
    0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f,
};

static void dequant_scalar(const uint8_t *codes, size_t ngroups, const float *group_scale, float *out)
{
    for (size_t g = 0; g < ngroups; g++) {
        const float s = group_scale[g];
        const uint8_t *c = codes + g * 16;
        float *o = out + g * 16;
        for (int j = 0; j < 16; j++) o[j] = k_e2m1_fast[c[j] & 15] * s;
    }
}

#ifdef PC_NVFP4_AVX2
__attribute__((target("avx2"))) static inline __m256 e2m1x8(const uint8_t *c, __m256 mags)
{
    uint64_t raw;
    memcpy(&raw, c, 8);
    __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)raw));
    __m256 mag = _mm256_permutevar8x32_ps(mags, idx); /* uses the low 3 bits of each lane */
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(idx, _mm256_set1_epi32(8)), 28);
    return _mm256_xor_ps(mag, _mm256_castsi256_ps(sign));
}

__attribute__((target("avx2"))) static void dequant_avx2(const uint8_t *codes, size_t ngroups, const float *group_scale, float *out)
{
    const __m256 mags = _mm256_loadu_ps(k_e2m1_fast);
    for (size_t g = 0; g < ngroups; g++) {
        const __m256 s = _mm256_set1_ps(group_scale[g]);
        _mm256_storeu_ps(out + g * 16, _mm256_mul_ps(e2m1x8(codes + g * 16, mags), s));
        _mm256_storeu_ps(out + g * 16 + 8, _mm256_mul_ps(e2m1x8(codes + g * 16 + 8, mags), s));
    }
}
#endif

void pc_nvfp4_dequant_fast(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    size_t ngroups = rows * (cols / 16);
#ifdef PC_NVFP4_AVX2
    if (__builtin_cpu_supports("avx2")) { dequant_avx2(codes, ngroups, group_scale, out); return; }
#endif
    dequant_scalar(codes, ngroups, group_scale, out);
}

void pc_nvfp4_dequant_fast_scalar(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    dequant_scalar(codes, rows * (cols / 16), group_scale, out);
}
