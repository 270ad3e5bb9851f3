/* Comparing a reader's weights with the logical view (certify, CONTRACT 5) and two decodes of one
 * model (equiv, CONTRACT 7): a tolerance, and the precision the answer was given in.
 *
 * A reader that answers in bf16 or f16 (as engines do) is compared with the logical view rounded
 * once to that dtype, round-to-nearest-even, then bit for bit (or within the stated tolerance).
 * At compute depth (the reader's own matmul on an identity input) an accumulating kernel turns
 * -0.0 into +0.0, so the sign of a zero is not compared there. */
#ifndef PC_COMPARE_H
#define PC_COMPARE_H

#include "kernels/kernels.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum { PC_TOL_EXACT = 0, PC_TOL_ULP, PC_TOL_ABS, PC_TOL_REL } pc_tol_kind;

typedef struct pc_tolerance {
    pc_tol_kind kind;
    double value;   /* ULPs (integer), or the absolute / relative bound */
    bool given;     /* stated by the user; otherwise the pair's default applies */
} pc_tolerance;

/* "exact", "ulp:N", "abs:X" or "rel:X". Returns 0, or -1 when malformed. */
int pc_tolerance_parse(const char *s, pc_tolerance *t);
/* The canonical text of a tolerance ("ulp:4"), in a static buffer. */
const char *pc_tolerance_str(const pc_tolerance *t);
/* The bits of an f32. */
uint32_t pc_f32_bits(float f);
/* Distance of two floats in representable f32 steps (+0 and -0 are 0 apart). */
uint64_t pc_ulp_distance(float a, float b);
/* a and b bit-identical, or within t (NaN is within nothing but its own bits). */
bool pc_tolerance_within(const pc_tolerance *t, float a, float b);

/* How deep a reader's answer comes from: its dequantisation helper, its loader's parameters, or its
 * compute (matmul on an identity input). */
typedef enum { PC_DEPTH_HELPER = 0, PC_DEPTH_LOADER, PC_DEPTH_COMPUTE } pc_depth;
const char *pc_depth_name(pc_depth d);
/* "helper", "loader" or "compute". 0, or -1 when unknown. */
int pc_depth_parse(const char *s, pc_depth *d);

/* The precision a reader answered in, from its output dtype: F32, BF16 or F16. */
const char *pc_precision_name(pc_round_t p);

typedef struct pc_weight_compare {
    pc_round_t precision; /* the reader's answer dtype: the reference is rounded once to it */
    pc_tolerance tol;     /* exact unless stated (--tolerance, --ulp) */
    bool any_zero_sign;   /* compute depth: -0.0 and +0.0 are the same answer */
} pc_weight_compare;

/* The reference value as a reader answering at c->precision must give it. */
float pc_reference_at(const pc_weight_compare *c, float want);
/* Does got (widened to f32 from the reader's dtype) answer the reference value want (f32)?
 * A NaN answers a NaN whatever its payload, except bit for bit at f32 (the payload does not survive
 * a dtype, and a tolerance is about values). */
bool pc_weight_close(const pc_weight_compare *c, float got, float want);

#endif
