/* Recognise-only: bitsandbytes LLM.int8 (`M.weight` I8 beside `M.SCB`). Not decoded yet: reported
 * `unchecked` (FORMATS-2.md). MLX affine is decoded by formats/mlx.c, bitsandbytes 4-bit by
 * formats/bnb.c. */
#include "known_schemes.h"

#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 1024

static bool explain_bnb_int8(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    char m[PREFIX_MAX];
    static const char *const k_w[] = {"weight", "SCB", "weight_format", NULL};
    if (!pc_split_suffix(t->name, k_w, m, sizeof m) || !pc_sibling(in, m, "SCB")) return false;
    snprintf(e->scheme, sizeof e->scheme, "bitsandbytes LLM.int8 (8-bit)");
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

static bool known_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    return explain_bnb_int8(in, t, e);
}

const pc_format pc_format_known_mlx_bnb = {.name = "known-mlx-bnb", .explain = known_explain};
