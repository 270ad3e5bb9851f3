/* Fast scalar decoders of IQ4_NL, IQ4_XS and MXFP4: nibbles split into local arrays, values by a
 * 16-entry table of floats (the int8 tables of ggml-common.h converted once, exactly), then one
 * multiply per element (exact in f32 for all three; IQ4_XS forms d * (ls - 32) first, as ggml). */
#include "../../kernels/fast/half.h"
#include "kernels.h"

static const float k_iq4nl_f[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
static const float k_mxfp4_f[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

static inline void split16(const uint8_t *src, uint8_t q[32])
{
    uint8_t qs[16];
    memcpy(qs, src, 16);
    for (int j = 0; j < 16; j++) {
        q[j] = qs[j] & 15u;
        q[j + 16] = qs[j] >> 4;
    }
}

static inline void table_scale(const uint8_t q[32], const float *table, float d, float *out)
{
    float w[32];
    for (int j = 0; j < 32; j++) w[j] = d * table[q[j]];
    memcpy(out, w, sizeof w);
}

void pc_iq4_nl_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 18) {
        uint8_t q[32];
        split16(src + 2, q);
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) table_scale(q, k_iq4nl_f, pc_half_to_f32(pc_le16_at(src)), weights + 32 * b);
    }
}

void pc_iq4_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 136) {
        uint8_t q[256];
        for (int j = 0; j < 8; j++) split16(src + 8 + 16 * j, q + 32 * j);
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src));
        const unsigned sh = pc_le16_at(src + 2);
        for (int j = 0; j < 8; j++) {
            unsigned ls = ((unsigned)(src[4 + j / 2] >> (4 * (j % 2))) & 15u) | (((sh >> (2 * j)) & 3u) << 4);
            table_scale(q + 32 * j, k_iq4nl_f, d * (float)((int)ls - 32), weights + 256 * b + 32 * j);
        }
    }
}

/* 2^(e - 128) as f32 bits (ggml_e8m0_to_fp32_half): subnormal for e < 2. */
static inline float e8m0_half(uint8_t e) { return pc_f32_bits(e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23); }

void pc_mxfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 17) {
        uint8_t q[32];
        split16(src + 1, q);
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) table_scale(q, k_mxfp4_f, e8m0_half(src[0]), weights + 32 * b);
    }
}
