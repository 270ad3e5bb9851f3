/* `packcheck equiv SOURCE TARGET`: do two checkpoints hold the same quantized model? (CONTRACT 7)
 *
 * Both sides are validated, decoded to the logical view (CONTRACT 3) and compared module by module:
 * same modules and shapes (EQ-001), same codes (EQ-002), same f32 weights within a tolerance
 * (EQ-003), unquantized tensors unchanged (EQ-004); for a ModelOpt / compressed-tensors NVFP4
 * naming pair, the converter's own contract byte for byte (CT-005). A side that fails validation
 * makes the pair differ by the rule it breaks. */
#ifndef PC_EQUIV_H
#define PC_EQUIV_H

#include "packcheck_internal.h"

#include <cjson/cJSON.h>

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

enum { PC_EQUIV_EQUAL = 0, PC_EQUIV_DIFFER = 1, PC_EQUIV_ERROR = 2 };

/* Compare SOURCE with TARGET. Returns the report document (never NULL unless out of memory) and
 * sets *verdict to PC_EQUIV_EQUAL / DIFFER / ERROR. The document holds "verdict" ("equal",
 * "differ", "error"), "rule" (the first broken rule, or null) and "first_difference". */
cJSON *pc_equiv_run(const char *source, const char *target, const pc_tolerance *tol, pc_profile profile, int *verdict);

#endif
