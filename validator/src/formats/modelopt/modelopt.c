/* Format module: NVIDIA ModelOpt exports beyond NVFP4 (nvidia-modelopt 0.47,
 * modelopt/torch/export/unified_export_hf.py _export_quantized_weight, quant_utils.py
 * to_quantized_weight / pack_int4_in_uint8 / process_layer_quant_config):
 *
 *   modelopt-fp8       quant_algo FP8 (weight_scale 0-dim), FP8_PER_CHANNEL_PER_TOKEN (weight_scale [N]),
 *                      fp8_pb_wo (weight_scale [ceil(N/128), 1, ceil(K/128), 1], 0-dim for one block):
 *                      M.weight F8_E4M3 [N, K], M.weight_scale F32, M.input_scale F32 when static.
 *   modelopt-int4-awq  quant_algo W4A16_AWQ and W4A8_AWQ: M.weight U8 [N/2, K] packed along N,
 *                      M.weight_scale [N, K/group], M.pre_quant_scale [K]; W4A8_AWQ adds
 *                      M.weight_scale_2 and M.input_scale (F32 0-dim, the FP8 stage's scales).
 *
 * The config is hf_quant_config.json {"producer": {"name": "modelopt"}, "quantization": {...}} or
 * config.json's quantization_config with quant_method "modelopt"; MIXED_PRECISION names each
 * quantized module's algorithm under quantized_layers. NVFP4 modules are formats/nvfp4's; the
 * algorithms ModelOpt writes that packcheck does not decode are named by explain. Rules: family MO. */
#include "../row_decode.h"
#include "formats/format.h"

#include "kernels.h"
#include "../ct/ct_match.h"

#include "../../core/arith.h"
#include "../../core/json_get.h"
#include "../../core/util.h"
#include "formats/diag_util.h"
#include "formats/known_schemes.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MO_WEIGHT_LIMIT (1ull << 30) /* bytes of one weight we decode */
#define MO_FP8_BLOCK 128             /* ModelOpt's FP8_2D_BLOCKWISE preset; fp8_pb_wo records no block size */

extern const pc_format pc_format_modelopt;

typedef enum mo_algo {
    MO_UNKNOWN = 0, /* not a string ModelOpt writes (MO-001) */
    MO_FP8, MO_FP8_PC, MO_FP8_PB, MO_W4A16_AWQ, MO_W4A8_AWQ,
    MO_NVFP4,       /* formats/nvfp4 */
    MO_UNDECODED,   /* written by ModelOpt, not decoded here (explain) */
    MO_MIXED
} mo_algo;

/* The quant_algo strings process_layer_quant_config writes (0.47), and the top-level values. */
static const struct { const char *name; mo_algo algo; } k_algos[] = {
    {"FP8", MO_FP8}, {"FP8_PER_CHANNEL_PER_TOKEN", MO_FP8_PC}, {"fp8_pb_wo", MO_FP8_PB},
    {"W4A16_AWQ", MO_W4A16_AWQ}, {"W4A8_AWQ", MO_W4A8_AWQ},
    {"NVFP4", MO_NVFP4}, {"W4A16_NVFP4", MO_NVFP4},
    {"NVFP4_AWQ", MO_UNDECODED}, {"W4A8_NVFP4_FP8", MO_UNDECODED}, {"W4A8_MXFP4_FP8", MO_UNDECODED},
    {"NVFP4_SVD", MO_UNDECODED}, {"MXFP8", MO_UNDECODED}, {"W8A16", MO_UNDECODED},
    {"W8A8_SQ_PER_CHANNEL", MO_UNDECODED}, {"fp8_pb_real", MO_UNDECODED}, {"mxfp4", MO_UNDECODED},
    {"MIXED_PRECISION", MO_MIXED},
};

static mo_algo algo_of(const char *s)
{
    for (size_t i = 0; i < sizeof k_algos / sizeof *k_algos; i++)
        if (!strcmp(s, k_algos[i].name)) return k_algos[i].algo;
    return MO_UNKNOWN;
}

static bool is_int4(mo_algo a) { return a == MO_W4A16_AWQ || a == MO_W4A8_AWQ; }
static bool is_fp8(mo_algo a) { return a == MO_FP8 || a == MO_FP8_PC || a == MO_FP8_PB; }

