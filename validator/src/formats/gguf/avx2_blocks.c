/* AVX2 decoders of the GGUF block types Q8_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K,
 * Q6_K, Q2_K, IQ4_NL, IQ4_XS and MXFP4 (kernels.h states
 * each layout and operation order; oracle/gguf_*.c is the literal reference). Codes are split out
 * whole 32-byte registers at a time; f32 follows ggml's dequantize_row_<type> order with separate
 * multiply and add/subtract intrinsics (the build has -ffp-contract=off, and no FMA intrinsic is
 * used), so each lane rounds exactly as the oracle's scalar statement. The per-sub-block factors
 * (d * sc, dmin * m) are computed in scalar f32 exactly as the oracle does. A block whose fp16
 * scale field is a NaN takes the scalar fast path for that block: its payload must come out as the
 * oracle's, and a compiler may commute a vector multiply's operands. Infinities need no detour:
 * inf * 0 and inf - inf give the same default NaN in a vector lane as in a scalar SSE op. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

/* The 32 nibbles of 16 bytes in Q4_0's order: byte j low = element j, high = element j + 16. */
static inline AVX2_FN __m256i nibbles16(const uint8_t *qs)
{
    const __m128i m = _mm_set1_epi8(0x0F);
    __m128i x = _mm_loadu_si128((const __m128i *)qs);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(x, 4), m), _mm_and_si128(x, m));
}

/* The 32 bytes of a register as four f32 vectors (elements 0-7, 8-15, 16-23, 24-31), unsigned or
 * signed: stays in registers (no store and reload of the codes). */
static inline AVX2_FN void u8x32_f32(__m256i v, __m256 o[4])
{
    __m128i a = _mm256_castsi256_si128(v), b = _mm256_extracti128_si256(v, 1);
    o[0] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(a));
    o[1] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(a, 8)));
    o[2] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
    o[3] = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(b, 8)));
}
static inline AVX2_FN void i8x32_f32(__m256i v, __m256 o[4])
{
    __m128i a = _mm256_castsi256_si128(v), b = _mm256_extracti128_si256(v, 1);
    o[0] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(a));
    o[1] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(a, 8)));
    o[2] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
    o[3] = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(b, 8)));
}

/* out[i] = f32(f32(q[i]) * d) - m for the 32 codes of v (Q4_K, Q5_K order). */
static inline AVX2_FN void mul_sub32(__m256i v, float d, float m, float *out)
{
    const __m256 vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(m);
    __m256 x[4];
    u8x32_f32(v, x);
    for (int k = 0; k < 4; k++) _mm256_storeu_ps(out + 8 * k, _mm256_sub_ps(_mm256_mul_ps(x[k], vd), vm));
}

/* f32 of the nibbles of 8 bytes straight from memory: (low nibbles, high nibbles) as two 8-lane
 * vectors. One vpmovzxbd per 16 elements, no in-register byte shuffles (those share one port with
 * the widening and were the f32 paths' bottleneck); values as u8x32_f32 gives them. */
static inline AVX2_FN void nib8_f32(const uint8_t *p, __m256 *lo, __m256 *hi)
{
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    *lo = _mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(15)));
    *hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
}

/* ---- Q8_0: fp16 d, int8 qs[32]; codes = the bytes, w = f32(qs) * d ---- */
AVX2_FN void pc_q8_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 34 * b;
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), _mm256_loadu_si256((const __m256i *)(blk + 2)));
        if (!weights) continue;
        if (half_is_nan(blk)) { pc_q8_0_decode_scalar(blk, 1, NULL, weights + 32 * b); continue; }
        const __m256 d = _mm256_set1_ps(half_f32(blk));
        float *w = weights + 32 * b;
        for (int k = 0; k < 4; k++) {
            __m256i v = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(blk + 2 + 8 * k)));
            _mm256_storeu_ps(w + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(v), d));
        }
    }
}

/* ---- Q4_1: fp16 d, fp16 m, qs[16]; w = f32(f32(q) * d) + m ---- */
AVX2_FN void pc_q4_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 20 * b;
        __m256i c = nibbles16(blk + 4);
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), c);
        if (!weights) continue;
        if (half_is_nan(blk) || half_is_nan(blk + 2)) { pc_q4_1_decode_scalar(blk, 1, NULL, weights + 32 * b); continue; }
        __m256 x[4]; /* elements 0-7, 8-15 (low nibbles), 16-23, 24-31 (high) */
        nib8_f32(blk + 4, &x[0], &x[2]);
        nib8_f32(blk + 12, &x[1], &x[3]);
        const __m256 d = _mm256_set1_ps(half_f32(blk)), m = _mm256_set1_ps(half_f32(blk + 2));
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 32 * b + 8 * k, _mm256_add_ps(_mm256_mul_ps(x[k], d), m));
    }
}

