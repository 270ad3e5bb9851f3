/* Format module: AMD Quark (amd-quark 0.13, `quant_method: quark`; rules: family QK).
 *
 * config.json's quantization_config (quark/torch/export/main_export/quant_config_parser.py) holds
 * global_quant_config, layer_quant_config {pattern: spec}, layer_type_quant_config, exclude [names or
 * patterns] and export.pack_method ("order" | "reorder"). The spec of a module M is Quark's
 * (quark/torch/quantization/model_transformation.py, the per-module config lookup): M excluded when
 * it equals an exclude entry or fnmatch-es one; else the layer_quant_config entry named exactly M,
 * else the first pattern (in the file's order) M fnmatch-es; else global_quant_config. Its weight
 * spec's dtype / qscheme / group_size say how M.weight is stored (QParamsLinear, realquantizer.py):
 *   fp4, fp6_e2m3, fp6_e3m2  per_group 32, scale_format e8m0: M.weight U8 [N, K*b/8] (kernels.h),
 *                            M.weight_scale U8 [N, ceil(K/32)] E8M0 bytes.
 *   fp8_e4m3                 per_tensor or per_channel: M.weight F8_E4M3 [N, K], M.weight_scale a
 *                            float scalar or [N].
 *   int4, uint4              per_group g: M.weight I32 [K, ceil(N/8)] (transposed, 8 nibbles a word,
 *                            slot order by pack_method), M.weight_scale float [K/g, N],
 *                            M.weight_zero_point I32 [K/g, ceil(N/8)] packed alike.
 * Logical view (CONTRACT 3): [N, K]; codes as stored (E2M1 nibble, FP6 6-bit field, E4M3 byte,
 * int4 nibble); weights as Quark's StaticScaledRealQuantizer.forward dequantises them (kernels.h). */
#include "formats/format.h"

#include "core/arith.h"
#include "core/json_get.h"
#include "core/scan.h"
#include "core/util.h"
#include "formats/qlinear.h"
#include "formats/ql_strip.h"
#include "formats/row_decode.h"
#include "kernels.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_quark;

#define QK_LIMIT (1ull << 30)

typedef enum { QK_NONE, QK_MX, QK_FP8, QK_INT4, QK_OTHER } qk_kind;

typedef struct qk_spec {
    qk_kind kind;
    pc_qk_elem elem;  /* QK_MX */
    bool is_signed;   /* QK_INT4: int4 (true) or uint4 */
    bool per_channel; /* QK_FP8 */
    uint64_t group;   /* QK_INT4 */
    char dtype[24];   /* as the spec names it */
} qk_spec;

typedef struct qk_mod {
    qk_spec sp;
    const pc_tensor *w, *s, *z;
    uint64_t N, K;
    bool reorder;
} qk_mod;

static const char *const k_layout[] = {[QK_MX] = "quark-mx", [QK_FP8] = "quark-fp8", [QK_INT4] = "quark-int4"};

static const cJSON *qk_config(const pc_input *in)
{
    const cJSON *q = in->qconfig;
    return q && !strcmp(pc_json_str(q, "quant_method"), "quark") ? q : NULL;
}

static bool qk_detect(const pc_input *in) { return qk_config(in) != NULL; }

/* Python's fnmatch.fnmatch on POSIX: '*' crosses dots, a backslash is an ordinary character. */
static bool qk_fnmatch(const char *pattern, const char *name) { return fnmatch(pattern, name, FNM_NOESCAPE) == 0; }

static bool excluded(const cJSON *q, const char *m)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, pc_json_arr(q, "exclude"))
        if (cJSON_IsString(e) && (!strcmp(e->valuestring, m) || qk_fnmatch(e->valuestring, m))) return true;
    return false;
}

/* The layer config that names M (exact key first, then the first matching pattern), else NULL;
 * *key the pattern that matched. */
