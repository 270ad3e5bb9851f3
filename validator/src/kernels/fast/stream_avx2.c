/* AVX2 unpackers for the LE bit stream (ct-dense rows, NVFP4 and 4-bit nibbles) and the legacy
 * word-aligned layout. Compiled with function-level target attributes: nothing here runs unless
 * simd.c saw AVX2 and BMI2 on the CPU.
 *
 * Every width 1..8 uses one table-driven step (after PERFORMANCE.md 3.3): a step emits 32 codes
 * from two 16-byte windows, one per 128-bit lane. Each 16-bit output lane w carries code 2w in its
 * low byte and code 2w+1 in its high byte, so no pack is needed. Two vpshufb copy, for each code,
 * the two input bytes covering it into a 16-bit lane, and a multiply acts as the per-lane variable
 * shift AVX2 lacks (o = the code's bit offset in its first byte):
 *   even codes: vpmulhuw by 2^(16-o) = window >> o, code in the low byte. o = 0 would need 2^16,
 *               so such a code's byte goes into the high half of the window and o counts as 8.
 *   odd codes:  vpmullw by 2^(8-o) = window << (8-o), code in the high byte.
 * Two masks drop the neighbours' bits and one OR merges the halves. Multiplies go to their own
 * port, so the shuffle port (vpshufb, the lane insert) is no longer the bottleneck.
 * A code at in-byte offset o <= 7 with b <= 8 ends by bit 14 of its window: it always fits.
 *  - stream: 32 codes = 4b bytes, the second window starts at byte 2b.
 *  - word-aligned (pf = floor(32/b) fields per 32-bit word, dead top bits): the step starts on a
 *    word boundary and advances floor(32/pf) words = floor(32/pf)*pf codes (30 or 32); it still
 *    stores 32 codes, the next step overwrites the extra ones.
 * 4 bits has its own kernel (mask and interleave nibbles, 64 codes per 32 bytes); 8 bits is memcpy.
 * Heads need nothing (rows start on word boundaries, pointers may be unaligned). Tails that the
 * vector loop cannot finish without reading past the input go through a small zero-padded bounce
 * buffer, so a kernel never touches a byte outside [src, src + input size). */
#include "../kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "avx2_inline.h"

#include <stdbool.h>
#include <string.h>

typedef struct avx2_plan {
    uint8_t shuf_a[32], shuf_b[32];
    uint16_t mul_a[16], mul_b[16];
    unsigned out_step; /* codes advanced per step (32 are stored) */
    unsigned in_step;  /* input bytes advanced per step */
    unsigned lane1;    /* byte offset of the second 16-byte window; a step reads lane1 + 16 bytes */
    bool ok;
} avx2_plan;

static avx2_plan g_stream_plan[9], g_word_plan[9];

/* Bit position of step-relative code c: stream, or pf fields per 32-bit word. */
static inline unsigned plan_bit(unsigned c, unsigned b, unsigned pf)
{
    return pf ? (c / pf) * 32 + (c % pf) * b : c * b;
}

/* Where the second 16-byte window starts. When a whole step fits in 16 bytes (b <= 3 and
 * word-aligned 3-bit), both lanes read the same window: one vbroadcasti128 instead of a load and
 * a lane insert, which frees the shuffle port. */
static inline unsigned plan_lane1(unsigned b, unsigned pf)
{
    unsigned step_bytes = pf ? (32 / pf) * 4 : 4 * b;
    return step_bytes <= 16 ? 0 : plan_bit(16, b, pf) / 8;
}

