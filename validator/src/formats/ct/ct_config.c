/* compressed-tensors quantization_config -> per-group weight schemes (FORMATS.md 3.1, 1.3).
 * Mirrors the library's pydantic models: QuantizationConfig (unknown top-level keys ignored),
 * QuantizationScheme and QuantizationArgs (unknown keys forbidden), the defaults num_bits 8, type
 * int, symmetric true, and the strategy inference (no group_size -> tensor, > 0 -> group, -1 ->
 * channel). Every problem is a CFG rule (or CT-001 for num_bits outside 1..8). */
#include "ct.h"

#include "../../core/pyre.h"

#include "../../core/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_scheme_keys[] = {"targets", "weights", "input_activations", "output_activations", "format", NULL};
static const char *const k_args_keys[] = {"num_bits", "type", "symmetric", "group_size", "strategy", "block_structure",
                                          "dynamic", "actorder", "scale_dtype", "zp_dtype", "observer",
                                          "observer_kwargs", NULL};
static const char *const k_statuses[] = {"initialized", "calibration", "frozen", "compressed", "decompressed", NULL};

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list)) return true;
    return false;
}

bool ct_config_is_ct(const pc_input *in)
{
    const cJSON *qm = cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, "quant_method");
    return cJSON_IsString(qm) && !strcmp(qm->valuestring, "compressed-tensors");
}

/* An integer-valued JSON number (pydantic accepts 4 and 4.0 alike for int fields). */
static bool json_int(const cJSON *j, int64_t *v)
{
    /* range first: converting an out-of-range double to int64 is undefined */
    if (!cJSON_IsNumber(j) || !(j->valuedouble <= 9.0e15 && j->valuedouble >= -9.0e15)) return false;
    if (j->valuedouble != (double)(int64_t)j->valuedouble) return false;
    *v = (int64_t)j->valuedouble;
    return true;
}

/* ---- version (FORMATS.md 1.3) ---- */

static ct_version_says version_layout(const char *s)
{
    unsigned long v[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        if (*p < '0' || *p > '9') return CT_VER_BAD;
        char *end;
        v[i] = strtoul(p, &end, 10);
        if (end - p > 6) return CT_VER_BAD;
        p = end;
        if (i < 2) {
            if (*p != '.') return CT_VER_BAD;
            p++;
        }
    }
    const char *suffix = p; /* "", ".dev32+g46196ce", "a20260225", ".post1", "+local" ... */
    unsigned long key = v[0] * 1000000ul + v[1] * 1000ul + v[2];
    const unsigned long v0171 = 17001ul, v0180 = 18000ul;
    if (key <= v0171) return CT_VER_LEGACY;   /* 0.5.0 .. 0.17.1, their pre-releases, and v0.4's 4-bit */
    if (key > v0180) return CT_VER_DENSE;     /* 0.18.1 pre-releases already pack densely */
    if (key == v0180 && (!*suffix || *suffix == '+' || !strncmp(suffix, ".post", 5))) return CT_VER_DENSE;
    return CT_VER_UNDECIDED;                  /* 0.17.2.devN / 0.18.0 pre-releases: may predate PR #732 */
}

/* ---- weights args ---- */

static int64_t parse_block(const cJSON *bs, int64_t out[2])
{
    if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2)
        return json_int(cJSON_GetArrayItem(bs, 0), &out[0]) && json_int(cJSON_GetArrayItem(bs, 1), &out[1]) &&
               out[0] > 0 && out[1] > 0;
    if (cJSON_IsString(bs)) { /* legacy "AxB" */
        long long a, b;
        char tail;
        if (sscanf(bs->valuestring, "%lldx%lld%c", &a, &b, &tail) == 2 && a > 0 && b > 0) {
            out[0] = a;
            out[1] = b;
            return true;
        }
    }
    return false;
}

