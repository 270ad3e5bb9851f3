/* MLX affine -> f32, AVX2 (kernels.h; the portable path and the group walk's scalar tails are in
 * fast/mlx.c). Eight codes widened to 32-bit lanes and converted (exact), then mlx's two roundings
 * w = rT(rT(s * q) + b) (mlx/backend/cpu/quantized.cpp computes in T):
 *   F32:  a multiply and an add, never fused (no "fma" in the target, -ffp-contract=off);
 *   BF16: round-to-nearest-even on the f32 bits (add 0x7fff plus the lowest kept bit, clear the
 *         low 16; infinities stay, and no lane is a NaN: see below);
 *   F16:  VCVTPS2PH with imm 0 (round to nearest even, not MXCSR) and VCVTPH2PS back: IEEE
 *         conversions, f16 subnormals and overflow to inf included, widening exact.
 * BF16/F16 groups of whole 32-code steps whose codes are all below 16 (4-bit and narrower) compute
 * w for q = 0..15 with these same lanes and look the group up (kernels/fast/lut16_avx2.h): the same
 * bits for about a third of the work, the table two groups ahead built before this one is looked up.
 * A group with a NaN or infinite scale or bias takes the portable path (its NaNs are the oracle's);
 * with both finite, s * q and every sum after it is finite or an infinity (b is finite: no
 * inf - inf), so no lane is a NaN and the bf16 rounding needs no NaN test.
 * Large outputs use non-temporal stores when every group is whole vectors (kernels/fast/nt.h decides). */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"
#include "../../kernels/fast/lut16_avx2.h"

#include <stdbool.h>
#include <string.h>

/* bf16 RNE on the f32 bits, for lanes that cannot be NaN (finite scale and bias). */
static inline __attribute__((always_inline)) AVX2_FN __m256 rne_bf16(__m256 x)
{
    __m256i u = _mm256_castps_si256(x);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
    return _mm256_castsi256_ps(_mm256_and_si256(r, _mm256_set1_epi32((int)0xffff0000u)));
}

static inline __attribute__((always_inline)) AVX2_FN __m256 rne_f16(__m256 x)
{
    return _mm256_cvtph_ps(_mm256_cvtps_ph(x, 0)); /* imm 0: nearest even, ignoring MXCSR.RC */
}

/* Eight weights of one group (finite scale and bias); t is a compile-time constant after inlining. */
static inline __attribute__((always_inline)) AVX2_FN __m256 affine8(__m128i q8, __m256 s, __m256 b, pc_mlx_t t)
{
    __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q8));
    __m256 sq = _mm256_mul_ps(s, q);
    if (t == PC_MLX_T_BF16) return rne_bf16(_mm256_add_ps(rne_bf16(sq), b));
    if (t == PC_MLX_T_F16) return rne_f16(_mm256_add_ps(rne_f16(sq), b));
    return _mm256_add_ps(sq, b);
}

/* F16 lanes as half bits, before the widening affine8 ends with. */
static inline __attribute__((always_inline)) AVX2_FN __m128i affine8_f16_bits(__m128i q8, __m256 s, __m256 b)
{
    __m256 sq = _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q8)));
    return _mm256_cvtps_ph(_mm256_add_ps(rne_f16(sq), b), 0);
}

static inline bool finite_pair(const float *s, const float *b)
{
    uint32_t u, v;
    memcpy(&u, s, 4), memcpy(&v, b, 4);
    return (u & 0x7f800000u) != 0x7f800000u && (v & 0x7f800000u) != 0x7f800000u;
}

/* True when all n scales and biases are finite (one pass before the groups, so that a valid
 * checkpoint's groups skip the test). */
static AVX2_FN bool all_finite(const float *s, const float *b, size_t n)
{
    const __m256i e = _mm256_set1_epi32(0x7f800000);
    __m256i bad = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i u = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(s + i)), e);
        __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(b + i)), e);
        bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpeq_epi32(u, e), _mm256_cmpeq_epi32(v, e)));
    }
    bool ok = _mm256_testz_si256(bad, bad);
    for (; i < n; i++) ok = ok && finite_pair(s + i, b + i);
    return ok;
}

/* A group's table (kernels/fast/lut16_avx2.h) and whether it may be used: all its codes below 16
 * and a finite scale and bias (else the group is the portable path's, group_lanes). */
typedef struct mlx_lut {
    pc_lut16 l;
    bool ok;
} mlx_lut;

static inline __attribute__((always_inline)) AVX2_FN mlx_lut table_of(const uint8_t *q, size_t group, const float *sf,
                                                                       const float *bf, pc_mlx_t t, bool fin)
{
    const __m128i k0 = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i k8 = _mm_setr_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0);
    __m256 s = _mm256_broadcast_ss(sf), b = _mm256_broadcast_ss(bf);
    mlx_lut m = {.ok = (fin || finite_pair(sf, bf)) && pc_lut16_codes_fit(q, group)};
    if (t == PC_MLX_T_F16) m.l = pc_lut16_from_f16(affine8_f16_bits(k0, s, b), affine8_f16_bits(k8, s, b));
    else m.l = pc_lut16_from_bf16(affine8(k0, s, b, t), affine8(k8, s, b, t));
    return m;
}

