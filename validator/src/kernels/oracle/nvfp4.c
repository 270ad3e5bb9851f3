/* NVFP4 oracle: the E2M1 table and the per-group dequantization, written literally (FORMATS.md 4.1).
 * Compiled without vectorisation and with -ffp-contract=off: one rounding per product. */
#include "../kernels.h"

/* Bit 3 is the sign, bits 0-2 index the magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}; code 0x8 is -0.0. */
static const float k_e2m1[16] = {
    0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f,
};

float pc_e2m1_value(uint8_t code) { return k_e2m1[code & 15]; }

void pc_nvfp4_dequant_ref(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    size_t groups = cols / 16;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            float v = k_e2m1[codes[i] & 15];
            float s = group_scale[r * groups + c / 16];
            out[i] = v * s;
        }
    }
}
