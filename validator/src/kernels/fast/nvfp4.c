/* NVFP4 fast path, portable: one scale load per 16-element group; the E2M1 value by a table lookup.
 * Every product is the same single f32 rounding as the oracle (no FMA: -ffp-contract=off). The
 * AVX2 version (an in-register permute of the 8 magnitudes, the sign bit moved into place) is in
 * fast/nvfp4_avx2.c; PC_PICK chooses. */
#include "../kernels.h"

#include <string.h>


static const float k_e2m1_fast[16] = {
    0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f,
};

static void dequant_scalar(const uint8_t *codes, size_t ngroups, const float *group_scale, float *out)
{
    for (size_t g = 0; g < ngroups; g++) {
        const float s = group_scale[g];
        const uint8_t *c = codes + g * 16;
        float *o = out + g * 16;
        for (int j = 0; j < 16; j++) o[j] = k_e2m1_fast[c[j] & 15] * s;
    }
}

void pc_nvfp4_dequant_scalar(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    dequant_scalar(codes, rows * (cols / 16), group_scale, out);
}

void pc_nvfp4_dequant_fast(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    PC_PICK(pc_nvfp4_dequant_scalar, pc_nvfp4_dequant_avx2)(codes, rows, cols, group_scale, out);
}
