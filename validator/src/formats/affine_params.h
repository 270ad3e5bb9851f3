/* What diagnosis (harness/diagnose.c) needs from the MLX and bitsandbytes modules to re-derive
 * weights per element: their scale parameters as each module decodes them. */
#ifndef PC_AFFINE_PARAMS_H
#define PC_AFFINE_PARAMS_H

#include "formats/format.h"
#include "../kernels/kernels.h"

/* MLX affine module (layout "mlx-affine"): fresh scales and biases ([rows, cols/group], f32), the
 * group and T. Returns 0, or -1 when pm is not an MLX module or a read fails. */
int pc_mlx_params(const pc_module *pm, float **scales, float **biases, size_t *group, pc_mlx_t *t);
/* bitsandbytes 4-bit module (layout "bnb-4bit"): fresh per-block scales (nested ones resolved),
 * the blocksize and the codebook. Returns 0, or -1. */
int pc_bnb_params(const pc_module *pm, float **scales, size_t *blocksize, const float **table);

#endif
