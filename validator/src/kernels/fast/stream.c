/* Fast scalar unpackers, one specialised loop per width so every shift and mask is a constant.
 *
 * ct-dense / LE stream: 8 consecutive fields of b bits occupy exactly b bytes, so the main loop
 * takes b bytes as one little-endian 64-bit window and spreads its 8 codes into 8 bytes. The tail (< 8 codes)
 * loads only the bytes that exist. ct-legacy: one 32-bit word gives pf = floor(32/b) codes.
 * Both read src through memcpy, so any alignment is fine, and never past the caller's bound.
 * The SIMD sets (fast/stream_avx2.c, layouts_avx2.c) plug in through pc_kernel_set; dispatch.c picks. */
#include "kernel_set.h"

#include <string.h>

/* Little-endian load of n <= 8 bytes (missing high bytes are zero). */
static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v = 0;
    memcpy(&v, p, n);
    return v;
#else
    uint64_t v = 0;
    for (unsigned k = 0; k < n; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
#endif
}

static inline void store_le(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (unsigned k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
#endif
}

static inline void stream_tail(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    /* count < 8 codes: at most b*7 bits, inside ceil(count*b/8) <= b bytes. */
    uint64_t v = load_le(src, (unsigned)((count * b + 7) / 8));
    for (size_t k = 0; k < count; k++) out[k] = (uint8_t)((v >> (k * b)) & ((1u << b) - 1));
}

/* The 8 fields of b bits at the bottom of v, one per byte (SWAR: halves, then pairs, then singles;
 * 14 operations for 8 codes instead of 8 shift-and-mask-and-place sequences). */
static inline uint64_t spread8(uint64_t v, unsigned b)
{
    const uint64_t m4 = (1ull << (4 * b)) - 1;
    const uint64_t m2 = ((1ull << (2 * b)) - 1) * 0x0000000100000001ull;
    const uint64_t m1 = ((1ull << b) - 1) * 0x0001000100010001ull;
    uint64_t x = (v & m4) | (((v >> (4 * b)) & m4) << 32);
    x = (x & m2) | (((x >> (2 * b)) & m2) << 16);
    return (x & m1) | (((x >> b) & m1) << 8);
}

/* Main loop: 8 codes from one 8-byte load (while 8 bytes remain; the last groups load exactly B),
 * written with one 8-byte store. restrict: src and out never overlap, so nothing is reloaded. */
#define STREAM_B(B)                                                                                  \
    static void stream_##B(const uint8_t *restrict src, size_t count, uint8_t *restrict out)         \
    {                                                                                                \
        size_t groups = count / 8, g = 0;                                                            \
        size_t wide = groups > 8 / B ? groups - (8 / B + 1) : 0; /* groups whose 8-byte load fits */ \
        for (; g < wide; g++, src += B, out += 8) store_le(out, spread8(load_le(src, 8), B));        \
        for (; g < groups; g++, src += B, out += 8) store_le(out, spread8(load_le(src, B), B));      \
        if (count % 8) stream_tail(src, B, count % 8, out);                                          \
    }
STREAM_B(1)
STREAM_B(2)
STREAM_B(3)
STREAM_B(4)
STREAM_B(5)
STREAM_B(6)
STREAM_B(7)
static void stream_8(const uint8_t *restrict src, size_t count, uint8_t *restrict out) { memcpy(out, src, count); }

/* ct-legacy: a word's pf fields are a little dense stream of their own (bits 0 .. pf*b), so each
 * word is spread 8 fields at a time; the bytes past pf are don't-cares that the next word's stores
 * overwrite, hence the main loop keeps 8 * ceil(pf/8) bytes of room in out and the row's last
 * words take the per-field loop. */
#define WORDALIGN_B(B)                                                                               \
    static void wordalign_##B(const uint8_t *restrict src, size_t count, uint8_t *restrict out)      \
    {                                                                                                \
        enum { PF = 32 / B, CHUNKS = (PF + 7) / 8 };                                                 \
        const uint32_t mask = (1u << B) - 1;                                                         \
        size_t i = 0;                                                                                \
        for (; i + 8 * CHUNKS <= count; i += PF, src += 4) {                                         \
            uint64_t v = load_le(src, 4);                                                            \
            for (unsigned c = 0; c < CHUNKS; c++) store_le(out + i + 8 * c, spread8(v >> (8 * B * c), B)); \
        }                                                                                            \
        for (; i < count; src += 4) {                                                                \
            uint32_t v = (uint32_t)load_le(src, 4);                                                  \
            for (unsigned k = 0; k < PF && i < count; k++, i++) out[i] = (uint8_t)((v >> (k * B)) & mask); \
        }                                                                                            \
    }
WORDALIGN_B(1)
WORDALIGN_B(2)
WORDALIGN_B(3)
WORDALIGN_B(4)
WORDALIGN_B(5)
WORDALIGN_B(6)
WORDALIGN_B(7)
WORDALIGN_B(8)

/* The portable set: these loops, and the other layouts' scalar fast paths (fast/gptq.c, awq.c,
 * q4_0.c). kernels/dispatch.c chooses between this and the SIMD sets. */
const pc_kernel_set pc_kernels_scalar = {
    .name = "scalar",
    .stream = {NULL, stream_1, stream_2, stream_3, stream_4, stream_5, stream_6, stream_7, stream_8},
    .wordalign = {NULL, wordalign_1, wordalign_2, wordalign_3, wordalign_4, wordalign_5, wordalign_6, wordalign_7, wordalign_8},
    .gptq = pc_gptq_unpack_scalar,
    .awq = pc_awq_unpack_scalar,
    .q4_0 = pc_q4_0_decode_scalar,
    .nvfp4_dequant = pc_nvfp4_dequant_scalar,
    .q8_0 = pc_q8_0_decode_scalar,
    .q4_1 = pc_q4_1_decode_scalar,
    .q5_0 = pc_q5_0_decode_scalar,
    .q5_1 = pc_q5_1_decode_scalar,
    .q4_k = pc_q4_k_decode_scalar,
    .q6_k = pc_q6_k_decode_scalar,
    .q5_k = pc_q5_k_decode_scalar,
    .iq4_nl = pc_iq4_nl_decode_scalar,
    .iq4_xs = pc_iq4_xs_decode_scalar,
    .mxfp4 = pc_mxfp4_decode_scalar,
    .q2_k = pc_q2_k_decode_scalar,
    .q3_k = pc_q3_k_decode_scalar,
    .tq1_0 = pc_tq1_0_decode_scalar,
    .tq2_0 = pc_tq2_0_decode_scalar,
    .gguf_nvfp4 = pc_gguf_nvfp4_decode_scalar,
    .q1_0 = pc_q1_0_decode_scalar,
    .q2_0 = pc_q2_0_decode_scalar,
    .iq2_xxs = pc_iq2_xxs_decode_scalar,
    .iq2_xs = pc_iq2_xs_decode_scalar,
    .iq2_s = pc_iq2_s_decode_scalar,
    .iq3_xxs = pc_iq3_xxs_decode_scalar,
    .iq3_s = pc_iq3_s_decode_scalar,
    .iq1_s = pc_iq1_s_decode_scalar,
    .iq1_m = pc_iq1_m_decode_scalar,
    .fp8_run = pc_fp8_run_scalar,
    .int8_run = pc_int8_run_scalar,
};
