/* AVX2 decoder of GGUF Q4_0 blocks (PERFORMANCE.md 3.4). Same rules as kernels/fast/stream_avx2.c: target attributes, run only after the
 * CPU reported AVX2, BMI2 and F16C (kernels/simd.c), any alignment, never a byte outside the stated sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------
 * GGUF Q4_0: per 18-byte block, qs (16 bytes) -> low nibbles = elements 0-15, high = 16-31, one
 * 256-bit register. f32: (q - 8) converted exactly, times d widened with F16C: one rounding, as
 * the oracle. A NaN d takes the scalar path (its payload must come out exactly as the oracle's).
 * --------------------------------------------------------------------------------------------- */

static inline AVX2_FN __m256i q4_block_codes(const uint8_t *blk)
{
    __m128i qs = _mm_loadu_si128((const __m128i *)(blk + 2)); /* bytes 2..17: inside the block */
    const __m128i m = _mm_set1_epi8(0x0F);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(qs, 4), m), _mm_and_si128(qs, m));
}

/* Codes only, two blocks per step: block i's qs in lane 0, block i+1's in lane 1; one mask and
 * one shift give both blocks' low and high halves, two vperm2i128 put each block together. */
static AVX2_FN void q4_0_codes_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    size_t i = 0;
    for (; i + 2 <= nblocks; i += 2) {
        const uint8_t *blk = src + 18 * i;
        __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(blk + 2))),
                                            _mm_loadu_si128((const __m128i *)(blk + 20)), 1);
        __m256i lo = _mm256_and_si256(x, m), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
        _mm256_storeu_si256((__m256i *)(codes + 32 * i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(codes + 32 * i + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    if (i < nblocks) _mm256_storeu_si256((__m256i *)(codes + 32 * i), q4_block_codes(src + 18 * i));
}


static inline __attribute__((always_inline)) AVX2_FN void q4_0_f32_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes,
                                                                        float *weights, bool nt)
{
    const __m256i eight = _mm256_set1_epi32(8), m15 = _mm256_set1_epi32(15);
    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *blk = src + 18 * i;
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * i), q4_block_codes(blk));
        uint16_t h = (uint16_t)(blk[0] | (blk[1] << 8));
        if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF)) { /* NaN scale: the f32 NaN with the same payload */
            uint32_t bits = ((uint32_t)(h >> 15) << 31) | 0x7f800000u | ((uint32_t)(h & 0x3FF) << 13);
            float d1;
            memcpy(&d1, &bits, sizeof d1);
            for (unsigned e = 0; e < 32; e++) {
                unsigned byte = blk[2 + e % 16], q = e < 16 ? (byte & 15u) : (byte >> 4);
                weights[32 * i + e] = (float)((int)q - 8) * d1;
            }
            continue;
        }
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))));
        float *w = weights + 32 * i;
        /* 8 qs bytes widened to 32-bit lanes give elements j (low nibble) and j+16 (high). */
        for (int half = 0; half < 2; half++) {
            __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(blk + 2 + 8 * half)));
            __m256i lo = _mm256_sub_epi32(_mm256_and_si256(v, m15), eight);
            __m256i hi = _mm256_sub_epi32(_mm256_srli_epi32(v, 4), eight);
            store_f32(w + 8 * half, _mm256_mul_ps(_mm256_cvtepi32_ps(lo), d), nt);
            store_f32(w + 16 + 8 * half, _mm256_mul_ps(_mm256_cvtepi32_ps(hi), d), nt);
        }
    }
    if (nt) _mm_sfence(); /* order the streamed lines before anyone reads the output */
}

AVX2_FN void pc_q4_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (!weights) { if (codes) q4_0_codes_avx2(src, nblocks, codes); return; }
    /* streaming stores need 32-byte-aligned destinations: blocks are 128 bytes of f32 */
    bool nt = pc_nt_wanted(weights, nblocks * 128);
    if (nt) q4_0_f32_avx2(src, nblocks, codes, weights, true);
    else q4_0_f32_avx2(src, nblocks, codes, weights, false);
}


#endif /* PC_HAVE_X86_KERNELS */
