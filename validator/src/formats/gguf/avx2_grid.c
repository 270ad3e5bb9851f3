/* AVX2 decoders of the grid i-quants IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (oracle_grid.c
 * reads each struct literally; fast_grid.c is the portable path). Per sub-block of 32 codes:
 *   - the grid rows (four of 8 bytes, or eight of 4) fetched by scalar-indexed loads and joined in one
 *     register: 8-byte rows by vmovq + vmovhps into two halves and one vinserti128 (5 operations; four
 *     broadcasts + three blends, 7, measured 1.05-1.08x slower on the IQ2 codes), 4-byte rows by
 *     broadcasts + blends (vmovss + vinsertps costs 2 operations a row: GCC does not fold the load).
 *     Measured on the dev machine (Zen 4 guest), these beat vpgatherdq / vpgatherdd (1.4x for IQ2_XXS
 *     codes; 0.75x for IQ3_XXS);
 *   - the row indices: IQ2_XXS's bytes and IQ2_XS's masked u16 read directly (a u16 table measured
 *     0.96x and 1.0x there, one u32 load with shifts 0.98x); for IQ2_S, IQ1_S, IQ1_M (index bytes +
 *     high bits from qh) and IQ3_XXS, IQ3_S (64 rows: byte offsets) a u16 table built in vector lanes
 *     one block AHEAD of its use, read back two per 32-bit load. Built in the same block, its loads
 *     waited on the stores just made (store forwarding from a vector store: IQ3_S 1.00x, the earlier
 *     IQ2_XS / IQ2_S tables 0.8-0.9x); a block ahead, IQ3_S went 1.21x, and two per load 1.36x
 *     (pdep + shifts, the former IQ1 / IQ2_S way, cost 11 operations per four indices);
 *   - codes without weights run a copy of each loop with weights == NULL propagated (*_body inlined
 *     twice): the per-block tests of w cost 1.10-1.17x on the codes;
 *   - what bounds the codes (no counters in this guest, so inferred from what won): operations issued
 *     and memory operations, about 6 and 3 a cycle; 32-byte stores alone reach memcpy's speed here.
 *     At L2 size (128 KiB, 2026-12-05, load 1.2, same run) the codes reach 0.52-0.55x memcpy for
 *     IQ2_S, IQ1_S, IQ1_M, 0.50x for IQ2_XS, 0.48x for IQ2_XXS and 0.30x for IQ3 (eight rows per 32
 *     codes); the rows-only loops at the end of this file (each kernel's index work, row loads, joins
 *     and store, no signs) reach about 0.55x and 0.35x memcpy, so the IQ2 and IQ3 codes are
 *     0.86-0.92x of that bound and IQ1 (whose codes have no signs) 1.0x: `packcheck bench` reports it
 *     beside memcpy as fast_vs_bound. The sign work (vpshufb, and, cmpeq, xor, sub) is the rest:
 *     the avx512 set (avx512_grid.c) does it with one masked subtract, IQ2_XXS 0.48 -> 0.51x memcpy,
 *     IQ3 0.30 -> 0.32x. Below the bound only fewer row fetches per code would help. For IQ3 (4-byte
 *     rows, eight per 32 codes) the avx512 set fetches none where the CPU has VBMI: each row is 12
 *     bits of 3-bit codes, looked up in two byte planes held in registers (the "IQ3 by byte
 *     permutes" section below): IQ3_XXS / IQ3_S codes 0.32 -> 0.61 / 0.59x memcpy, same run. Tried
 *     before it and not kept: the rows' four bytes looked up in four 256-byte position tables by
 *     vpermi2b and interleaved by unpacks, 0.34x in a standalone test (eight permutes per 64 rows
 *     where the 12-bit planes take four); vpgatherdd zmm, 0.16x; rows merged by masked vpbroadcastd
 *     instead of broadcast + blend, 0.29 / 0.33x; a table of IQ3_XXS row pairs (512 KiB, four 8-byte
 *     loads per 32 codes as IQ2_XXS), 0.23x: its loads miss L1;
 *   - the sign bytes of all 32 groups made once per block: IQ2_XXS / IQ2_XS / IQ3_XXS pack their
 *     7-bit ksigns indices into bytes and add the parity bit (ksigns_iq2xs[k] = k | parity(k) << 7,
 *     the table's definition; test_gguf_blocks checks it against iq_grids.bin), IQ2_S / IQ3_S store
 *     them whole; rearranged in pairs (sign_pairs) so that one vpshufb spreads a sub-block's four to
 *     their groups' bytes, which are tested against bit j and the row negated there: (g ^ m) - m;
 *   - f32, after the block's codes are stored: the codes widened 8 at a time, converted (exact) and
 *     multiplied by the group's scale, the scales computed 8 lanes at a time with the oracle's
 *     operations in the oracle's order (no FMA: the target has none). The oracle's f32(db * |g|)
 *     negated equals f32(db * -|g|) for every non-NaN db, so a block whose fp16 d is a NaN takes the
 *     portable path (as avx2_more.c). IQ1 computes f32(dl * f32(g + delta)) as ggml does; a NaN dl's
 *     payload is the product's whichever the operand order, so no fallback is needed there. */
#include "../../kernels/fast/half.h"
#include "kernels.h"
#include "iq_grids.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

/* avx512_grid.c includes this file with PC_GRID_AVX512 defined: the five kernels with signs are built
 * a second time for the avx512 kernel set, the same loops with each sub-block's signs applied from a
 * mask register (block_signs below); the IQ1 kernels and the bench bounds are built here only. */
#ifdef PC_GRID_AVX512
#define GRID_FN __attribute__((target("avx2,bmi2,f16c,avx512f,avx512bw,avx512vl")))
#define GRID_DECODE(type) pc_##type##_decode_avx512
#else
#define GRID_FN AVX2_FN
#define GRID_DECODE(type) pc_##type##_decode_avx2
#endif

