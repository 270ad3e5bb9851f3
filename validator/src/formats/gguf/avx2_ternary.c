/* AVX2 decoder of GGUF TQ1_0 (kernels.h states the layout; oracle_ternary.c is the literal
 * reference). ggml's trit n of a byte is t = (x * 3) >> 8 with x = byte * 3^n mod 256, i.e.
 * t = [x >= 86] + [x >= 171]. The bytes are kept biased by 0x80 (signed compares then give those
 * unsigned ones), and since 3^n is odd the bias survives multiplication: (x * 3) ^ 0x80 equals
 * (x ^ 0x80) * 3 mod 256. So each trit plane is two byte adds and two compares from the last.
 * Register layout, 32 codes each: qs[0..31] times 3^0..3^4 -> elements 0..159; qs[32..47] in both
 * lanes, times 3^n in the low and 3^(n+1) in the high lane -> 160..223; then 3^4 qs[32..47] beside
 * qh[0..3] times 1, 3, 9, 27 -> 224..255. f32 weights: f32(q - 1) * d, a NaN d by the portable path. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include "../../kernels/fast/avx2_inline.h"

static inline __attribute__((always_inline)) AVX2_FN __m256i times3(__m256i x) { return _mm256_add_epi8(x, _mm256_add_epi8(x, x)); }
static inline __attribute__((always_inline)) AVX2_FN __m128i times3x(__m128i x) { return _mm_add_epi8(x, _mm_add_epi8(x, x)); }

/* The limits of the two compares, biased. GCC rewrites a compare against a known constant into a
 * min and an equality (one instruction more, eight times a block), so the values are hidden from
 * it behind an empty asm once per call. */
typedef struct trit_limits {
    __m256i l86, l171, two;
} trit_limits;

static inline __attribute__((always_inline)) AVX2_FN trit_limits limits(void)
{
    trit_limits k = {_mm256_set1_epi8(86 - 128), _mm256_set1_epi8(171 - 128), _mm256_set1_epi8(2)};
    __asm__("" : "+x"(k.l86), "+x"(k.l171));
    return k;
}

/* The trit of each biased byte: 2 - [x < 86] - [x < 171], a true compare being -1. */
static inline __attribute__((always_inline)) AVX2_FN __m256i trit(__m256i xb, const trit_limits *k)
{
    __m256i a = _mm256_cmpgt_epi8(k->l86, xb), b = _mm256_cmpgt_epi8(k->l171, xb);
    return _mm256_add_epi8(_mm256_add_epi8(a, b), k->two);
}

/* The 256 codes of one block to q. */
static inline __attribute__((always_inline)) AVX2_FN void block_codes(const uint8_t *blk, const trit_limits *k, uint8_t *q)
{
    const __m256i bias = _mm256_set1_epi8((char)0x80);
    __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)blk), bias);
    for (unsigned n = 0; n < 5; n++, a = times3(a)) _mm256_storeu_si256((__m256i *)(q + 32 * n), trit(a, k));
    __m256i b = _mm256_xor_si256(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(blk + 32))), bias);
    b = _mm256_blend_epi32(b, times3(b), 0xF0);
    _mm256_storeu_si256((__m256i *)(q + 160), trit(b, k));
    b = times3(times3(b));
    _mm256_storeu_si256((__m256i *)(q + 192), trit(b, k));
    b = times3(times3(b));
    __m128i h = _mm_xor_si128(_mm_set1_epi32((int)pc_load_le32(blk + 48)), _mm256_castsi256_si128(bias));
    __m128i h3 = times3x(h), h9 = times3x(h3), h27 = times3x(h9);
    h = _mm_blend_epi32(_mm_blend_epi32(h, h3, 0x2), _mm_blend_epi32(h9, h27, 0x8), 0xC);
    _mm256_storeu_si256((__m256i *)(q + 224), trit(_mm256_inserti128_si256(b, h, 1), k));
}

AVX2_FN void pc_tq1_0_decode_avx2(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const trit_limits k = limits();
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *blk = src + 54 * b;
        uint8_t local[256], *q = codes ? codes + 256 * b : local;
        block_codes(blk, &k, q);
        if (!weights) continue;
        if (half_is_nan(blk + 52)) pc_tq1_0_decode_scalar(blk, 1, NULL, weights + 256 * b);
        else f32_offset_mul(q, 256, 1, half_f32(blk + 52), weights + 256 * b);
    }
}

#endif /* PC_HAVE_X86_KERNELS */