/* ---- Q4_K: fp16 d, fp16 dmin, scales[12], qs[128] ---- */
/* All eight (d * sc, dmin * m) of a Q4_K/Q5_K block in two vector multiplies: scale_min_k4 for j =
 * 0..7 (ggml's get_scale_min_k4, as oracle/gguf_kquants.c) done on the three LE u32 words of scales[12] at once (j < 4: the low 6 bits of bytes 0-3 and
 * 4-7; j >= 4: the nibbles of bytes 8-11 with bits 6-7 of bytes 0-3 / 4-7 as bits 4-5). Each lane is
 * the oracle's single f32 product d * (float)sc (operands are finite: NaN scales go scalar). */
static inline AVX2_FN void k4_factors(const uint8_t *s, float d, float dmin, float d1[8], float m1[8])
{
    uint32_t w0 = pc_load_le32(s), w1 = pc_load_le32(s + 4), w2 = pc_load_le32(s + 8);
    uint32_t sc_lo = w0 & 0x3f3f3f3fu, m_lo = w1 & 0x3f3f3f3fu;
    uint32_t sc_hi = (w2 & 0x0f0f0f0fu) | ((w0 >> 2) & 0x30303030u);
    uint32_t m_hi = ((w2 >> 4) & 0x0f0f0f0fu) | ((w1 >> 2) & 0x30303030u);
    __m128i sc = _mm_set_epi32(0, 0, (int)sc_hi, (int)sc_lo), m = _mm_set_epi32(0, 0, (int)m_hi, (int)m_lo);
    _mm256_storeu_ps(d1, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc))));
    _mm256_storeu_ps(m1, _mm256_mul_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(m))));
}

/* The 256 codes: chunk c of 32 qs bytes gives sub-block 2c (low nibbles) and 2c + 1 (high). */
static inline AVX2_FN void q4_k_codes(const uint8_t *qs, uint8_t *out)
{
    const __m256i m = _mm256_set1_epi8(0x0F);
    for (int c = 0; c < 4; c++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(qs + 32 * c));
        _mm256_storeu_si256((__m256i *)(out + 64 * c), _mm256_and_si256(x, m));
        _mm256_storeu_si256((__m256i *)(out + 64 * c + 32), _mm256_and_si256(_mm256_srli_epi16(x, 4), m));
    }
}

AVX2_FN void pc_q4_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 144 * b;
        if (codes) q4_k_codes(blk + 16, codes + 256 * b);
        if (!weights) continue;
        if (half_is_nan(blk) || half_is_nan(blk + 2)) { pc_q4_k_decode_scalar(blk, 1, NULL, weights + 256 * b); continue; }
        const float d = half_f32(blk), dmin = half_f32(blk + 2);
        float d1[8], m1[8]; /* all factors first: the stores below may alias blk for the compiler */
        k4_factors(blk + 4, d, dmin, d1, m1);
        float *w = weights + 256 * b;
        /* chunk c of 32 qs bytes: low nibbles are sub-block 2c, high nibbles 2c + 1 */
        for (unsigned c = 0; c < 4; c++) {
            const __m256 dl = _mm256_set1_ps(d1[2 * c]), ml = _mm256_set1_ps(m1[2 * c]);
            const __m256 dh = _mm256_set1_ps(d1[2 * c + 1]), mh = _mm256_set1_ps(m1[2 * c + 1]);
            for (unsigned k = 0; k < 4; k++) {
                __m256 lo, hi;
                nib8_f32(blk + 16 + 32 * c + 8 * k, &lo, &hi);
                _mm256_storeu_ps(w + 64 * c + 8 * k, _mm256_sub_ps(_mm256_mul_ps(lo, dl), ml));
                _mm256_storeu_ps(w + 64 * c + 32 + 8 * k, _mm256_sub_ps(_mm256_mul_ps(hi, dh), mh));
            }
        }
    }
}

/* ---- Q5_K: fp16 d, dmin, scales[12] (as Q4_K), qh[32], qs[128]; q = Q4_K's nibble | bit j of
 * qh[e % 32] << 4 for sub-block j; w as Q4_K ---- */
