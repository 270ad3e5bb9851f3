/* MLX affine oracle (FORMATS-2.md D), written literally: each group's scale and bias applied per
 * element, and the rounding into T done arithmetically (the value's binade gives the quantum,
 * rint rounds half to even), independently of the fast path's bit tricks. */
#include "kernels.h"
#include "kernels/oracle/round.h"


PC_ORACLE_FN void pc_mlx_affine_ref(const uint8_t *codes, size_t rows, size_t cols, size_t group, const float *scales,
                                    const float *biases, pc_mlx_t t, float *out)
{
    size_t groups = cols / group;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c, g = r * groups + c / group;
            float sq = pc_oracle_round_to(scales[g] * (float)codes[i], t);
            out[i] = pc_oracle_round_to(sq + biases[g], t);
        }
    }
}
