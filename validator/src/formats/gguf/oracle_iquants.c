/* Oracles: GGUF non-linear 4-bit types IQ4_NL, IQ4_XS and MXFP4, read literally off ggml's block
 * structs (src/ggml-common.h block_iq4_nl, block_iq4_xs, block_mxfp4), one element at a time, in
 * the operation order of ggml's dequantize_row_iq4_nl / _iq4_xs / _mxfp4 (src/ggml-quants.c). The
 * two 16-entry value tables are format data (ggml-common.h kvalues_iq4nl, kvalues_mxfp4); the
 * generator asserts gguf-py's copies equal them. */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

#include <string.h>

static const int8_t k_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
/* E2M1 values doubled (so the E8M0 scale is halved): index 8 (-0) is 0 as ggml has it. */
static const int8_t k_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

static unsigned half_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }

/* Element e of a 32-element nibble block (qs[16]): low nibble of qs[e] for e < 16, else high of qs[e - 16]. */
static unsigned nibble(const uint8_t *qs, unsigned e) { return e < 16 ? (qs[e] & 15u) : (qs[e - 16] >> 4); }

/* block_iq4_nl, 18 bytes: fp16 d, qs[16]. codes = the nibble; w = f32(d * kvalues_iq4nl[q]). */
PC_ORACLE_FN void pc_iq4_nl_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 18 * b;
        float d = pc_oracle_half(half_at(block));
        for (unsigned e = 0; e < 32; e++) {
            unsigned q = nibble(block + 2, e);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) weights[32 * b + e] = d * (float)k_iq4nl[q];
        }
    }
}

/* block_iq4_xs, 136 bytes: fp16 d, u16 scales_h (LE), scales_l[4], qs[128]. Sub-block j (32
 * elements, qs + 16 j): ls = nibble j % 2 of scales_l[j / 2] | bits 2j..2j+1 of scales_h << 4;
 * codes = the nibble; w = f32(f32(d * (ls - 32)) * kvalues_iq4nl[q]). */
PC_ORACLE_FN void pc_iq4_xs_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 136 * b;
        float d = pc_oracle_half(half_at(block));
        unsigned sh = half_at(block + 2);
        for (unsigned e = 0; e < 256; e++) {
            unsigned j = e / 32, q = nibble(block + 8 + 16 * j, e % 32);
            unsigned ls = ((unsigned)(block[4 + j / 2] >> (4 * (j % 2))) & 15u) | (((sh >> (2 * j)) & 3u) << 4);
            if (codes) codes[256 * b + e] = (uint8_t)q;
            if (weights) {
                float dl = d * (float)((int)ls - 32);
                weights[256 * b + e] = dl * (float)k_iq4nl[q];
            }
        }
    }
}

/* ggml_e8m0_to_fp32_half: 2^(e - 128) for every byte (e = 0 and 1 are f32 subnormals; e = 255 is
 * 2^127: ggml has no NaN encoding here), computed by repeated exact halving/doubling. */
static float e8m0_half(unsigned e)
{
    float v = 1.0f;
    if (e >= 128)
        for (unsigned i = 128; i < e; i++) v *= 2.0f;
    else
        for (unsigned i = e; i < 128; i++) v *= 0.5f;
    return v;
}

/* block_mxfp4, 17 bytes: E8M0 e first, then qs[16] (element j low nibble of byte j, j + 16 high).
 * codes = the E2M1 nibble (sign in bit 3); w = f32(kvalues_mxfp4[q] * 2^(e - 128)), exact. */
PC_ORACLE_FN void pc_mxfp4_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 17 * b;
        float d = e8m0_half(block[0]);
        for (unsigned e = 0; e < 32; e++) {
            unsigned q = nibble(block + 1, e);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) weights[32 * b + e] = (float)k_mxfp4[q] * d;
        }
    }
}