AVX2_FN void pc_q5_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i m4 = _mm256_set1_epi8(0x0F), bit4 = _mm256_set1_epi8(0x10);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 176 * b;
        bool f32 = weights && !half_is_nan(blk) && !half_is_nan(blk + 2);
        if (weights && !f32) pc_q5_k_decode_scalar(blk, 1, NULL, weights + 256 * b);
        float d1[8], m1[8];
        if (f32) k4_factors(blk + 4, half_f32(blk), half_f32(blk + 2), d1, m1);
        const __m256i qh = _mm256_loadu_si256((const __m256i *)(blk + 16));
        for (unsigned c = 0; c < 4; c++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(blk + 48 + 32 * c));
            for (unsigned h = 0; h < 2; h++) {
                unsigned j = 2 * c + h;
                /* bit j of each qh byte to bit 4 (16-bit lane shifts, then one mask) */
                __m256i hb = j <= 4 ? _mm256_sll_epi16(qh, _mm_cvtsi32_si128((int)(4 - j))) : _mm256_srl_epi16(qh, _mm_cvtsi32_si128((int)(j - 4)));
                __m256i q = _mm256_or_si256(_mm256_and_si256(h ? _mm256_srli_epi16(x, 4) : x, m4), _mm256_and_si256(hb, bit4));
                if (codes) _mm256_storeu_si256((__m256i *)(codes + 256 * b + 32 * j), q);
                if (f32) mul_sub32(q, d1[j], m1[j], weights + 256 * b + 32 * j);
            }
        }
    }
}

/* ---- Q6_K: ql[128], qh[64], int8 scales[16], fp16 d at 208 ---- */
/* Per half h (ql + 64h, qh + 32h): element 32k + l takes ql[l + 32 (k & 1)]'s low (k < 2) or high
 * nibble and bits 2k..2k+1 of qh[l] as bits 4-5. */
static inline AVX2_FN void q6_k_codes(const uint8_t *blk, uint8_t *out)
{
    const __m256i m4 = _mm256_set1_epi8(0x0F), m3 = _mm256_set1_epi8(0x30);
    for (int h = 0; h < 2; h++) {
        __m256i l0 = _mm256_loadu_si256((const __m256i *)(blk + 64 * h));
        __m256i l1 = _mm256_loadu_si256((const __m256i *)(blk + 64 * h + 32));
        __m256i qh = _mm256_loadu_si256((const __m256i *)(blk + 128 + 32 * h));
        uint8_t *o = out + 128 * h;
        /* the high bits moved to bit 4-5: shifts by 4, 2, 0 and right 2 within 16-bit lanes, masked */
        __m256i h0 = _mm256_and_si256(_mm256_slli_epi16(qh, 4), m3), h1 = _mm256_and_si256(_mm256_slli_epi16(qh, 2), m3);
        __m256i h2 = _mm256_and_si256(qh, m3), h3 = _mm256_and_si256(_mm256_srli_epi16(qh, 2), m3);
        _mm256_storeu_si256((__m256i *)(o), _mm256_or_si256(_mm256_and_si256(l0, m4), h0));
        _mm256_storeu_si256((__m256i *)(o + 32), _mm256_or_si256(_mm256_and_si256(l1, m4), h1));
        _mm256_storeu_si256((__m256i *)(o + 64), _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), h2));
        _mm256_storeu_si256((__m256i *)(o + 96), _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4), h3));
    }
}

AVX2_FN void pc_q6_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint8_t local[256];
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 210 * b;
        uint8_t *q = codes ? codes + 256 * b : local;
        q6_k_codes(blk, q);
        if (!weights) continue;
        if (half_is_nan(blk + 208)) { pc_q6_k_decode_scalar(blk, 1, NULL, weights + 256 * b); continue; }
        /* element e's scale is scales[e / 16] (l / 16 + 2k + 8h with e = 128h + 32k + l); the 16
         * factors d * (float)scale in two vector multiplies, each lane the oracle's one product */
        const __m256 d = _mm256_set1_ps(half_f32(blk + 208));
        float ds[16];
        __m128i sc = _mm_loadu_si128((const __m128i *)(blk + 192));
        _mm256_storeu_ps(ds, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(sc))));
        _mm256_storeu_ps(ds + 8, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(sc, 8)))));
        for (unsigned g = 0; g < 16; g++) f32_offset_mul(q + 16 * g, 16, 32, ds[g], weights + 256 * b + 16 * g);
    }
}

