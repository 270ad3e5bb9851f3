/* `packcheck equiv SOURCE TARGET`: do two checkpoints hold the same quantized model? (CONTRACT 7)
 *
 * Both sides are validated, decoded to the logical view (CONTRACT 3) and compared module by module:
 * same modules and shapes (EQ-001), same codes (EQ-002), same f32 weights within a tolerance
 * (EQ-003), unquantized tensors unchanged (EQ-004); for a ModelOpt / compressed-tensors NVFP4
 * naming pair, the converter's own contract byte for byte (CT-005). A side that fails validation
 * makes the pair differ by the rule it breaks. */
#ifndef PC_EQUIV_H
#define PC_EQUIV_H

#include "compare.h"
#include "packcheck_internal.h"

#include <cjson/cJSON.h>

enum { PC_EQUIV_EQUAL = 0, PC_EQUIV_DIFFER = 1, PC_EQUIV_ERROR = 2 };

/* Compare SOURCE with TARGET. Returns the report document (never NULL unless out of memory) and
 * sets *verdict to PC_EQUIV_EQUAL / DIFFER / ERROR. The document holds "verdict" ("equal",
 * "differ", "error"), "rule" (the first broken rule, or null) and "first_difference". */
cJSON *pc_equiv_run(const char *source, const char *target, const pc_tolerance *tol, pc_profile profile, int *verdict);

#endif