/* Eight bytes at any alignment (x86: little-endian). */
static inline uint64_t load_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* 4 bytes at p in every 32-bit lane: vbroadcastss, a load-port operation. */
static inline AVX2_FN __m256i bcast4(const uint8_t *p) { return _mm256_castps_si256(_mm256_broadcast_ss((const float *)(const void *)p)); }

/* Four 8-byte rows of `grid` at indices i0..i3 (x86 is little-endian: row bytes in element order),
 * loaded into two halves (vmovq, vmovhps from memory) joined by one vinserti128: five operations where
 * four broadcasts and three blends took seven (1.05-1.08x on the IQ2 codes; these loops are bound by
 * operations issued, see the header). */
static inline AVX2_FN __m256i rows8h(const uint8_t *grid, size_t i0, size_t i1, size_t i2, size_t i3)
{
    __m128i lo = _mm_loadl_epi64((const __m128i *)(const void *)(grid + 8 * i0));
    __m128i hi = _mm_loadl_epi64((const __m128i *)(const void *)(grid + 8 * i2));
    lo = _mm_castps_si128(_mm_loadh_pi(_mm_castsi128_ps(lo), (const __m64 *)(const void *)(grid + 8 * i1)));
    hi = _mm_castps_si128(_mm_loadh_pi(_mm_castsi128_ps(hi), (const __m64 *)(const void *)(grid + 8 * i3)));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}


/* Eight 4-byte rows of `grid` at byte offsets OFF(0..7), by broadcast loads and blends as rows8 (the
 * blend masks must be immediates, so the chain is written out). */
#define ROWS4_CHAIN(grid, OFF)                                          \
    __m256i r = bcast4((grid) + OFF(0));                                \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(1)), 0x02);           \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(2)), 0x04);           \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(3)), 0x08);           \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(4)), 0x10);           \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(5)), 0x20);           \
    r = _mm256_blend_epi32(r, bcast4((grid) + OFF(6)), 0x40);           \
    return _mm256_blend_epi32(r, bcast4((grid) + OFF(7)), 0x80)

/* ... at the byte offsets o[0..7] (IQ3_XXS's and IQ3_S's offset tables), read two per 32-bit load:
 * 4 loads where 8 of 16 bits measured 1.36x slower for IQ3_S (one u64 per four: 1.12x slower). */
static inline AVX2_FN __m256i rows4o(const uint8_t *grid, const uint16_t *o)
{
    const uint32_t w[4] = {pc_load_le32((const uint8_t *)o), pc_load_le32((const uint8_t *)(o + 2)),
                           pc_load_le32((const uint8_t *)(o + 4)), pc_load_le32((const uint8_t *)(o + 6))};
#define TAB_OFF(k) (size_t)((k) % 2 ? w[(k) / 2] >> 16 : w[(k) / 2] & 0xffffu)
    ROWS4_CHAIN(grid, TAB_OFF);
#undef TAB_OFF
}

/* Row bytes negated where m is 0xff: -g = (g ^ 0xff) + 1. */
static inline AVX2_FN __m256i negate_where(__m256i g, __m256i m) { return _mm256_sub_epi8(_mm256_xor_si256(g, m), m); }

/* Byte 8l + j of s (group l's sign byte spread over its 8 bytes) tested against bit j. */
static inline AVX2_FN __m256i sign_mask(__m256i s)
{
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    return _mm256_cmpeq_epi8(_mm256_and_si256(s, bit), bit);
}

/* The block's 32 sign bytes (group order) rearranged so that one in-lane vpshufb spreads sub-block
 * ib's four: lane 0 holds groups 4i, 4i + 1 and lane 1 groups 4i + 2, 4i + 3 (i = 0..7), in pairs. */
static inline AVX2_FN __m256i sign_pairs(__m256i s)
{
    const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                          0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(s, pick), 0xD8);
}

/* Sub-block ib's 32 codes from its rows and the sign_pairs vector: one shuffle spreads its signs. */
static inline AVX2_FN __m256i signed32p(__m256i g, __m256i pairs, unsigned ib)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    __m256i pat = _mm256_add_epi8(spread, _mm256_set1_epi8((char)(2 * ib))); /* constant once unrolled */
    return negate_where(g, sign_mask(_mm256_shuffle_epi8(pairs, pat)));
}

/* A block's 32 sign bytes (byte g: group g's signs, bit j for element j) as the sub-block loops use
 * them. AVX2: the sign_pairs vector, spread and tested per sub-block (signed32p: five operations).
 * AVX-512 (BW, VL): sub-block ib's four bytes are its 32-bit negation mask, so the signs cost one
 * masked subtract and a mask load (IQ2_XXS codes 0.48 -> 0.51x memcpy, same run). */
#ifdef PC_GRID_AVX512
typedef struct { uint32_t sub[8]; } block_signs;
static inline GRID_FN block_signs signs_of(__m256i s)
{
    block_signs b;
    _mm256_storeu_si256((__m256i *)(void *)b.sub, s);
    return b;
}
static inline GRID_FN __m256i apply_signs(__m256i g, const block_signs *s, unsigned ib)
{
    return _mm256_mask_sub_epi8(g, _cvtu32_mask32(s->sub[ib]), _mm256_setzero_si256(), g);
}
#else
typedef struct { __m256i pairs; } block_signs;
static inline AVX2_FN block_signs signs_of(__m256i s) { return (block_signs){sign_pairs(s)}; }
static inline AVX2_FN __m256i apply_signs(__m256i g, const block_signs *s, unsigned ib) { return signed32p(g, s->pairs, ib); }
#endif

/* Bytes holding 7-bit ksigns indices -> ksigns_iq2xs of each: the parity of the byte in bit 7. */
static inline AVX2_FN __m256i ksigns32(__m256i k)
{
    const __m256i par = _mm256_setr_epi8(0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0,
                                         0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0);
    __m256i x = _mm256_and_si256(_mm256_xor_si256(k, _mm256_srli_epi16(k, 4)), _mm256_set1_epi8(15));
    return _mm256_or_si256(k, _mm256_shuffle_epi8(par, x));
}

