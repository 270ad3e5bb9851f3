/* Oracles: GGUF grid i-quants IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (super-blocks of
 * 256), read literally off ggml's block structs (src/ggml-common.h block_iq2_xxs ... block_iq1_m),
 * one element at a time, in the operation order of ggml's dequantize_row_<type> (src/ggml-quants.c).
 * The grids and ksigns_iq2xs are format data (kernels/iq_grids.h); kmask_iq2xs[j] is 1 << j.
 *
 * codes = the decoded signed grid value, as int8 in a byte: for IQ2/IQ3 grid[j] negated when the
 * element's sign bit is set (so w = db * |code| * sign), for IQ1_S/IQ1_M the grid value -1, 0, 1
 * (the block's +-delta is applied to the weight, not the code). */
#include "kernels.h"
#include "iq_grids.h"
#include "../../kernels/oracle/half.h"

static unsigned u16_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }
static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* One element out: the code, and ggml's f32(db * grid) * (sign ? -1 : 1). The factor -1 is taken
 * as a negation (the sign bit flipped), which equals the product for every non-NaN value and is
 * what compilers emit for it; it fixes the one case IEEE leaves open, a NaN db (GQ-002 rejects it). */
static void put_signed(uint8_t *codes, float *weights, size_t at, float db, unsigned g, unsigned neg)
{
    if (codes) codes[at] = (uint8_t)(neg ? -(int)g : (int)g);
    if (weights) {
        float w = db * (float)g;
        weights[at] = neg ? -w : w;
    }
}

/* block_iq2_xxs, 66 bytes: fp16 d, u16 qs[32]. Sub-block ib (32 elements) is the two LE u32 at
 * qs + 8 ib: aux0's byte l indexes iq2xxs_grid for group l (8 elements); aux1 >> 28 is the scale,
 * db = f32(f32(d * f32(0.5 + s)) * 0.25); group l's signs = ksigns_iq2xs[(aux1 >> 7l) & 127]. */
PC_ORACLE_FN void pc_iq2_xxs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 66 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8;
            uint32_t aux1 = u32_at(block + 2 + 8 * ib + 4);
            float db = d * (0.5f + (float)(aux1 >> 28)) * 0.25f;
            unsigned g = PC_IQ2XXS_GRID[8 * block[2 + 8 * ib + l] + j];
            unsigned signs = PC_KSIGNS_IQ2XS[(aux1 >> (7 * l)) & 127];
            put_signed(codes, weights, 256 * b + e, db, g, signs & (1u << j));
        }
    }
}

/* block_iq2_xs, 74 bytes: fp16 d, u16 qs[32], scales[8]. Group g = e / 8 is qs[g]: low 9 bits index
 * iq2xs_grid, high 7 index ksigns_iq2xs; db = f32(f32(d * f32(0.5 + s)) * 0.25), s the nibble
 * (low for groups 0, 1 of the sub-block, high for 2, 3) of scales[e / 32]. */
PC_ORACLE_FN void pc_iq2_xs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 74 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8;
            unsigned q = u16_at(block + 2 + 2 * (4 * ib + l));
            unsigned s = (block[66 + ib] >> (4 * (l / 2))) & 15u;
            float db = d * (0.5f + (float)s) * 0.25f;
            unsigned g = PC_IQ2XS_GRID[8 * (q & 511) + j];
            put_signed(codes, weights, 256 * b + e, db, g, PC_KSIGNS_IQ2XS[q >> 9] & (1u << j));
        }
    }
}

/* block_iq2_s, 82 bytes: fp16 d, qs[64] (32 grid index bytes, then 32 sign bytes), qh[8], scales[8].
 * Group g = 4 ib + l: index = qs[g] | ((qh[ib] << (8 - 2l)) & 0x300) into iq2s_grid; signs =
 * qs[32 + g] (bit j, no ksigns); db as IQ2_XS. */
PC_ORACLE_FN void pc_iq2_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 82 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8, g = e / 8;
            unsigned idx = block[2 + g] | (((unsigned)block[66 + ib] << (8 - 2 * l)) & 0x300u);
            unsigned s = (block[74 + ib] >> (4 * (l / 2))) & 15u;
            float db = d * (0.5f + (float)s) * 0.25f;
            put_signed(codes, weights, 256 * b + e, db, PC_IQ2S_GRID[8 * idx + j], block[34 + g] & (1u << j));
        }
    }
}

/* block_iq3_xxs, 98 bytes: fp16 d, qs[96]: 64 grid index bytes, then 8 LE u32 scales_and_signs.
 * Sub-block ib: aux = u32 ib; db = f32(f32(d * f32(0.5 + (aux >> 28))) * 0.5); group l's signs =
 * ksigns_iq2xs[(aux >> 7l) & 127]; elements j < 4 from iq3xxs_grid[qs[8ib + 2l]], j >= 4 from
 * iq3xxs_grid[qs[8ib + 2l + 1]]. */
