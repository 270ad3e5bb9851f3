/* Recognise-only: MLX affine (`M.weight` U32 beside `M.scales` and `M.biases`, config.json
 * `quantization`) and bitsandbytes (4-bit: `M.weight` U8 beside `M.weight.absmax` /
 * `M.weight.quant_state.bitsandbytes__nf4|fp4`; LLM.int8: `M.weight` I8 beside `M.SCB`). Not decoded
 * yet: reported `unchecked` (FORMATS-2.md; the MLX/bitsandbytes issue replaces this file). */
#include "known_schemes.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 1024

static bool explain_mlx(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    static const char *const k_parts[] = {"weight", "scales", "biases", NULL};
    char m[PREFIX_MAX];
    if (!pc_split_suffix(t->name, k_parts, m, sizeof m)) return false;
    const pc_tensor *w = pc_sibling(in, m, "weight");
    if (!w || w->dtype != PC_DT_U32 || !pc_sibling(in, m, "scales")) return false;
    const cJSON *q = in->config_json ? cJSON_GetObjectItemCaseSensitive((const cJSON *)in->config_json, "quantization") : NULL;
    const cJSON *bits = cJSON_GetObjectItemCaseSensitive(q, "bits"), *gs = cJSON_GetObjectItemCaseSensitive(q, "group_size");
    if (cJSON_IsNumber(bits) && cJSON_IsNumber(gs))
        snprintf(e->scheme, sizeof e->scheme, "MLX affine %.0f-bit, group %.0f", bits->valuedouble, gs->valuedouble);
    else snprintf(e->scheme, sizeof e->scheme, "MLX affine");
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

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
    return explain_mlx(in, t, e) || explain_bnb(in, t, e);
}

const pc_format pc_format_known_mlx_bnb = {.name = "known-mlx-bnb", .explain = known_explain};
