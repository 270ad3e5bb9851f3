/* HQQ fast path, portable: one pass per packed row, every slot of a unit written in turn (plain
 * loops for the auto-vectoriser); the dequantisation rounds into T by bit manipulation. */
#include "kernels.h"
#include "kernels/fast/round.h"

static void unpack_u8(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    size_t P = R / (8 / b);
    unsigned S = 8 / b, mask = (1u << b) - 1;
    for (unsigned j = 0; j < S; j++) {
        unsigned shift = 8 - b * (j + 1);
        uint8_t *o = codes + (size_t)j * P * C;
        for (size_t i = 0; i < P * C; i++) o[i] = (uint8_t)((src[i] >> shift) & mask);
    }
}

static void unpack_3bit(const uint8_t *src, size_t R, size_t C, uint8_t *codes)
{
    size_t P = (R + 9) / 10;
    for (unsigned j = 0; j < 10; j++) {
        unsigned shift = 27 - 3 * j;
        size_t rows = R > j * P ? R - j * P : 0;
        if (rows > P) rows = P;
        uint8_t *o = codes + (size_t)j * P * C;
        for (size_t i = 0; i < rows * C; i++) o[i] = (uint8_t)((pc_load_le32(src + 4 * i) >> shift) & 7u);
    }
}

void pc_hqq_unpack_fast(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    if (b == 3) unpack_3bit(src, R, C, codes);
    else unpack_u8(src, b, R, C, codes);
}

static float round_t(float x, pc_round_t t) { return t == PC_ROUND_F16 ? pc_round_f16(x) : t == PC_ROUND_BF16 ? pc_round_bf16(x) : x; }

void pc_hqq_dequant_fast(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                         pc_round_t t, float *out)
{
    for (size_t r = 0; r < R; r++) {
        const uint8_t *q = codes + r * C;
        float *o = out + r * C;
        if (axis == 1) {
            float z = zero[r], s = scale[r];
            for (size_t c = 0; c < C; c++) o[c] = round_t(round_t((float)q[c] - z, t) * s, t);
        } else {
            for (size_t c = 0; c < C; c++) o[c] = round_t(round_t((float)q[c] - zero[c], t) * scale[c], t);
        }
    }
}
