/* AutoRound's quantization_config (auto-round 0.16.1): quant_method "auto-round", packing_format,
 * the top-level bits / group_size / sym / data_type, and per-layer extra_config overrides
 * (export/export_to_autoround/export.py save_quantized_as_autoround writes them; the loader,
 * inference/convert_model.py get_layer_config with inference/utils.py _expand_regex_config, reads
 * them back: an exact layer name first, else the first key re.search finds in the name). */
#include "autoround.h"

#include "../qlinear.h"
#include "../../core/pyre.h"
#include "../../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_autoround(const pc_input *in)
{
    const char *m = cJSON_IsObject(in->qconfig) ? ql_cfg_str(in->qconfig, "quant_method") : NULL;
    return m && (!strcmp(m, "auto-round") || !strcmp(m, "auto_round")); /* the loader takes both spellings */
}

ar_packing pc_ar_packing(const pc_input *in)
{
    if (!is_autoround(in)) return AR_PACK_NONE;
    const char *p = ql_cfg_str(in->qconfig, "packing_format");
    /* inference/backend.py: GPTQ_FORMAT (zp +- 1), GPTQ_FORMAT_NO_ZP, AWQ_FORMAT; the loader's default is auto_gptq */
    if (!p || !strcmp(p, "auto_round:auto_gptq")) return AR_PACK_GPTQ_ZP;
    if (!strcmp(p, "auto_round") || !strcmp(p, "auto_round:gptqmodel")) return AR_PACK_GPTQ;
    if (!strcmp(p, "auto_round:auto_awq")) return AR_PACK_AWQ;
    return AR_PACK_OTHER;
}

static const char *src_of(const pc_input *in) { return in->qconfig_source ? in->qconfig_source : "config.json"; }

/* bits, group_size, sym, data_type of one scheme object over *s; false (reported) when mistyped. */
static bool read_scheme(const pc_input *in, const cJSON *o, const char *where, ar_scheme *s, bool *is_int, pc_ctx *cx)
{
    long long bits = s->bits;
    bool present;
    if (!ql_cfg_int(o, "bits", &bits, &present) && present) {
        pc_report(cx, "AR-002", src_of(in), -1, "%s: bits is not an integer", where);
        return false;
    }
    if (present) {
        if (bits < 1) { pc_report(cx, "AR-002", src_of(in), -1, "%s: bits %lld", where, bits); return false; }
        s->bits = bits > 64 ? 64 : (unsigned)bits;
    }
    if (!ql_cfg_int(o, "group_size", &s->group_size, &present) && present) {
        pc_report(cx, "AR-002", src_of(in), -1, "%s: group_size is not an integer", where);
        return false;
    }
    if (s->group_size != -1 && s->group_size <= 0) {
        pc_report(cx, "AR-002", src_of(in), -1, "%s: group_size %lld is neither -1 nor positive", where, s->group_size);
        return false;
    }
    if (!ql_cfg_bool(o, "sym", &s->sym, &present) && present) {
        pc_report(cx, "AR-002", src_of(in), -1, "%s: sym is not true or false", where);
        return false;
    }
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(o, "data_type");
    if (dt && !cJSON_IsString(dt)) {
        pc_report(cx, "AR-002", src_of(in), -1, "%s: data_type is not a string", where);
        return false;
    }
    if (dt) *is_int = !strcmp(dt->valuestring, "int");
    return true;
}

bool pc_ar_base_scheme(const pc_input *in, ar_scheme *base, pc_ctx *cx)
{
    const cJSON *qc = in->qconfig;
    *base = (ar_scheme){.bits = 0, .group_size = 128, .sym = true};
    pc_eval(cx, "AR-001");
    pc_eval(cx, "AR-002");
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(qc, "packing_format");
    if (pf && !cJSON_IsString(pf)) {
        pc_report(cx, "AR-001", src_of(in), -1, "packing_format is not a string");
        return false;
    }
    bool is_int = true, present;
    long long bits;
    if (!ql_cfg_int(qc, "bits", &bits, &present)) {
        pc_report(cx, "AR-002", src_of(in), -1, present ? "bits is not an integer" : "bits is missing: the packed width cannot be read");
        return false;
    }
    if (!ql_cfg_int(qc, "group_size", &base->group_size, &present)) {
        pc_report(cx, "AR-002", src_of(in), -1, present ? "group_size is not an integer" : "group_size is missing: the scale rows cannot be read");
        return false;
    }
    if (!read_scheme(in, qc, "quantization_config", base, &is_int, cx)) return false;
    if (!is_int) {
        pc_report(cx, "AR-001", src_of(in), -1, "data_type \"%s\" under packing_format %s: the GPTQ/AWQ packers hold int codes only",
                  ql_cfg_str(qc, "data_type"), pf ? pf->valuestring : "(auto_round:auto_gptq)");
        return false;
    }
    return true;
}