/* What the config says. */
typedef struct mo_config {
    const cJSON *q;        /* the object holding quant_algo */
    const char *where;     /* "hf_quant_config.json" or "config.json" */
    mo_algo algo;
    const cJSON *layers;   /* MIXED_PRECISION: quantized_layers */
    const cJSON *exclude;  /* exclude_modules (hf_quant_config.json) or ignore (config.json) */
} mo_config;

static bool mo_config_read(const pc_input *in, mo_config *c)
{
    memset(c, 0, sizeof *c);
    const cJSON *hf = in->sidecars[2];
    const cJSON *hq = hf ? pc_json_obj(hf, "quantization") : NULL;
    if (hq && !strcmp(pc_json_str(pc_json_obj(hf, "producer"), "name"), "modelopt")) {
        c->q = hq;
        c->where = "hf_quant_config.json";
        c->exclude = pc_json_arr(hq, "exclude_modules");
    } else if (in->qconfig && !strcmp(pc_json_str(in->qconfig, "quant_method"), "modelopt")) {
        c->q = in->qconfig;
        c->where = "config.json";
        c->exclude = pc_json_arr(in->qconfig, "ignore");
    } else {
        return false;
    }
    c->algo = algo_of(pc_json_str(c->q, "quant_algo"));
    c->layers = pc_json_obj(c->q, "quantized_layers");
    return true;
}

/* The spec naming module m: its quantized_layers entry under MIXED_PRECISION, else the top level. */
static const cJSON *layer_spec(const mo_config *c, const char *m)
{
    if (c->algo != MO_MIXED) return c->q;
    const cJSON *l = c->layers ? cJSON_GetObjectItemCaseSensitive(c->layers, m) : NULL;
    return cJSON_IsObject(l) ? l : NULL;
}

static const char *excluded_by(const mo_config *c, const char *m)
{
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, c->exclude) {
        if (n++ == CT_MATCH_MAX_ENTRIES) break;
        if (cJSON_IsString(e) && strlen(e->valuestring) <= CT_MATCH_MAX_PATTERN && fnmatch(e->valuestring, m, 0) == 0)
            return e->valuestring;
    }
    return NULL;
}

/* group_size of an AWQ spec: a positive integer. */
static bool group_of(const cJSON *spec, uint64_t *g)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(spec, "group_size");
    if (!cJSON_IsNumber(j) || j->valuedouble < 1 || j->valuedouble > 1e9 || j->valuedouble != floor(j->valuedouble)) return false;
    *g = (uint64_t)j->valuedouble;
    return true;
}

/* MO-001 on one spec (the top level, or one quantized_layers entry). config.json's top-level
 * quantization_config carries no group_size for W4A16_AWQ / W4A8_AWQ (convert_hf_config.py): then the
 * group follows from the weight_scale shape (MO-006). */
static bool check_spec(const cJSON *spec, const char *what, const char *where, bool need_group, pc_ctx *cx)
{
    const char *a = pc_json_str(spec, "quant_algo");
    mo_algo al = algo_of(a);
    uint64_t g;
    if (al == MO_UNKNOWN) {
        pc_report(cx, "MO-001", where, -1, "%s: quant_algo \"%.64s\" is not one ModelOpt writes", what, a);
        return false;
    }
    if (is_int4(al) && need_group && !group_of(spec, &g)) {
        pc_report(cx, "MO-001", where, -1, "%s: %s without a positive integer group_size", what, a);
        return false;
    }
    return true;
}

static bool check_config(const mo_config *c, pc_ctx *cx)
{
    pc_eval(cx, "MO-001");
    if (!check_spec(c->q, "quant_algo", c->where, !strcmp(c->where, "hf_quant_config.json"), cx)) return false;
    if (c->algo != MO_MIXED) return true;
    if (!c->layers) {
        pc_report(cx, "MO-001", c->where, -1, "quant_algo MIXED_PRECISION without a quantized_layers object");
        return false;
    }
    const cJSON *l;
    bool ok = true;
    cJSON_ArrayForEach(l, c->layers) ok = check_spec(l, l->string, c->where, true, cx) && ok;
    return ok;
}

