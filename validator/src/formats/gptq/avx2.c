/* AVX2 unpacker of GPTQ qweight columns (PERFORMANCE.md 3.4). Same rules as kernels/fast/stream_avx2.c: target attributes, run only after the
 * CPU reported AVX2, BMI2 and F16C (kernels/simd.c), any alignment, never a byte outside the stated sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------
 * GPTQ: qweight [K*b/32, N] words; column n is one LE stream down the rows. For b = 2, 4, 8 every
 * byte of a word belongs to one column and holds 8/b whole fields, so 32 columns of a word row are
 * byte-transposed in registers (R_i = byte i of the 32 words, in column order) and each R_i yields
 * 8/b output rows with a shift and a mask. b = 3: a column's 32 fields fill 3 words = 12 bytes;
 * the three word rows are byte-transposed the same way and every 3 byte planes give 8 rows, two
 * of them straddling planes. Columns beyond the last multiple of 32 take the scalar path.
 * --------------------------------------------------------------------------------------------- */

static void gptq_cols_scalar(const uint8_t *src, unsigned b, size_t K, size_t N, size_t n0, uint8_t *out)
{
    const uint32_t mask = (1u << b) - 1;
    for (size_t i = 0; i < K; i++) {
        size_t w = i * b / 32;
        unsigned off = (unsigned)(i * b % 32);
        for (size_t n = n0; n < N; n++) {
            const uint8_t *p = src + (w * N + n) * 4;
            uint32_t v = ((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24)) >> off;
            if (off + b > 32) {
                const uint8_t *q = p + N * 4;
                v |= ((uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) | ((uint32_t)q[3] << 24)) << (32 - off);
            }
            out[i * N + n] = (uint8_t)(v & mask);
        }
    }
}

/* 32 words at p (columns n..n+31) -> r[i] = byte i of each word, columns in order. Lanes are
 * arranged at load time (two vbroadcasti128 and a vpblendd per vector: lane 0 holds columns
 * 4v..4v+3, lane 1 columns 16+4v..), so after vpshufb groups each word's bytes, a 4x4 dword
 * transpose with unpacks finishes the job without any cross-lane shuffle: 12 shuffle-port
 * operations per 32 words. */
static inline AVX2_FN __m256i load_split(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_blend_epi32(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                              _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi)), 0xF0);
}

static inline AVX2_FN void transpose_words(const uint8_t *p, __m256i r[4])
{
    const __m256i group = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                           0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m256i a = _mm256_shuffle_epi8(load_split(p, p + 64), group);
    __m256i b = _mm256_shuffle_epi8(load_split(p + 16, p + 80), group);
    __m256i c = _mm256_shuffle_epi8(load_split(p + 32, p + 96), group);
    __m256i d = _mm256_shuffle_epi8(load_split(p + 48, p + 112), group);
    __m256i ab_lo = _mm256_unpacklo_epi32(a, b), ab_hi = _mm256_unpackhi_epi32(a, b);
    __m256i cd_lo = _mm256_unpacklo_epi32(c, d), cd_hi = _mm256_unpackhi_epi32(c, d);
    r[0] = _mm256_unpacklo_epi64(ab_lo, cd_lo);
    r[1] = _mm256_unpackhi_epi64(ab_lo, cd_lo);
    r[2] = _mm256_unpacklo_epi64(ab_hi, cd_hi);
    r[3] = _mm256_unpackhi_epi64(ab_hi, cd_hi);
}

static inline AVX2_FN void gptq_bytes_block(const uint8_t *p, unsigned b, size_t N, uint8_t *o)
{
    /* p: word row, columns n..n+31; o: output row 32/b * row, column n. */
    __m256i r[4];
    transpose_words(p, r);
    const __m256i m = _mm256_set1_epi8((char)((1u << b) - 1));
    const unsigned per = 8 / b;
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < per; j++) {
            __m256i v = b == 8 ? r[i] : _mm256_and_si256(_mm256_srli_epi16(r[i], (int)(j * b)), m);
            _mm256_storeu_si256((__m256i *)(o + (i * per + j) * N), v);
        }
}

