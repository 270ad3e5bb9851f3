/* Fast scalar decoders of TQ1_0 and TQ2_0: the trits / 2-bit fields split out whole into a local
 * array, then w = f32(x - 1) * d in one loop the compiler can vectorise. */
#include "../../kernels/fast/half.h"
#include "kernels.h"

static inline void ternary_scale(const uint8_t q[256], float d, float *out)
{
    float w[256];
    for (int j = 0; j < 256; j++) w[j] = (float)((int)q[j] - 1) * d;
    memcpy(out, w, sizeof w);
}

/* ggml's trit extraction: (uint8)(byte * 3^n) * 3 >> 8. */
static inline uint8_t trit(uint8_t byte, uint8_t pow3) { return (uint8_t)(((unsigned)(uint8_t)(byte * pow3) * 3u) >> 8); }

void pc_tq1_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    for (size_t b = 0; b < nblocks; b++, src += 54) {
        uint8_t qs[52], q[256];
        memcpy(qs, src, 52);
        for (int n = 0; n < 5; n++) {
            for (int m = 0; m < 32; m++) q[32 * n + m] = trit(qs[m], pow3[n]);
            for (int m = 0; m < 16; m++) q[160 + 16 * n + m] = trit(qs[32 + m], pow3[n]);
        }
        for (int n = 0; n < 4; n++)
            for (int j = 0; j < 4; j++) q[240 + 4 * n + j] = trit(qs[48 + j], pow3[n]);
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (weights) ternary_scale(q, pc_half_to_f32(pc_le16_at(src + 52)), weights + 256 * b);
    }
}

void pc_tq2_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 66) {
        uint8_t qs[64], q[256];
        memcpy(qs, src, 64);
        for (int h = 0; h < 2; h++)
            for (int l = 0; l < 4; l++)
                for (int m = 0; m < 32; m++) q[128 * h + 32 * l + m] = (uint8_t)((qs[32 * h + m] >> (2 * l)) & 3u);
        if (codes) memcpy(codes + 256 * b, q, 256);
        if (weights) ternary_scale(q, pc_half_to_f32(pc_le16_at(src + 64)), weights + 256 * b);
    }
}