static const cJSON *layer_config(const cJSON *q, const char *m, const char **key)
{
    const cJSON *lq = pc_json_obj(q, "layer_quant_config"), *e;
    const cJSON *exact = lq ? cJSON_GetObjectItemCaseSensitive(lq, m) : NULL;
    if (cJSON_IsObject(exact)) { *key = exact->string; return exact; }
    cJSON_ArrayForEach(e, lq)
        if (cJSON_IsObject(e) && e->string && qk_fnmatch(e->string, m)) { *key = e->string; return e; }
    return NULL;
}

static bool type_configs(const cJSON *q)
{
    const cJSON *t = pc_json_obj(q, "layer_type_quant_config");
    return t && t->child;
}

/* The spec of one weight config object (NULL or JSON null: not quantized). */
static qk_spec weight_spec(const cJSON *w)
{
    qk_spec s = {0};
    if (!cJSON_IsObject(w)) return s;
    const char *dt = pc_json_str(w, "dtype");
    if (!strcmp(dt, "mx")) dt = pc_json_str(w, "mx_element_dtype"); /* the older spelling of an MX spec */
    snprintf(s.dtype, sizeof s.dtype, "%s", dt);
    s.kind = QK_OTHER;
    if (!strcmp(dt, "fp4")) { s.kind = QK_MX; s.elem = PC_QK_FP4; }
    else if (!strcmp(dt, "fp6_e2m3")) { s.kind = QK_MX; s.elem = PC_QK_E2M3; }
    else if (!strcmp(dt, "fp6_e3m2")) { s.kind = QK_MX; s.elem = PC_QK_E3M2; }
    else if (!strcmp(dt, "fp8_e4m3")) { s.kind = QK_FP8; s.per_channel = !strcmp(pc_json_str(w, "qscheme"), "per_channel"); }
    else if (!strcmp(dt, "int4") || !strcmp(dt, "uint4")) { s.kind = QK_INT4; s.is_signed = dt[0] == 'i'; }
    s.group = (uint64_t)pc_json_num(w, "group_size", 0);
    return s;
}

/* QK-001: a spec of a dtype this module decodes is one Quark writes that way. */
static bool spec_consistent(const cJSON *w, const qk_spec *s, const char *where, pc_ctx *cx)
{
    const char *qs = pc_json_str(w, "qscheme");
    double g = pc_json_num(w, "group_size", 0), ax = pc_json_num(w, "ch_axis", -1);
    if (s->kind == QK_MX && (strcmp(qs, "per_group") || g != 32 || strcmp(pc_json_str(w, "scale_format"), "e8m0"))) {
        pc_report(cx, "QK-001", "config.json", -1, "%s: a %s spec wants qscheme per_group, group_size 32, scale_format e8m0 (OCP MX); found %s, %g, \"%s\"",
                  where, s->dtype, qs, g, pc_json_str(w, "scale_format"));
        return false;
    }
    if (s->kind == QK_FP8 && strcmp(qs, "per_tensor") && (strcmp(qs, "per_channel") || ax != 0)) {
        pc_report(cx, "QK-001", "config.json", -1, "%s: fp8_e4m3 weights are per_tensor or per_channel along ch_axis 0 here; found %s", where, qs);
        return false;
    }
    if (s->kind == QK_INT4 && (strcmp(qs, "per_group") || g < 1 || g > (1u << 20) || (ax != -1 && ax != 1))) {
        pc_report(cx, "QK-001", "config.json", -1, "%s: %s weights are per_group along ch_axis -1 with a positive group_size; found %s, %g, %g",
                  where, s->dtype, qs, g, ax);
        return false;
    }
    return true;
}

