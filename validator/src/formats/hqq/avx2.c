/* AVX2 unpacker of HQQ's byte packings (1, 2, 4, 8 bits; 3-bit words in avx2_3bit.c): slot j
 * of every byte is one 16-bit shift and a byte mask per 32 bytes. Same rules as
 * kernels/fast/stream_avx2.c: target attributes, run only after the CPU reported AVX2 (kernels/simd.c),
 * any alignment, never a byte outside the stated sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"
#include "kernels/fast/lut16_avx2.h"

static AVX2_FN void slot_run(const uint8_t *src, size_t n, unsigned shift, unsigned mask, uint8_t *out)
{
    const __m256i m = _mm256_set1_epi8((char)mask);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_and_si256(_mm256_srl_epi16(v, sh), m));
    }
    for (; i < n; i++) out[i] = (uint8_t)((src[i] >> shift) & mask);
}

AVX2_FN void pc_hqq_unpack_avx2(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    if (b == 3) { pc_hqq_unpack3_avx2(src, R, C, codes); return; }
    unsigned S = 8 / b;
    size_t P = R / S;
    for (unsigned j = 0; j < S; j++) slot_run(src, P * C, 8 - b * (j + 1), (1u << b) - 1, codes + (size_t)j * P * C);
}

/* Dequantisation, w = rT(rT(q - z) * s), eight lanes at a time: bf16 rounds on the f32 bits (as
 * kernels/fast/round.h), f16 through VCVTPS2PH imm 0 (round to nearest even, overflow to inf, f16
 * subnormals: the same IEEE rounding as pc_round_f16) and back exactly. A group of eight with a NaN
 * result is recomputed by the portable path, so NaN bits are the portable path's too. */
static inline __attribute__((always_inline)) AVX2_FN __m256 round_t(__m256 x, pc_round_t t)
{
    if (t == PC_ROUND_F16) return _mm256_cvtph_ps(_mm256_cvtps_ph(x, 0));
    if (t == PC_ROUND_F32) return x;
    __m256i u = _mm256_castps_si256(x);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_and_si256(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb)),
                                 _mm256_set1_epi32((int)0xffff0000u));
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    return _mm256_castsi256_ps(_mm256_blendv_epi8(r, u, nan));
}

/* Rows of whole 32-code steps (axis 1, bf16/f16) by table: w for q = 0..15 computed as the lanes
 * below compute it, then looked up (kernels/fast/lut16_avx2.h), the same bits for a third of the
 * work. Not for a row with a code of 16 or more or with a NaN entry (whose bits are the portable
 * path's business): ok is false then. */
typedef struct hqq_lut {
    pc_lut16 l;
    bool ok;
} hqq_lut;

static inline __attribute__((always_inline)) AVX2_FN hqq_lut row_table(const uint8_t *q, size_t C, const float *z,
                                                                       const float *s, pc_round_t t)
{
    const __m256 k0 = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), k8 = _mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15);
    __m256 vz = _mm256_broadcast_ss(z), vs = _mm256_broadcast_ss(s);
    __m256 p0 = _mm256_mul_ps(round_t(_mm256_sub_ps(k0, vz), t), vs), p8 = _mm256_mul_ps(round_t(_mm256_sub_ps(k8, vz), t), vs);
    hqq_lut m;
    bool nan;
    if (t == PC_ROUND_F16) { /* a NaN half: exponent all ones, mantissa not zero (|h| > 0x7c00) */
        __m128i h0 = _mm256_cvtps_ph(p0, 0), h8 = _mm256_cvtps_ph(p8, 0);
        const __m128i abs = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(0x7c00);
        nan = _mm_movemask_epi8(_mm_or_si128(_mm_cmpgt_epi16(_mm_and_si128(h0, abs), inf),
                                             _mm_cmpgt_epi16(_mm_and_si128(h8, abs), inf)));
        m.l = pc_lut16_from_f16(h0, h8);
    } else {
        __m256 w0 = round_t(p0, t), w8 = round_t(p8, t);
        nan = _mm256_movemask_ps(_mm256_cmp_ps(w0, w8, _CMP_UNORD_Q));
        m.l = pc_lut16_from_bf16(w0, w8);
    }
    m.ok = !nan && pc_lut16_codes_fit(q, C);
    return m;
}

