/* Fast scalar decoders of the GGUF K-quants Q4_K and Q6_K: per super-block, the sub-block scales
 * unpacked once, the quants split out whole into local arrays, then plain loops the compiler can
 * vectorise, in ggml's dequantize_row_<type> order (every product is exact in f32; Q4_K rounds once,
 * in the subtraction, which is a separate statement so it is never fused). */
#include "../../kernels/fast/half.h"
#include "kernels.h"

void pc_q4_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 144) {
        uint8_t s[12], qs[128], q[256];
        memcpy(s, src + 4, 12);
        memcpy(qs, src + 16, 128);
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < 32; l++) {
                q[64 * c + l] = qs[32 * c + l] & 15u;
                q[64 * c + 32 + l] = qs[32 * c + l] >> 4;
            }
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src)), dmin = pc_half_to_f32(pc_le16_at(src + 2));
        float d1[8], m1[8], w[256];
        for (int j = 0; j < 4; j++) {
            d1[j] = d * (float)(s[j] & 63u);
            m1[j] = dmin * (float)(s[j + 4] & 63u);
            d1[j + 4] = d * (float)((s[j + 8] & 15u) | ((s[j] >> 6) << 4));
            m1[j + 4] = dmin * (float)((s[j + 8] >> 4) | ((s[j + 4] >> 6) << 4));
        }
        for (int sub = 0; sub < 8; sub++)
            for (int l = 0; l < 32; l++) {
                float p = d1[sub] * (float)q[32 * sub + l];
                w[32 * sub + l] = p - m1[sub];
            }
        memcpy(weights + 256 * b, w, sizeof w);
    }
}

void pc_q6_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 210) {
        uint8_t ql[128], qh[64], q[256];
        int8_t sc[16];
        memcpy(ql, src, 128);
        memcpy(qh, src + 128, 64);
        memcpy(sc, src + 192, 16);
        for (int h = 0; h < 2; h++)
            for (int l = 0; l < 32; l++) {
                uint8_t a = ql[64 * h + l], c = ql[64 * h + 32 + l], hb = qh[32 * h + l];
                q[128 * h + l] = (uint8_t)((a & 15u) | ((hb & 3u) << 4));
                q[128 * h + 32 + l] = (uint8_t)((c & 15u) | (((hb >> 2) & 3u) << 4));
                q[128 * h + 64 + l] = (uint8_t)((a >> 4) | (((hb >> 4) & 3u) << 4));
                q[128 * h + 96 + l] = (uint8_t)((c >> 4) | (((hb >> 6) & 3u) << 4));
            }
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src + 208));
        float ds[16], w[256];
        for (int i = 0; i < 16; i++) ds[i] = d * (float)sc[i];
        /* element e's scale: 8 (e / 128) + (e % 32) / 16 + 2 ((e % 128) / 32), i.e. scales run in
         * groups of 16 elements in order */
        for (int g = 0; g < 16; g++)
            for (int l = 0; l < 16; l++) w[16 * g + l] = ds[g] * (float)((int)q[16 * g + l] - 32);
        memcpy(weights + 256 * b, w, sizeof w);
    }
}

void pc_q5_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 176) {
        uint8_t s[12], qh[32], qs[128], q[256];
        memcpy(s, src + 4, 12);
        memcpy(qh, src + 16, 32);
        memcpy(qs, src + 48, 128);
        for (int c = 0; c < 4; c++)
            for (int l = 0; l < 32; l++) {
                q[64 * c + l] = (uint8_t)((qs[32 * c + l] & 15u) | (((qh[l] >> (2 * c)) & 1u) << 4));
                q[64 * c + 32 + l] = (uint8_t)((qs[32 * c + l] >> 4) | (((qh[l] >> (2 * c + 1)) & 1u) << 4));
            }
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src)), dmin = pc_half_to_f32(pc_le16_at(src + 2));
        float d1[8], m1[8], w[256];
        for (int j = 0; j < 4; j++) {
            d1[j] = d * (float)(s[j] & 63u);
            m1[j] = dmin * (float)(s[j + 4] & 63u);
            d1[j + 4] = d * (float)((s[j + 8] & 15u) | ((s[j] >> 6) << 4));
            m1[j + 4] = dmin * (float)((s[j + 8] >> 4) | ((s[j + 4] >> 6) << 4));
        }
        for (int sub = 0; sub < 8; sub++)
            for (int l = 0; l < 32; l++) {
                float p = d1[sub] * (float)q[32 * sub + l];
                w[32 * sub + l] = p - m1[sub];
            }
        memcpy(weights + 256 * b, w, sizeof w);
    }
}

/* Q2_K and Q3_K: the codes of one 128-element half come from 32 qs bytes, 2 bits per element at
 * shift 2j; scales run in groups of 16 elements in order. */
void pc_q2_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 84) {
        uint8_t s[16], qs[64], q[256];
        memcpy(s, src, 16);
        memcpy(qs, src + 16, 64);
        for (int h = 0; h < 2; h++)
            for (int j = 0; j < 4; j++)
                for (int l = 0; l < 32; l++) q[128 * h + 32 * j + l] = (uint8_t)((qs[32 * h + l] >> (2 * j)) & 3u);
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src + 80)), dmin = pc_half_to_f32(pc_le16_at(src + 82));
        float w[256];
        for (int g = 0; g < 16; g++) {
            float dl = d * (float)(s[g] & 15u), ml = dmin * (float)(s[g] >> 4);
            for (int l = 0; l < 16; l++) {
                float p = dl * (float)q[16 * g + l];
                w[16 * g + l] = p - ml;
            }
        }
        memcpy(weights + 256 * b, w, sizeof w);
    }
}

void pc_q3_k_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 110) {
        uint8_t hm[32], qs[64], s[12], q[256];
        memcpy(hm, src, 32);
        memcpy(qs, src + 32, 64);
        memcpy(s, src + 96, 12);
        for (int h = 0; h < 2; h++)
            for (int j = 0; j < 4; j++)
                for (int l = 0; l < 32; l++)
                    q[128 * h + 32 * j + l] = (uint8_t)(((qs[32 * h + l] >> (2 * j)) & 3u) | (((hm[l] >> (4 * h + j)) & 1u) << 2));
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src + 108));
        float w[256];
        for (int g = 0; g < 16; g++) {
            unsigned lo = g < 8 ? (s[g] & 15u) : (unsigned)(s[g - 8] >> 4), hi = (s[8 + g % 4] >> (2 * (g / 4))) & 3u;
            float dl = d * (float)((int)(lo | (hi << 4)) - 32);
            for (int l = 0; l < 16; l++) w[16 * g + l] = dl * (float)((int)q[16 * g + l] - 4);
        }
        memcpy(weights + 256 * b, w, sizeof w);
    }
}
