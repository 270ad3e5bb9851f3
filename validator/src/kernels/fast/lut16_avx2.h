/* Sixteen-entry lookup of 16-bit results (bf16 or f16 bits), 32 codes a step, for the AVX2 kernels
 * whose output in a group depends on the code alone (MLX affine and HQQ in bf16/f16: w = f(q) with
 * one scale and bias/zero per group). With codes below 16, computing f(0..15) once per group with
 * the kernel's own lane arithmetic and looking the rest up gives the same bits as computing every
 * element (the table entries are those lanes' results), for a fraction of the per-element work.
 * The table is two byte planes (low and high byte of each entry), each in both 128-bit lanes so
 * one VPSHUFB looks up 32 codes. Include after avx2_inline.h. */
#ifndef PC_LUT16_AVX2_H
#define PC_LUT16_AVX2_H

#include "avx2_inline.h"

typedef struct pc_lut16 {
    __m256i lo, hi; /* byte planes of entries 0..15, repeated in both lanes */
} pc_lut16;

/* From the entries as 16-bit words, w = [e0..e7 | e8..e15]. */
static inline __attribute__((always_inline)) AVX2_FN pc_lut16 pc_lut16_from_words(__m256i w)
{
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1,
                                           3, 5, 7, 9, 11, 13, 15);
    /* qwords [lo 0-7, hi 0-7, lo 8-15, hi 8-15]: qwords 0, 2 twice make the low plane, 1, 3 the high */
    __m256i p = _mm256_shuffle_epi8(w, split);
    pc_lut16 l = {_mm256_permute4x64_epi64(p, 0x88), _mm256_permute4x64_epi64(p, 0xDD)};
    return l;
}

/* f16 entries: the halves as VCVTPS2PH leaves them (entries 0-7, 8-15). */
static inline __attribute__((always_inline)) AVX2_FN pc_lut16 pc_lut16_from_f16(__m128i e0, __m128i e8)
{
    return pc_lut16_from_words(_mm256_inserti128_si256(_mm256_castsi128_si256(e0), e8, 1));
}

/* bf16 entries: f32 lanes (entries 0-7, 8-15) whose low 16 bits are zero (no NaN kept with a payload there). */
static inline __attribute__((always_inline)) AVX2_FN pc_lut16 pc_lut16_from_bf16(__m256 t0, __m256 t8)
{
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1,
                                           3, 5, 7, 9, 11, 13, 15);
    __m256i h0 = _mm256_srli_epi32(_mm256_castps_si256(t0), 16), h8 = _mm256_srli_epi32(_mm256_castps_si256(t8), 16);
    /* packus interleaves per lane, words [0-3, 8-11 | 4-7, 12-15]; split per lane, dwords are then
     * [lo 0-3, lo 8-11, hi 0-3, hi 8-11 | lo 4-7, lo 12-15, hi 4-7, hi 12-15]: one dword permute
     * each puts a plane in order in both lanes */
    __m256i p = _mm256_shuffle_epi8(_mm256_packus_epi32(h0, h8), split);
    pc_lut16 l = {_mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5)),
                  _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(2, 6, 3, 7, 2, 6, 3, 7))};
    return l;
}

/* True when all n codes at q (n a multiple of 32) are below 16. */
static inline __attribute__((always_inline)) AVX2_FN bool pc_lut16_codes_fit(const uint8_t *q, size_t n)
{
    __m256i acc = _mm256_setzero_si256();
    for (size_t i = 0; i < n; i += 32) acc = _mm256_or_si256(acc, _mm256_loadu_si256((const __m256i *)(q + i)));
    return _mm256_testz_si256(acc, _mm256_set1_epi8((char)0xF0));
}

/* 32 f16 entries looked up for the codes at q (each < 16) and widened exactly to f32: o[k] holds
 * codes 8k..8k+7. In-lane unpacking leaves codes 0-7 and 16-23 in one register, 8-15 and 24-31 in
 * the other. */
static inline __attribute__((always_inline)) AVX2_FN void pc_lut16_f16_x32(const pc_lut16 *l, const uint8_t *q, __m256 o[4])
{
    __m256i c = _mm256_loadu_si256((const __m256i *)q);
    __m256i lo = _mm256_shuffle_epi8(l->lo, c), hi = _mm256_shuffle_epi8(l->hi, c);
    __m256i a = _mm256_unpacklo_epi8(lo, hi), b = _mm256_unpackhi_epi8(lo, hi);
    o[0] = _mm256_cvtph_ps(_mm256_castsi256_si128(a));
    o[1] = _mm256_cvtph_ps(_mm256_castsi256_si128(b));
    o[2] = _mm256_cvtph_ps(_mm256_extracti128_si256(a, 1));
    o[3] = _mm256_cvtph_ps(_mm256_extracti128_si256(b, 1));
}

/* The same for bf16 entries (f32 = entry << 16). The codes' dwords are first reordered so that two
 * levels of in-lane unpacking end with codes 8k..8k+7 in o[k]. */
static inline __attribute__((always_inline)) AVX2_FN void pc_lut16_bf16_x32(const pc_lut16 *l, const uint8_t *q, __m256 o[4])
{
    const __m256i order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7), z = _mm256_setzero_si256();
    __m256i c = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)q), order);
    __m256i lo = _mm256_shuffle_epi8(l->lo, c), hi = _mm256_shuffle_epi8(l->hi, c);
    __m256i a = _mm256_unpacklo_epi8(lo, hi), b = _mm256_unpackhi_epi8(lo, hi);
    o[0] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, a));
    o[1] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, a));
    o[2] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, b));
    o[3] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, b));
}

#endif
