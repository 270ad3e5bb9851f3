/* AVX2 unpacker of HQQ's 3bit_32 packing (kernels.h: ten row blocks per little-endian int32 word,
 * slot j at bit shift 27 - 3j). 32 words at a time are transposed into four byte planes (plane k =
 * byte k of each word, in word order), and every slot is then one or two 16-bit shifts and masks of
 * a plane or two: 16-bit shifts pull a neighbour byte's bits only into positions the mask drops.
 * A slot's row block may end early (R not a multiple of 10): its stores stop at R * C codes, as
 * the portable path's (fast.c) do, and the words after the last whole chunk take that path too. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <string.h>

/* Words w, w + 4: lane 0 of the k-th load holds words 4k..4k+3 and lane 1 words 16+4k..16+4k+3, so
 * after the in-lane transposition below each plane's bytes come out in word order. */
static inline __attribute__((always_inline)) AVX2_FN __m256i load_pair(const uint8_t *w, unsigned k)
{
    __m128i lo = _mm_loadu_si128((const __m128i *)(w + 16 * k)), hi = _mm_loadu_si128((const __m128i *)(w + 64 + 16 * k));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* p[k] = byte k of the 32 words at w, in order. */
static inline __attribute__((always_inline)) AVX2_FN void planes(const uint8_t *w, __m256i p[4])
{
    const __m256i t = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6,
                                       10, 14, 3, 7, 11, 15);
    __m256i a = _mm256_shuffle_epi8(load_pair(w, 0), t), b = _mm256_shuffle_epi8(load_pair(w, 1), t);
    __m256i c = _mm256_shuffle_epi8(load_pair(w, 2), t), d = _mm256_shuffle_epi8(load_pair(w, 3), t);
    __m256i ab0 = _mm256_unpacklo_epi32(a, b), ab1 = _mm256_unpackhi_epi32(a, b);
    __m256i cd0 = _mm256_unpacklo_epi32(c, d), cd1 = _mm256_unpackhi_epi32(c, d);
    p[0] = _mm256_unpacklo_epi64(ab0, cd0);
    p[1] = _mm256_unpackhi_epi64(ab0, cd0);
    p[2] = _mm256_unpacklo_epi64(ab1, cd1);
    p[3] = _mm256_unpackhi_epi64(ab1, cd1);
}

/* Slot j's 32 codes for words [i, i + 32) to their place: whole while the slot's row block lasts
 * (lim: C times the rows it really has), the part before lim if it ends inside, else nothing. */
static inline __attribute__((always_inline)) AVX2_FN void put(uint8_t *o, size_t i, size_t lim, __m256i v)
{
    if (i + 32 <= lim) _mm256_storeu_si256((__m256i *)(o + i), v);
    else if (i < lim) { /* the block's last rows end inside these 32 */
        uint8_t tmp[32];
        _mm256_storeu_si256((__m256i *)tmp, v);
        memcpy(o + i, tmp, lim - i);
    }
}

/* Slot j's codes for words [i, n_j): n_j = C times the rows its block really has. */
static void tail_slot(const uint8_t *src, size_t i, size_t n_j, unsigned j, uint8_t *o)
{
    for (; i < n_j; i++) o[i] = (uint8_t)((pc_load_le32(src + 4 * i) >> (27 - 3 * j)) & 7u);
}

/* Each slot is stored as soon as it is made, so that only the planes and the masks stay live. */
AVX2_FN void pc_hqq_unpack3_avx2(const uint8_t *src, size_t R, size_t C, uint8_t *codes)
{
    size_t P = (R + 9) / 10, n = P * C, lim[10];
    for (unsigned j = 0; j < 10; j++) lim[j] = (R > j * P ? (R - j * P < P ? R - j * P : P) : 0) * C;
    const __m256i m7 = _mm256_set1_epi8(7), m1 = _mm256_set1_epi8(1), m3 = _mm256_set1_epi8(3);
    const __m256i m6 = _mm256_set1_epi8(6), m4 = _mm256_set1_epi8(4);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i p[4];
        planes(src + 4 * i, p);
        put(codes, i, lim[0], _mm256_and_si256(_mm256_srli_epi16(p[3], 3), m7));         /* bits 27-29 */
        put(codes + n, i, lim[1], _mm256_and_si256(p[3], m7));                          /* 24-26 */
        put(codes + 2 * n, i, lim[2], _mm256_and_si256(_mm256_srli_epi16(p[2], 5), m7)); /* 21-23 */
        put(codes + 3 * n, i, lim[3], _mm256_and_si256(_mm256_srli_epi16(p[2], 2), m7)); /* 18-20 */
        put(codes + 4 * n, i, lim[4],
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(p[1], 7), m1), _mm256_and_si256(_mm256_slli_epi16(p[2], 1), m6))); /* 15-17 */
        put(codes + 5 * n, i, lim[5], _mm256_and_si256(_mm256_srli_epi16(p[1], 4), m7)); /* 12-14 */
        put(codes + 6 * n, i, lim[6], _mm256_and_si256(_mm256_srli_epi16(p[1], 1), m7)); /* 9-11 */
        put(codes + 7 * n, i, lim[7],
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(p[0], 6), m3), _mm256_and_si256(_mm256_slli_epi16(p[1], 2), m4))); /* 6-8 */
        put(codes + 8 * n, i, lim[8], _mm256_and_si256(_mm256_srli_epi16(p[0], 3), m7)); /* 3-5 */
        put(codes + 9 * n, i, lim[9], _mm256_and_si256(p[0], m7));                        /* 0-2 */
    }
    for (unsigned j = 0; j < 10; j++) tail_slot(src, i, lim[j], j, codes + j * n);
}

#endif /* PC_HAVE_X86_KERNELS */