static void check_config(const cJSON *q, pc_ctx *cx)
{
    pc_eval(cx, "QK-001");
    const cJSON *ex = pc_json_obj(q, "export"), *e;
    const char *pm = ex ? pc_json_str(ex, "pack_method") : "reorder";
    if (strcmp(pm, "order") && strcmp(pm, "reorder"))
        pc_report(cx, "QK-001", "config.json", -1, "export.pack_method \"%s\": Quark packs \"order\" or \"reorder\"", pm);
    const cJSON *gw = pc_json_obj(pc_json_obj(q, "global_quant_config"), "weight");
    qk_spec s = weight_spec(gw);
    spec_consistent(gw, &s, "global_quant_config", cx);
    cJSON_ArrayForEach(e, pc_json_obj(q, "layer_quant_config")) {
        const cJSON *w = pc_json_obj(e, "weight");
        s = weight_spec(w);
        char where[160];
        snprintf(where, sizeof where, "layer_quant_config \"%.120s\"", e->string ? e->string : "?");
        spec_consistent(w, &s, where, cx);
    }
}

static const char *scheme_name(const qk_spec *s)
{
    switch (s->kind) {
    case QK_MX: return s->elem == PC_QK_FP4 ? "MXFP4" : s->elem == PC_QK_E2M3 ? "MXFP6 E2M3" : "MXFP6 E3M2";
    case QK_FP8: return "FP8 E4M3";
    case QK_INT4: return "int4 per-group";
    case QK_NONE: return "unquantized";
    default: return s->dtype;
    }
}

/* What M's tensors show, read from dtypes alone (for the QK-002 message). */
static const char *shown_scheme(const pc_tensor *w, const pc_tensor *s)
{
    if (w->dtype == PC_DT_F8_E4M3) return "FP8 E4M3";
    if (w->dtype == PC_DT_I32) return "int4 words";
    if (w->dtype == PC_DT_U8 && s && (s->dtype == PC_DT_U8 || s->dtype == PC_DT_F8_E8M0)) return "MX (U8 codes, E8M0 scales)";
    return pc_dtype_name(w->dtype);
}

static bool dims2(const pc_tensor *t, uint64_t a, uint64_t b) { return t && t->ndim == 2 && t->shape[0] == a && t->shape[1] == b; }

/* QK-002 for an MX spec: U8 [N, K*b/8] codes, [N, ceil(K/32)] E8M0 bytes. */
static bool shape_mx(qk_mod *m)
{
    const pc_tensor *w = m->w, *s = m->s;
    if (w->dtype != PC_DT_U8 || w->ndim != 2 || !s || (s->dtype != PC_DT_U8 && s->dtype != PC_DT_F8_E8M0) || s->ndim != 2)
        return false;
    m->N = w->shape[0];
    uint64_t P = w->shape[1];
    if (m->sp.elem == PC_QK_FP4) m->K = P * 2;
    else if (P % 3) return false;
    else m->K = P / 3 * 4;
    return m->N && m->K && dims2(s, m->N, (m->K + 31) / 32);
}

static bool shape_fp8(qk_mod *m)
{
    const pc_tensor *w = m->w, *s = m->s;
    if (w->dtype != PC_DT_F8_E4M3 || w->ndim != 2 || !s || !ql_float_dtype(s->dtype)) return false;
    m->N = w->shape[0];
    m->K = w->shape[1];
    return m->sp.per_channel ? s->numel == m->N && s->ndim == 1 : s->numel == 1 && s->ndim <= 1;
}

static bool shape_int4(qk_mod *m)
{
    const pc_tensor *w = m->w, *s = m->s, *z = m->z;
    if (w->dtype != PC_DT_I32 || w->ndim != 2 || !s || !ql_float_dtype(s->dtype) || s->ndim != 2 || !z || z->dtype != PC_DT_I32)
        return false;
    m->K = w->shape[0];
    m->N = s->shape[1];
    uint64_t W = (m->N + 7) / 8, G = s->shape[0];
    return m->N && m->K && w->shape[1] == W && G && m->K % m->sp.group == 0 && m->K / m->sp.group == G && dims2(z, G, W);
}

static bool shapes_agree(qk_mod *m)
{
    switch (m->sp.kind) {
    case QK_MX: return shape_mx(m);
    case QK_FP8: return shape_fp8(m);
    case QK_INT4: return shape_int4(m);
    default: return false;
    }
}

