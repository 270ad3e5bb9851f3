/* Fast scalar decoders of NVFP4, Q1_0 and Q2_0 (kernels.h states each layout): codes split out whole
 * into a local array, then one loop per block the compiler can vectorise. NVFP4's UE4M3 scale is built
 * from its bits (ggml_ue4m3_to_fp32, halved): exact. Q1_0 flips the sign bit of d for a 0 bit, which
 * is what C's -d does (NaN payloads included). */
#include "../../kernels/fast/half.h"
#include "kernels.h"

static const float k_fp4_f[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* ggml_ue4m3_to_fp32 halved: 0x7F is 0; bit 7 ignored; exponent 0 is m * 2^-10 after halving, else
 * (1 + m/8) * 2^(e - 8), i.e. f32 exponent field e + 119. */
float pc_ue4m3_half(uint8_t x)
{
    unsigned e = (x >> 3) & 15u, m = x & 7u;
    if (x == 0x7F) return 0.0f;
    if (!e) return (float)m * 0x1p-10f;
    return pc_f32_bits(((e + 119u) << 23) | (m << 20));
}

void pc_gguf_nvfp4_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 36) {
        uint8_t q[64];
        for (int s = 0; s < 4; s++)
            for (int j = 0; j < 8; j++) {
                q[16 * s + j] = src[4 + 8 * s + j] & 15u;
                q[16 * s + j + 8] = src[4 + 8 * s + j] >> 4;
            }
        if (codes) memcpy(codes + 64 * b, q, 64);
        if (!weights) continue;
        float w[64];
        for (int s = 0; s < 4; s++) {
            const float d = pc_ue4m3_half(src[s]);
            for (int j = 0; j < 16; j++) w[16 * s + j] = k_fp4_f[q[16 * s + j]] * d;
        }
        memcpy(weights + 64 * b, w, sizeof w);
    }
}

void pc_q1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 18) {
        uint8_t q[128];
        for (int j = 0; j < 128; j++) q[j] = (uint8_t)((src[2 + j / 8] >> (j % 8)) & 1u);
        if (codes) memcpy(codes + 128 * b, q, 128);
        if (!weights) continue;
        uint32_t d, w[128];
        const float df = pc_half_to_f32(pc_le16_at(src));
        memcpy(&d, &df, 4);
        for (int j = 0; j < 128; j++) w[j] = d ^ ((uint32_t)(q[j] ^ 1u) << 31);
        memcpy(weights + 128 * b, w, sizeof w);
    }
}

void pc_q2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 18) {
        uint8_t q[64];
        for (int j = 0; j < 64; j++) q[j] = (uint8_t)((src[2 + j / 4] >> (2 * (j % 4))) & 3u);
        if (codes) memcpy(codes + 64 * b, q, 64);
        if (!weights) continue;
        const float d = pc_half_to_f32(pc_le16_at(src));
        float w[64];
        for (int j = 0; j < 64; j++) w[j] = (float)((int)q[j] - 1) * d;
        memcpy(weights + 64 * b, w, sizeof w);
    }
}
