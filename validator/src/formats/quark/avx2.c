/* AVX2 Quark kernels (PERFORMANCE.md 3.4). Run only after the CPU reported AVX2 (kernels/simd.h);
 * any alignment; never a byte outside the stated sizes. Large outputs are written with streaming
 * stores when every store is a whole aligned vector (kernels/fast/nt.h decides).
 *
 * MX: every element value (E2M1, E2M3, E3M2) is exact in f32 with at most 3 mantissa bits, so its
 * f32 bits are zero below bit 16: the upper two bytes come from vpshufb tables of the exact values
 * (16 entries per 128-bit lane: E2M1 with its sign, the 32 FP6 magnitudes as two halves picked by
 * code bit 4, the sign bit 5 OR-ed in), 32 codes per step, widened to f32 by interleaving with
 * zeros. Then one multiply by the block's E8M0 power of two: the oracle's single rounding, done by
 * the same IEEE operation, so subnormal, infinite and NaN results are the oracle's too.
 *
 * int4: (f32(q) - f32(z)) * s with q the sign-extended nibble; the difference is exact, formed
 * in f32 from 2^23-offset operands (int4_8). */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <pthread.h>
#include <string.h>

/* Bytes 2 and 3 of the f32 value of every code 0..31 of each kind (E2M1: 0..15, sign included),
 * built once from the oracle's values. */
static uint8_t g_lo[3][32], g_hi[3][32];
static pthread_once_t g_bytes_once = PTHREAD_ONCE_INIT;
static void bytes_build(void)
{
    static const pc_qk_elem k_kinds[3] = {PC_QK_FP4, PC_QK_E2M3, PC_QK_E3M2};
    for (unsigned i = 0; i < 3; i++) {
        const float *v = pc_qk_value_table(k_kinds[i]);
        for (unsigned c = 0; c < 32; c++) {
            uint32_t u;
            memcpy(&u, &v[c], 4);
            g_lo[i][c] = (uint8_t)(u >> 16);
            g_hi[i][c] = (uint8_t)(u >> 24);
        }
    }
}

static inline AVX2_FN __m256i table16(const uint8_t t[16])
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}

typedef struct mx_tables {
    __m256i lo0, hi0, lo1, hi1; /* codes 0..15 and 16..31 (E2M1: lo0/hi0 only, sign included) */
} mx_tables;

/* The upper 16 bits of 32 values as (lo, hi) bytes, code bytes in the order of the vpermd below. */
static inline __attribute__((always_inline)) AVX2_FN void mx_bytes(__m256i x, const mx_tables *t, bool fp4, __m256i *lo,
                                                                   __m256i *hi)
{
    __m256i idx = _mm256_and_si256(x, _mm256_set1_epi8(0x0F)); /* vpshufb: bit 7 clear, low 4 bits index */
    if (fp4) {
        *lo = _mm256_shuffle_epi8(t->lo0, idx);
        *hi = _mm256_shuffle_epi8(t->hi0, idx);
        return;
    }
    __m256i sel = _mm256_slli_epi16(x, 3); /* code bit 4 -> byte bit 7: the blend's selector */
    *lo = _mm256_blendv_epi8(_mm256_shuffle_epi8(t->lo0, idx), _mm256_shuffle_epi8(t->lo1, idx), sel);
    *hi = _mm256_blendv_epi8(_mm256_shuffle_epi8(t->hi0, idx), _mm256_shuffle_epi8(t->hi1, idx), sel);
    __m256i sign = _mm256_and_si256(_mm256_slli_epi16(x, 2), _mm256_set1_epi8((char)0x80)); /* bit 5 -> bit 7 */
    *hi = _mm256_or_si256(*hi, sign);
}

/* One block of 32 codes times its scale. The codes' 4-byte groups are first put in the order
 * 0,2,4,6 | 1,3,5,7 so that the in-lane unpacks below leave codes 0..7, 8..15, 16..23, 24..31 in
 * the four result vectors. */