static bool is_float(const pc_tensor *t) { return t && (ql_float_dtype(t->dtype) || t->dtype == PC_DT_F64); }

/* QK-003: an excluded (or unquantized) module holds what its own format says: a float weight with no
 * Quark companions. An FP8 weight beside weight_scale_inv is a kept block-FP8 layer, the fp8 format's. */
static void check_excluded(pc_input *in, const char *prefix, const pc_tensor *w, const char *why, pc_ctx *cx)
{
    const pc_tensor *s = pc_input_find_part(in, prefix, ".weight_scale"), *z = pc_input_find_part(in, prefix, ".weight_zero_point");
    if (w->dtype == PC_DT_F8_E4M3 && pc_input_find_part(in, prefix, ".weight_scale_inv") && !s) return;
    pc_eval(cx, "QK-003");
    if (is_float(w) && !s && !z) return;
    pc_report(cx, "QK-003", w->name, (int64_t)w->offset,
              "%s is %s, so its weight is what its own format says (a float weight, or block FP8 with weight_scale_inv); found %s%s%s",
              prefix, why, pc_dtype_name(w->dtype), s ? " beside weight_scale" : "", z ? " beside weight_zero_point" : "");
}

/* QK-004 / QK-005: the data rules of a module whose tensors agree with its spec. */
static bool data_rules(pc_input *in, const qk_mod *m, pc_ctx *cx)
{
    int rc = 0;
    if (m->sp.kind == QK_MX) {
        pc_eval(cx, "QK-004");
        rc = pc_scan_ints_in_range(in, cx, m->s, "QK-004", 0, 254);
    } else {
        pc_eval(cx, "QK-005");
        rc = pc_scan_floats_finite(in, cx, m->s, "QK-005", false);
    }
    if (rc) cx->oom = true;
    return rc == 0;
}

static void add_module(pc_input *in, const char *prefix, const qk_mod *m, pc_ctx *cx)
{
    const char *layout = k_layout[m->sp.kind];
    qk_mod *priv = malloc(sizeof *priv);
    pc_module *pm = priv ? pc_module_add(in, &pc_format_quark, prefix, layout) : NULL;
    if (!pm) { free(priv); cx->oom = true; return; }
    *priv = *m;
    pm->ndim = 2;
    pm->shape[0] = m->N;
    pm->shape[1] = m->K;
    pm->numel = m->N * m->K;
    pm->bits = m->sp.kind == QK_MX ? pc_qk_elem_bits(m->sp.elem) : m->sp.kind == QK_FP8 ? 8 : 4;
    pm->priv = priv;
    pc_module_claim_parts(in, &pc_format_quark, prefix, layout);
}

static void check_module(pc_input *in, const cJSON *q, const char *prefix, const pc_tensor *w, bool reorder, pc_ctx *cx)
{
    const char *key = NULL;
    const cJSON *lc = layer_config(q, prefix, &key);
    if (!lc && type_configs(q)) return; /* layer_type_quant_config: by module type, which a file does not name */
    const cJSON *wc = pc_json_obj(lc ? lc : pc_json_obj(q, "global_quant_config"), "weight");
    qk_mod m = {.sp = weight_spec(wc), .w = w, .reorder = reorder};
    if (m.sp.kind == QK_NONE) { check_excluded(in, prefix, w, "not quantized by its spec (weight null)", cx); return; }
    if (m.sp.kind == QK_OTHER) { pc_input_note_layout(in, "quark"); return; } /* a dtype not decoded: unchecked */
    if (!spec_consistent(wc, &m.sp, lc ? "layer_quant_config" : "global_quant_config", cx)) return;
    m.s = pc_input_find_part(in, prefix, ".weight_scale");
    m.z = pc_input_find_part(in, prefix, ".weight_zero_point");
    pc_eval(cx, "QK-002");
    pc_input_note_layout(in, k_layout[m.sp.kind]);
    if (!shapes_agree(&m)) {
        char spec[200];
        if (lc) snprintf(spec, sizeof spec, "layer_quant_config \"%.120s\"", key);
        else snprintf(spec, sizeof spec, "global_quant_config");
        pc_report(cx, "QK-002", w->name, (int64_t)w->offset,
                  "%s's tensors (%s %s, weight_scale %s) are not the %s layout its spec (%s) names",
                  prefix, pc_dtype_name(w->dtype), shown_scheme(w, m.s), m.s ? pc_dtype_name(m.s->dtype) : "absent",
                  scheme_name(&m.sp), spec);
        return;
    }
    uint64_t numel;
    if (!pc_mul_u64(m.N, m.K, &numel) || numel > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "QK-002", w->name, (int64_t)w->offset, "%s: [%llu, %llu] is larger than this version decodes", prefix,
                  (unsigned long long)m.N, (unsigned long long)m.K);
        return;
    }
    if (data_rules(in, &m, cx)) add_module(in, prefix, &m, cx);
}