/* ---- tensors ---- */

static const pc_tensor *part(const pc_input *in, const char *m, const char *suffix) { return pc_input_find_part(in, m, suffix); }

/* The scheme a module's tensors show (what a loader sees), whatever the config says. */
static mo_algo shown(const pc_input *in, const char *m, const pc_tensor *w)
{
    const pc_tensor *s = part(in, m, ".weight_scale");
    if (w->dtype == PC_DT_F8_E4M3) return MO_FP8;
    if (w->dtype != PC_DT_U8) return MO_UNKNOWN;
    if (s && s->dtype == PC_DT_F8_E4M3) return MO_NVFP4;
    return part(in, m, ".weight_scale_2") || part(in, m, ".input_scale") ? MO_W4A8_AWQ : MO_W4A16_AWQ;
}

static bool quantized(const pc_input *in, const char *m, const pc_tensor *w)
{
    return w->dtype == PC_DT_F8_E4M3 || w->dtype == PC_DT_U8 || part(in, m, ".weight_scale") != NULL;
}

static bool float_dtype(pc_dtype d) { return d == PC_DT_F32 || d == PC_DT_BF16 || d == PC_DT_F16; }

/* MO-004 (and the caller's rule for a scalar): every value of a float tensor finite and > 0. */
static bool positive_values(const pc_tensor *t, const char *rule, const char *what, pc_ctx *cx)
{
    float *v = pc_diag_load_floats(t);
    if (!v) {
        pc_report(cx, rule, t->name, (int64_t)t->offset, "%s: %s of %llu elements could not be read as floats", what,
                  pc_dtype_name(t->dtype), (unsigned long long)t->numel);
        return false;
    }
    bool ok = true;
    for (uint64_t i = 0; i < t->numel && ok; i++)
        if (!isfinite(v[i]) || !(v[i] > 0)) {
            pc_report(cx, rule, t->name, (int64_t)(t->offset + i * (pc_dtype_bits(t->dtype) / 8)),
                      "%s element %llu is %g: ModelOpt's scales are finite and positive", what, (unsigned long long)i, (double)v[i]);
            ok = false;
        }
    free(v);
    return ok;
}

static bool is_scalar(const pc_tensor *t) { return t->ndim == 0 || (t->ndim == 1 && t->shape[0] == 1); }

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* The decodable description of one module. */
typedef struct mo_module {
    mo_algo algo;
    const pc_tensor *w, *scale;
    uint64_t rows, cols;
    uint64_t bh, bw;   /* FP8: element (n, k) uses scale[(n / bh) * ceil(cols / bw) + k / bw] */
    uint64_t group;    /* INT4 */
} mo_module;

/* MO-003: the FP8 weight_scale's shape for the algorithm; fills the grid. */
static bool check_fp8_scale(const pc_tensor *s, mo_module *d, pc_ctx *cx)
{
    uint64_t N = d->rows, K = d->cols, gr = ceil_div(N, MO_FP8_BLOCK), gc = ceil_div(K, MO_FP8_BLOCK);
    bool ok = s->dtype == PC_DT_F32;
    if (d->algo == MO_FP8) { ok = ok && is_scalar(s); d->bh = N; d->bw = K; }
    else if (d->algo == MO_FP8_PC) { ok = ok && s->ndim == 1 && s->shape[0] == N; d->bh = 1; d->bw = K; }
    else {
        d->bh = d->bw = MO_FP8_BLOCK;
        ok = ok && ((s->ndim == 0 && gr == 1 && gc == 1) ||
                    (s->ndim == 4 && s->shape[0] == gr && s->shape[1] == 1 && s->shape[2] == gc && s->shape[3] == 1));
    }
    if (!ok)
        pc_report(cx, "MO-003", s->name, (int64_t)s->offset,
                  "weight_scale is %s of rank %d (first dims %llu, %llu); %s wants F32 %s (N = %llu, K = %llu)", pc_dtype_name(s->dtype), s->ndim,
                  (unsigned long long)(s->ndim > 0 ? s->shape[0] : 0), (unsigned long long)(s->ndim > 1 ? s->shape[1] : 0),
                  d->algo == MO_FP8 ? "FP8" : d->algo == MO_FP8_PC ? "FP8_PER_CHANNEL_PER_TOKEN" : "fp8_pb_wo",
                  d->algo == MO_FP8 ? "0-dim" : d->algo == MO_FP8_PC ? "[N]" : "[ceil(N/128), 1, ceil(K/128), 1] (0-dim for one block)",
                  (unsigned long long)N, (unsigned long long)K);
    return ok;
}