static inline __attribute__((always_inline)) AVX2_FN void mx_block(const uint8_t *c, const mx_tables *t, bool fp4, __m256 s,
                                                                   float *o, bool nt)
{
    const __m256i perm = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i x = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(const void *)c), perm);
    __m256i lo, hi;
    mx_bytes(x, t, fp4, &lo, &hi);
    __m256i z = _mm256_setzero_si256();
    __m256i w0 = _mm256_unpacklo_epi8(lo, hi), w1 = _mm256_unpackhi_epi8(lo, hi);
    store_f32(o, _mm256_mul_ps(_mm256_castsi256_ps(_mm256_unpacklo_epi16(z, w0)), s), nt);
    store_f32(o + 8, _mm256_mul_ps(_mm256_castsi256_ps(_mm256_unpackhi_epi16(z, w0)), s), nt);
    store_f32(o + 16, _mm256_mul_ps(_mm256_castsi256_ps(_mm256_unpacklo_epi16(z, w1)), s), nt);
    store_f32(o + 24, _mm256_mul_ps(_mm256_castsi256_ps(_mm256_unpackhi_epi16(z, w1)), s), nt);
}

static inline __attribute__((always_inline)) AVX2_FN void mx_all(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k,
                                                                 const mx_tables *t, bool fp4, const uint8_t *e8m0, float *out,
                                                                 bool nt)
{
    size_t S = (K + 31) / 32, full = K / 32;
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *cr = codes + r * K;
        float *o = out + r * K;
        const uint8_t *er = e8m0 + r * S;
        for (size_t b = 0; b < full; b++) mx_block(cr + 32 * b, t, fp4, _mm256_set1_ps(pc_e8m0_value(er[b])), o + 32 * b, nt);
        if (full < S) pc_qk_mx_dequant_scalar(cr + 32 * full, 1, K - 32 * full, k, er + full, o + 32 * full); /* partial block */
    }
    if (nt) _mm_sfence(); /* order the streamed lines before anyone reads the output */
}

/* One instantiation per element width and store kind, so the block code has no branch on either. */
#define MX_VARIANT(name, FP4, NT)                                                                                   \
    static AVX2_FN void name(const uint8_t *c, size_t rows, size_t K, pc_qk_elem k, const mx_tables *t,             \
                             const uint8_t *e, float *o)                                                            \
    {                                                                                                               \
        mx_all(c, rows, K, k, t, FP4, e, o, NT);                                                                    \
    }
MX_VARIANT(mx_fp6, false, false)
MX_VARIANT(mx_fp4, true, false)
MX_VARIANT(mx_fp6_nt, false, true)
MX_VARIANT(mx_fp4_nt, true, true)

AVX2_FN void pc_qk_mx_dequant_avx2(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    pthread_once(&g_bytes_once, bytes_build);
    unsigned ki = k == PC_QK_FP4 ? 0 : k == PC_QK_E2M3 ? 1 : 2;
    mx_tables t = {table16(g_lo[ki]), table16(g_hi[ki]), table16(g_lo[ki] + 16), table16(g_hi[ki] + 16)};
    bool fp4 = k == PC_QK_FP4;
    /* rows * K floats is the caller's output buffer, so the byte count cannot overflow */
    bool nt = K % 8 == 0 && pc_nt_wanted(out, rows * K * sizeof(float));
    if (fp4) (nt ? mx_fp4_nt : mx_fp4)(codes, rows, K, k, &t, e8m0, out);
    else (nt ? mx_fp6_nt : mx_fp6)(codes, rows, K, k, &t, e8m0, out);
}

/* ---- int4 per-group affine ---- */

/* Eight weights. The nibble u goes into the mantissa of 2^23 (u XOR-ed with 8 first when signed, so
 * the float is 2^23 + 8 + q), and the group's 2^23 [+ 8] + z is subtracted: both operands are
 * integers below 2^24, their difference is q - z exactly (Sterbenz), the value f32(q) - f32(z)
 * of the oracle, with no int-to-float conversion. Then the one rounding: times s. */
static inline __attribute__((always_inline)) AVX2_FN __m256 int4_8(const uint8_t *q, __m256i magic, __m256 zb, __m256 s)
{
    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)q));
    v = _mm256_xor_si256(_mm256_and_si256(v, _mm256_set1_epi32(15)), magic);
    return _mm256_mul_ps(_mm256_sub_ps(_mm256_castsi256_ps(v), zb), s);
}