PC_ORACLE_FN void pc_iq3_xxs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 98 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8;
            uint32_t aux = u32_at(block + 66 + 4 * ib);
            float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
            unsigned idx = block[2 + 8 * ib + 2 * l + j / 4];
            unsigned signs = PC_KSIGNS_IQ2XS[(aux >> (7 * l)) & 127];
            put_signed(codes, weights, 256 * b + e, db, PC_IQ3XXS_GRID[4 * idx + j % 4], signs & (1u << j));
        }
    }
}

/* block_iq3_s, 110 bytes: fp16 d, qs[64], qh[8], signs[32], scales[4]. Sub-block ib: db =
 * f32(d * (1 + 2 s)), s nibble ib % 2 of scales[ib / 2]; group l: index1 = qs[8ib + 2l] |
 * ((qh[ib] << (8 - 2l)) & 256) for j < 4, index2 = qs[8ib + 2l + 1] | ((qh[ib] << (7 - 2l)) & 256)
 * for j >= 4, into iq3s_grid; signs = signs[4ib + l] (bit j). */
PC_ORACLE_FN void pc_iq3_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 110 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8, hi = j / 4;
            unsigned s = (block[106 + ib / 2] >> (4 * (ib % 2))) & 15u;
            float db = d * (float)(1 + 2 * (int)s);
            unsigned idx = block[2 + 8 * ib + 2 * l + hi] | (((unsigned)block[66 + ib] << (8 - 2 * l - hi)) & 256u);
            put_signed(codes, weights, 256 * b + e, db, PC_IQ3S_GRID[4 * idx + j % 4], block[74 + 4 * ib + l] & (1u << j));
        }
    }
}

/* block_iq1_s, 50 bytes: fp16 d, qs[32], LE u16 qh[8]. Sub-block ib: dl = f32(d * (2 ((qh >> 12) & 7)
 * + 1)), delta = -0.125 if bit 15 of qh[ib] else +0.125 (IQ1S_DELTA); group l's index = qs[4ib + l]
 * | ((qh >> 3l) & 7) << 8 into iq1s_grid; w = f32(dl * f32(grid + delta)). */
PC_ORACLE_FN void pc_iq1_s_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 50 * b;
        float d = pc_oracle_half(u16_at(block));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8;
            unsigned qh = u16_at(block + 34 + 2 * ib);
            float dl = d * (float)(2 * (int)((qh >> 12) & 7) + 1);
            float delta = (qh & 0x8000u) ? -0.125f : 0.125f;
            int g = PC_IQ1S_GRID[8 * (block[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8)) + j];
            if (codes) codes[256 * b + e] = (uint8_t)g;
            if (weights) weights[256 * b + e] = dl * ((float)g + delta);
        }
    }
}

/* IQ1_M's fp16 super-scale: the top nibbles of its four LE u16 scale words, sc[0] lowest. */
static unsigned iq1m_scale(const uint8_t *sc)
{
    return (u16_at(sc) >> 12) | ((u16_at(sc + 2) >> 8) & 0x00f0u) | ((u16_at(sc + 4) >> 4) & 0x0f00u) | (u16_at(sc + 6) & 0xf000u);
}

/* block_iq1_m, 56 bytes: qs[32], qh[16], scales[8] (four LE u16 sc; no d field: iq1m_scale). Sub-block
 * ib, group l: index = qs[4ib + l] | ((qh[2ib + l/2] << (l odd ? 4 : 8)) & 0x700); delta = -0.125 if
 * bit (l odd ? 7 : 3) of that qh byte; dl = f32(d * (2 s + 1)), s = (sc[ib/2] >> (6 (ib%2) + 3 (l/2))) & 7;
 * w = f32(dl * f32(grid + delta)). */
PC_ORACLE_FN void pc_iq1_m_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 56 * b;
        float d = pc_oracle_half(iq1m_scale(block + 48));
        for (unsigned e = 0; e < 256; e++) {
            unsigned ib = e / 32, l = e % 32 / 8, j = e % 8;
            unsigned qh = block[32 + 2 * ib + l / 2];
            unsigned idx = block[4 * ib + l] | ((qh << (l % 2 ? 4 : 8)) & 0x700u);
            float delta = (qh & (l % 2 ? 0x80u : 0x08u)) ? -0.125f : 0.125f;
            unsigned s = (u16_at(block + 48 + 2 * (ib / 2)) >> (6 * (ib % 2) + 3 * (l / 2))) & 7u;
            float dl = d * (float)(2 * (int)s + 1);
            int g = PC_IQ1S_GRID[8 * idx + j];
            if (codes) codes[256 * b + e] = (uint8_t)g;
            if (weights) weights[256 * b + e] = dl * ((float)g + delta);
        }
    }
}