/* 1 when the extra_config key matches the layer as the loader matches it (re.search), 0 when not, <0 refused. */
static int key_matches(const char *key, const char *prefix)
{
    char *pat = pc_asprintf(".*(?:%s)", key);
    int m = pat ? pc_pyre_match(pat, prefix) : PC_PYRE_LIMIT;
    free(pat);
    return m;
}

/* The extra_config entry of the layer: its exact key, else the first key that matches it. */
static const cJSON *entry_for(const pc_input *in, const char *prefix, pc_ctx *cx, bool *refused)
{
    const cJSON *ec = cJSON_GetObjectItemCaseSensitive(in->qconfig, "extra_config"), *e;
    *refused = false;
    if (!cJSON_IsObject(ec)) return NULL;
    e = cJSON_GetObjectItemCaseSensitive(ec, prefix);
    if (e) return e;
    pc_eval(cx, "CFG-031");
    cJSON_ArrayForEach(e, ec) {
        if (ql_sibling(in, e->string, ".qweight") || ql_sibling(in, e->string, ".weight")) continue; /* a layer name, not a pattern */
        int m = key_matches(e->string, prefix);
        if (m == PC_PYRE_SYNTAX) continue; /* _expand_regex_config skips a key re.compile refuses */
        if (m < 0) {
            if (m != PC_PYRE_BUDGET || pc_pyre_budget_notice())
                pc_report(cx, "CFG-031", src_of(in), -1, "extra_config pattern \"%.80s\" is past the matcher's limits: refused, not run", e->string);
            *refused = true;
            return NULL;
        }
        if (m && cJSON_IsObject(e) && e->child) return e; /* an empty entry is skipped too */
    }
    return NULL;
}

int pc_ar_layer_scheme(const pc_input *in, const char *prefix, const ar_scheme *base, ar_scheme *out, pc_ctx *cx)
{
    bool refused, is_int = true;
    *out = *base;
    pc_eval(cx, "AR-003");
    const cJSON *e = entry_for(in, prefix, cx, &refused);
    if (refused) return -1;
    if (e && !cJSON_IsObject(e)) {
        pc_report(cx, "AR-002", src_of(in), -1, "extra_config \"%.80s\" is not an object", e->string);
        return -1;
    }
    char where[160];
    snprintf(where, sizeof where, "extra_config \"%.120s\"", e ? e->string : "");
    if (e && !read_scheme(in, e, where, out, &is_int, cx)) return -1;
    long long act_bits = 16;
    if (e) ql_cfg_int(e, "act_bits", &act_bits, NULL);
    if (out->bits > 8 && act_bits > 8) return 0;
    /* packers of these formats: qlinear_torch(_zp) 2, 3, 4, 8 on the word paths (5..7 a generic stream), int only */
    if (!is_int || act_bits <= 8 || (out->bits != 2 && out->bits != 3 && out->bits != 4 && out->bits != 8)) return 2;
    return 1;
}

void pc_ar_check_pinned_layers(const pc_input *in, pc_ctx *cx)
{
    const cJSON *ec = cJSON_GetObjectItemCaseSensitive(in->qconfig, "extra_config"), *e;
    pc_eval(cx, "AR-004");
    cJSON_ArrayForEach(e, ec) {
        long long bits = 16;
        const char *dt = cJSON_IsObject(e) ? ql_cfg_str(e, "data_type") : NULL;
        if (!cJSON_IsObject(e) || !ql_cfg_int(e, "bits", &bits, NULL) || bits > 8 || (dt && strcmp(dt, "int"))) continue;
        const pc_tensor *w = ql_sibling(in, e->string, ".weight");
        if (w && !ql_sibling(in, e->string, ".qweight"))
            pc_report(cx, "AR-004", w->name, (int64_t)w->offset,
                      "extra_config pins %s to %lld-bit int, but it is stored as %s %s, not packed: auto-round's loader builds a "
                      "quantized layer there and finds no qweight", e->string, bits, pc_dtype_name(w->dtype), w->name);
    }
}
