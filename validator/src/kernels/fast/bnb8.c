/* bitsandbytes LLM.int8 fast path (portable): per row, a 256-entry table of the row's 256 possible
 * weights f32(f32(q * SCB[r]) * 0x1.020408p-7f), built with the oracle's two roundings, then one
 * lookup per element; rows shorter than the table are computed directly (same two roundings). The
 * codes are the byte with its top bit flipped (int8 q + 128 == q ^ 0x80 as a byte). */
#include "../kernels.h"

static void row_direct(const uint8_t *src, size_t cols, float s, float *out)
{
    for (size_t c = 0; c < cols; c++) {
        float a = (float)(int8_t)src[c] * s;
        out[c] = a * PC_BNB8_RECIP;
    }
}

static void row_table(const uint8_t *src, size_t cols, float s, float *out)
{
    float t[256];
    for (int b = 0; b < 256; b++) {
        float a = (float)(int8_t)(uint8_t)b * s;
        t[b] = a * PC_BNB8_RECIP;
    }
    for (size_t c = 0; c < cols; c++) out[c] = t[src[c]];
}

void pc_bnb8_dequant_fast(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out)
{
    for (size_t r = 0; r < rows; r++)
        (cols >= 1024 ? row_table : row_direct)(src + r * cols, cols, scb[r], out + r * cols);
}

void pc_bnb8_codes_fast(const uint8_t *src, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(src[i] ^ 0x80);
}