static bool check_pre_quant(const pc_input *in, const char *m, uint64_t K, pc_ctx *cx);

static bool check_fp8(const pc_input *in, const char *m, const pc_tensor *w, mo_module *d, pc_ctx *cx)
{
    if (w->dtype != PC_DT_F8_E4M3 || w->ndim != 2 || !w->shape[0] || !w->shape[1]) {
        pc_report(cx, "MO-002", w->name, (int64_t)w->offset, "weight is %s of rank %d; ModelOpt FP8 stores F8_E4M3 [N, K]",
                  pc_dtype_name(w->dtype), w->ndim);
        return false;
    }
    d->rows = w->shape[0];
    d->cols = w->shape[1];
    const pc_tensor *s = part(in, m, ".weight_scale"), *is = part(in, m, ".input_scale");
    if (!s) { pc_report(cx, "MO-003", m, -1, "%s.weight_scale is missing", m); return false; }
    if (!check_fp8_scale(s, d, cx)) return false;
    d->scale = s;
    bool ok = positive_values(s, "MO-004", "weight_scale", cx);
    if (is && (!is_scalar(is) || is->dtype != PC_DT_F32)) {
        pc_report(cx, "MO-004", is->name, (int64_t)is->offset, "input_scale is %s of rank %d, not F32 0-dim", pc_dtype_name(is->dtype), is->ndim);
        ok = false;
    } else if (is) {
        ok = positive_values(is, "MO-004", "input_scale", cx) && ok;
    }
    return check_pre_quant(in, m, d->cols, cx) && ok;
}

/* MO-007: pre_quant_scale, when present, is a float [K], finite and positive
 * (get_prequant_scaling_factor asserts > 0). Its absence is legal whatever the config's
 * pre_quant_scale flag says: the exporter folds it into the preceding norm where one feeds the
 * module (quant_utils.py fuse_prequant_layernorm: q/k/v, gate/up) and keeps it elsewhere. */
static bool check_pre_quant(const pc_input *in, const char *m, uint64_t K, pc_ctx *cx)
{
    const pc_tensor *p = part(in, m, ".pre_quant_scale");
    if (!p) return true;
    if (!float_dtype(p->dtype) || p->ndim != 1 || p->shape[0] != K) {
        pc_report(cx, "MO-007", p->name, (int64_t)p->offset, "pre_quant_scale is %s of rank %d, expected a float [%llu]",
                  pc_dtype_name(p->dtype), p->ndim, (unsigned long long)K);
        return false;
    }
    return positive_values(p, "MO-007", "pre_quant_scale", cx);
}

/* MO-008: W4A8_AWQ's FP8 stage: weight_scale_2 and input_scale, F32 0-dim, finite and positive. */
static bool check_w4a8(const pc_input *in, const char *m, pc_ctx *cx)
{
    static const char *const k[] = {".weight_scale_2", ".input_scale"};
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        const pc_tensor *t = part(in, m, k[i]);
        if (!t) { pc_report(cx, "MO-008", m, -1, "%s%s is missing under W4A8_AWQ", m, k[i]); ok = false; }
        else if (t->dtype != PC_DT_F32 || !is_scalar(t)) {
            pc_report(cx, "MO-008", t->name, (int64_t)t->offset, "%s is %s of rank %d, not F32 0-dim", k[i] + 1, pc_dtype_name(t->dtype), t->ndim);
            ok = false;
        } else {
            ok = positive_values(t, "MO-008", k[i] + 1, cx) && ok;
        }
    }
    return ok;
}

