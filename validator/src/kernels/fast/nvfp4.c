/* NVFP4 fast path: one scale load per 16-element group, a 16-entry table lookup per element.
 * The product is the same single f32 rounding as the oracle (no FMA: -ffp-contract=off). */
#include "../kernels.h"

static const float k_e2m1_fast[16] = {
    0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f,
};

void pc_nvfp4_dequant_fast(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    size_t ngroups = rows * (cols / 16);
    for (size_t g = 0; g < ngroups; g++) {
        const float s = group_scale[g];
        const uint8_t *c = codes + g * 16;
        float *o = out + g * 16;
        for (int j = 0; j < 16; j++) o[j] = k_e2m1_fast[c[j] & 15] * s;
    }
}