/* Dword i of aux holds group 4i + l's 7-bit ksigns index at bits 7l (l < 4) -> dword i = the four
 * sign bytes of groups 4i .. 4i + 3 (IQ2_XXS's aux1, IQ3_XXS's aux). */
static inline AVX2_FN __m256i ksigns_aux(__m256i aux)
{
    /* byte l of aux << l holds bits 7l..7l + 7: words picked by vpblendw (immediate), bytes by masks */
    __m256i u = _mm256_blend_epi16(aux, _mm256_slli_epi32(aux, 2), 0xAA); /* bytes 0, 2 in place */
    __m256i v = _mm256_blend_epi16(_mm256_slli_epi32(aux, 1), _mm256_slli_epi32(aux, 3), 0xAA); /* bytes 1, 3 */
    __m256i k = _mm256_or_si256(_mm256_and_si256(u, _mm256_set1_epi32(0x007f007f)), _mm256_and_si256(v, _mm256_set1_epi32(0x7f007f00)));
    return ksigns32(k);
}

/* w[0..32) = s0 * q[0..16), s1 * q[16..32): widened 8 at a time (exact conversion), one rounding. */
static inline AVX2_FN void grid_f32(const int8_t *q, float s0, float s1, float *w)
{
    for (unsigned g = 0; g < 4; g++) {
        __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(q + 8 * g))));
        _mm256_storeu_ps(w + 8 * g, _mm256_mul_ps(v, _mm256_set1_ps(g < 2 ? s0 : s1)));
    }
}

/* IQ1: w[8g + j] = dl * f32(q[8g + j] + delta[g]) for four groups, dl = s0 for the first two, s1 after;
 * the sum is exact (|q| <= 1, delta = +-1/8). */
static inline AVX2_FN void iq1_f32(const int8_t *q, float s0, float s1, const float delta[4], float *w)
{
    for (unsigned g = 0; g < 4; g++) {
        __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(q + 8 * g))));
        v = _mm256_add_ps(v, _mm256_broadcast_ss(delta + g));
        _mm256_storeu_ps(w + 8 * g, _mm256_mul_ps(_mm256_set1_ps(g < 2 ? s0 : s1), v));
    }
}

/* db = f32(f32(d * f32(0.5 + s)) * quarter) for the eight scale fields s in lanes (IQ2_*, IQ3_XXS). */
static inline AVX2_FN __m256 half_step_scales(float d, __m256i s, float quarter)
{
    __m256 t = _mm256_add_ps(_mm256_set1_ps(0.5f), _mm256_cvtepi32_ps(s));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(d), t), _mm256_set1_ps(quarter));
}

/* IQ2_XS / IQ2_S: the 16 nibble scales of scales[8] (low nibble for groups 4ib, 4ib + 1, high for the
 * other two) -> db per 16 elements, in order. */
static inline AVX2_FN void nibble_scales16(float d, const uint8_t *scales, float sc[16])
{
    __m128i x = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)scales));
    __m128i lh = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi16(15)), _mm_slli_epi16(_mm_srli_epi16(x, 4), 8));
    __m128i n = _mm_and_si128(lh, _mm_set1_epi16(0x0f0f)); /* byte 2i = low nibble, 2i + 1 = high */
    _mm256_storeu_ps(sc, half_step_scales(d, _mm256_cvtepu8_epi32(n), 0.25f));
    _mm256_storeu_ps(sc + 8, half_step_scales(d, _mm256_cvtepu8_epi32(_mm_srli_si128(n, 8)), 0.25f));
}


/* IQ1_M's dl per 16 elements and delta per group: d from the scale words' top nibbles; scale field k
 * = bits 3 (k % 4) of word k / 4; group g's delta sign = bit 3 + 4 (g % 2) of qh[g / 2]. */
static inline AVX2_FN void iq1m_scales(const uint8_t *blk, float dl[16], float delta[32])
{
    unsigned sw[4];
    for (unsigned i = 0; i < 4; i++) sw[i] = pc_le16_at(blk + 48 + 2 * i);
    const float d = pc_half_to_f32((uint16_t)((sw[0] >> 12) | ((sw[1] >> 8) & 0x00f0u) | ((sw[2] >> 4) & 0x0f00u) | (sw[3] & 0xf000u)));
    __m256i wv = _mm256_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(blk + 48)));
    const __m256i sel = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), shv = _mm256_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9);
    for (unsigned h = 0; h < 2; h++) {
        __m256i x = _mm256_permutevar8x32_epi32(wv, _mm256_add_epi32(sel, _mm256_set1_epi32((int)(2 * h))));
        __m256i s = _mm256_and_si256(_mm256_srlv_epi32(x, shv), _mm256_set1_epi32(7));
        _mm256_storeu_ps(dl + 8 * h, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1)))));
    }
    for (unsigned h = 0; h < 4; h++) {
        __m256i x = _mm256_cvtepu8_epi32(_mm_cvtsi32_si128((int)pc_load_le32(blk + 32 + 4 * h)));
        __m256i nib = _mm256_srlv_epi32(_mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)),
                                        _mm256_setr_epi32(3, 7, 3, 7, 3, 7, 3, 7));
        _mm256_storeu_ps(delta + 8 * h, _mm256_or_ps(_mm256_set1_ps(0.125f), _mm256_castsi256_ps(_mm256_slli_epi32(nib, 31))));
    }
}

/* Where the block's codes go: the caller's buffer, or the stack when only weights are wanted. Each
 * kernel writes the block's codes, then its weights from them (reading codes just stored, sub-block by
 * sub-block, stalls store forwarding and keeps the codes-only loop from its best schedule). */
#define CODES_AT(codes, b, tmp) ((codes) ? (int8_t *)(codes) + 256 * (b) : (tmp))
#define STORE32(q, v) _mm256_storeu_si256((__m256i *)(void *)(q), (v))