static bool check_int4(const pc_input *in, const char *m, const pc_tensor *w, const cJSON *spec, mo_module *d, pc_ctx *cx)
{
    uint64_t g = 0, N;
    const pc_tensor *s = part(in, m, ".weight_scale");
    if (!group_of(spec, &g)) /* config.json's top level names none: K / the scale's columns */
        g = s && s->ndim == 2 && s->shape[1] && w->ndim == 2 && w->shape[1] % s->shape[1] == 0 ? w->shape[1] / s->shape[1] : 0;
    if (!g) {
        pc_report(cx, "MO-006", s ? s->name : m, s ? (int64_t)s->offset : -1,
                  "no group_size in the config and weight_scale's shape does not divide K into groups");
        return false;
    }
    if (w->dtype != PC_DT_U8 || w->ndim != 2 || !w->shape[0] || !w->shape[1] || w->shape[1] % g ||
        !pc_mul_u64(w->shape[0], 2, &N)) {
        pc_report(cx, "MO-005", w->name, (int64_t)w->offset,
                  "weight is %s of rank %d (last dim %llu); INT4 AWQ stores U8 [N/2, K] with K a multiple of group_size %llu",
                  pc_dtype_name(w->dtype), w->ndim, (unsigned long long)(w->ndim ? w->shape[w->ndim - 1] : 0), (unsigned long long)g);
        return false;
    }
    d->rows = N;
    d->cols = w->shape[1];
    d->group = g;
    if (!s || !float_dtype(s->dtype) || s->ndim != 2 || s->shape[0] != N || s->shape[1] != d->cols / g) {
        pc_report(cx, "MO-006", s ? s->name : m, s ? (int64_t)s->offset : -1, "weight_scale %s; expected a float [%llu, %llu]",
                  s ? "has another dtype or shape" : "is missing", (unsigned long long)N, (unsigned long long)(d->cols / g));
        return false;
    }
    d->scale = s;
    bool ok = positive_values(s, "MO-004", "weight_scale", cx);
    ok = check_pre_quant(in, m, d->cols, cx) && ok;
    if (d->algo == MO_W4A8_AWQ) ok = check_w4a8(in, m, cx) && ok;
    return ok;
}

static const char *const k_layout_fp8 = "modelopt-fp8", *const k_layout_int4 = "modelopt-int4-awq";

static void add_module(pc_input *in, const char *m, const mo_module *d, pc_ctx *cx)
{
    const char *layout = is_fp8(d->algo) ? k_layout_fp8 : k_layout_int4;
    pc_module *pm = pc_module_add_with(in, &pc_format_modelopt, m, layout, d, sizeof *d, cx);
    if (!pm) return;
    /* N * K: the stored weight's byte count (fp8) or twice it (int4), so it fits */
    pc_module_set_matrix(pm, d->rows, d->cols, is_fp8(d->algo) ? 8 : 4);
    pc_module_claim_parts(in, &pc_format_modelopt, m, layout);
}

/* MO-010 under MIXED_PRECISION: the module is listed and its tensors show the listed scheme. */
static bool check_listed(const mo_config *c, const char *m, const pc_tensor *w, mo_algo shows, mo_algo spec_algo, pc_ctx *cx)
{
    if (c->algo != MO_MIXED) return true;
    if (spec_algo == MO_UNKNOWN) {
        pc_report(cx, "MO-010", w->name, (int64_t)w->offset, "module %s holds quantized tensors but quantized_layers does not list it", m);
        return false;
    }
    bool agree = (is_fp8(spec_algo) && shows == MO_FP8) || (is_int4(spec_algo) && is_int4(shows)) ||
                 (spec_algo == MO_NVFP4 && shows == MO_NVFP4) || spec_algo == MO_UNDECODED;
    if (!agree)
        pc_report(cx, "MO-010", w->name, (int64_t)w->offset, "quantized_layers names %s %s, but its tensors are %s (weight %s)", m,
                  pc_json_str(layer_spec(c, m), "quant_algo"), shows == MO_FP8 ? "FP8" : shows == MO_NVFP4 ? "NVFP4" : "INT4 AWQ",
                  pc_dtype_name(w->dtype));
    return agree;
}

