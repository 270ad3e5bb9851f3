/* Oracle: AWQ GEMM, written literally from the seed article: qweight [K, N/8] is packed along the
 * output dimension, "logical columns placed in slots in the order 0, 2, 4, 6, 1, 3, 5, 7", slot i
 * at bits 4i..4i+3 of the word. One field at a time: for every word and slot, the column that
 * slot holds receives the nibble, shifted as unsigned (the top slot carries the sign bit). */
#include "kernels.h"

static const unsigned k_awq_order[8] = {0, 2, 4, 6, 1, 3, 5, 7};

void pc_awq_unpack_ref(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    size_t words = N / 8;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < words; c++) {
            const uint8_t *p = src + (r * words + c) * 4;
            uint32_t word = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
            for (unsigned slot = 0; slot < 8; slot++) {
                size_t col = 8 * c + k_awq_order[slot];
                out[r * N + col] = (uint8_t)((word >> (4 * slot)) & 15u);
            }
        }
    }
}