/* The row indices of IQ2_S, IQ1_S, IQ1_M (low byte qs[g], high bits from the type's qh) are built as
 * u16 in 16-bit lanes: qh's byte or word to each group's lane by one vpshufb, its field moved to bits
 * 8.. by one vpmullw (a per-lane shift; AVX2 has no vpsrlvw), masked and joined to the low byte (7
 * operations per 16 indices; in 32-bit lanes with vpsrlvd and a final pack it took about 12: IQ2_S
 * 1.11x -> 1.26x, IQ1_S 1.17x -> 1.24x, IQ1_M 1.18x -> 1.27x the start of this branch). The kernels
 * build them a block ahead and read them back two per 32-bit load (rows8t): per 32 codes 2 loads
 * and 2 ALU operations where two pdeps and the shifts taking four indices out of one word cost 11. */
/* Four rows at the u16 indices idx[0..3] (two 32-bit loads). */
static inline AVX2_FN __m256i rows8t(const uint8_t *grid, const uint16_t *idx)
{
    uint32_t w0 = pc_load_le32((const uint8_t *)idx), w1 = pc_load_le32((const uint8_t *)(idx + 2));
    return rows8h(grid, w0 & 0xffffu, w0 >> 16, w1 & 0xffffu, w1 >> 16);
}

/* IQ2_S: bits 2l, 2l + 1 of qh[ib] (byte 66 + ib) are bits 8, 9 of group 4ib + l's index. */
static inline AVX2_FN void iq2s_indices(const uint8_t *blk, uint16_t idx[32])
{
    /* in 16-bit lanes: qh[g / 4] to group g's lane (vpshufb), shifted left by 8 - 2 (g % 4) with one
     * vpmullw, bits 8, 9 kept */
    const __m256i qh = _mm256_set1_epi64x((long long)load_u64(blk + 66));
    const __m256i mul = _mm256_setr_epi16(256, 64, 16, 4, 256, 64, 16, 4, 256, 64, 16, 4, 256, 64, 16, 4);
    for (unsigned h = 0; h < 2; h++) {
        const char o = (char)(4 * h);
        __m256i pick = _mm256_setr_epi8(o, -1, o, -1, o, -1, o, -1, o + 1, -1, o + 1, -1, o + 1, -1, o + 1, -1,
                                        o + 2, -1, o + 2, -1, o + 2, -1, o + 2, -1, o + 3, -1, o + 3, -1, o + 3, -1, o + 3, -1);
        __m256i hi = _mm256_and_si256(_mm256_mullo_epi16(_mm256_shuffle_epi8(qh, pick), mul), _mm256_set1_epi16(0x300));
        __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * h)));
        STORE32(idx + 16 * h, _mm256_or_si256(lo, hi));
    }
}

/* IQ1_S: bits 3l..3l + 2 of the LE u16 qh[ib] (byte 34 + 2ib) are bits 8..10 of group 4ib + l's. */
static inline AVX2_FN void iq1s_indices(const uint8_t *blk, uint16_t idx[32])
{
    /* as IQ2_S: word qh[g / 4] to group g's lane, shifted left by 9 - 3 (g % 4) (vpmullw), then right
     * by 1, bits 8..10 kept */
    const __m256i qh = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(blk + 34)));
    const __m256i mul = _mm256_setr_epi16(512, 64, 8, 1, 512, 64, 8, 1, 512, 64, 8, 1, 512, 64, 8, 1);
    for (unsigned h = 0; h < 2; h++) {
        const char o = (char)(8 * h);
        __m256i pick = _mm256_setr_epi8(o, o + 1, o, o + 1, o, o + 1, o, o + 1, o + 2, o + 3, o + 2, o + 3, o + 2, o + 3, o + 2, o + 3,
                                        o + 4, o + 5, o + 4, o + 5, o + 4, o + 5, o + 4, o + 5, o + 6, o + 7, o + 6, o + 7, o + 6, o + 7, o + 6, o + 7);
        __m256i hi = _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(qh, pick), mul), 1);
        hi = _mm256_and_si256(hi, _mm256_set1_epi16(0x700));
        __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * h)));
        STORE32(idx + 16 * h, _mm256_or_si256(lo, hi));
    }
}

/* IQ1_M: bits 0..2 of nibble g % 2 of qh[g / 2] (byte 32 + g / 2) are bits 8..10 of group g's index. */
static inline AVX2_FN void iq1m_indices(const uint8_t *blk, uint16_t idx[32])
{
    /* as IQ2_S: byte qh[g / 2] to group g's lane, shifted left by 8 or 4 (vpmullw), bits 8..10 kept */
    const __m256i qh = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(blk + 32)));
    const __m256i mul = _mm256_setr_epi16(256, 16, 256, 16, 256, 16, 256, 16, 256, 16, 256, 16, 256, 16, 256, 16);
    for (unsigned h = 0; h < 2; h++) {
        const char o = (char)(8 * h);
        __m256i pick = _mm256_setr_epi8(o, -1, o, -1, o + 1, -1, o + 1, -1, o + 2, -1, o + 2, -1, o + 3, -1, o + 3, -1,
                                        o + 4, -1, o + 4, -1, o + 5, -1, o + 5, -1, o + 6, -1, o + 6, -1, o + 7, -1, o + 7, -1);
        __m256i hi = _mm256_and_si256(_mm256_mullo_epi16(_mm256_shuffle_epi8(qh, pick), mul), _mm256_set1_epi16(0x700));
        __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 16 * h)));
        STORE32(idx + 16 * h, _mm256_or_si256(lo, hi));
    }
}

/* ---- IQ2_XXS: fp16 d, then per sub-block ib the LE u32 pair (four row indices, aux1). ---- */
static inline __attribute__((always_inline)) GRID_FN void iq2_xxs_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 66 * b;
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq2_xxs_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        __m256 v0 = _mm256_loadu_ps((const float *)(const void *)(blk + 2)), v1 = _mm256_loadu_ps((const float *)(const void *)(blk + 34));
        __m256i aux = _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(v0, v1, 0xDD)), 0xD8); /* the eight aux1 */
        const block_signs sp = signs_of(ksigns_aux(aux));
        float sc[8];
        if (w) _mm256_storeu_ps(sc, half_step_scales(half_f32(blk), _mm256_srli_epi32(aux, 28), 0.25f));
        for (unsigned ib = 0; ib < 8; ib++) {
            const uint8_t *p = blk + 2 + 8 * ib;
            STORE32(q + 32 * ib, apply_signs(rows8h(PC_IQ2XXS_GRID, p[0], p[1], p[2], p[3]), &sp, ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[ib], sc[ib], w + 32 * ib);
    }
}
GRID_FN void GRID_DECODE(iq2_xxs)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq2_xxs_body(src, nblocks, codes, weights);
    else iq2_xxs_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