static void check_module(pc_input *in, const mo_config *c, const char *m, const pc_tensor *w, pc_ctx *cx)
{
    const cJSON *spec = layer_spec(c, m);
    mo_algo a = spec ? algo_of(pc_json_str(spec, "quant_algo")) : MO_UNKNOWN, shows = shown(in, m, w);
    if (shows == MO_NVFP4 && a == MO_NVFP4) return; /* formats/nvfp4's (NV-009 for exclusions) */
    const char *ex = excluded_by(c, m);
    if (ex) {
        pc_report(cx, "MO-009", w->name, (int64_t)w->offset, "module %s is excluded by %s entry \"%s\" yet holds quantized tensors", m,
                  c->where, ex);
        return;
    }
    if (!check_listed(c, m, w, shows, a, cx)) return;
    if (!is_fp8(a) && !is_int4(a)) return; /* NVFP4 (formats/nvfp4) or not decoded here (explain) */
    if (a == MO_W4A16_AWQ && c->algo == MO_MIXED && shows == MO_W4A8_AWQ) a = MO_W4A8_AWQ;
    mo_module d = {.algo = a, .w = w};
    bool ok = is_fp8(a) ? check_fp8(in, m, w, &d, cx) : check_int4(in, m, w, spec, &d, cx);
    if (ok) add_module(in, m, &d, cx);
}

static void modelopt_check(pc_input *in, pc_ctx *cx)
{
    mo_config c;
    if (!mo_config_read(in, &c) || !check_config(&c, cx)) return;
    static const char *const rules[] = {"MO-002", "MO-003", "MO-004", "MO-005", "MO-006", "MO-007", "MO-008", "MO-009", "MO-010"};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) pc_eval(cx, rules[i]);
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        const pc_tensor *w = &in->tensors[i];
        size_t n = strlen(w->name);
        if (n <= 7 || strcmp(w->name + n - 7, ".weight")) continue;
        char *m = pc_strndup(w->name, n - 7);
        if (!m) { cx->oom = true; return; }
        if (quantized(in, m, w)) check_module(in, &c, m, w, cx);
        free(m);
    }
}

static bool modelopt_detect(const pc_input *in)
{
    mo_config c;
    return mo_config_read(in, &c);
}

/* ---- decoding (CONTRACT 3) ---- */

static int decode_fp8(const mo_module *d, pc_impl impl, const uint8_t *w, uint8_t *codes, float *weights, pc_ctx *cx)
{
    size_t n = (size_t)(d->rows * d->cols);
    if (codes) memcpy(codes, w, n);
    if (!weights) return 0;
    float *s = pc_diag_load_floats(d->scale);
    if (!s) { pc_io_error(cx, "%s: cannot read the scales", d->scale->name); return -1; }
    pc_fp8_dequant(impl)(w, (size_t)d->rows, (size_t)d->cols, (size_t)d->bh, (size_t)d->bw, s, weights);
    free(s);
    return 0;
}

static int decode_int4(const mo_module *d, pc_impl impl, const uint8_t *w, uint8_t *codes, float *weights, pc_ctx *cx)
{
    if (codes) pc_mo_int4_unpack(impl)(w, (size_t)d->rows, (size_t)d->cols, codes);
    if (!weights) return 0;
    float *s = pc_diag_load_floats(d->scale);
    if (!s) { pc_io_error(cx, "%s: cannot read the scales", d->scale->name); return -1; }
    pc_mo_int4_dequant(impl)(w, (size_t)d->rows, (size_t)d->cols, (size_t)d->group, s, weights);
    free(s);
    return 0;
}

static int modelopt_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mo_module *d = m->priv;
    uint8_t *w = pc_tensor_load(d->w, MO_WEIGHT_LIMIT);
    if (!w) { pc_io_error(cx, "%s: cannot read %llu bytes", d->w->name, (unsigned long long)d->w->nbytes); return -1; }
    int rc = is_fp8(d->algo) ? decode_fp8(d, impl, w, codes, weights, cx) : decode_int4(d, impl, w, codes, weights, cx);
    free(w);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* The scales, loaded once per module, and a read buffer. FP8: rows are runs of bytes against the
 * block grid (row_decode.h). INT4 AWQ packs row pairs (byte (j, k) holds rows 2j and 2j + 1), so a
 * slice that starts or ends on an odd row decodes that edge pair into a two-row scratch and keeps
 * its row; whole pairs go straight to the output, with the same kernels as the whole decode. */
typedef struct mo_rows {
    float *s;
    uint8_t *buf;    /* packed bytes, then the edge pair's codes and weights */
    size_t cap;
} mo_rows;