/* M for a tensor named M.weight, else NULL (caller frees). */
static char *weight_prefix(const char *name)
{
    size_t n = strlen(name);
    if (n <= 7 || strcmp(name + n - 7, ".weight")) return NULL;
    return pc_strndup(name, n - 7);
}

/* A module is any M.weight that is not a plain float, or has a Quark companion. */
static bool quantized_looking(const pc_input *in, const char *prefix, const pc_tensor *w)
{
    return !is_float(w) || pc_input_find_part(in, prefix, ".weight_scale") || pc_input_find_part(in, prefix, ".weight_zero_point");
}

static void qk_check(pc_input *in, pc_ctx *cx)
{
    const cJSON *q = qk_config(in);
    check_config(q, cx);
    const cJSON *ex = pc_json_obj(q, "export");
    bool reorder = !ex || strcmp(pc_json_str(ex, "pack_method"), "order");
    if (ex && !strcmp(pc_json_str(ex, "weight_format"), "fake_quantized")) return; /* float weights: nothing packed */
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        const pc_tensor *w = &in->tensors[i];
        char *p = weight_prefix(w->name);
        if (p && excluded(q, p)) check_excluded(in, p, w, "excluded", cx);
        else if (p && quantized_looking(in, p, w)) check_module(in, q, p, w, reorder, cx);
        free(p);
    }
}

/* Scale (and zero point) of an int4 module as [N, G] per-row groups: Quark stores them [G, N]. */
static int int4_params(const qk_mod *m, pc_impl impl, float **s_out, int8_t **z_out)
{
    uint64_t G = m->K / m->sp.group;
    float *st = ql_load_f32(m->s, G * m->N, QK_LIMIT), *s = malloc(G * m->N * sizeof *s);
    uint8_t *zw = pc_tensor_load(m->z, QK_LIMIT), *zc = malloc(G * m->N);
    int8_t *z = malloc(G * m->N);
    int rc = -1;
    if (st && s && zw && zc && z) {
        for (uint64_t g = 0; g < G; g++)
            for (uint64_t n = 0; n < m->N; n++) s[n * G + g] = st[g * m->N + n];
        pc_qk_int4_unpack(impl)(zw, (size_t)G, (size_t)m->N, m->reorder, zc);
        for (uint64_t i = 0; i < G * m->N; i++) z[i] = (int8_t)(m->sp.is_signed && zc[i] >= 8 ? zc[i] - 16 : zc[i]);
        *s_out = s;
        *z_out = z;
        s = NULL;
        z = NULL;
        rc = 0;
    }
    free(st); free(s); free(zw); free(zc); free(z);
    return rc;
}

