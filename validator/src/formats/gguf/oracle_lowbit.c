/* Oracles: GGUF NVFP4 (type 40), Q1_0 (41) and Q2_0 (42), read literally off ggml's block structs
 * (src/ggml-common.h block_nvfp4, block_q1_0, block_q2_0), one element at a time, in the operation
 * order of ggml's dequantize_row_nvfp4 / _q1_0 / _q2_0 (src/ggml-quants.c). The E2M1 table is format
 * data (ggml-common.h kvalues_fp4: the E2M1 value doubled); the UE4M3 scale is read from its fields as
 * ggml_ue4m3_to_fp32 (src/ggml-impl.h) defines it, halved to match the doubled table. */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

static const int8_t k_fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

static unsigned half_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }

/* ggml_ue4m3_to_fp32: 0x00 and 0x7F (E4M3's NaN) are 0; exponent bits 3-6 (bias 7), mantissa bits
 * 0-2, bit 7 never read; subnormal (exponent 0) = m * 2^-9; the result halved. */
static float ue4m3_half(uint8_t x)
{
    if (x == 0 || x == 0x7F) return 0.0f;
    unsigned e = (x >> 3) & 15u, m = x & 7u;
    float v;
    if (e == 0) {
        v = (float)m;
        for (int i = 0; i < 9; i++) v *= 0.5f;
    } else {
        v = 1.0f + (float)m / 8.0f;
        if (e >= 7)
            for (unsigned i = 7; i < e; i++) v *= 2.0f;
        else
            for (unsigned i = e; i < 7; i++) v *= 0.5f;
    }
    return v * 0.5f;
}

/* block_nvfp4, 36 bytes per 64: d[4] (one UE4M3 per 16), qs[32]; element 16s + j (j < 8) is the low
 * nibble of qs[8s + j], element 16s + j + 8 its high nibble. codes = the E2M1 nibble; w =
 * f32(kvalues_fp4[q]) * ue4m3_half(d[s]), exact (ggml multiplies the int8 by the float). */
PC_ORACLE_FN void pc_gguf_nvfp4_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 36 * b;
        for (unsigned e = 0; e < 64; e++) {
            unsigned s = e / 16, j = e % 16;
            uint8_t byte = block[4 + 8 * s + j % 8];
            unsigned q = j < 8 ? byte & 15u : byte >> 4;
            if (codes) codes[64 * b + e] = (uint8_t)q;
            if (weights) weights[64 * b + e] = (float)k_fp4[q] * ue4m3_half(block[s]);
        }
    }
}

/* block_q1_0, 18 bytes per 128: fp16 d, qs[16]; element j is bit j % 8 of qs[j / 8]. codes = the
 * bit; w = d when it is set, else -d (ggml's neg_d: a +0 d gives -0). */
PC_ORACLE_FN void pc_q1_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 18 * b;
        float d = pc_oracle_half(half_at(block));
        for (unsigned e = 0; e < 128; e++) {
            unsigned bit = (block[2 + e / 8] >> (e % 8)) & 1u;
            if (codes) codes[128 * b + e] = (uint8_t)bit;
            if (weights) weights[128 * b + e] = bit ? d : -d;
        }
    }
}

/* block_q2_0, 18 bytes per 64: fp16 d, qs[16]; element j is bits 2(j % 4)..2(j % 4) + 1 of qs[j / 4].
 * codes = the 2-bit q; w = f32(q - 1) * d, exact (q = 1 gives +0 * d: -0 for a negative d). */
PC_ORACLE_FN void pc_q2_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 18 * b;
        float d = pc_oracle_half(half_at(block));
        for (unsigned e = 0; e < 64; e++) {
            unsigned q = (block[2 + e / 4] >> (2 * (e % 4))) & 3u;
            if (codes) codes[64 * b + e] = (uint8_t)q;
            if (weights) weights[64 * b + e] = (float)((int)q - 1) * d;
        }
    }
}