static void mo_rows_free(void *p)
{
    mo_rows *r = p;
    if (r) { free(r->s); free(r->buf); }
    free(r);
}

/* Pairs [j, j + np) (packed rows at p) into rows [2j, 2j + 2np): codes and weights (either NULL). */
static void mo_int4_pairs(const mo_module *d, const mo_rows *st, pc_impl impl, uint64_t j, uint64_t np, const uint8_t *p,
                          uint8_t *codes, float *w)
{
    size_t K = (size_t)d->cols;
    if (codes) pc_mo_int4_unpack(impl)(p, (size_t)(2 * np), K, codes);
    if (w) pc_mo_int4_dequant(impl)(p, (size_t)(2 * np), K, (size_t)d->group, st->s + 2 * j * (K / d->group), w);
}

/* Rows [r0, r0 + n) from packed rows [r0 / 2, ...) at p. */
static void mo_int4_rows(const mo_module *d, mo_rows *st, pc_impl impl, uint64_t r0, uint64_t n, const uint8_t *p,
                         uint8_t *scratch, uint8_t *codes, float *w)
{
    size_t K = (size_t)d->cols;
    uint8_t *sc = scratch;
    float *sw = (float *)(void *)(scratch + (2 * K + 7) / 8 * 8); /* 2K codes, then 2K f32 (scratch is 8-aligned) */
    uint64_t j = r0 / 2, out = 0;
    if (r0 % 2) { /* the head: row 2j + 1 of pair j */
        mo_int4_pairs(d, st, impl, j, 1, p, codes ? sc : NULL, w ? sw : NULL);
        if (codes) memcpy(codes, sc + K, K);
        if (w) memcpy(w, sw + K, K * sizeof *w);
        out = 1, j++, p += K;
    }
    uint64_t whole = (n - out) / 2;
    mo_int4_pairs(d, st, impl, j, whole, p, codes ? codes + out * K : NULL, w ? w + out * K : NULL);
    out += 2 * whole, j += whole, p += whole * K;
    if (out < n) { /* the tail: row 2j of pair j */
        mo_int4_pairs(d, st, impl, j, 1, p, codes ? sc : NULL, w ? sw : NULL);
        if (codes) memcpy(codes + out * K, sc, K);
        if (w) memcpy(w + out * K, sw, K * sizeof *w);
    }
}

static int modelopt_decode_rows(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                                uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mo_module *d = m->priv;
    mo_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (m->numel != d->rows * d->cols) { pc_io_error(cx, "%s: the view is not rows x cols", m->prefix); return -1; }
    if (weights && !st->s && !(st->s = pc_diag_load_floats(d->scale))) { pc_io_error(cx, "%s: cannot read the scales", d->scale->name); return -1; }
    size_t K = (size_t)d->cols;
    bool fp8 = is_fp8(d->algo);
    uint64_t p0 = fp8 ? r0 : r0 / 2, p1 = fp8 ? r0 + n : (r0 + n + 1) / 2; /* stored rows covering the slice */
    size_t bytes = (size_t)((p1 - p0) * K), at = (bytes + 7) / 8 * 8, scratch = fp8 ? 0 : (2 * K + 7) / 8 * 8 + 2 * K * sizeof(float);
    if (!pc_rows_buf(&st->buf, &st->cap, at + scratch, cx)) return -1; /* malloc'd: 8-aligned */
    if (pc_tensor_read(d->w, p0 * K, st->buf, bytes)) { pc_io_error(cx, "%s: cannot read", d->w->name); return -1; }
    if (!fp8) {
        mo_int4_rows(d, st, impl, r0, n, st->buf, st->buf + at, codes, weights);
        return 0;
    }
    if (codes) memcpy(codes, st->buf, bytes);
    if (weights) pc_grid_rows(impl, false, st->buf, r0, n, K, (size_t)d->bh, (size_t)d->bw, st->s, NULL, weights);
    return 0;
}

/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* INT4 AWQ pairs rows along N: element (n, k) shares its byte with (n ^ 1, k). */
static int64_t int4_nibble_partner(const pc_diag_layout *l, uint64_t N, uint64_t K, uint64_t e, uint64_t n, uint64_t k)
{
    (void)l; (void)e;
    return (n ^ 1) < N ? (int64_t)((n ^ 1) * K + k) : -1;
}