static int decode_int4(const qk_mod *m, pc_impl impl, uint8_t *q, float *weights)
{
    uint8_t *raw = pc_tensor_load(m->w, QK_LIMIT);
    float *s = NULL;
    int8_t *z = NULL;
    int rc = -1;
    if (raw && (!weights || !int4_params(m, impl, &s, &z))) {
        pc_qk_int4_unpack(impl)(raw, (size_t)m->K, (size_t)m->N, m->reorder, q);
        if (weights) pc_qk_int4_dequant(impl)(q, (size_t)m->N, (size_t)m->K, (size_t)m->sp.group, m->sp.is_signed, s, z, weights);
        rc = 0;
    }
    free(raw); free(s); free(z);
    return rc;
}

static int decode_mx(const qk_mod *m, pc_impl impl, uint8_t *q, float *weights)
{
    uint8_t *raw = pc_tensor_load(m->w, QK_LIMIT), *e = weights ? pc_tensor_load(m->s, QK_LIMIT) : NULL;
    int rc = -1;
    if (raw && (!weights || e)) {
        pc_stream_fn(impl)(raw, pc_qk_elem_bits(m->sp.elem), (size_t)(m->N * m->K), q);
        if (weights) pc_qk_mx_dequant(impl)(q, (size_t)m->N, (size_t)m->K, m->sp.elem, e, weights);
        rc = 0;
    }
    free(raw); free(e);
    return rc;
}

/* FP8: f32(e4m3) * f32(scale), one rounding (dequantize_fp8_per_tensor_with_scale / _per_channel_). */
static int decode_fp8(const qk_mod *m, pc_impl impl, uint8_t *q, float *weights)
{
    uint8_t *raw = pc_tensor_load(m->w, QK_LIMIT);
    float *s = weights ? ql_load_f32(m->s, m->s->numel, QK_LIMIT) : NULL;
    int rc = -1;
    if (raw && (!weights || s)) {
        memcpy(q, raw, (size_t)(m->N * m->K));
        if (weights)
            pc_fp8_dequant(impl)(raw, (size_t)m->N, (size_t)m->K, m->sp.per_channel ? 1 : (size_t)m->N, (size_t)m->K, s, weights);
        rc = 0;
    }
    free(raw); free(s);
    return rc;
}

static int qk_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const qk_mod *m = pm->priv;
    uint8_t *q = codes ? codes : malloc((size_t)pm->numel ? (size_t)pm->numel : 1);
    int rc = !q ? -1 : m->sp.kind == QK_MX ? decode_mx(m, impl, q, weights)
                   : m->sp.kind == QK_FP8 ? decode_fp8(m, impl, q, weights) : decode_int4(m, impl, q, weights);
    if (q != codes) free(q);
    if (rc) pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* MX: rows are runs of the element stream (K * bits a whole number of bytes: K is a multiple of 32)
 * and of the E8M0 bytes. FP8: rows are runs of bytes, the scale per tensor or per row. INT4: view
 * row n is nibble slot n % 8 of word column n / 8 of every stored row [K, ceil(N / 8)], so a slice
 * reads the strip of word columns that covers it (ql_strip.h) and keeps its rows of the unpacked
 * strip; each word unpacks on its own, so the codes are the whole decode's. Scales (and zero
 * points) are loaded once per module as the whole decode loads them. */
typedef struct qk_rows {
    ql_strip strip;
    float *s;
    int8_t *z;
    uint8_t *e;
    uint8_t *buf;
    size_t cap;
} qk_rows;

static void qk_rows_free(void *p)
{
    qk_rows *r = p;
    if (r) { ql_strip_free(&r->strip); free(r->s); free(r->z); free(r->e); free(r->buf); }
    free(r);
}

static int qk_rows_params(const qk_mod *m, pc_impl impl, qk_rows *st)
{
    if (m->sp.kind == QK_MX) return (st->e = pc_tensor_load(m->s, QK_LIMIT)) ? 0 : -1;
    if (m->sp.kind == QK_FP8) return (st->s = ql_load_f32(m->s, m->s->numel, QK_LIMIT)) ? 0 : -1;
    return int4_params(m, impl, &st->s, &st->z);
}

