/* Fast scalar unpackers, one specialised loop per width so every shift and mask is a constant.
 *
 * ct-dense / LE stream: 8 consecutive fields of b bits occupy exactly b bytes, so the main loop
 * takes b bytes as one little-endian 64-bit window and spreads its 8 codes into 8 bytes. The tail (< 8 codes)
 * loads only the bytes that exist. ct-legacy: one 32-bit word gives pf = floor(32/b) codes.
 * Both read src through memcpy, so any alignment is fine, and never past the caller's bound.
 * The AVX2 paths (fast/stream_avx2.c) are picked per process by PC_PICK (kernels/simd.h). */
#include "../kernels.h"

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

/* The portable paths per width (index b = 1..8; 0 unused), and the entry points (kernels/simd.h). */
const pc_unpack_b_fn pc_stream_scalar[9] = {NULL, stream_1, stream_2, stream_3, stream_4, stream_5, stream_6, stream_7, stream_8};
const pc_unpack_b_fn pc_wordalign_scalar[9] = {NULL, wordalign_1, wordalign_2, wordalign_3, wordalign_4, wordalign_5,
                                               wordalign_6, wordalign_7, wordalign_8};

void pc_stream_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b < 1 || b > 8 || count == 0) return;
    PC_PICK(pc_stream_scalar, pc_stream_avx2)[b](src, count, out);
}

void pc_wordalign_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b < 1 || b > 8 || count == 0) return;
    PC_PICK(pc_wordalign_scalar, pc_wordalign_avx2)[b](src, count, out);
}
