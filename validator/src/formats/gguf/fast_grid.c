/* Fast scalar decoders of the grid i-quants IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M.
 * Each block is split in two passes: the grid rows are copied out whole (8 or 4 bytes per index)
 * with their signs applied, giving the int8 codes, and one f32 scale per group of 8; then one loop
 * the compiler can vectorise makes the weights.
 *
 * w = f32(scale * code): rounding is sign-symmetric, so it equals the oracle's negated f32(scale *
 * |code|) for every non-NaN scale (the grids hold no zero). A NaN d makes every scale NaN, and then
 * the block takes the oracle's form, |code| times the scale with the sign bit flipped after.
 * IQ1 keeps ggml's f32(dl * f32(g + delta)). The scales are made only when weights are asked for. */
#include "../../kernels/fast/half.h"
#include "kernels.h"
#include "iq_grids.h"

static inline uint32_t le32_at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; } /* x86/LE targets */

/* 8 grid bytes with sign bits `signs` (bit j negates element j), eight bytes at once in a u64: the
 * sign byte spread to every byte and masked to bit j of byte j; a non-zero byte (at most 0x80) plus
 * 0x7f sets its top bit without a carry, giving m = 0xff there; -g = (g ^ 0xff) + 1, and g ^ 0xff
 * (0xc1..0xfe: grid bytes are 1..62) plus 1 stays in its byte. Little-endian byte order (x86). */
static inline void signed8(int8_t *q, const uint8_t *grid, unsigned signs)
{
    uint64_t g, x = ((uint64_t)(signs & 0xffu) * 0x0101010101010101ull) & 0x8040201008040201ull;
    uint64_t m = (((x + 0x7f7f7f7f7f7f7f7full) & 0x8080808080808080ull) >> 7) * 0xffu;
    memcpy(&g, grid, 8);
    g = (g ^ m) + (m & 0x0101010101010101ull);
    memcpy(q, &g, 8);
}

static inline void grid_out(const int8_t q[256], const float sc[32], size_t b, uint8_t *codes, float *weights)
{
    if (codes) memcpy(codes + 256 * b, q, 256);
    if (!weights) return;
    if (sc[0] == sc[0]) { /* not NaN */
        float *restrict f = weights + 256 * b; /* q is the caller's stack: no overlap */
        for (int g = 0; g < 32; g++)
            for (int j = 0; j < 8; j++) f[8 * g + j] = sc[g] * (float)q[8 * g + j];
        return;
    }
    uint32_t w[256];
    for (int g = 0; g < 32; g++) {
        const float s = sc[g];
        for (int j = 0; j < 8; j++) {
            int v = q[8 * g + j];
            float m = s * (float)(v < 0 ? -v : v);
            uint32_t u;
            memcpy(&u, &m, 4);
            w[8 * g + j] = u ^ ((uint32_t)(v < 0) << 31);
        }
    }
    memcpy(weights + 256 * b, w, sizeof w);
}

void pc_iq2_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 66) {
        int8_t q[256];
        float sc[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int ib = 0; ib < 8; ib++) {
            const uint8_t *p = src + 2 + 8 * ib;
            uint32_t aux1 = le32_at(p + 4);
            float db = d * (0.5f + (float)(aux1 >> 28)) * 0.25f;
            for (int l = 0; l < 4; l++) {
                signed8(q + 32 * ib + 8 * l, PC_IQ2XXS_GRID + 8 * p[l], PC_KSIGNS_IQ2XS[(aux1 >> (7 * l)) & 127]);
                if (weights) sc[4 * ib + l] = db;
            }
        }
        grid_out(q, sc, b, codes, weights);
    }
}

void pc_iq2_xs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 74) {
        int8_t q[256];
        float sc[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int g = 0; g < 32; g++) {
            unsigned v = pc_le16_at(src + 2 + 2 * g);
            signed8(q + 8 * g, PC_IQ2XS_GRID + 8 * (v & 511), PC_KSIGNS_IQ2XS[v >> 9]);
            if (weights) sc[g] = d * (0.5f + (float)((src[66 + g / 4] >> (4 * (g % 4 / 2))) & 15)) * 0.25f;
        }
        grid_out(q, sc, b, codes, weights);
    }
}

void pc_iq2_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 82) {
        int8_t q[256];
        float sc[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int g = 0; g < 32; g++) {
            int ib = g / 4, l = g % 4;
            unsigned idx = src[2 + g] | (((unsigned)src[66 + ib] << (8 - 2 * l)) & 0x300u);
            signed8(q + 8 * g, PC_IQ2S_GRID + 8 * idx, src[34 + g]);
            if (weights) sc[g] = d * (0.5f + (float)((src[74 + ib] >> (4 * (l / 2))) & 15)) * 0.25f;
        }
        grid_out(q, sc, b, codes, weights);
    }
}