static bool plan_build(avx2_plan *p, unsigned b, unsigned pf)
{
    memset(p, 0, sizeof *p);
    p->out_step = pf ? (32 / pf) * pf : 32;
    p->in_step = pf ? (32 / pf) * 4 : 4 * b;
    p->lane1 = plan_lane1(b, pf);
    for (unsigned c = 0; c < 32; c++) {
        unsigned lane = c / 16, odd = c % 2, w = (c % 16) / 2;
        unsigned bit = plan_bit(c, b, pf), o = bit % 8;
        unsigned k = bit / 8 - (lane ? p->lane1 : 0);
        uint8_t lo = (uint8_t)k, hi = o + b > 8 ? (uint8_t)(k + 1) : 0x80; /* 0x80: vpshufb writes 0 */
        if (!odd && o == 0) { hi = lo; lo = 0x80; o = 8; }
        if (k > 15 || (hi != 0x80 && hi > 15)) return false;
        uint8_t *shuf = odd ? p->shuf_b : p->shuf_a;
        uint16_t *mul = odd ? p->mul_b : p->mul_a;
        shuf[lane * 16 + 2 * w] = lo;
        shuf[lane * 16 + 2 * w + 1] = hi;
        mul[lane * 8 + w] = (uint16_t)(odd ? 1u << (8 - o) : 1u << (16 - o));
    }
    return p->ok = true;
}

void pc_avx2_plans_init(void)
{
    for (unsigned b = 1; b <= 7; b++) {
        plan_build(&g_stream_plan[b], b, 0);
        plan_build(&g_word_plan[b], b, 32 / b);
    }
}

/* The plan's constants, loaded into registers once per call. */
typedef struct plan_regs { __m256i sa, sb, ma, mb, keep_lo, keep_hi; size_t lane1; } plan_regs;

static inline AVX2_FN plan_regs plan_load(const avx2_plan *p, unsigned b)
{
    plan_regs r;
    r.sa = _mm256_loadu_si256((const __m256i *)p->shuf_a);
    r.sb = _mm256_loadu_si256((const __m256i *)p->shuf_b);
    r.ma = _mm256_loadu_si256((const __m256i *)p->mul_a);
    r.mb = _mm256_loadu_si256((const __m256i *)p->mul_b);
    r.keep_lo = _mm256_set1_epi16((short)((1u << b) - 1));
    r.keep_hi = _mm256_set1_epi16((short)(((1u << b) - 1) << 8));
    r.lane1 = p->lane1;
    return r;
}

static inline AVX2_FN void plan_step(const uint8_t *s, uint8_t *d, const plan_regs *r)
{
    __m128i w0 = _mm_loadu_si128((const __m128i *)s);
    __m256i x = r->lane1 ? _mm256_inserti128_si256(_mm256_castsi128_si256(w0), _mm_loadu_si128((const __m128i *)(s + r->lane1)), 1)
                         : _mm256_broadcastsi128_si256(w0);
    __m256i even = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(x, r->sa), r->ma), r->keep_lo);
    __m256i odd = _mm256_and_si256(_mm256_mullo_epi16(_mm256_shuffle_epi8(x, r->sb), r->mb), r->keep_hi);
    _mm256_storeu_si256((__m256i *)d, _mm256_or_si256(even, odd));
}

/* Run a plan over count codes held in in_bytes input bytes. Inlined into one caller per width with
 * b and pf constant, so steps and offsets are immediates (fewer live registers, no spills). */
static inline __attribute__((always_inline)) AVX2_FN void plan_run(const avx2_plan *p, unsigned b, unsigned pf,
                                                                   const uint8_t *src, size_t in_bytes,
                                                                   size_t count, uint8_t *out)
{
    plan_regs r = plan_load(p, b);
    const size_t os = pf ? (32 / pf) * pf : 32, is = pf ? (32 / pf) * 4 : 4 * b;
    r.lane1 = plan_lane1(b, pf);
    const size_t reach = r.lane1 + 16;
    size_t i = 0, in = 0;
    /* Four steps per iteration: the loads of later steps overlap the arithmetic of earlier ones. */
    while (i + 3 * os + 32 <= count && in + 3 * is + reach <= in_bytes) {
        plan_step(src + in, out + i, &r);
        plan_step(src + in + is, out + i + os, &r);
        plan_step(src + in + 2 * is, out + i + 2 * os, &r);
        plan_step(src + in + 3 * is, out + i + 3 * os, &r);
        i += 4 * os;
        in += 4 * is;
    }
    while (i + 32 <= count && in + reach <= in_bytes) {
        plan_step(src + in, out + i, &r);
        i += os;
        in += is;
    }
    while (i < count) { /* i < count implies in < in_bytes */
        uint8_t tin[48] = {0}, tout[32];
        size_t avail = in_bytes - in, n = count - i;
        memcpy(tin, src + in, avail < sizeof tin ? avail : sizeof tin);
        plan_step(tin, tout, &r);
        if (n > os) n = os;
        memcpy(out + i, tout, n);
        i += n;
        in += is;
    }
}

