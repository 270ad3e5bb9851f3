/* AVX2 decoders of the GGUF block types Q3_K and TQ2_0 (TQ1_0: avx2_ternary.c; kernels.h states
 * each layout and operation order; oracle/gguf_kquants.c and gguf_ternary.c are the literal references). Kept apart
 * from gguf_avx2.c so the two files can change independently. Codes are split out whole registers
 * at a time; f32 uses separate multiply and subtract intrinsics (-ffp-contract=off, no FMA), and the
 * per-sub-block factor d * (sc - 32) is scalar f32 as in the oracle. A block whose fp16 d is a NaN
 * takes the scalar fast path for its weights (its payload must come out as the oracle's), as in
 * gguf_avx2.c. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

/* ---- Q3_K: hmask[32], qs[64], scales[12], fp16 d at 108. Element 128h + 32j + l: bits 2j..2j+1 of
 * qs[32h + l] | bit 4h + j of hmask[l] << 2; w = f32(d * (sc - 32)) * (q - 4) per group of 16. The
 * 16-bit shifts pull the neighbour byte's bits into the top only, which the masks drop (shift <= 7). */
AVX2_FN void pc_q3_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i m3 = _mm256_set1_epi8(3), m1 = _mm256_set1_epi8(1);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 110 * b;
        uint8_t q[256];
        __m256i hm = _mm256_loadu_si256((const __m256i *)blk);
        for (unsigned h = 0; h < 2; h++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(blk + 32 + 32 * h));
            for (unsigned j = 0; j < 4; j++) {
                __m256i lo = _mm256_and_si256(_mm256_srl_epi16(x, _mm_cvtsi32_si128((int)(2 * j))), m3);
                __m256i hi = _mm256_and_si256(_mm256_srl_epi16(hm, _mm_cvtsi32_si128((int)(4 * h + j))), m1);
                _mm256_storeu_si256((__m256i *)(q + 128 * h + 32 * j), _mm256_or_si256(lo, _mm256_slli_epi16(hi, 2)));
            }
        }
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        if (half_is_nan(blk + 108)) { pc_q3_k_decode_scalar(blk, 1, NULL, weights + 256 * b); continue; }
        const float d = half_f32(blk + 108);
        const uint8_t *s = blk + 96;
        for (unsigned g = 0; g < 16; g++) {
            unsigned lo = g < 8 ? (s[g] & 15u) : (unsigned)(s[g - 8] >> 4), hi = (s[8 + g % 4] >> (2 * (g / 4))) & 3u;
            f32_offset_mul(q + 16 * g, 16, 4, d * (float)((int)(lo | (hi << 4)) - 32), weights + 256 * b + 16 * g);
        }
    }
}

/* ---- TQ2_0: qs[64], fp16 d at 64; element 128h + 32l + m is bits 2l..2l+1 of qs[32h + m] ---- */
AVX2_FN void pc_tq2_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i m3 = _mm256_set1_epi8(3);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 66 * b;
        uint8_t q[256];
        for (unsigned h = 0; h < 2; h++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(blk + 32 * h));
            for (unsigned l = 0; l < 4; l++)
                _mm256_storeu_si256((__m256i *)(q + 128 * h + 32 * l), _mm256_and_si256(_mm256_srl_epi16(x, _mm_cvtsi32_si128((int)(2 * l))), m3));
        }
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        if (half_is_nan(blk + 64)) pc_tq2_0_decode_scalar(blk, 1, NULL, weights + 256 * b);
        else f32_offset_mul(q, 256, 1, half_f32(blk + 64), weights + 256 * b);
    }
}

#endif /* PC_HAVE_X86_KERNELS */