/* One group of g codes: whole vectors, then the oracle's expression for a remainder. */
static inline __attribute__((always_inline)) AVX2_FN void int4_group(const uint8_t *q, size_t g, bool is_signed, __m256i magic,
                                                                     __m256 zb, __m256 s, float sf, int8_t z, float *o, bool nt)
{
    size_t i = 0;
    for (; i + 32 <= g; i += 32) { /* 32 codes from one load: 4-byte groups put in the order 0,2,4,6 | 1,3,5,7, masked */
        __m256i x = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(q + i)),
                                                _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
        x = _mm256_and_si256(x, _mm256_set1_epi8(15));
        for (int h = 0; h < 4; h++) { /* vpshufb widens bytes 4h..4h+3 of each lane to the lanes' dwords */
            int b = 4 * h, c0 = (int)0x80808000 | b, c1 = c0 + 1, c2 = c0 + 2, c3 = c0 + 3;
            __m256i ctl = _mm256_setr_epi32(c0, c1, c2, c3, c0, c1, c2, c3);
            __m256i v = _mm256_xor_si256(_mm256_shuffle_epi8(x, ctl), magic);
            store_f32(o + i + 8 * h, _mm256_mul_ps(_mm256_sub_ps(_mm256_castsi256_ps(v), zb), s), nt);
        }
    }
    for (; i + 8 <= g; i += 8) store_f32(o + i, int4_8(q + i, magic, zb, s), nt);
    for (; i < g; i++) {
        int v = q[i] & 15;
        if (is_signed && v >= 8) v -= 16;
        o[i] = ((float)v - (float)z) * sf;
    }
}

/* The groups eight at a time: their 2^23 [+ 8] + z as f32 in one conversion, then each group's
 * pair broadcast from memory (the per-group scalar conversion cost as much as a vector of output). */
static inline __attribute__((always_inline)) AVX2_FN void int4_all(const uint8_t *codes, size_t groups, size_t g, bool is_signed,
                                                                   const float *scale, const int8_t *zero, float *out, bool nt)
{
    const __m256i magic = _mm256_set1_epi32(is_signed ? 0x4B000008 : 0x4B000000); /* 2^23 (+ 8) */
    const float off = is_signed ? 0x1p23f + 8.0f : 0x1p23f;
    _Alignas(32) float zb8[8];
    size_t j = 0;
    for (; j + 8 <= groups; j += 8) {
        __m256i z8 = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(zero + j)));
        _mm256_store_ps(zb8, _mm256_add_ps(_mm256_cvtepi32_ps(z8), _mm256_set1_ps(off))); /* exact: integers below 2^24 */
        for (size_t t = 0; t < 8; t++)
            int4_group(codes + (j + t) * g, g, is_signed, magic, _mm256_broadcast_ss(zb8 + t), _mm256_broadcast_ss(scale + j + t),
                       scale[j + t], zero[j + t], out + (j + t) * g, nt);
    }
    for (; j < groups; j++)
        int4_group(codes + j * g, g, is_signed, magic, _mm256_set1_ps(off + (float)zero[j]), _mm256_broadcast_ss(scale + j), scale[j],
                   zero[j], out + j * g, nt);
    if (nt) _mm_sfence();
}

#define INT4_VARIANT(name, SIGNED, NT)                                                                      \
    static AVX2_FN void name(const uint8_t *c, size_t groups, size_t g, const float *s, const int8_t *z, float *o) \
    {                                                                                                       \
        int4_all(c, groups, g, SIGNED, s, z, o, NT);                                                        \
    }
INT4_VARIANT(int4_u, false, false)
INT4_VARIANT(int4_s, true, false)
INT4_VARIANT(int4_u_nt, false, true)
INT4_VARIANT(int4_s_nt, true, true)

/* [N, K] row-major with G = K/g groups a row: the groups of all rows are one run of N*G groups. */
AVX2_FN void pc_qk_int4_dequant_avx2(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                                     const int8_t *zero, float *out)
{
    if (g == 0) return;
    size_t groups = N * (K / g); /* every group is g of the caller's N*K outputs */
    bool nt = g % 8 == 0 && pc_nt_wanted(out, groups * g * sizeof(float));
    if (is_signed) (nt ? int4_s_nt : int4_s)(codes, groups, g, scale, zero, out);
    else (nt ? int4_u_nt : int4_u)(codes, groups, g, scale, zero, out);
}

#endif /* PC_HAVE_X86_KERNELS */