static int qk_int4_rows(const qk_mod *m, qk_rows *st, pc_impl impl, uint64_t r0, uint64_t n, uint8_t *codes, float *weights, pc_ctx *cx)
{
    uint64_t w0 = r0 / 8, w1 = (r0 + n + 7) / 8, nsub = 8 * w1 > m->N ? m->N - 8 * w0 : 8 * (w1 - w0), G = m->K / m->sp.group;
    size_t K = (size_t)m->K, pb = (size_t)(m->K * (w1 - w0) * 4);
    if (!pc_rows_buf(&st->buf, &st->cap, pb + (size_t)nsub * K, cx)) return -1;
    if (ql_strip_get(&st->strip, w0 * 4, (w1 - w0) * 4, st->buf, cx)) return -1;
    uint8_t *c = st->buf + pb + (r0 - 8 * w0) * K;
    pc_qk_int4_unpack(impl)(st->buf, K, (size_t)nsub, m->reorder, st->buf + pb);
    if (codes) memcpy(codes, c, (size_t)n * K);
    if (weights) pc_qk_int4_dequant(impl)(c, (size_t)n, K, (size_t)m->sp.group, m->sp.is_signed, st->s + r0 * G, st->z + r0 * G, weights);
    return 0;
}

static int qk_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                          uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const qk_mod *m = pm->priv;
    qk_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (weights && !st->s && !st->e && qk_rows_params(m, impl, st)) { pc_io_error(cx, "%s: cannot read the scales", pm->prefix); return -1; }
    if (m->sp.kind == QK_INT4) {
        if (!st->strip.t) st->strip = (ql_strip){.t = m->w, .rows = m->K, .row_bytes = (m->N + 7) / 8 * 4};
        return qk_int4_rows(m, st, impl, r0, n, codes, weights, cx);
    }
    unsigned bits = m->sp.kind == QK_MX ? pc_qk_elem_bits(m->sp.elem) : 8;
    size_t cnt = (size_t)(n * m->K), bytes = cnt * bits / 8;
    if ((m->K * bits) % 8) { pc_io_error(cx, "%s: rows are not whole bytes", pm->prefix); return -1; }
    if (!pc_rows_buf(&st->buf, &st->cap, bytes + cnt, cx)) return -1; /* stored bytes, then codes when the caller wants none */
    if (pc_tensor_read(m->w, r0 * m->K * bits / 8, st->buf, bytes)) { pc_io_error(cx, "%s: cannot read", m->w->name); return -1; }
    uint8_t *q = codes ? codes : st->buf + bytes;
    if (m->sp.kind == QK_FP8) {
        memcpy(q, st->buf, cnt);
        if (weights) pc_grid_rows(impl, false, st->buf, r0, n, (size_t)m->K, m->sp.per_channel ? 1 : (size_t)m->N, (size_t)m->K, st->s, NULL, weights);
        return 0;
    }
    pc_stream_fn(impl)(st->buf, bits, cnt, q);
    if (weights) pc_qk_mx_dequant(impl)(q, (size_t)n, (size_t)m->K, m->sp.elem, st->e + r0 * (m->K / 32), weights);
    return 0;
}

/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES}, {".weight_scale", PC_PART_COMPANION}, {".weight_zero_point", PC_PART_COMPANION},
    {".input_scale", PC_PART_COMPANION}, {".input_zero_point", PC_PART_COMPANION}, {".output_scale", PC_PART_COMPANION},
    {".output_zero_point", PC_PART_COMPANION}, {NULL, 0},
};

extern const pc_bench_entry pc_quark_bench[];
const pc_format pc_format_quark = {.name = "quark", .parts = k_format_parts, .detect = qk_detect, .check = qk_check,
                                   .decode = qk_decode, .decode_rows = qk_decode_rows, .decode_rows_free = qk_rows_free, .module_free = free, .bench = pc_quark_bench};
