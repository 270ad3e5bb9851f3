/* Recognise-only: bitsandbytes (4-bit: `M.weight` U8 beside `M.weight.absmax` /
 * `M.weight.quant_state.bitsandbytes__nf4|fp4`; LLM.int8: `M.weight` I8 beside `M.SCB`). Not decoded
 * yet: reported `unchecked` (FORMATS-2.md; MLX is decoded by formats/mlx.c). */
#include "known_schemes.h"

#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 1024

static bool explain_bnb(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    char m[PREFIX_MAX];
    const char *dot = strstr(t->name, ".weight.");
    static const char *const k_w[] = {"weight", "SCB", "weight_format", NULL};
    if (dot && (size_t)(dot - t->name) < sizeof m) { /* M.weight.absmax, M.weight.quant_state.*, ... */
        memcpy(m, t->name, (size_t)(dot - t->name));
        m[dot - t->name] = 0;
    } else if (!pc_split_suffix(t->name, k_w, m, sizeof m)) {
        return false;
    }
    if (pc_sibling(in, m, "weight.quant_state.bitsandbytes__nf4")) snprintf(e->scheme, sizeof e->scheme, "bitsandbytes NF4");
    else if (pc_sibling(in, m, "weight.quant_state.bitsandbytes__fp4")) snprintf(e->scheme, sizeof e->scheme, "bitsandbytes FP4");
    else if (pc_sibling(in, m, "weight.absmax")) snprintf(e->scheme, sizeof e->scheme, "bitsandbytes 4-bit");
    else if (pc_sibling(in, m, "SCB")) snprintf(e->scheme, sizeof e->scheme, "bitsandbytes LLM.int8 (8-bit)");
    else return false;
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

static bool known_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    return explain_bnb(in, t, e);
}

const pc_format pc_format_known_mlx_bnb = {.name = "known-mlx-bnb", .explain = known_explain};