/* ---- IQ2_XS: fp16 d, LE u16 qs[32] (9-bit row index, 7-bit ksigns index), scales[8]. ---- */
static inline __attribute__((always_inline)) GRID_FN void iq2_xs_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 74 * b;
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq2_xs_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 2)), v1 = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 34));
        __m256i k = _mm256_packus_epi16(_mm256_srli_epi16(v0, 9), _mm256_srli_epi16(v1, 9)); /* lane-interleaved */
        const block_signs sp = signs_of(ksigns32(_mm256_permute4x64_epi64(k, 0xD8)));
        float sc[16];
        if (w) nibble_scales16(half_f32(blk), blk + 66, sc);
        for (unsigned ib = 0; ib < 8; ib++) {
            const uint8_t *p = blk + 2 + 8 * ib;
            __m256i r = rows8h(PC_IQ2XS_GRID, pc_le16_at(p) & 511u, pc_le16_at(p + 2) & 511u, pc_le16_at(p + 4) & 511u, pc_le16_at(p + 6) & 511u);
            STORE32(q + 32 * ib, apply_signs(r, &sp, ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[2 * ib], sc[2 * ib + 1], w + 32 * ib);
    }
}
GRID_FN void GRID_DECODE(iq2_xs)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq2_xs_body(src, nblocks, codes, weights);
    else iq2_xs_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

/* ---- IQ2_S: fp16 d, qs[32] row index low bytes, signs[32], qh[8] (bits 2l, 2l + 1 of qh[ib] are
 * bits 8, 9 of group 4ib + l's index), scales[8]. ---- */
static inline __attribute__((always_inline)) GRID_FN void iq2_s_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint16_t idx[2][32];
    if (nblocks) iq2s_indices(src, idx[0]);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 82 * b;
        if (b + 1 < nblocks) iq2s_indices(blk + 82, idx[(b + 1) & 1]); /* a block ahead, as IQ1_S */
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq2_s_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        float sc[16];
        if (w) nibble_scales16(half_f32(blk), blk + 74, sc);
        const block_signs sp = signs_of(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 34)));
        for (unsigned ib = 0; ib < 8; ib++) {
            __m256i r = rows8t(PC_IQ2S_GRID, idx[b & 1] + 4 * ib);
            STORE32(q + 32 * ib, apply_signs(r, &sp, ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[2 * ib], sc[2 * ib + 1], w + 32 * ib);
    }
}
GRID_FN void GRID_DECODE(iq2_s)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq2_s_body(src, nblocks, codes, weights);
    else iq2_s_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

#ifdef PC_GRID_AVX512
/* ---- IQ3 by byte permutes (AVX-512 VBMI, where the CPU has it) ----
 * Every byte of IQ3_XXS's and IQ3_S's grids is one of eight values (4, 12, .. 52, 62 and 1, 3, .. 15),
 * so a 4-byte row is 12 bits of codes: two byte planes (bits 0-7, bits 8-11) of 256 or 512 entries,
 * kept in zmm registers and looked up 64 rows at a time by vpermi2b (128 entries each) and blends
 * on the index's high bits. The 12 bits of each row, joined into words (vpunpck), are spread to
 * four bytes of 3 bits by vpmultishiftqb, masked and mapped to the grid values by vpshufb; the
 * index bytes are first permuted so that each 64-byte output holds 16 rows in order. No grid row is
 * loaded: the row loads bounded the AVX2 loops (0.32x memcpy at L2 size for 8 rows per 32 codes). */
#define VBMI_FN __attribute__((target("avx2,bmi2,f16c,avx512f,avx512bw,avx512vl,avx512vbmi")))

typedef struct iq3_planes {
    uint8_t lo[512], hi[512]; /* code bits 0-7 and 8-11 of each row (IQ3_XXS: the first 256) */
} iq3_planes;

static iq3_planes g_iq3xxs_planes, g_iq3s_planes;
static pthread_once_t g_iq3_planes_once = PTHREAD_ONCE_INIT;

/* A grid's rows as 12-bit codes: code j (3 bits at 3j) is the index of byte j's value in `values`. */
static void make_planes(const uint8_t *grid, size_t rows, const uint8_t values[8], iq3_planes *p)
{
    for (size_t r = 0; r < rows; r++) {
        unsigned c = 0;
        for (unsigned j = 0; j < 4; j++)
            for (unsigned k = 0; k < 8; k++)
                if (grid[4 * r + j] == values[k]) c |= k << (3 * j);
        p->lo[r] = (uint8_t)c;
        p->hi[r] = (uint8_t)(c >> 8);
    }
}

static const uint8_t k_iq3xxs_values[8] = {4, 12, 20, 28, 36, 44, 52, 62}, k_iq3s_values[8] = {1, 3, 5, 7, 9, 11, 13, 15};

static void build_iq3_planes(void)
{
    make_planes(PC_IQ3XXS_GRID, 256, k_iq3xxs_values, &g_iq3xxs_planes);
    make_planes(PC_IQ3S_GRID, 512, k_iq3s_values, &g_iq3s_planes);
}

static int g_vbmi_allowed = 1;
static bool have_vbmi(void)
{
    return __atomic_load_n(&g_vbmi_allowed, __ATOMIC_RELAXED) && __builtin_cpu_supports("avx512vbmi");
}

void pc_iq3_vbmi_allow(int allow) { __atomic_store_n(&g_vbmi_allowed, allow, __ATOMIC_RELAXED); }