static inline __attribute__((always_inline)) AVX2_FN void row_lut(const uint8_t *q, size_t C, const pc_lut16 *l,
                                                                  pc_round_t t, float *o)
{
    for (size_t c = 0; c < C; c += 32) {
        __m256 v[4];
        if (t == PC_ROUND_F16) pc_lut16_f16_x32(l, q + c, v);
        else pc_lut16_bf16_x32(l, q + c, v);
        for (unsigned k = 0; k < 4; k++) _mm256_storeu_ps(o + c + 8 * k, v[k]);
    }
}

/* One row: z and s per lane (axis 0: the columns', advancing) or broadcast (axis 1). NaN lanes are
 * collected over the row and, if any, the whole row is redone by the portable path (no branch per
 * eight lanes: valid checkpoints have none). */
static inline __attribute__((always_inline)) AVX2_FN void dq_row(const uint8_t *q, size_t C, int axis, const float *z,
                                                                 const float *s, pc_round_t t, float *o)
{
    __m256 vz = _mm256_broadcast_ss(z), vs = _mm256_broadcast_ss(s), nan = _mm256_setzero_ps();
    size_t c = 0;
    for (; c + 8 <= C; c += 8) {
        if (axis == 0) { vz = _mm256_loadu_ps(z + c); vs = _mm256_loadu_ps(s + c); }
        __m256 x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + c))));
        __m256 w = round_t(_mm256_mul_ps(round_t(_mm256_sub_ps(x, vz), t), vs), t);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(w, w, _CMP_UNORD_Q));
        _mm256_storeu_ps(o + c, w);
    }
    if (_mm256_movemask_ps(nan)) c = 0;
    if (c < C) pc_hqq_dequant_scalar(q + c, 1, C - c, axis, axis == 0 ? z + c : z, s + (axis == 0 ? c : 0), t, o + c);
}

/* Rows by table, the table of row r + 2 built before row r is looked up so that the chains overlap
 * (a table is a long dependency chain, the lookups short; two ahead measured better than one). */
static inline __attribute__((always_inline)) AVX2_FN void rows_lut(const uint8_t *q, size_t R, size_t C, const float *z,
                                                                   const float *s, pc_round_t t, float *o)
{
    size_t r1 = R > 1 ? 1 : 0;
    hqq_lut cur = row_table(q, C, z, s, t), nxt = row_table(q + r1 * C, C, z + r1, s + r1, t);
    for (size_t r = 0; r < R; r++) {
        size_t n = r + 2 < R ? r + 2 : r;
        hqq_lut nxt2 = row_table(q + n * C, C, z + n, s + n, t);
        if (cur.ok) row_lut(q + r * C, C, &cur.l, t, o + r * C);
        else dq_row(q + r * C, C, 1, z + r, s + r, t, o + r * C);
        cur = nxt;
        nxt = nxt2;
    }
}

#define HQQ_DQ(T, TT)                                                                                           \
    static AVX2_FN void dq_##T(const uint8_t *q, size_t R, size_t C, int axis, const float *z, const float *s, \
                               float *o)                                                                        \
    {                                                                                                           \
        if (axis == 1 && TT != PC_ROUND_F32 && C % 32 == 0 && R) { rows_lut(q, R, C, z, s, TT, o); return; }   \
        for (size_t r = 0; r < R; r++)                                                                          \
            if (axis == 1) dq_row(q + r * C, C, 1, z + r, s + r, TT, o + r * C);                                \
            else dq_row(q + r * C, C, 0, z, s, TT, o + r * C);                                                  \
    }
HQQ_DQ(f32, PC_ROUND_F32)
HQQ_DQ(bf16, PC_ROUND_BF16)
HQQ_DQ(f16, PC_ROUND_F16)

AVX2_FN void pc_hqq_dequant_avx2(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                                 pc_round_t t, float *out)
{
    (t == PC_ROUND_F16 ? dq_f16 : t == PC_ROUND_BF16 ? dq_bf16 : dq_f32)(codes, R, C, axis, zero, scale, out);
}

#endif /* PC_HAVE_X86_KERNELS */
