/* AVX2 kernels for the layouts beyond the plain stream: AWQ GEMM, GPTQ columns, GGUF Q4_0 and the
 * NVFP4 dequantisation (PERFORMANCE.md 3.4). Same rules as stream_avx2.c: target attributes, run
 * only after dispatch saw the features, any alignment, never a byte outside the stated sizes. */
#include "kernel_set.h"

#ifdef PC_HAVE_X86_KERNELS

#include "avx2_inline.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* f32 outputs of at least this many bytes (twice L2) are stored non-temporally when 32-byte
 * aligned: they go to memory anyway, and streaming skips the read-for-ownership of every output
 * line (PERFORMANCE.md 3.5: +45 % streaming to DRAM). The one-thread Q4_0 -> f32 rows of the
 * peers benchmark ([4096, 4096] and larger) went from 6.7 to 11.1 GB/s with it. */
#define PC_NT_MIN_BYTES ((size_t)1 << 20)

static inline __attribute__((always_inline)) AVX2_FN void store_f32(float *p, __m256 v, bool nt)
{
    if (nt) _mm256_stream_ps(p, v);
    else _mm256_storeu_ps(p, v);
}

/* ------------------------------------------------------------------------------------------------
 * AWQ GEMM: each row is N/8 whole words, so the tensor is one nibble stream; slot i of a word holds
 * column 8c + ORDER[i] (ORDER = 0,2,4,6,1,3,5,7). Undo the interleave in-register: stream order
 * nibbles, then one vpshufb per 32 codes puts slot INV[j] = 0,4,1,5,2,6,3,7 at column j.
 * --------------------------------------------------------------------------------------------- */

AVX2_FN void pc_awq_unpack_avx2(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    const __m256i inv = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
                                         0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    size_t count = rows * N, i = 0;
    __m256i a, c;
    for (; i + 64 <= count; i += 64) {
        nibble_pair(src + i / 2, &a, &c);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_shuffle_epi8(a, inv));
        _mm256_storeu_si256((__m256i *)(out + i + 32), _mm256_shuffle_epi8(c, inv));
    }
    if (i < count) { /* N % 8 == 0, so the tail is whole words: bounce them */
        uint8_t tin[32] = {0}, tout[64];
        memcpy(tin, src + i / 2, (count - i) / 2);
        nibble_pair(tin, &a, &c);
        _mm256_storeu_si256((__m256i *)tout, _mm256_shuffle_epi8(a, inv));
        _mm256_storeu_si256((__m256i *)(tout + 32), _mm256_shuffle_epi8(c, inv));
        memcpy(out + i, tout, count - i);
    }
}

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
    bool nt = nblocks >= PC_NT_MIN_BYTES / 128 && ((uintptr_t)weights & 31) == 0;
    if (nt) q4_0_f32_avx2(src, nblocks, codes, weights, true);
    else q4_0_f32_avx2(src, nblocks, codes, weights, false);
}

/* ------------------------------------------------------------------------------------------------
 * NVFP4 -> f32: groups of 16 codes share one scale; the E2M1 magnitude comes from an 8-entry
 * vpermps table, the sign (bit 3) is XORed into the float, then one multiply (one rounding).
 * --------------------------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) AVX2_FN void nvfp4_f32_avx2(const uint8_t *codes, size_t groups,
                                                                         const float *group_scale, float *out, bool nt)
{
    const __m256 table = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
    const __m256i sign = _mm256_set1_epi32(8);
    for (size_t g = 0; g < groups; g++) {
        __m256 s = _mm256_broadcast_ss(group_scale + g);
        __m128i c16 = _mm_loadu_si128((const __m128i *)(codes + 16 * g));
        for (int h = 0; h < 2; h++) {
            __m256i c = _mm256_cvtepu8_epi32(h ? _mm_srli_si128(c16, 8) : c16);
            __m256 mag = _mm256_permutevar8x32_ps(table, c); /* uses bits 0-2 */
            __m256 v = _mm256_xor_ps(mag, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(c, sign), 28)));
            store_f32(out + 16 * g + 8 * h, _mm256_mul_ps(v, s), nt);
        }
    }
    if (nt) _mm_sfence();
}

AVX2_FN void pc_nvfp4_dequant_avx2(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    size_t groups = rows * (cols / 16); /* a group is 64 bytes of f32 */
    if (groups >= PC_NT_MIN_BYTES / 64 && ((uintptr_t)out & 31) == 0) nvfp4_f32_avx2(codes, groups, group_scale, out, true);
    else nvfp4_f32_avx2(codes, groups, group_scale, out, false);
}

#endif /* PC_HAVE_X86_KERNELS */