/* Byte i of the permuted index vector is row perm[i]: after vpunpck{l,h}bw and the two multishift
 * controls, output k (64 bytes) holds rows 16k .. 16k + 15 in order. */
static inline VBMI_FN __m512i iq3_perm(void)
{
    uint8_t perm[64];
    for (unsigned q = 0; q < 8; q++)
        for (unsigned t = 0; t < 2; t++) {
            unsigned base = 16 * (q / 2) + 4 * (q % 2) + t;
            perm[base] = (uint8_t)(2 * q + t);
            perm[base + 2] = (uint8_t)(16 + 2 * q + t);
            perm[base + 8] = (uint8_t)(32 + 2 * q + t);
            perm[base + 10] = (uint8_t)(48 + 2 * q + t);
        }
    return _mm512_loadu_si512(perm);
}

/* The 64 rows' codes of a block, from its (permuted) 12-bit row codes lo/hi, signed by s and stored. */
static inline VBMI_FN void iq3_emit(__m512i lo, __m512i hi, __m512i lut, const block_signs *s, int8_t *q)
{
    const __m512i ctl_a = _mm512_set1_epi64(0x1916131009060300ll), ctl_b = _mm512_set1_epi64(0x3936333029262320ll);
    const __m512i seven = _mm512_set1_epi8(7);
    __m512i w[2] = {_mm512_unpacklo_epi8(lo, hi), _mm512_unpackhi_epi8(lo, hi)};
    for (unsigned k = 0; k < 4; k++) {
        __m512i c = _mm512_multishift_epi64_epi8(k % 2 ? ctl_b : ctl_a, w[k / 2]);
        c = _mm512_shuffle_epi8(lut, _mm512_and_si512(c, seven));
        uint64_t m;
        memcpy(&m, s->sub + 2 * k, 8);
        c = _mm512_mask_sub_epi8(c, _cvtu64_mask64(m), _mm512_setzero_si512(), c);
        _mm512_storeu_si512(q + 64 * k, c);
    }
}

/* A grid's planes in registers (n zmm each, built on first use) and its values as a vpshufb table. */
static inline VBMI_FN __m512i iq3_tables(const iq3_planes *p, unsigned n, const uint8_t values[8], __m512i *lo, __m512i *hi)
{
    pthread_once(&g_iq3_planes_once, build_iq3_planes);
    for (unsigned i = 0; i < n; i++) {
        lo[i] = _mm512_loadu_si512(p->lo + 64 * i);
        hi[i] = _mm512_loadu_si512(p->hi + 64 * i);
    }
    __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)values);
    return _mm512_broadcast_i32x4(_mm_unpacklo_epi64(v, v));
}

/* One byte plane looked up for 64 indices idx (bits 0-7) over 256 entries t[0..3]. */
static inline VBMI_FN __m512i plane256(__m512i idx, __mmask64 b7, const __m512i t[4])
{
    __m512i a = _mm512_permutex2var_epi8(t[0], idx, t[1]), b = _mm512_permutex2var_epi8(t[2], idx, t[3]);
    return _mm512_mask_mov_epi8(a, b7, b);
}
#endif

/* ---- IQ3_XXS: fp16 d, qs[64] (4-byte row r at qs[r]), LE u32 aux[8] (ksigns indices, scale). ---- */
/* IQ3_XXS: the byte offsets 4 qs[r] of the block's 64 rows in u16 lanes, built a block ahead and read
 * back two per 32-bit load (rows4o): 4 loads per 32 codes where the index bytes took 8. */
static inline AVX2_FN void iq3xxs_offsets(const uint8_t *blk, uint16_t off[64])
{
    for (unsigned h = 0; h < 4; h++)
        STORE32(off + 16 * h, _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * h))), 2));
}

static inline __attribute__((always_inline)) GRID_FN void iq3_xxs_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint16_t off[2][64];
    if (nblocks) iq3xxs_offsets(src, off[0]);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 98 * b;
        if (b + 1 < nblocks) iq3xxs_offsets(blk + 98, off[(b + 1) & 1]);
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq3_xxs_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        __m256i aux = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 66));
        const block_signs sp = signs_of(ksigns_aux(aux));
        float sc[8];
        if (w) _mm256_storeu_ps(sc, half_step_scales(half_f32(blk), _mm256_srli_epi32(aux, 28), 0.5f));
#pragma GCC unroll 8
        for (unsigned ib = 0; ib < 8; ib++) {
            STORE32(q + 32 * ib, apply_signs(rows4o(PC_IQ3XXS_GRID, off[b & 1] + 8 * ib), &sp, ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[ib], sc[ib], w + 32 * ib);
    }
}
#ifdef PC_GRID_AVX512
static inline __attribute__((always_inline)) VBMI_FN void iq3_xxs_body_vbmi(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    __m512i tlo[4], thi[4];
    const __m512i perm = iq3_perm(), lut = iq3_tables(&g_iq3xxs_planes, 4, k_iq3xxs_values, tlo, thi);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 98 * b;
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq3_xxs_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        __m256i aux = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 66));
        const block_signs sp = signs_of(ksigns_aux(aux));
        float sc[8];
        if (w) _mm256_storeu_ps(sc, half_step_scales(half_f32(blk), _mm256_srli_epi32(aux, 28), 0.5f));
        __m512i idx = _mm512_permutexvar_epi8(perm, _mm512_loadu_si512(blk + 2));
        __mmask64 b7 = _mm512_movepi8_mask(idx);
        iq3_emit(plane256(idx, b7, tlo), plane256(idx, b7, thi), lut, &sp, q);
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[ib], sc[ib], w + 32 * ib);
    }
}
static VBMI_FN void iq3_xxs_vbmi(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq3_xxs_body_vbmi(src, nblocks, codes, weights);
    else iq3_xxs_body_vbmi(src, nblocks, codes, NULL); /* a codes-only copy */
}
#endif
GRID_FN void GRID_DECODE(iq3_xxs)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
#ifdef PC_GRID_AVX512
    if (have_vbmi()) {
        iq3_xxs_vbmi(src, nblocks, codes, weights);
        return;
    }