static AVX2_FN void nibble_run(const uint8_t *src, size_t count, uint8_t *out)
{
    size_t i = 0;
    for (; i + 128 <= count; i += 128) {
        nibble_step(src + i / 2, out + i);
        nibble_step(src + i / 2 + 32, out + i + 64);
    }
    for (; i + 64 <= count; i += 64) nibble_step(src + i / 2, out + i);
    if (i < count) {
        uint8_t tin[32] = {0}, tout[64];
        memcpy(tin, src + i / 2, (count - i + 1) / 2);
        nibble_step(tin, tout);
        memcpy(out + i, tout, count - i);
    }
}

static inline __attribute__((always_inline)) AVX2_FN void stream_unpack_avx2(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b == 8) { memcpy(out, src, count); return; }
    if (b == 4) { nibble_run(src, count, out); return; }
    if (b < 1 || b > 8 || !g_stream_plan[b].ok) { pc_stream_scalar[b](src, count, out); return; }
    size_t in_bytes = count / 8 * b + ((count % 8) * b + 7) / 8;
    const avx2_plan *p = &g_stream_plan[b];
    switch (b) {
    case 1: plan_run(p, 1, 0, src, in_bytes, count, out); break;
    case 2: plan_run(p, 2, 0, src, in_bytes, count, out); break;
    case 3: plan_run(p, 3, 0, src, in_bytes, count, out); break;
    case 5: plan_run(p, 5, 0, src, in_bytes, count, out); break;
    case 6: plan_run(p, 6, 0, src, in_bytes, count, out); break;
    default: plan_run(p, 7, 0, src, in_bytes, count, out); break;
    }
}

static inline __attribute__((always_inline)) AVX2_FN void wordalign_unpack_avx2(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b == 1 || b == 2 || b == 4 || b == 8) { stream_unpack_avx2(src, b, count, out); return; } /* no dead bits */
    if (b < 1 || b > 8 || !g_word_plan[b].ok) { pc_wordalign_scalar[b](src, count, out); return; }
    unsigned pf = 32 / b;
    size_t in_bytes = (count / pf + (count % pf != 0)) * 4;
    const avx2_plan *p = &g_word_plan[b];
    switch (b) {
    case 3: plan_run(p, 3, 10, src, in_bytes, count, out); break;
    case 5: plan_run(p, 5, 6, src, in_bytes, count, out); break;
    case 6: plan_run(p, 6, 5, src, in_bytes, count, out); break;
    default: plan_run(p, 7, 4, src, in_bytes, count, out); break;
    }
}

/* One entry per width, each with b constant so only its own path is compiled in. */
#define AVX2_WIDTH(B)                                                                               \
    static AVX2_FN void stream_##B(const uint8_t *src, size_t count, uint8_t *out)                 \
    {                                                                                              \
        stream_unpack_avx2(src, B, count, out);                                                    \
    }                                                                                              \
    static AVX2_FN void wordalign_##B(const uint8_t *src, size_t count, uint8_t *out)              \
    {                                                                                              \
        wordalign_unpack_avx2(src, B, count, out);                                                 \
    }
AVX2_WIDTH(1)
AVX2_WIDTH(2)
AVX2_WIDTH(3)
AVX2_WIDTH(4)
AVX2_WIDTH(5)
AVX2_WIDTH(6)
AVX2_WIDTH(7)
AVX2_WIDTH(8)

const pc_unpack_b_fn pc_stream_avx2[9] = {NULL, stream_1, stream_2, stream_3, stream_4, stream_5, stream_6, stream_7, stream_8};
const pc_unpack_b_fn pc_wordalign_avx2[9] = {NULL, wordalign_1, wordalign_2, wordalign_3, wordalign_4, wordalign_5,
                                             wordalign_6, wordalign_7, wordalign_8};

#endif /* PC_HAVE_X86_KERNELS */
