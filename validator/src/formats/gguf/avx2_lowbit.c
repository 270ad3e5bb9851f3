/* AVX2 decoders of NVFP4, Q1_0 and Q2_0 (kernels.h states each layout; oracle/gguf_lowbit.c is the
 * literal reference). Codes by BMI2 pdep (one byte of Q1_0 bits or Q2_0 fields spread to one code per
 * byte) or, for NVFP4, nibble splits rearranged per 16-element sub-block; values by an 8-lane widen,
 * then one multiply (NVFP4, Q2_0: exact) or a sign flip (Q1_0). d is decoded by bits, not F16C, so a
 * signalling-NaN d keeps its payload where the oracle keeps it (Q1_0 copies d); a Q2_0 block whose d
 * is a NaN takes the scalar path, as in gguf_avx2.c. */
#include "../../kernels/fast/half.h"
#include "../../kernels/fast/kernel_set.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

/* 8 codes (one per byte of c) widened to 8 f32 lanes. */
static inline AVX2_FN __m256 u8x8_f32(uint64_t c) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)c))); }

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
        const __m256i v[2] = {_mm256_shuffle_epi8(tab, c01), _mm256_shuffle_epi8(tab, c23)};
        for (int h = 0; h < 2; h++) {
            __m128i v0 = _mm256_castsi256_si128(v[h]), v1 = _mm256_extracti128_si256(v[h], 1);
            const __m256 d0 = _mm256_set1_ps(pc_ue4m3_half(blk[2 * h])), d1 = _mm256_set1_ps(pc_ue4m3_half(blk[2 * h + 1]));
            _mm256_storeu_ps(w + 32 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v0)), d0));
            _mm256_storeu_ps(w + 32 * h + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v0, 8))), d0));
            _mm256_storeu_ps(w + 32 * h + 16, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v1)), d1));
            _mm256_storeu_ps(w + 32 * h + 24, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v1, 8))), d1));
        }
    }
}

/* ---- Q1_0: fp16 d, qs[16]; element j = bit j % 8 of qs[j / 8]; w = d, or d with its sign flipped ---- */
AVX2_FN void pc_q1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i one = _mm256_set1_epi32(1);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 18 * b;
        const __m256 d = _mm256_set1_ps(pc_half_to_f32(pc_le16_at(blk)));
        for (int k = 0; k < 16; k++) {
            uint64_t c = _pdep_u64(blk[2 + k], 0x0101010101010101ull);
            if (codes) memcpy(codes + 128 * b + 8 * k, &c, 8);
            if (!weights) continue;
            __m256i bits = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)c));
            __m256i sign = _mm256_slli_epi32(_mm256_xor_si256(bits, one), 31);
            _mm256_storeu_ps(weights + 128 * b + 8 * k, _mm256_xor_ps(d, _mm256_castsi256_ps(sign)));
        }
    }
}

/* ---- Q2_0: fp16 d, qs[16]; element j = bits 2(j % 4) of qs[j / 4]; w = f32(q - 1) * d ---- */
AVX2_FN void pc_q2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 18 * b;
        uint64_t c[8];
        for (int k = 0; k < 8; k++) c[k] = _pdep_u64((uint64_t)blk[2 + 2 * k] | ((uint64_t)blk[3 + 2 * k] << 8), 0x0303030303030303ull);
        if (codes) memcpy(codes + 64 * b, c, 64);
        if (!weights) continue;
        if (half_is_nan(blk)) { pc_q2_0_decode_scalar(blk, 1, NULL, weights + 64 * b); continue; }
        const __m256 d = _mm256_set1_ps(pc_half_to_f32(pc_le16_at(blk)));
        for (int k = 0; k < 8; k++) _mm256_storeu_ps(weights + 64 * b + 8 * k, _mm256_mul_ps(_mm256_sub_ps(u8x8_f32(c[k]), one), d));
    }
}
#endif