/* ---- IQ4_NL: fp16 d, qs[16]; w = f32(d * kvalues_iq4nl[q]) ---- */
static inline AVX2_FN __m256i iq4nl_table(void)
{
    /* ggml-common.h kvalues_iq4nl (the oracle's k_iq4nl), in both lanes for vpshufb */
    return _mm256_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
                            -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
}

AVX2_FN void pc_iq4_nl_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i tab = iq4nl_table();
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 18 * b;
        __m256i c = nibbles16(blk + 2);
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), c);
        if (!weights) continue;
        if (half_is_nan(blk)) { pc_iq4_nl_decode_scalar(blk, 1, NULL, weights + 32 * b); continue; }
        __m256 x[4];
        i8x32_f32(_mm256_shuffle_epi8(tab, c), x);
        const __m256 d = _mm256_set1_ps(half_f32(blk));
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 32 * b + 8 * k, _mm256_mul_ps(d, x[k]));
    }
}

/* ---- MXFP4: E8M0 e, qs[16]; w = kvalues_mxfp4[q] * 2^(e - 128), exact ---- */
static inline float e8m0_half_bits(unsigned e)
{
    /* 2^(e - 128): f32 subnormals 2^-128 and 2^-127 for e = 0, 1, else biased exponent e - 1 */
    uint32_t u = e >= 2 ? (uint32_t)(e - 1) << 23 : (uint32_t)0x00200000u << e;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

AVX2_FN void pc_mxfp4_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    /* ggml-common.h kvalues_mxfp4 (E2M1 doubled), both lanes */
    const __m256i tab = _mm256_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
                                         0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 17 * b;
        __m256i c = nibbles16(blk + 1);
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), c);
        if (!weights) continue;
        __m256 x[4];
        i8x32_f32(_mm256_shuffle_epi8(tab, c), x);
        const __m256 d = _mm256_set1_ps(e8m0_half_bits(blk[0]));
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 32 * b + 8 * k, _mm256_mul_ps(x[k], d));
    }
}

/* ---- Q5_0 / Q5_1: the fifth bits of LE u32 qh (bit e for element e) as 0x10 per byte: byte e / 8
 * of qh broadcast to lane e, tested against bit e % 8 ---- */
static inline AVX2_FN __m256i fifth_bits(const uint8_t *qh)
{
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)pc_load_le32(qh)), pick);
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit), _mm256_set1_epi8(0x10));
}

AVX2_FN void pc_q5_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256 sixteen = _mm256_set1_ps(16.0f);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 22 * b;
        __m256i c = _mm256_or_si256(nibbles16(blk + 6), fifth_bits(blk + 2));
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), c);
        if (!weights) continue;
        if (half_is_nan(blk)) { pc_q5_0_decode_scalar(blk, 1, NULL, weights + 32 * b); continue; }
        __m256 x[4];
        u8x32_f32(c, x);
        const __m256 d = _mm256_set1_ps(half_f32(blk));
        /* f32(q) - 16 is exact: the oracle's f32(q - 16) */
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 32 * b + 8 * k, _mm256_mul_ps(_mm256_sub_ps(x[k], sixteen), d));
    }
}

AVX2_FN void pc_q5_1_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 24 * b;
        __m256i c = _mm256_or_si256(nibbles16(blk + 8), fifth_bits(blk + 4));
        if (codes) _mm256_storeu_si256((__m256i *)(codes + 32 * b), c);
        if (!weights) continue;
        if (half_is_nan(blk) || half_is_nan(blk + 2)) { pc_q5_1_decode_scalar(blk, 1, NULL, weights + 32 * b); continue; }
        __m256 x[4];
        u8x32_f32(c, x);
        const __m256 d = _mm256_set1_ps(half_f32(blk)), m = _mm256_set1_ps(half_f32(blk + 2));
        for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 32 * b + 8 * k, _mm256_add_ps(_mm256_mul_ps(x[k], d), m));
    }
}

/* ---- IQ4_XS: fp16 d, LE u16 scales_h, scales_l[4], qs[128]; sub-block j (qs + 16 j) in Q4_0's
 * nibble order; w = f32(d * (ls - 32)) * kvalues_iq4nl[q] ---- */
