/* bitsandbytes LLM.int8 oracle, written literally from bitsandbytes 0.50.2 _ops.py, the "default"
 * kernel of bitsandbytes::int8_vectorwise_dequant: `A * stats.view(-1, 1) * 7.874015718698502e-3`,
 * i.e. the int8 A widened to f32, times its row's SCB (one f32 rounding), times 1/127 as the f32
 * 0x1.020408p-7 (a second rounding). The code is the stored byte read as int8, plus 128. */
#include "kernels.h"

PC_ORACLE_FN void pc_bnb8_dequant_ref(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            int8_t q = (int8_t)src[r * cols + c];
            float a = (float)q * scb[r];
            out[r * cols + c] = a * PC_BNB8_RECIP;
        }
}

PC_ORACLE_FN void pc_bnb8_codes_ref(const uint8_t *src, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)((int)(int8_t)src[i] + 128);
}
