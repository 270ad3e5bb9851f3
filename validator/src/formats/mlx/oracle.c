/* MLX affine oracle (FORMATS-2.md D), written literally: each group's scale and bias applied per
 * element, and the rounding into T done arithmetically (the value's binade gives the quantum,
 * rint rounds half to even), independently of the fast path's bit tricks. */
#include "kernels.h"

#include <math.h>

/* Round x to the nearest value of T (ties to even), returned as f32. F16: 10 fraction bits,
 * quantum never below 2^-24 (subnormals), 65520 and above round to inf; BF16: 7 fraction bits,
 * subnormal quantum 2^-133, the f32 range (overflow to inf happens in the multiply). */
static float round_to(float x, pc_mlx_t t)
{
    if (t == PC_MLX_T_F32 || x == 0.0f || !isfinite(x)) return x;
    int e;
    (void)frexpf(x, &e); /* |x| in [2^(e-1), 2^e) */
    int frac = t == PC_MLX_T_F16 ? 10 : 7, emin = t == PC_MLX_T_F16 ? -14 : -126;
    int lead = e - 1 < emin ? emin : e - 1;
    float r = ldexpf(rintf(ldexpf(x, frac - lead)), lead - frac);
    if (t == PC_MLX_T_F16 && fabsf(r) > 65504.0f) return copysignf(INFINITY, x);
    return r;
}

PC_ORACLE_FN void pc_mlx_affine_ref(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                                    const float *biases, pc_mlx_t t, float *out)
{
    size_t groups = cols / group;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c, g = r * groups + c / group;
            float sq = round_to(scales[g] * (float)codes[i], t);
            out[i] = round_to(sq + biases[g], t);
        }
    }
}
