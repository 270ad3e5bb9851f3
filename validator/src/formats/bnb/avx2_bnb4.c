/* bitsandbytes 4-bit, AVX2 (kernels.h; the portable paths are in fast/bnb4.c).
 * Unpack: 32 bytes -> 64 codes, the HIGH nibble first (bitsandbytes packs element 2i high).
 * Dequantize: per block the 16-entry codebook scaled by the block's absmax (table[k] * absmax is
 * the single f32 rounding the oracle makes per element) sits in two registers; eight codes pick
 * from both halves with vpermps (which reads bits 0-2) and bit 3, shifted into the sign position,
 * chooses the half with vblendvps. Bits above 3 are ignored, as the oracle's `& 15`. Large outputs
 * to an aligned buffer use non-temporal stores when the blocks are whole vectors. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

#include <stdbool.h>

AVX2_FN void pc_bnb4_unpack_avx2(const uint8_t *src, size_t n, uint8_t *out)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    size_t pairs = n / 2, i = 0;
    for (; i + 32 <= pairs; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i lo = _mm256_and_si256(x, m), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
        /* interleave within 128-bit lanes (high nibble first), then put the lane halves in order */
        __m256i a = _mm256_unpacklo_epi8(hi, lo), c = _mm256_unpackhi_epi8(hi, lo);
        _mm256_storeu_si256((__m256i *)(out + 2 * i), _mm256_permute2x128_si256(a, c, 0x20));
        _mm256_storeu_si256((__m256i *)(out + 2 * i + 32), _mm256_permute2x128_si256(a, c, 0x31));
    }
    for (; i < pairs; i++) {
        out[2 * i] = (uint8_t)(src[i] >> 4);
        out[2 * i + 1] = (uint8_t)(src[i] & 15);
    }
    if (n % 2) out[n - 1] = (uint8_t)(src[pairs] >> 4);
}

static inline __attribute__((always_inline)) AVX2_FN __m256 lookup8(__m128i c8, __m256 tlo, __m256 thi)
{
    __m256i c = _mm256_cvtepu8_epi32(c8);
    __m256 lo = _mm256_permutevar8x32_ps(tlo, c), hi = _mm256_permutevar8x32_ps(thi, c);
    return _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32(c, 28)));
}

static inline __attribute__((always_inline)) AVX2_FN void dequant(const uint8_t *codes, size_t n, const float *table,
                                                                  const float *absmax, size_t bs, float *out, bool nt)
{
    const __m256 t0 = _mm256_loadu_ps(table), t1 = _mm256_loadu_ps(table + 8);
    for (size_t b0 = 0, blk = 0; b0 < n; b0 += bs, blk++) {
        __m256 a = _mm256_broadcast_ss(absmax + blk);
        __m256 tlo = _mm256_mul_ps(t0, a), thi = _mm256_mul_ps(t1, a);
        size_t end = n - b0 < bs ? n : b0 + bs, i = b0;
        for (; i + 16 <= end; i += 16) {
            __m128i c16 = _mm_loadu_si128((const __m128i *)(codes + i));
            store_f32(out + i, lookup8(c16, tlo, thi), nt);
            store_f32(out + i + 8, lookup8(_mm_srli_si128(c16, 8), tlo, thi), nt);
        }
        for (; i + 8 <= end; i += 8) store_f32(out + i, lookup8(_mm_loadl_epi64((const __m128i *)(codes + i)), tlo, thi), nt);
        for (; i < end; i++) out[i] = table[codes[i] & 15] * absmax[blk];
    }
    if (nt) _mm_sfence();
}

static AVX2_FN void dequant_st(const uint8_t *c, size_t n, const float *t, const float *a, size_t bs, float *o)
{
    dequant(c, n, t, a, bs, o, false);
}

static AVX2_FN void dequant_nt(const uint8_t *c, size_t n, const float *t, const float *a, size_t bs, float *o)
{
    dequant(c, n, t, a, bs, o, true);
}

AVX2_FN void pc_bnb4_dequant_avx2(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize,
                                  float *out)
{
    if (blocksize == 0) return;
    bool nt = blocksize % 8 == 0 && pc_nt_wanted(out, n * 4);
    (nt ? dequant_nt : dequant_st)(codes, n, table, absmax, blocksize, out);
}

#endif /* PC_HAVE_X86_KERNELS */
