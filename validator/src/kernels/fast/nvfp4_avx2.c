/* AVX2 E2M1 x group-scale dequantisation (NVFP4, MXFP4, MLX fp modes; PERFORMANCE.md 3.4). Same rules as kernels/fast/stream_avx2.c: target attributes, run only after the
 * CPU reported AVX2, BMI2 and F16C (kernels/simd.c), any alignment, never a byte outside the stated sizes. */
#include "../kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------
 * NVFP4 -> f32: groups of 16 codes share one scale; the E2M1 magnitude comes from an 8-entry
 * vpermps table, the sign (bit 3) is XORed into the float, then one multiply (one rounding).
 * --------------------------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) AVX2_FN void nvfp4_f32_avx2(const uint8_t *codes, size_t groups,
                                                                         const float *group_scale, float *out, bool nt)
{
    const __m256 table = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
    const __m256i sign = _mm256_set1_epi32(8);
    for (size_t g = 0; g < groups; g++) {
        __m256 s = _mm256_broadcast_ss(group_scale + g);
        __m128i c16 = _mm_loadu_si128((const __m128i *)(codes + 16 * g));
        for (int h = 0; h < 2; h++) {
            __m256i c = _mm256_cvtepu8_epi32(h ? _mm_srli_si128(c16, 8) : c16);
            __m256 mag = _mm256_permutevar8x32_ps(table, c); /* uses bits 0-2 */
            __m256 v = _mm256_xor_ps(mag, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(c, sign), 28)));
            store_f32(out + 16 * g + 8 * h, _mm256_mul_ps(v, s), nt);
        }
    }
    if (nt) _mm_sfence();
}

AVX2_FN void pc_nvfp4_dequant_avx2(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    size_t groups = rows * (cols / 16); /* a group is 64 bytes of f32 */
    if (pc_nt_wanted(out, groups * 64)) nvfp4_f32_avx2(codes, groups, group_scale, out, true);
    else nvfp4_f32_avx2(codes, groups, group_scale, out, false);
}

#endif /* PC_HAVE_X86_KERNELS */