/* One group (a multiple of 32) by its table. */
static inline __attribute__((always_inline)) AVX2_FN void group_lut(const uint8_t *q, size_t group, const pc_lut16 *l,
                                                                    pc_mlx_t t, float *o, bool nt)
{
    for (size_t j = 0; j < group; j += 32) {
        __m256 v[4];
        if (t == PC_MLX_T_F16) pc_lut16_f16_x32(l, q + j, v);
        else pc_lut16_bf16_x32(l, q + j, v);
        for (unsigned k = 0; k < 4; k++) store_f32(o + j + 8 * k, v[k], nt);
    }
}

/* One group lane by lane; one with a NaN or infinite scale or bias by the portable path, whose
 * NaNs are the oracle's (which operand's payload a vector add keeps is the compiler's choice). */
static inline __attribute__((always_inline)) AVX2_FN void group_lanes(const uint8_t *q, size_t group, const float *sf,
                                                                      const float *bf, pc_mlx_t t, float *o, bool nt, bool fin)
{
    if (!fin && !finite_pair(sf, bf)) { pc_mlx_run_scalar(q, group, *sf, *bf, t, o); return; }
    __m256 s = _mm256_broadcast_ss(sf), b = _mm256_broadcast_ss(bf);
    size_t j = 0;
    for (; j + 16 <= group; j += 16) {
        __m128i q16 = _mm_loadu_si128((const __m128i *)(q + j));
        store_f32(o + j, affine8(q16, s, b, t), nt);
        store_f32(o + j + 8, affine8(_mm_srli_si128(q16, 8), s, b, t), nt);
    }
    for (; j + 8 <= group; j += 8) store_f32(o + j, affine8(_mm_loadl_epi64((const __m128i *)(q + j)), s, b, t), nt);
    if (j < group) pc_mlx_run_scalar(q + j, group - j, *sf, *bf, t, o + j);
}

/* The table of group g + 2 is built before group g is looked up, so the chains overlap (a table is
 * a long dependency chain, the lookups short; two ahead measured better than one for f16). */
static inline __attribute__((always_inline)) AVX2_FN void affine_all(const uint8_t *codes, size_t ngroups, size_t group,
                                                                     const float *scales, const float *biases, pc_mlx_t t,
                                                                     float *out, bool nt)
{
    const bool fin = all_finite(scales, biases, ngroups); /* else each group is tested */
    if (t == PC_MLX_T_F32 || group % 32) {
        for (size_t g = 0; g < ngroups; g++)
            group_lanes(codes + g * group, group, scales + g, biases + g, t, out + g * group, nt, fin);
    } else if (ngroups) {
        size_t h1 = ngroups > 1 ? 1 : 0;
        mlx_lut cur = table_of(codes, group, scales, biases, t, fin);
        mlx_lut nxt = table_of(codes + h1 * group, group, scales + h1, biases + h1, t, fin);
        for (size_t g = 0; g < ngroups; g++) {
            size_t h = g + 2 < ngroups ? g + 2 : g;
            mlx_lut nxt2 = table_of(codes + h * group, group, scales + h, biases + h, t, fin);
            if (cur.ok) group_lut(codes + g * group, group, &cur.l, t, out + g * group, nt);
            else group_lanes(codes + g * group, group, scales + g, biases + g, t, out + g * group, nt, fin);
            cur = nxt;
            nxt = nxt2;
        }
    }
    if (nt) _mm_sfence(); /* order the streamed lines before anyone reads the output */
}

/* One instantiation per T and store kind, so the lane code has no branch on either. */
#define MLX_VARIANT(name, T, NT)                                                                                  \
    static AVX2_FN void name(const uint8_t *c, size_t ng, size_t group, const float *s, const float *b, float *o) \
    {                                                                                                             \
        affine_all(c, ng, group, s, b, T, o, NT);                                                                 \
    }
MLX_VARIANT(affine_f32, PC_MLX_T_F32, false)
MLX_VARIANT(affine_bf16, PC_MLX_T_BF16, false)
MLX_VARIANT(affine_f16, PC_MLX_T_F16, false)
MLX_VARIANT(affine_f32_nt, PC_MLX_T_F32, true)
MLX_VARIANT(affine_bf16_nt, PC_MLX_T_BF16, true)
MLX_VARIANT(affine_f16_nt, PC_MLX_T_F16, true)

AVX2_FN void pc_mlx_affine_avx2(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                                const float *biases, pc_mlx_t t, float *out)
{
    typedef void (*variant)(const uint8_t *, size_t, size_t, const float *, const float *, float *);
    static const variant k_v[2][3] = {{affine_f32, affine_bf16, affine_f16}, {affine_f32_nt, affine_bf16_nt, affine_f16_nt}};
    if (group == 0) return;
    size_t ngroups = rows * (cols / group);
    bool nt = group % 8 == 0 && pc_nt_wanted(out, ngroups * group * 4);
    k_v[nt][t == PC_MLX_T_BF16 ? 1 : t == PC_MLX_T_F16 ? 2 : 0](codes, ngroups, group, scales, biases, out);
}

#endif /* PC_HAVE_X86_KERNELS */