static float int4_affine(uint8_t q, float s, float b, int t)
{
    (void)b; (void)t;
    return (float)(q >= 8 ? (int)q - 16 : (int)q) * s;
}

/* Per element: the scale of the contract, and for blocks the grid read transposed. ModelOpt's
 * scales multiply; a reader may divide (its own INT4QTensor.dequantize divides by its scale). */
static int mo_diag_fill(const mo_module *d, const pc_module *pm, pc_diag_params *p)
{
    float *sc = pc_diag_load_floats(d->scale);
    if (!sc) { snprintf(p->note, sizeof p->note, "ModelOpt scales unreadable"); return 1; }
    bool block = d->algo == MO_FP8_PB && d->scale->numel > 1;
    int rc = pc_diag_alloc(p, (size_t)pm->numel, block ? PC_ALT_GRID_T : -1);
    if (!rc && is_int4(d->algo) && !(p->bias = calloc((size_t)pm->numel, sizeof *p->bias))) rc = -1; /* no zero point */
    uint64_t K = d->cols, gr = ceil_div(d->rows, MO_FP8_BLOCK), gc = ceil_div(d->cols, MO_FP8_BLOCK);
    for (size_t i = 0; !rc && i < pm->numel; i++) {
        uint64_t n = i / K, k = i % K;
        if (is_int4(d->algo)) p->s[i] = sc[n * (K / d->group) + k / d->group];
        else if (d->algo == MO_FP8_PC) p->s[i] = sc[n];
        else if (!block) p->s[i] = sc[0];
        else {
            p->s[i] = sc[(n / MO_FP8_BLOCK) * gc + k / MO_FP8_BLOCK];
            p->alt_s[PC_ALT_GRID_T][i] = (k / MO_FP8_BLOCK) < gr && (n / MO_FP8_BLOCK) < gc ? sc[(k / MO_FP8_BLOCK) * gc + n / MO_FP8_BLOCK] : p->s[i];
        }
    }
    free(sc);
    return rc;
}

static int mo_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    (void)in;
    const mo_module *d = pm->priv;
    p->lay = (pc_diag_layout){.scale_divided = true};
    if (d && is_int4(d->algo)) {
        p->lay.nibble = PC_NIB_FORMAT;
        p->lay.nibble_partner = int4_nibble_partner;
        p->kind = PC_DIAG_AFFINE;
        p->affine = int4_affine;
    } else {
        p->kind = PC_DIAG_E4M3;
    }
    return want && d ? mo_diag_fill(d, pm, p) : 0;
}

/* A quantized tensor of a module the config gives an algorithm packcheck does not decode. */
static bool modelopt_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    static const char *const k_sfx[] = {"weight", "weight_scale", "weight_scale_2", "input_scale", "pre_quant_scale", NULL};
    mo_config c;
    char m[1024];
    if (!mo_config_read(in, &c) || !pc_split_suffix(t->name, k_sfx, m, sizeof m)) return false;
    const pc_tensor *w = part(in, m, ".weight");
    if (!w || !quantized(in, m, w)) return false; /* a norm or an embedding: plain */
    const cJSON *spec = layer_spec(&c, m);
    const char *a = spec ? pc_json_str(spec, "quant_algo") : "";
    if (algo_of(a) != MO_UNDECODED) return false;
    snprintf(e->scheme, sizeof e->scheme, "ModelOpt %.64s", a);
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

extern const pc_bench_entry pc_modelopt_bench[]; /* modelopt_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES},
    {".weight_scale", PC_PART_COMPANION},
    {".weight_scale_2", PC_PART_COMPANION},
    {".input_scale", PC_PART_COMPANION},
    {".pre_quant_scale", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_modelopt = {.parts = k_format_parts, .name = "modelopt", .detect = modelopt_detect,
                                      .check = modelopt_check, .decode = modelopt_decode, .decode_rows = modelopt_decode_rows, .decode_rows_free = mo_rows_free, .module_free = free,
                                      .explain = modelopt_explain, .diag_params = mo_diag_params, .bench = pc_modelopt_bench};