AVX2_FN void pc_iq4_xs_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (!weights) {
        /* codes only: a branch-free unrolled loop. The general loop's per-sub-block tests (codes? f32?)
         * made this case swing between 0.46x and 0.82x memcpy with code placement alone. */
        for (size_t b = 0; b < nblocks && codes; b++)
#pragma GCC unroll 8
            for (unsigned j = 0; j < 8; j++)
                _mm256_storeu_si256((__m256i *)(codes + 256 * b + 32 * j), nibbles16(src + 136 * b + 8 + 16 * j));
        return;
    }
    const __m256i tab = iq4nl_table();
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 136 * b;
        bool f32 = weights && !half_is_nan(blk);
        if (weights && !f32) pc_iq4_xs_decode_scalar(blk, 1, NULL, weights + 256 * b);
        /* the eight d * (ls - 32) in one vector multiply: ls_j = nibble j of scales_l (bits 4j..4j+3
         * of its LE u32) | bits 2j..2j+1 of scales_h << 4 */
        float dls[8];
        if (f32) {
            __m256i lo = _mm256_srlv_epi32(_mm256_set1_epi32((int)pc_load_le32(blk + 4)), _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
            __m256i hi = _mm256_srlv_epi32(_mm256_set1_epi32((int)((unsigned)blk[2] | ((unsigned)blk[3] << 8))), _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
            __m256i ls = _mm256_or_si256(_mm256_and_si256(lo, _mm256_set1_epi32(15)), _mm256_slli_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(3)), 4));
            __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(ls, _mm256_set1_epi32(32)));
            _mm256_storeu_ps(dls, _mm256_mul_ps(_mm256_set1_ps(half_f32(blk)), v));
        }
        for (unsigned j = 0; j < 8; j++) {
            __m256i c = nibbles16(blk + 8 + 16 * j);
            if (codes) _mm256_storeu_si256((__m256i *)(codes + 256 * b + 32 * j), c);
            if (!f32) continue;
            const __m256 dl = _mm256_set1_ps(dls[j]);
            __m256 x[4];
            i8x32_f32(_mm256_shuffle_epi8(tab, c), x);
            for (int k = 0; k < 4; k++) _mm256_storeu_ps(weights + 256 * b + 32 * j + 8 * k, _mm256_mul_ps(dl, x[k]));
        }
    }
}

/* ---- Q2_K: scales[16], qs[64], fp16 d, dmin at 80; element 128h + 32j + l is bits 2j..2j+1 of
 * qs[32h + l], scale byte e / 16; w = f32(f32(d * (sc & 15)) * q) - f32(dmin * (sc >> 4)) ---- */
AVX2_FN void pc_q2_k_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const __m256i m3 = _mm256_set1_epi8(3);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 84 * b;
        bool f32 = weights && !half_is_nan(blk + 80) && !half_is_nan(blk + 82);
        if (weights && !f32) pc_q2_k_decode_scalar(blk, 1, NULL, weights + 256 * b);
        /* the 16 (d * (sc & 15), dmin * (sc >> 4)) in four vector multiplies, one product per lane */
        float dl16[16], ml16[16];
        if (f32) {
            const __m256 vd = _mm256_set1_ps(half_f32(blk + 80)), vm = _mm256_set1_ps(half_f32(blk + 82));
            for (unsigned k = 0; k < 2; k++) {
                __m256i sc = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(blk + 8 * k)));
                _mm256_storeu_ps(dl16 + 8 * k, _mm256_mul_ps(vd, _mm256_cvtepi32_ps(_mm256_and_si256(sc, _mm256_set1_epi32(15)))));
                _mm256_storeu_ps(ml16 + 8 * k, _mm256_mul_ps(vm, _mm256_cvtepi32_ps(_mm256_srli_epi32(sc, 4))));
            }
        }
        for (unsigned h = 0; h < 2; h++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(blk + 16 + 32 * h));
            for (unsigned j = 0; j < 4; j++) {
                __m256i q = _mm256_and_si256(_mm256_srl_epi16(x, _mm_cvtsi32_si128((int)(2 * j))), m3);
                unsigned e0 = 128 * h + 32 * j;
                if (codes) _mm256_storeu_si256((__m256i *)(codes + 256 * b + e0), q);
                if (!f32) continue;
                __m256 v[4];
                u8x32_f32(q, v);
                for (unsigned g = 0; g < 2; g++) {
                    const __m256 vd = _mm256_set1_ps(dl16[e0 / 16 + g]), vm = _mm256_set1_ps(ml16[e0 / 16 + g]);
                    for (unsigned k = 0; k < 2; k++)
                        _mm256_storeu_ps(weights + 256 * b + e0 + 16 * g + 8 * k, _mm256_sub_ps(_mm256_mul_ps(v[2 * g + k], vd), vm));
                }
            }
        }
    }
}

#endif /* PC_HAVE_X86_KERNELS */
