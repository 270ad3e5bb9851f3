/* AVX2 decoders of NVFP4, Q1_0 and Q2_0 (kernels.h states each layout; oracle/gguf_lowbit.c is the
 * literal reference). Codes by byte shuffles and masks (Q1_0: byte j / 8 tested against bit j % 8;
 * Q2_0: the four 2-bit fields interleaved back; NVFP4: nibble splits regrouped per 16-element sub-block); values by an 8-lane widen,
 * then one multiply (NVFP4, Q2_0: exact) or a sign flip (Q1_0). d is decoded by bits, not F16C, so a
 * signalling-NaN d keeps its payload where the oracle keeps it (Q1_0 copies d); a Q2_0 block whose d
 * is a NaN takes the scalar path, as in gguf_avx2.c. */
#include "../../kernels/fast/half.h"
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

/* The block's four UE4M3 scales, halved, in lanes 0-3 (ue4m3_half on each byte, vectorised). */
static inline AVX2_FN __m128 ue4m3_half4(const uint8_t *d)
{
    __m128i x = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)pc_load_le32(d)));
    __m128i e = _mm_and_si128(_mm_srli_epi32(x, 3), _mm_set1_epi32(15)), m = _mm_and_si128(x, _mm_set1_epi32(7));
    __m128i normal = _mm_or_si128(_mm_slli_epi32(_mm_add_epi32(e, _mm_set1_epi32(119)), 23), _mm_slli_epi32(m, 20));
    __m128 sub = _mm_mul_ps(_mm_cvtepi32_ps(m), _mm_set1_ps(0x1p-10f));
    __m128 v = _mm_blendv_ps(_mm_castsi128_ps(normal), sub, _mm_castsi128_ps(_mm_cmpeq_epi32(e, _mm_setzero_si128())));
    return _mm_andnot_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, _mm_set1_epi32(0x7F))), v);
}

/* ---- NVFP4: d[4] (UE4M3 per 16), qs[32]; sub-block s = low nibbles of qs[8s..8s+7], then their high
 * nibbles. unpack{lo,hi}_epi64 pair the halves per 128-bit lane (sub-blocks 0, 2 and 1, 3), the
 * permutes restore the order. ---- */
AVX2_FN void pc_gguf_nvfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    const __m256i tab = _mm256_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
                                         0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 36 * b;
        __m256i x = _mm256_loadu_si256((const __m256i *)(blk + 4));
        __m256i lo = _mm256_and_si256(x, m), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
        __m256i s02 = _mm256_unpacklo_epi64(lo, hi), s13 = _mm256_unpackhi_epi64(lo, hi);
        __m256i c01 = _mm256_permute2x128_si256(s02, s13, 0x20), c23 = _mm256_permute2x128_si256(s02, s13, 0x31);
        if (codes) {
            _mm256_storeu_si256((__m256i *)(codes + 64 * b), c01);
            _mm256_storeu_si256((__m256i *)(codes + 64 * b + 32), c23);
        }
        if (!weights) continue;
        float *w = weights + 64 * b;
        float d4[4]; /* broadcast from memory: the load ports, not the shuffle port the codes need */
        _mm_storeu_ps(d4, ue4m3_half4(blk));
        const __m256i v[2] = {_mm256_shuffle_epi8(tab, c01), _mm256_shuffle_epi8(tab, c23)};
        for (int h = 0; h < 2; h++) {
            __m128i v0 = _mm256_castsi256_si128(v[h]), v1 = _mm256_extracti128_si256(v[h], 1);
            const __m256 d0 = _mm256_broadcast_ss(d4 + 2 * h), d1 = _mm256_broadcast_ss(d4 + 2 * h + 1);
            _mm256_storeu_ps(w + 32 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v0)), d0));
            _mm256_storeu_ps(w + 32 * h + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v0, 8))), d0));
            _mm256_storeu_ps(w + 32 * h + 16, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v1)), d1));
            _mm256_storeu_ps(w + 32 * h + 24, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v1, 8))), d1));
        }
    }
}

/* ---- Q1_0: fp16 d, qs[16]; element j = bit j % 8 of qs[j / 8]; w = d, or d with its sign flipped.
 * 32 codes at a time: byte j / 8 broadcast to lane j, tested against bit j % 8. ---- */
AVX2_FN void pc_q1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull), one8 = _mm256_set1_epi8(1);
    const __m256i one = _mm256_set1_epi32(1);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 18 * b;
        uint8_t q[128];
        for (int k = 0; k < 4; k++) {
            __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)pc_load_le32(blk + 2 + 4 * k)), pick);
            _mm256_storeu_si256((__m256i *)(q + 32 * k), _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit), one8));
        }
        if (codes) memcpy(codes + 128 * b, q, 128);
        if (!weights) continue;
        const __m256 d = _mm256_set1_ps(pc_half_to_f32(pc_le16_at(blk)));
        for (int k = 0; k < 16; k++) {
            __m256i bits = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8 * k)));
            __m256i sign = _mm256_slli_epi32(_mm256_xor_si256(bits, one), 31);
            _mm256_storeu_ps(weights + 128 * b + 8 * k, _mm256_xor_ps(d, _mm256_castsi256_ps(sign)));
        }
    }
}

/* ---- Q2_0: fp16 d, qs[16]; element j = bits 2(j % 4) of qs[j / 4]; w = f32(q - 1) * d. The four
 * 2-bit fields of each byte are split into four registers, then interleaved back byte by byte. ---- */
AVX2_FN void pc_q2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m128i m3 = _mm_set1_epi8(3);
    const __m256i one = _mm256_set1_epi32(1);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 18 * b;
        __m128i x = _mm_loadu_si128((const __m128i *)(blk + 2));
        __m128i f0 = _mm_and_si128(x, m3), f1 = _mm_and_si128(_mm_srli_epi16(x, 2), m3);
        __m128i f2 = _mm_and_si128(_mm_srli_epi16(x, 4), m3), f3 = _mm_and_si128(_mm_srli_epi16(x, 6), m3);
        __m128i p01l = _mm_unpacklo_epi8(f0, f1), p01h = _mm_unpackhi_epi8(f0, f1);
        __m128i p23l = _mm_unpacklo_epi8(f2, f3), p23h = _mm_unpackhi_epi8(f2, f3);
        const __m128i q[4] = {_mm_unpacklo_epi16(p01l, p23l), _mm_unpackhi_epi16(p01l, p23l), _mm_unpacklo_epi16(p01h, p23h),
                              _mm_unpackhi_epi16(p01h, p23h)};
        if (codes)
            for (int k = 0; k < 4; k++) _mm_storeu_si128((__m128i *)(codes + 64 * b + 16 * k), q[k]);
        if (!weights) continue;
        if (half_is_nan(blk)) { pc_q2_0_decode_scalar(blk, 1, NULL, weights + 64 * b); continue; }
        const __m256 d = _mm256_set1_ps(pc_half_to_f32(pc_le16_at(blk)));
        for (int k = 0; k < 4; k++) {
            __m256i lo = _mm256_sub_epi32(_mm256_cvtepu8_epi32(q[k]), one), hi = _mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(q[k], 8)), one);
            _mm256_storeu_ps(weights + 64 * b + 16 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(lo), d));
            _mm256_storeu_ps(weights + 64 * b + 16 * k + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(hi), d));
        }
    }
}
#endif
