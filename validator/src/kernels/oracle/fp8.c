/* FP8 E4M3 and INT8 oracles (kernels.h): one element at a time, the E4M3 value built from its
 * sign, exponent and mantissa fields as the OCP FP8 spec and torch.float8_e4m3fn define it
 * (bias 7; exponent 0 is subnormal, m/8 * 2^-6; S.1111.111 is NaN; no infinities), then one f32
 * multiply by the element's block scale. Never vectorised (CMakeLists.txt). */
#include "../kernels.h"

#include <math.h>

static float e4m3_literal(uint8_t v)
{
    int sign = v >> 7, e = (v >> 3) & 15, m = v & 7;
    if (e == 15 && m == 7) return sign ? -NAN : NAN;
    double mag = e == 0 ? ldexp((double)m / 8.0, -6) : ldexp(1.0 + (double)m / 8.0, e - 7);
    return (float)(sign ? -mag : mag); /* exact: at most 4 significant bits */
}

static size_t grid_cols(size_t cols, size_t bw) { return cols / bw + (cols % bw != 0); }

void pc_fp8_dequant_ref(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out)
{
    size_t gc = grid_cols(cols, bw);
    for (size_t n = 0; n < rows; n++)
        for (size_t k = 0; k < cols; k++) {
            float s = scale[(n / bh) * gc + k / bw];
            out[n * cols + k] = e4m3_literal(w[n * cols + k]) * s;
        }
}

void pc_int8_dequant_ref(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                         const int8_t *zero, float *out)
{
    size_t gc = grid_cols(cols, bw);
    for (size_t n = 0; n < rows; n++)
        for (size_t k = 0; k < cols; k++) {
            size_t g = (n / bh) * gc + k / bw;
            int q = (int8_t)w[n * cols + k], z = zero ? zero[g] : 0;
            out[n * cols + k] = (float)(q - z) * scale[g]; /* q - z is exact in f32 (|q - z| <= 255) */
        }
}
