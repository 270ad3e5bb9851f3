/* Recognise-only: the FP8 and INT8 weights formats/fp8.c does not decode (E5M2,
 * asymmetric compressed-tensors float weights, FP8 under another method's config). MXFP4 under both
 * namings (gpt-oss `*_blocks` / `*_scales`, compressed-tensors mxfp4-pack-quantized) is formats/mxfp4.c's. Their tensors are
 * reported `unchecked` with the scheme named from the config (FORMATS-2.md). DeepSeek-native fp8
 * and compressed-tensors int8 (int-/naive-quantized) are formats/fp8.c's, ModelOpt FP8 (FP8, per-channel,
 * fp8_pb_wo) is formats/modelopt's: a tensor of theirs left
 * unclaimed belongs to a module a rule rejected, so it is not named here. */
#include "formats/format.h"
#include "known_schemes.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 1024

static const char *ct_format(const pc_input *in)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    if (!qm || strcmp(qm, "compressed-tensors")) return NULL;
    const char *f = pc_input_qconfig_str(in, "format");
    if (f) return f;
    /* mixed-precision: the first group's format */
    const cJSON *g = cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, "config_groups"), *e;
    cJSON_ArrayForEach(e, g) {
        const cJSON *gf = cJSON_GetObjectItemCaseSensitive(e, "format");
        if (cJSON_IsString(gf)) return gf->valuestring;
    }
    return "compressed-tensors";
}

/* "channel", "block 128x128", ... from the first config group's weights. */
static void ct_strategy(const pc_input *in, char *buf, size_t n)
{
    buf[0] = 0;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, "config_groups"), *e;
    cJSON_ArrayForEach(e, g) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "weights");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(w, "strategy");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(w, "block_structure");
        if (!cJSON_IsString(s)) continue;
        if (cJSON_GetArraySize(b) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(b, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(b, 1)))
            snprintf(buf, n, ", %s %.0fx%.0f", s->valuestring, cJSON_GetArrayItem(b, 0)->valuedouble, cJSON_GetArrayItem(b, 1)->valuedouble);
        else snprintf(buf, n, ", %s", s->valuestring);
        return;
    }
}

static void fp8_scheme(const pc_input *in, const pc_tensor *w, pc_explain *e)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method"), *ctf = ct_format(in);
    const char *fmt = w->dtype == PC_DT_F8_E5M2 ? "E5M2" : "E4M3";
    char strat[64];
    if (ctf) {
        ct_strategy(in, strat, sizeof strat);
        snprintf(e->scheme, sizeof e->scheme, "compressed-tensors %.24s FP8 %s%.40s", ctf, fmt, strat);
    } else if (qm) {
        snprintf(e->scheme, sizeof e->scheme, "%.40s FP8 %s weight", qm, fmt);
    } else {
        snprintf(e->scheme, sizeof e->scheme, "FP8 %s weight", fmt);
    }
}

static bool explain_fp8_int8(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    static const char *const k_parts[] = {"weight", "weight_scale", "weight_scale_inv", "weight_zero_point",
                                          "input_scale", "input_zero_point", "output_scale", NULL};
    char m[PREFIX_MAX];
    if (!pc_split_suffix(t->name, k_parts, m, sizeof m)) return false;
    const pc_tensor *w = pc_sibling(in, m, "weight");
    if (!w) return false;
    const char *qm = pc_input_qconfig_str(in, "quant_method"), *f = ct_format(in);
    if (qm && !strcmp(qm, "fp8")) return false; /* formats/fp8.c */
    if (w->dtype == PC_DT_I8 && f && (!strcmp(f, "int-quantized") || !strcmp(f, "naive-quantized"))) return false;
    if (w->dtype == PC_DT_F8_E4M3 || w->dtype == PC_DT_F8_E5M2) {
        fp8_scheme(in, w, e);
    } else if (w->dtype == PC_DT_I8 && (pc_sibling(in, m, "weight_scale") || ct_format(in))) {
        const char *ctf = ct_format(in);
        char strat[64] = "";
        if (ctf) ct_strategy(in, strat, sizeof strat);
        snprintf(e->scheme, sizeof e->scheme, "%s%.24s INT8 weight%.40s", ctf ? "compressed-tensors " : "", ctf ? ctf : "", strat);
    } else {
        return false;
    }
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

static bool known_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    return explain_fp8_int8(in, t, e);
}

const pc_format pc_format_known_fp8_int8_mxfp4 = {.name = "known-fp8-int8-mxfp4", .explain = known_explain};