static bool parse_actorder(const cJSON *a, ct_actorder *out)
{
    if (!a || cJSON_IsNull(a) || cJSON_IsFalse(a)) { *out = CT_ACT_NONE; return true; }
    if (cJSON_IsTrue(a)) { *out = CT_ACT_GROUP; return true; }
    if (!cJSON_IsString(a)) return false;
    const char *s = a->valuestring;
    if (!strcmp(s, "group") || !strcmp(s, "dynamic")) *out = CT_ACT_GROUP;
    else if (!strcmp(s, "weight") || !strcmp(s, "static")) *out = CT_ACT_WEIGHT;
    else return false;
    return true;
}

/* Types and unknown keys of one QuantizationArgs (CFG-021); then the strategy rules (CFG-022). */
static bool parse_args(const cJSON *w, const char *where, const char *src, ct_scheme *s, pc_ctx *cx)
{
    bool ok = true;
    memset(s, 0, sizeof *s);
    s->num_bits = 8;
    s->is_int = true;
    s->symmetric = true;
    const cJSON *x;
    cJSON_ArrayForEach(x, w) {
        if (!in_list(x->string, k_args_keys)) {
            pc_report(cx, "CFG-021", src, -1, "%s: unknown key \"%s\" (QuantizationArgs forbids extra fields)", where, x->string);
            ok = false;
        }
    }
    const cJSON *nb = cJSON_GetObjectItemCaseSensitive(w, "num_bits");
    if (nb && !json_int(nb, &s->num_bits)) {
        pc_report(cx, "CFG-021", src, -1, "%s: num_bits is not an integer", where);
        ok = false;
    }
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(w, "type");
    if (ty && !(cJSON_IsString(ty) && (!strcmp(ty->valuestring, "int") || !strcmp(ty->valuestring, "float")))) {
        pc_report(cx, "CFG-021", src, -1, "%s: type is not \"int\" or \"float\"", where);
        ok = false;
    } else if (ty) {
        s->is_int = !strcmp(ty->valuestring, "int");
    }
    const cJSON *sy = cJSON_GetObjectItemCaseSensitive(w, "symmetric");
    if (sy && !cJSON_IsBool(sy)) {
        pc_report(cx, "CFG-021", src, -1, "%s: symmetric is not a boolean", where);
        ok = false;
    } else if (sy) {
        s->symmetric = cJSON_IsTrue(sy);
    }
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(w, "group_size");
    bool has_gs = gs && !cJSON_IsNull(gs);
    if (has_gs && !json_int(gs, &s->group_size)) {
        pc_report(cx, "CFG-021", src, -1, "%s: group_size is not an integer", where);
        ok = false;
        has_gs = false;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(w, "strategy");
    const char *sname = NULL;
    if (st && !cJSON_IsNull(st)) {
        if (!cJSON_IsString(st)) {
            pc_report(cx, "CFG-021", src, -1, "%s: strategy is not a string", where);
            return false;
        }
        sname = st->valuestring;
        static const char *const known[] = {"tensor", "channel", "group", "block", "token", "tensor_group", "attn_head", NULL};
        if (!in_list(sname, known)) {
            pc_report(cx, "CFG-021", src, -1, "%s: unknown strategy \"%s\"", where, sname);
            return false;
        }
    }
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(w, "block_structure");
    bool has_bs = bs && !cJSON_IsNull(bs);
    if (has_bs && !parse_block(bs, s->block)) {
        pc_report(cx, "CFG-021", src, -1, "%s: block_structure is not [rows, cols] of positive integers", where);
        ok = false;
        has_bs = false;
    }
    if (!parse_actorder(cJSON_GetObjectItemCaseSensitive(w, "actorder"), &s->actorder)) {
        pc_report(cx, "CFG-021", src, -1, "%s: actorder is not group, weight or null", where);
        ok = false;
    }
    const cJSON *dy = cJSON_GetObjectItemCaseSensitive(w, "dynamic");
    if (dy && !cJSON_IsBool(dy) && !(cJSON_IsString(dy) && !strcmp(dy->valuestring, "local"))) {
        pc_report(cx, "CFG-021", src, -1, "%s: dynamic is not a boolean or \"local\"", where);
        ok = false;
    }
    if (!ok) return false;

    /* Strategy inference and consistency (QuantizationArgs.validate_model_after). */
    if (!sname) {
        if (!has_gs) sname = "tensor";
        else if (s->group_size > 0) sname = "group";
        else if (s->group_size == -1) sname = "channel";
        else {
            pc_report(cx, "CFG-022", src, -1, "%s: group_size %lld without a strategy (use > 0 for group, -1 for channel)",
                      where, (long long)s->group_size);
            return false;
        }
    }
    s->strategy_name = sname;
    s->strategy = !strcmp(sname, "tensor") ? CT_STRAT_TENSOR : !strcmp(sname, "channel") ? CT_STRAT_CHANNEL
                  : !strcmp(sname, "group") ? CT_STRAT_GROUP : !strcmp(sname, "block") ? CT_STRAT_BLOCK
                  : CT_STRAT_UNSUPPORTED;
    bool grouped = s->strategy == CT_STRAT_GROUP || !strcmp(sname, "tensor_group");
    if (grouped && (!has_gs || s->group_size <= 0)) {
        pc_report(cx, "CFG-022", src, -1, "%s: strategy %s requires a positive group_size", where, sname);
        return false;
    }
    if (has_gs && s->group_size > 0 && !grouped) {
        pc_report(cx, "CFG-022", src, -1, "%s: group_size %lld requires strategy group, not %s", where, (long long)s->group_size, sname);
        return false;
    }
    if (has_gs && s->group_size <= 0 && s->group_size != -1) {
        pc_report(cx, "CFG-022", src, -1, "%s: group_size %lld is neither positive nor -1", where, (long long)s->group_size);
        return false;
    }
    if (s->strategy == CT_STRAT_BLOCK && !has_bs) {
        pc_report(cx, "CFG-022", src, -1, "%s: strategy block requires block_structure", where);
        return false;
    }
    if (has_bs && s->strategy != CT_STRAT_BLOCK) {
        pc_report(cx, "CFG-022", src, -1, "%s: block_structure requires strategy block, not %s", where, sname);
        return false;
    }
    if (s->actorder == CT_ACT_GROUP && !grouped) {
        pc_report(cx, "CFG-022", src, -1, "%s: actorder group requires strategy group, not %s", where, sname);
        return false;
    }
    if (!strcmp(sname, "token") && !(dy && cJSON_IsTrue(dy))) {
        pc_report(cx, "CFG-022", src, -1, "%s: strategy token requires dynamic", where);
        return false;
    }
    return true;
}

/* W{2..8}A16 and W4A16_ASYM: the presets a pack-quantized group can name (FORMATS.md 3.1). */
static bool preset_scheme(const char *name, ct_scheme *s)
{
    memset(s, 0, sizeof *s);
    s->is_int = true;
    s->symmetric = true;
    s->strategy = CT_STRAT_GROUP;
    s->strategy_name = "group";
    s->group_size = 128;
    if (!strcmp(name, "W4A16_ASYM")) { s->num_bits = 4; s->symmetric = false; return true; }
    if (strlen(name) == 5 && name[0] == 'W' && name[1] >= '2' && name[1] <= '8' && !strcmp(name + 2, "A16")) {
        s->num_bits = name[1] - '0';
        return true;
    }
    return false;
}

static bool string_list(const cJSON *a)
{
    if (!cJSON_IsArray(a)) return false;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) if (!cJSON_IsString(x)) return false;
    return true;
}

