/* Fast scalar decoders of the GGUF legacy block types beside Q4_0 (Q8_0, Q4_1, Q5_0, Q5_1): each
 * block is copied into local arrays (so the compiler may assume no aliasing and vectorise the
 * loops), the quants are split out whole, and the weights follow ggml's dequantize_row_<type>
 * order: one multiply, then (Q4_1, Q5_1) one add in a separate statement, so no compiler fuses
 * them into an FMA with a single rounding. */
#include "../../kernels/fast/half.h"
#include "kernels.h"

/* The 32 nibbles of a block's 16 qs bytes: element j low, element j + 16 high. */
static inline void split_nibbles(const uint8_t *src, uint8_t q[32])
{
    uint8_t qs[16];
    memcpy(qs, src, 16);
    for (int j = 0; j < 16; j++) {
        q[j] = qs[j] & 15u;
        q[j + 16] = qs[j] >> 4;
    }
}

/* k_spread[b]: byte i of the little-endian u64 is 0x10 when bit i of b is set, so one qh byte
 * gives the fifth bits of 8 elements in one OR (a compile-time table: no variable shifts, which
 * the portable SSE2 set could not vectorise). */
#define SPREAD(x) ((((uint64_t)(x) & 1u) << 4) | ((((uint64_t)(x) >> 1) & 1u) << 12) | ((((uint64_t)(x) >> 2) & 1u) << 20) | \
                   ((((uint64_t)(x) >> 3) & 1u) << 28) | ((((uint64_t)(x) >> 4) & 1u) << 36) | ((((uint64_t)(x) >> 5) & 1u) << 44) | \
                   ((((uint64_t)(x) >> 6) & 1u) << 52) | ((((uint64_t)(x) >> 7) & 1u) << 60))
#define R2(n) SPREAD(n), SPREAD((n) + 1)
#define R4(n) R2(n), R2((n) + 2)
#define R8(n) R4(n), R4((n) + 4)
#define R16(n) R8(n), R8((n) + 8)
#define R32(n) R16(n), R16((n) + 16)
#define R64(n) R32(n), R32((n) + 32)
#define R128(n) R64(n), R64((n) + 64)
static const uint64_t k_spread[256] = {R128(0), R128(128)};

/* Adds the fifth bit of each element from the LE 32-bit qh field (bit e for element e). */
static inline void add_high_bits(const uint8_t *qh, uint8_t q[32])
{
    for (int k = 0; k < 4; k++) {
        uint64_t v, add = k_spread[qh[k]];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        add = __builtin_bswap64(add);
#endif
        memcpy(&v, q + 8 * k, 8);
        v |= add;
        memcpy(q + 8 * k, &v, 8);
    }
}

static inline void scale_offset(const uint8_t q[32], int offset, float d, float *out)
{
    float w[32];
    for (int j = 0; j < 32; j++) w[j] = (float)((int)q[j] - offset) * d;
    memcpy(out, w, sizeof w);
}

/* w = f32(q * d) + m. When d or m is NaN the result's payload is the first NaN in that order
 * (kernels.h): a vectorised add may swap its operands, so such blocks take the explicit loop. */
static inline void scale_min(const uint8_t q[32], float d, float m, float *out)
{
    float w[32];
    if (d != d || m != m) {
        for (int j = 0; j < 32; j++) {
            float dq = (float)q[j] * d;
            w[j] = dq != dq ? dq : dq + m;
        }
    } else {
        for (int j = 0; j < 32; j++) {
            float dq = (float)q[j] * d;
            w[j] = dq + m;
        }
    }
    memcpy(out, w, sizeof w);
}

void pc_q8_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 34) {
        if (codes) memcpy(codes + 32 * b, src + 2, 32);
        if (weights) {
            int8_t qs[32];
            float w[32];
            memcpy(qs, src + 2, 32);
            const float d = pc_half_to_f32(pc_le16_at(src));
            for (int j = 0; j < 32; j++) w[j] = (float)qs[j] * d;
            memcpy(weights + 32 * b, w, sizeof w);
        }
    }
}

void pc_q4_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 20) {
        uint8_t q[32];
        split_nibbles(src + 4, q);
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) scale_min(q, pc_half_to_f32(pc_le16_at(src)), pc_half_to_f32(pc_le16_at(src + 2)), weights + 32 * b);
    }
}

void pc_q5_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 22) {
        uint8_t q[32];
        split_nibbles(src + 6, q);
        add_high_bits(src + 2, q);
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) scale_offset(q, 16, pc_half_to_f32(pc_le16_at(src)), weights + 32 * b);
    }
}

void pc_q5_1_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 24) {
        uint8_t q[32];
        split_nibbles(src + 8, q);
        add_high_bits(src + 4, q);
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) scale_min(q, pc_half_to_f32(pc_le16_at(src)), pc_half_to_f32(pc_le16_at(src + 2)), weights + 32 * b);
    }
}