/* Two 4-byte grid rows side by side as one 8-element group. */
static inline void signed4x2(int8_t *q, const uint8_t *g1, const uint8_t *g2, unsigned signs)
{
    uint8_t row[8];
    memcpy(row, g1, 4);
    memcpy(row + 4, g2, 4);
    signed8(q, row, signs);
}

void pc_iq3_xxs_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 98) {
        int8_t q[256];
        float sc[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int ib = 0; ib < 8; ib++) {
            uint32_t aux = le32_at(src + 66 + 4 * ib);
            float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
            const uint8_t *qs = src + 2 + 8 * ib;
            for (int l = 0; l < 4; l++) {
                signed4x2(q + 32 * ib + 8 * l, PC_IQ3XXS_GRID + 4 * qs[2 * l], PC_IQ3XXS_GRID + 4 * qs[2 * l + 1],
                          PC_KSIGNS_IQ2XS[(aux >> (7 * l)) & 127]);
                if (weights) sc[4 * ib + l] = db;
            }
        }
        grid_out(q, sc, b, codes, weights);
    }
}

void pc_iq3_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 110) {
        int8_t q[256];
        float sc[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int ib = 0; ib < 8; ib++) {
            float db = d * (float)(1 + 2 * ((src[106 + ib / 2] >> (4 * (ib % 2))) & 15));
            const uint8_t *qs = src + 2 + 8 * ib;
            unsigned qh = src[66 + ib];
            for (int l = 0; l < 4; l++) {
                unsigned i1 = qs[2 * l] | ((qh << (8 - 2 * l)) & 256u), i2 = qs[2 * l + 1] | ((qh << (7 - 2 * l)) & 256u);
                signed4x2(q + 32 * ib + 8 * l, PC_IQ3S_GRID + 4 * i1, PC_IQ3S_GRID + 4 * i2, src[74 + 4 * ib + l]);
                if (weights) sc[4 * ib + l] = db;
            }
        }
        grid_out(q, sc, b, codes, weights);
    }
}

static inline void iq1_out(const int8_t q[256], const float dl[32], const float delta[32], size_t b, uint8_t *codes, float *weights)
{
    if (codes) memcpy(codes + 256 * b, q, 256);
    if (!weights) return;
    float *restrict w = weights + 256 * b; /* q is the caller's stack: no overlap */
    for (int g = 0; g < 32; g++) {
        const float s = dl[g], t = delta[g];
        for (int j = 0; j < 8; j++) w[8 * g + j] = s * ((float)q[8 * g + j] + t);
    }
}

void pc_iq1_s_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 50) {
        int8_t q[256];
        float dl[32], delta[32], d = pc_half_to_f32(pc_le16_at(src));
        for (int ib = 0; ib < 8; ib++) {
            unsigned qh = pc_le16_at(src + 34 + 2 * ib);
            float s = d * (float)(2 * (int)((qh >> 12) & 7) + 1), dt = (qh & 0x8000u) ? -0.125f : 0.125f;
            for (int l = 0; l < 4; l++) {
                memcpy(q + 32 * ib + 8 * l, PC_IQ1S_GRID + 8 * (src[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8)), 8);
                if (weights) dl[4 * ib + l] = s, delta[4 * ib + l] = dt;
            }
        }
        iq1_out(q, dl, delta, b, codes, weights);
    }
}

void pc_iq1_m_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 56) {
        int8_t q[256];
        float dl[32], delta[32];
        unsigned sc[4];
        for (int i = 0; i < 4; i++) sc[i] = pc_le16_at(src + 48 + 2 * i);
        float d = pc_half_to_f32((uint16_t)((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0u) | ((sc[2] >> 4) & 0x0f00u) | (sc[3] & 0xf000u)));
        for (int g = 0; g < 32; g++) {
            int ib = g / 4, l = g % 4;
            unsigned qh = src[32 + 2 * ib + l / 2];
            unsigned idx = src[g] | ((qh << (l % 2 ? 4 : 8)) & 0x700u);
            memcpy(q + 8 * g, PC_IQ1S_GRID + 8 * idx, 8);
            if (!weights) continue; /* codes only: no scales */
            delta[g] = (qh & (l % 2 ? 0x80u : 0x08u)) ? -0.125f : 0.125f;
            dl[g] = d * (float)(2 * (int)((sc[ib / 2] >> (6 * (ib % 2) + 3 * (l / 2))) & 7) + 1);
        }
        iq1_out(q, dl, delta, b, codes, weights);
    }
}