static void parse_group(const cJSON *g, ct_group *out, const char *src, pc_ctx *cx)
{
    char where[200];
    snprintf(where, sizeof where, "config_groups.%.120s", g->string);
    memset(out, 0, sizeof *out);
    out->name = g->string;
    if (cJSON_IsArray(g)) { /* preset name -> targets */
        out->targets = (void *)g;
        out->has_weights = preset_scheme(g->string, &out->w);
        out->valid = out->has_weights && string_list(g);
        if (!string_list(g)) pc_report(cx, "CFG-020", src, -1, "%s: preset targets are not a list of strings", where);
        return;
    }
    if (!cJSON_IsObject(g)) {
        pc_report(cx, "CFG-020", src, -1, "%s is not an object", where);
        return;
    }
    bool ok = true;
    const cJSON *x;
    cJSON_ArrayForEach(x, g) {
        if (!in_list(x->string, k_scheme_keys)) {
            pc_report(cx, "CFG-020", src, -1, "%s: unknown key \"%s\" (QuantizationScheme forbids extra fields)", where, x->string);
            ok = false;
        }
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(g, "targets");
    if (!string_list(t) || cJSON_GetArraySize(t) == 0) {
        pc_report(cx, "CFG-020", src, -1, "%s: targets is not a non-empty list of strings", where);
        ok = false;
    }
    out->targets = (void *)t;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(g, "format");
    if (f && !cJSON_IsNull(f) && !cJSON_IsString(f)) {
        pc_report(cx, "CFG-020", src, -1, "%s: format is not a string", where);
        ok = false;
    } else if (cJSON_IsString(f)) {
        out->format = f->valuestring;
    }
    const cJSON *ia = cJSON_GetObjectItemCaseSensitive(g, "input_activations");
    const cJSON *ias = cJSON_IsObject(ia) ? cJSON_GetObjectItemCaseSensitive(ia, "strategy") : NULL;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "weights");
    if (w && !cJSON_IsNull(w) && !cJSON_IsObject(w)) {
        pc_report(cx, "CFG-020", src, -1, "%s: weights is not an object", where);
        ok = false;
    } else if (cJSON_IsObject(w)) {
        char wwhere[220];
        snprintf(wwhere, sizeof wwhere, "%s.weights", where);
        out->has_weights = true;
        ok = parse_args(w, wwhere, src, &out->w, cx) && ok;
        out->w.input_tensor_group = cJSON_IsString(ias) && !strcmp(ias->valuestring, "tensor_group");
    }
    out->valid = ok && out->has_weights;
}