#endif
    if (weights) iq3_xxs_body(src, nblocks, codes, weights);
    else iq3_xxs_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

/* IQ3_S: the byte offsets into iq3s_grid of the block's 64 rows, 4 (qs[r] | bit r % 8 of qh[r / 8] << 8),
 * 16 rows at a time in 16-bit lanes. */
static inline AVX2_FN void iq3s_offsets(const uint8_t *blk, uint16_t off[64])
{
    const __m256i pick = _mm256_setr_epi8(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1,
                                          1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1);
    const __m256i bit = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
    for (unsigned h = 0; h < 4; h++) {
        __m256i lo = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(blk + 2 + 16 * h)));
        __m256i qh = _mm256_shuffle_epi8(_mm256_set1_epi16((short)pc_le16_at(blk + 66 + 2 * h)), pick);
        __m256i hi = _mm256_and_si256(_mm256_cmpeq_epi16(_mm256_and_si256(qh, bit), bit), _mm256_set1_epi16(0x100));
        STORE32(off + 16 * h, _mm256_slli_epi16(_mm256_or_si256(lo, hi), 2));
    }
}

/* IQ3_S's eight sub-block scales db = f32(d * (1 + 2 s)), s nibble ib % 2 of scales[ib / 2] (byte 106). */
static inline AVX2_FN void iq3s_scales(const uint8_t *blk, float sc[8])
{
    __m256i s = _mm256_cvtepu8_epi32(_mm_cvtsi32_si128((int)pc_load_le32(blk + 106)));
    s = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)),
                                           _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4)), _mm256_set1_epi32(15));
    __m256i odd = _mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1));
    _mm256_storeu_ps(sc, _mm256_mul_ps(_mm256_set1_ps(half_f32(blk)), _mm256_cvtepi32_ps(odd)));
}

/* ---- IQ3_S: fp16 d, qs[64], qh[8] (bit r % 8 of qh[r / 8] is bit 8 of row r's index), signs[32],
 * scales[4] (nibble ib % 2 of scales[ib / 2]); db = f32(d * (1 + 2 s)). ---- */
static inline __attribute__((always_inline)) GRID_FN void iq3_s_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint16_t off[2][64];
    if (nblocks) iq3s_offsets(src, off[0]);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 110 * b;
        if (b + 1 < nblocks) iq3s_offsets(blk + 110, off[(b + 1) & 1]); /* a block ahead, as IQ1_S */
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq3_s_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        float sc[8];
        if (w) iq3s_scales(blk, sc);
        const block_signs sp = signs_of(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 74)));
#pragma GCC unroll 8
        for (unsigned ib = 0; ib < 8; ib++) {
            const uint16_t *o = off[b & 1] + 8 * ib;
            __m256i r = rows4o(PC_IQ3S_GRID, o);
            STORE32(q + 32 * ib, apply_signs(r, &sp, ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[ib], sc[ib], w + 32 * ib);
    }
}
#ifdef PC_GRID_AVX512
static inline VBMI_FN __m512i plane512(__m512i idx, __mmask64 b7, __mmask64 b8, const __m512i t[8])
{
    return _mm512_mask_mov_epi8(plane256(idx, b7, t), b8, plane256(idx, b7, t + 4));
}

static inline __attribute__((always_inline)) VBMI_FN void iq3_s_body_vbmi(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    __m512i tlo[8], thi[8];
    const __m512i perm = iq3_perm(), lut = iq3_tables(&g_iq3s_planes, 8, k_iq3s_values, tlo, thi);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 110 * b;
        float *w = weights ? weights + 256 * b : NULL;
        if (w && half_is_nan(blk)) { pc_iq3_s_decode_scalar(blk, 1, codes ? codes + 256 * b : NULL, w); continue; }
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        float sc[8];
        if (w) iq3s_scales(blk, sc);
        const block_signs sp = signs_of(_mm256_loadu_si256((const __m256i *)(const void *)(blk + 74)));
        __m512i idx = _mm512_permutexvar_epi8(perm, _mm512_loadu_si512(blk + 2));
        /* bit 8 of row r's index: bit r of qh read as one LE u64, as a byte per row, permuted alike */
        __m512i h8 = _mm512_permutexvar_epi8(perm, _mm512_movm_epi8(_cvtu64_mask64(load_u64(blk + 66))));
        __mmask64 b7 = _mm512_movepi8_mask(idx), b8 = _mm512_movepi8_mask(h8);
        iq3_emit(plane512(idx, b7, b8, tlo), plane512(idx, b7, b8, thi), lut, &sp, q);
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) grid_f32(q + 32 * ib, sc[ib], sc[ib], w + 32 * ib);
    }
}
static VBMI_FN void iq3_s_vbmi(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq3_s_body_vbmi(src, nblocks, codes, weights);
    else iq3_s_body_vbmi(src, nblocks, codes, NULL); /* a codes-only copy */
}
#endif
GRID_FN void GRID_DECODE(iq3_s)(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
#ifdef PC_GRID_AVX512
    if (have_vbmi()) {
        iq3_s_vbmi(src, nblocks, codes, weights);
        return;
    }
#endif
    if (weights) iq3_s_body(src, nblocks, codes, weights);
    else iq3_s_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

#ifndef PC_GRID_AVX512
/* ---- IQ1_S: fp16 d, qs[32], LE u16 qh[8]: bits 3l..3l + 2 are bits 8..10 of group 4ib + l's
 * index, bits 12..14 the scale s (dl = f32(d * (2 s + 1))), bit 15 the delta's sign. ---- */
static inline __attribute__((always_inline)) AVX2_FN void iq1_s_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint16_t idx[2][32];
    if (nblocks) iq1s_indices(src, idx[0]);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 50 * b;
        /* the next block's indices a block ahead: their loads do not wait on the stores just made */
        if (b + 1 < nblocks) iq1s_indices(blk + 50, idx[(b + 1) & 1]);
        float *w = weights ? weights + 256 * b : NULL;
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        float dl[8], dt[8];
        if (w) {
            __m256i qh = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(blk + 34)));
            __m256i s = _mm256_and_si256(_mm256_srli_epi32(qh, 12), _mm256_set1_epi32(7));
            _mm256_storeu_ps(dl, _mm256_mul_ps(_mm256_set1_ps(pc_half_to_f32(pc_le16_at(blk))),
                                               _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1)))));
            /* +-0.125: bit 15 of qh moved to the sign bit */
            _mm256_storeu_ps(dt, _mm256_or_ps(_mm256_set1_ps(0.125f), _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(qh, 15), 31))));
        }
        for (unsigned ib = 0; ib < 8; ib++) {
            STORE32(q + 32 * ib, rows8t((const uint8_t *)PC_IQ1S_GRID, idx[b & 1] + 4 * ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) {
            const float d4[4] = {dt[ib], dt[ib], dt[ib], dt[ib]};
            iq1_f32(q + 32 * ib, dl[ib], dl[ib], d4, w + 32 * ib);
        }
    }
}
AVX2_FN void pc_iq1_s_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq1_s_body(src, nblocks, codes, weights);
    else iq1_s_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

