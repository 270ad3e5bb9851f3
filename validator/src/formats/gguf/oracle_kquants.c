/* Oracles: GGUF K-quants Q4_K and Q6_K (super-blocks of 256), read literally off ggml's block structs
 * (src/ggml-common.h block_q4_K, block_q6_K), one element at a time, in the operation order of
 * ggml's reference dequantize_row_q4_K / dequantize_row_q6_K (src/ggml-quants.c). */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

static unsigned half_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }

/* ggml's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) from the 12 scale bytes.
 * j < 4: low 6 bits of bytes j and j + 4. j >= 4: low / high nibble of byte j + 4, with bits 4-5
 * from the top two bits of bytes j - 4 (scale) and j (min). */
static void scale_min_k4(unsigned j, const uint8_t *s, unsigned *sc, unsigned *m)
{
    if (j < 4) {
        *sc = s[j] & 63u;
        *m = s[j + 4] & 63u;
    } else {
        *sc = (s[j + 4] & 15u) | ((unsigned)(s[j - 4] >> 6) << 4);
        *m = (unsigned)(s[j + 4] >> 4) | ((unsigned)(s[j] >> 6) << 4);
    }
}

/* block_q4_K, 144 bytes: fp16 d, fp16 dmin, scales[12], qs[128]. Element e: chunk c = e / 64 of
 * 32 qs bytes; within it, e % 64 < 32 is the low nibble of byte e % 32, else the high nibble;
 * sub-block 2c (low) or 2c + 1 (high). codes = the nibble q;
 * w = f32(f32(d * sc) * q) - f32(dmin * m) (d * sc, d*sc*q and dmin * m are exact in f32). */
PC_ORACLE_FN void pc_q4_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 144 * b;
        float d = pc_oracle_half(half_at(block)), dmin = pc_oracle_half(half_at(block + 2));
        for (unsigned e = 0; e < 256; e++) {
            unsigned c = e / 64, r = e % 64, sub = 2 * c + (r >= 32), sc, m;
            unsigned byte = block[16 + 32 * c + r % 32], q = r < 32 ? (byte & 15u) : (byte >> 4);
            scale_min_k4(sub, block + 4, &sc, &m);
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float d1 = d * (float)sc, m1 = dmin * (float)m;
                float p = d1 * (float)q;
                weights[256 * b + e] = p - m1;
            }
        }
    }
}

/* block_q6_K, 210 bytes: ql[128], qh[64], int8 scales[16], fp16 d (at byte 208). Per half h of 128
 * elements (ql + 64h, qh + 32h, scales + 8h), element 32k + l (k = 0..3, l = 0..31) takes the low
 * nibble of ql[l + 32 (k & 1)] for k < 2, else its high nibble, and bits 2k..2k+1 of qh[l] as bits
 * 4-5; its scale is scales[l / 16 + 2k]. codes = q (0..63); w = f32(d * sc) * f32(q - 32). */
PC_ORACLE_FN void pc_q6_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 210 * b;
        float d = pc_oracle_half(half_at(block + 208));
        for (unsigned e = 0; e < 256; e++) {
            unsigned h = e / 128, k = (e % 128) / 32, l = e % 32;
            unsigned lo = block[64 * h + l + 32 * (k & 1)];
            unsigned q = (k < 2 ? (lo & 15u) : (lo >> 4)) | (((unsigned)(block[128 + 32 * h + l] >> (2 * k)) & 3u) << 4);
            uint8_t sb = block[192 + 8 * h + l / 16 + 2 * k];
            int sc = sb < 128 ? (int)sb : (int)sb - 256;
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float ds = d * (float)sc;
                weights[256 * b + e] = ds * (float)((int)q - 32);
            }
        }
    }
}

/* block_q5_K, 176 bytes: fp16 d, fp16 dmin, scales[12] (as Q4_K), qh[32], qs[128]. Element e of
 * sub-block j = e / 32: Q4_K's nibble | bit j of qh[e % 32] << 4 (0..31) is the code;
 * w = f32(f32(d * sc) * q) - f32(dmin * m). */
PC_ORACLE_FN void pc_q5_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 176 * b;
        float d = pc_oracle_half(half_at(block)), dmin = pc_oracle_half(half_at(block + 2));
        for (unsigned e = 0; e < 256; e++) {
            unsigned c = e / 64, r = e % 64, sub = e / 32, sc, m;
            unsigned byte = block[48 + 32 * c + r % 32], q = r < 32 ? (byte & 15u) : (byte >> 4);
            q |= ((unsigned)(block[16 + e % 32] >> sub) & 1u) << 4;
            scale_min_k4(sub, block + 4, &sc, &m);
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float d1 = d * (float)sc, m1 = dmin * (float)m;
                float p = d1 * (float)q;
                weights[256 * b + e] = p - m1;
            }
        }
    }
}

/* block_q2_K, 84 bytes: scales[16] (low nibble scale, high nibble min), qs[64], fp16 d, fp16 dmin.
 * Per half h of 128 elements (qs + 32h), element 32j + l (j = 0..3, l = 0..31) is bits 2j..2j+1 of
 * qs[32h + l]; its scale byte is scales[e / 16]. codes = the 2-bit q;
 * w = f32(f32(d * (sc & 15)) * q) - f32(dmin * (sc >> 4)). */
PC_ORACLE_FN void pc_q2_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 84 * b;
        float d = pc_oracle_half(half_at(block + 80)), dmin = pc_oracle_half(half_at(block + 82));
        for (unsigned e = 0; e < 256; e++) {
            unsigned h = e / 128, j = (e % 128) / 32, l = e % 32;
            unsigned q = (block[16 + 32 * h + l] >> (2 * j)) & 3u, sc = block[e / 16];
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float dl = d * (float)(sc & 15u), ml = dmin * (float)(sc >> 4);
                float p = dl * (float)q;
                weights[256 * b + e] = p - ml;
            }
        }
    }
}

/* The 6-bit scale i (0..15) of a Q3_K block from its 12 scale bytes s, as dequantize_row_q3_K's
 * kmask1/kmask2 word shuffle leaves it: the low 4 bits are a nibble of s[i % 8] (low for i < 8),
 * the high 2 bits are bits 2 (i / 4)..2 (i / 4) + 1 of s[8 + i % 4]. */
static unsigned q3k_scale(const uint8_t *s, unsigned i)
{
    unsigned lo = i < 8 ? (s[i] & 15u) : (unsigned)(s[i - 8] >> 4);
    unsigned hi = ((unsigned)s[8 + i % 4] >> (2 * (i / 4))) & 3u;
    return lo | (hi << 4);
}

/* block_q3_K, 110 bytes: hmask[32], qs[64], scales[12], fp16 d. Element e = 128h + 32j + l: low
 * bits 2j..2j+1 of qs[32h + l], high bit (4h + j) of hmask[l] (hmask is not advanced per half);
 * codes = q = low | high << 2 (0..7); w = f32(d * (sc - 32)) * (q - 4), sc = scale e / 16 (exact). */
PC_ORACLE_FN void pc_q3_k_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 110 * b;
        float d = pc_oracle_half(half_at(block + 108));
        for (unsigned e = 0; e < 256; e++) {
            unsigned h = e / 128, j = (e % 128) / 32, l = e % 32;
            unsigned q = ((block[32 + 32 * h + l] >> (2 * j)) & 3u) | (((unsigned)(block[l] >> (4 * h + j)) & 1u) << 2);
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float dl = d * (float)((int)q3k_scale(block + 96, e / 16) - 32);
                weights[256 * b + e] = dl * (float)((int)q - 4);
            }
        }
    }
}