int ct_config_parse(const pc_input *in, ct_config *c, pc_ctx *cx)
{
    memset(c, 0, sizeof *c);
    const cJSON *q = in->qconfig;
    if (!q || !ct_config_is_ct(in)) return 0;
    c->present = true;
    const char *src = c->source = in->qconfig_source ? in->qconfig_source : "config.json";
    pc_eval(cx, "CFG-020");
    pc_eval(cx, "CFG-021");
    pc_eval(cx, "CFG-022");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(q, "format");
    if (f && !cJSON_IsNull(f) && !cJSON_IsString(f)) pc_report(cx, "CFG-020", src, -1, "format is not a string");
    else if (cJSON_IsString(f)) c->format = f->valuestring;

    pc_eval(cx, "CFG-024");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q, "version");
    if (!v || cJSON_IsNull(v)) {
        c->version_says = CT_VER_ABSENT;
    } else if (!cJSON_IsString(v) || (c->version_says = version_layout(v->valuestring)) == CT_VER_BAD) {
        c->version_says = CT_VER_BAD;
        pc_report(cx, "CFG-024", src, -1, "version %s%s%s does not start with major.minor.patch",
                  cJSON_IsString(v) ? "\"" : "", cJSON_IsString(v) ? v->valuestring : "(not a string)", cJSON_IsString(v) ? "\"" : "");
    } else {
        c->version = v->valuestring;
    }

    pc_eval(cx, "CFG-025");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(q, "quantization_status");
    if (s && !cJSON_IsNull(s) && !(cJSON_IsString(s) && in_list(s->valuestring, k_statuses)))
        pc_report(cx, "CFG-025", src, -1, "quantization_status is not one of initialized, calibration, frozen, compressed, decompressed");
    else if (cJSON_IsString(s)) c->status = s->valuestring;

    const cJSON *ig = cJSON_GetObjectItemCaseSensitive(q, "ignore");
    if (ig && !cJSON_IsNull(ig) && !string_list(ig)) pc_report(cx, "CFG-020", src, -1, "ignore is not a list of strings");
    else if (ig) c->ignore = (void *)ig;

    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
    if (groups && !cJSON_IsNull(groups) && !cJSON_IsObject(groups)) {
        pc_report(cx, "CFG-020", src, -1, "config_groups is not an object");
        return 0;
    }
    int n = cJSON_GetArraySize(groups);
    if (n <= 0) return 0;
    c->groups = calloc((size_t)n, sizeof *c->groups);
    if (!c->groups) return -1;
    const cJSON *g;
    cJSON_ArrayForEach(g, groups) parse_group(g, &c->groups[c->ngroups++], src, cx);
    return 0;
}