/* ---- IQ1_M: qs[32], qh[16] (nibble g % 2 of qh[g / 2]: bits 0..2 are bits 8..10 of group g's
 * index, bit 3 the delta's sign), four LE u16 scale words (3-bit s per 16 elements, fp16 d in the top
 * nibbles). ---- */
static inline __attribute__((always_inline)) AVX2_FN void iq1_m_body(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    uint16_t idx[2][32];
    if (nblocks) iq1m_indices(src, idx[0]);
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 56 * b;
        if (b + 1 < nblocks) iq1m_indices(blk + 56, idx[(b + 1) & 1]); /* a block ahead, as IQ1_S */
        float *w = weights ? weights + 256 * b : NULL;
        int8_t tmp[256], *q = CODES_AT(codes, b, tmp);
        float dl[16], delta[32];
        if (w) iq1m_scales(blk, dl, delta);
        for (unsigned ib = 0; ib < 8; ib++) {
            STORE32(q + 32 * ib, rows8t((const uint8_t *)PC_IQ1S_GRID, idx[b & 1] + 4 * ib));
        }
        if (!w) continue;
        for (unsigned ib = 0; ib < 8; ib++) iq1_f32(q + 32 * ib, dl[2 * ib], dl[2 * ib + 1], delta + 4 * ib, w + 32 * ib);
    }
}
AVX2_FN void pc_iq1_m_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    if (weights) iq1_m_body(src, nblocks, codes, weights);
    else iq1_m_body(src, nblocks, codes, NULL); /* a codes-only copy: no per-block tests of weights */
}

/* ---- Bench references (packcheck bench's fast_vs_bound, gguf_blocks_bench.c): per sub-block the
 * same index work, data-dependent row loads and joining as the kernel above, and its one 32-byte
 * store, without the sign bytes, the sign spreading and the negation. What a decoder that fetches
 * one grid row per load can reach on this machine; the output is not the codes. ---- */
#define ROWS_BOUND(type, bytes, ROWS)                                              \
    AVX2_FN void pc_##type##_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out) \
    {                                                                              \
        for (size_t b = 0; b < nblocks; b++) {                                     \
            const uint8_t *blk = src + (bytes) * b;                                \
            uint8_t *q = out + 256 * b;                                            \
            for (unsigned ib = 0; ib < 8; ib++) STORE32(q + 32 * ib, ROWS);        \
        }                                                                          \
    }
ROWS_BOUND(iq2_xxs, 66, rows8h(PC_IQ2XXS_GRID, blk[2 + 8 * ib], blk[3 + 8 * ib], blk[4 + 8 * ib], blk[5 + 8 * ib]))
ROWS_BOUND(iq2_xs, 74, rows8h(PC_IQ2XS_GRID, pc_le16_at(blk + 2 + 8 * ib) & 511u, pc_le16_at(blk + 4 + 8 * ib) & 511u,
                              pc_le16_at(blk + 6 + 8 * ib) & 511u, pc_le16_at(blk + 8 + 8 * ib) & 511u))
#undef ROWS_BOUND
/* ... for the kernels that build a block's indices a block ahead (*_indices, *_offsets; rows8t, rows4o). */
#define ROWS_BOUND_AHEAD(type, bytes, INDICES, grid, n, ROWS, per)                                        \
    AVX2_FN void pc_##type##_rows_bound_avx2(const uint8_t *src, size_t nblocks, uint8_t *out)            \
    {                                                                                                     \
        uint16_t idx[2][n];                                                                               \
        if (nblocks) INDICES(src, idx[0]);                                                                \
        for (size_t b = 0; b < nblocks; b++) {                                                            \
            if (b + 1 < nblocks) INDICES(src + (bytes) * (b + 1), idx[(b + 1) & 1]);                      \
            _Pragma("GCC unroll 8")                                                                       \
            for (unsigned ib = 0; ib < 8; ib++) STORE32(out + 256 * b + 32 * ib, ROWS(grid, idx[b & 1] + (per) * ib)); \
        }                                                                                                 \
    }
ROWS_BOUND_AHEAD(iq2_s, 82, iq2s_indices, PC_IQ2S_GRID, 32, rows8t, 4)
ROWS_BOUND_AHEAD(iq1_s, 50, iq1s_indices, (const uint8_t *)PC_IQ1S_GRID, 32, rows8t, 4)
ROWS_BOUND_AHEAD(iq1_m, 56, iq1m_indices, (const uint8_t *)PC_IQ1S_GRID, 32, rows8t, 4)
ROWS_BOUND_AHEAD(iq3_xxs, 98, iq3xxs_offsets, PC_IQ3XXS_GRID, 64, rows4o, 8)
ROWS_BOUND_AHEAD(iq3_s, 110, iq3s_offsets, PC_IQ3S_GRID, 64, rows4o, 8)
#undef ROWS_BOUND_AHEAD
#endif /* !PC_GRID_AVX512 */
#endif