/* 3 bits: 32 fields of a column = 3 words = 12 bytes; 8 fields = 3 bytes. Given byte planes
 * r0..r2 of one 3-byte group, emit its 8 rows. 16-bit shifts stand in for byte shifts: the bits
 * they drag across the byte boundary are masked off. */
static inline AVX2_FN void gptq3_group(__m256i r0, __m256i r1, __m256i r2, size_t N, uint8_t *o)
{
    const __m256i m7 = _mm256_set1_epi8(7), m3 = _mm256_set1_epi8(3), m1 = _mm256_set1_epi8(1);
    const __m256i m4 = _mm256_set1_epi8(4), m6 = _mm256_set1_epi8(6);
    _mm256_storeu_si256((__m256i *)(o + 0 * N), _mm256_and_si256(r0, m7));
    _mm256_storeu_si256((__m256i *)(o + 1 * N), _mm256_and_si256(_mm256_srli_epi16(r0, 3), m7));
    _mm256_storeu_si256((__m256i *)(o + 2 * N), _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(r0, 6), m3),
                                                                 _mm256_and_si256(_mm256_slli_epi16(r1, 2), m4)));
    _mm256_storeu_si256((__m256i *)(o + 3 * N), _mm256_and_si256(_mm256_srli_epi16(r1, 1), m7));
    _mm256_storeu_si256((__m256i *)(o + 4 * N), _mm256_and_si256(_mm256_srli_epi16(r1, 4), m7));
    _mm256_storeu_si256((__m256i *)(o + 5 * N), _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(r1, 7), m1),
                                                                 _mm256_and_si256(_mm256_slli_epi16(r2, 1), m6)));
    _mm256_storeu_si256((__m256i *)(o + 6 * N), _mm256_and_si256(_mm256_srli_epi16(r2, 2), m7));
    _mm256_storeu_si256((__m256i *)(o + 7 * N), _mm256_and_si256(_mm256_srli_epi16(r2, 5), m7));
}

/* One 32-row block (3 word rows) of 32 columns: 12 byte planes, four 3-plane groups. */
static inline AVX2_FN void gptq3_block(const uint8_t *p, size_t N, uint8_t *o)
{
    __m256i a[4], b[4], c[4];
    transpose_words(p, a);
    transpose_words(p + N * 4, b);
    gptq3_group(a[0], a[1], a[2], N, o);
    gptq3_group(a[3], b[0], b[1], N, o + 8 * N);
    transpose_words(p + N * 8, c);
    gptq3_group(b[2], b[3], c[0], N, o + 16 * N);
    gptq3_group(c[1], c[2], c[3], N, o + 24 * N);
}

AVX2_FN void pc_gptq_unpack_avx2(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out)
{
    size_t wide = N / 32 * 32;
    if (b == 2 || b == 4 || b == 8) {
        size_t wrows = K * b / 32, per_word = 32 / b;
        for (size_t w = 0; w < wrows; w++)
            for (size_t n = 0; n < wide; n += 32) {
                const uint8_t *p = src + (w * N + n) * 4;
                uint8_t *o = out + w * per_word * N + n;
                if (b == 4) gptq_bytes_block(p, 4, N, o);
                else if (b == 2) gptq_bytes_block(p, 2, N, o);
                else gptq_bytes_block(p, 8, N, o);
            }
    } else if (b == 3) {
        for (size_t blk = 0; blk < K / 32; blk++)
            for (size_t n = 0; n < wide; n += 32) gptq3_block(src + (3 * blk * N + n) * 4, N, out + 32 * blk * N + n);
    } else {
        wide = 0;
    }
    if (wide < N) gptq_cols_scalar(src, b, K, N, wide, out);
}


#endif /* PC_HAVE_X86_KERNELS */