void ct_config_free(ct_config *c)
{
    free(c->groups);
    memset(c, 0, sizeof *c);
}

const char *ct_group_format(const ct_config *c, const ct_group *g)
{
    if (g && g->format) return g->format;
    return c->format;
}

/* ---- target matching (compressed_tensors.utils.match) ---- */

/* A pattern that cannot be translated or compiled is a CFG-029 warning and matches nothing. */
static bool regex_match(const char *pat, const char *name, const char *src, pc_ctx *cx)
{
    int m = pc_pyre_match(pat, name);
    pc_eval(cx, "CFG-029");
    pc_eval(cx, "CFG-031");
    if (m == PC_PYRE_LIMIT)
        pc_report(cx, "CFG-031", src, -1, "pattern \"re:%.80s%s\" is over the matcher's limit of %d instructions: refused, not run",
                  pat, strlen(pat) > 80 ? "..." : "", PYRE_MAX_PROG);
    else if (m < 0) pc_report(cx, "CFG-029", src, -1, "pattern \"re:%s\" uses regex syntax packcheck does not evaluate; it matches nothing", pat);
    return m == 1;
}

/* 3 = exact name, 2 = re: pattern, 1 = class name (a capitalised word without dots such as "Linear":
 * a checkpoint has no classes, so it is taken to name every packed module), 0 = no match. */
static int target_rank(const char *t, const char *name, const char *src, pc_ctx *cx)
{
    if (!strncmp(t, "re:", 3)) return regex_match(t + 3, name, src, cx) ? 2 : 0;
    if (!strcmp(t, name)) return 3;
    return !strchr(t, '.') && t[0] >= 'A' && t[0] <= 'Z' ? 1 : 0;
}

const char *ct_ignored_by(const void *list, const char *name, const char *src, pc_ctx *cx)
{
    const cJSON *x;
    int n = 0;
    cJSON_ArrayForEach(x, (const cJSON *)list) {
        if (n++ == CT_MATCH_MAX_ENTRIES) break;
        /* a class name in ignore (e.g. "Embedding") cannot be resolved without the model: only
         * names and patterns are applied. */
        if (cJSON_IsString(x) && strlen(x->valuestring) <= CT_MATCH_MAX_PATTERN &&
            target_rank(x->valuestring, name, src, cx) >= 2)
            return x->valuestring;
    }
    return NULL;
}

const ct_group *ct_config_match(const ct_config *c, const char *prefix, bool *ignored, pc_ctx *cx)
{
    *ignored = ct_ignored_by(c->ignore, prefix, c->source, cx) != NULL;
    const cJSON *x;
    const ct_group *best = NULL;
    int best_rank = 0;
    for (size_t i = 0; i < c->ngroups; i++) {
        cJSON_ArrayForEach(x, (const cJSON *)c->groups[i].targets) {
            int r = cJSON_IsString(x) ? target_rank(x->valuestring, prefix, c->source, cx) : 0;
            if (r > best_rank) { best_rank = r; best = &c->groups[i]; }
        }
    }
    return best;
}
