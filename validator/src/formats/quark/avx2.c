/* AVX2 Quark kernels. MX dequantisation: the element's exact f32 value built from its fields (values8),
 * then multiplied by the block's E8M0 power of two: one rounding, as in the oracle. Eight codes per
 * step; a partial block of 32 takes the portable path. Run only after the CPU reported AVX2. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

/* value(c[0..7]) as f32, exactly, with no subnormal operand (those cost microcode assists): a normal
 * element's exponent and mantissa moved under bit 23 and rebiased; a subnormal one (exponent field 0)
 * as its integer mantissa times 2^(1 - bias - mbits); the sign bit OR-ed in. */
static AVX2_FN __m256 values8(const uint8_t *c, unsigned bits, unsigned mbits, int bias)
{
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)c));
    __m256i mag = _mm256_and_si256(v, _mm256_set1_epi32((int)((1u << (bits - 1)) - 1)));
    __m256i man = _mm256_and_si256(v, _mm256_set1_epi32((int)((1u << mbits) - 1)));
    __m256i normal = _mm256_add_epi32(_mm256_sll_epi32(mag, _mm_cvtsi32_si128((int)(23 - mbits))),
                                      _mm256_set1_epi32((127 - bias) << 23));
    __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(man), _mm256_set1_ps(pc_e8m0_value((uint8_t)(128 - bias - (int)mbits))));
    __m256 is_sub = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_srli_epi32(mag, (int)mbits), _mm256_setzero_si256()));
    __m256 val = _mm256_blendv_ps(_mm256_castsi256_ps(normal), sub, is_sub);
    __m256i sign = _mm256_slli_epi32(_mm256_srli_epi32(v, (int)(bits - 1)), 31);
    return _mm256_or_ps(val, _mm256_castsi256_ps(sign));
}

AVX2_FN void pc_qk_mx_dequant_avx2(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    unsigned bits = pc_qk_elem_bits(k), mbits = k == PC_QK_E2M3 ? 3 : k == PC_QK_E3M2 ? 2 : 1;
    int bias = k == PC_QK_E3M2 ? 3 : 1;
    size_t S = (K + 31) / 32, full = K / 32;
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *cr = codes + r * K;
        float *o = out + r * K;
        for (size_t b = 0; b < full; b++) {
            __m256 s = _mm256_set1_ps(pc_e8m0_value(e8m0[r * S + b]));
            for (size_t j = 0; j < 32; j += 8) /* the scale multiply is the one rounding */
                _mm256_storeu_ps(o + b * 32 + j,
                                 _mm256_mul_ps(values8(cr + b * 32 + j, bits, mbits, bias), s));
        }
        if (full < S) pc_qk_mx_dequant_scalar(cr + full * 32, 1, K - full * 32, k, e8m0 + r * S + full, o + full * 32);
    }
}

#endif
