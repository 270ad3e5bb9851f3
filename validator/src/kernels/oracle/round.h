/* The oracles' rounding of an f32 into the dtype T a library computes in, done arithmetically (the
 * value's binade gives the quantum, rint rounds half to even), independently of the fast paths'
 * bit manipulation (kernels/fast/round.h). Shared by the MLX affine and HQQ oracles. */
#ifndef PC_ORACLE_ROUND_H
#define PC_ORACLE_ROUND_H

#include "kernels/kernels.h"

#include <math.h>

/* Round x to the nearest value of T (ties to even), returned as f32. F16: 10 fraction bits,
 * quantum never below 2^-24 (subnormals), 65520 and above round to inf; BF16: 7 fraction bits,
 * subnormal quantum 2^-133, the f32 range (overflow to inf happens in the multiply). */
static inline float pc_oracle_round_to(float x, pc_round_t t)
{
    if (t == PC_ROUND_F32 || x == 0.0f || !isfinite(x)) return x;
    int e;
    (void)frexpf(x, &e); /* |x| in [2^(e-1), 2^e) */
    int frac = t == PC_ROUND_F16 ? 10 : 7, emin = t == PC_ROUND_F16 ? -14 : -126;
    int lead = e - 1 < emin ? emin : e - 1;
    float r = ldexpf(rintf(ldexpf(x, frac - lead)), lead - frac);
    if (t == PC_ROUND_F16 && fabsf(r) > 65504.0f) return copysignf(INFINITY, x);
    return r;
}

#endif
