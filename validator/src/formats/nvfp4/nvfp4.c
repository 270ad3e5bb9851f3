/* Format module: NVFP4 under its two namings (FORMATS.md 4).
 *
 *   nvfp4-ct        compressed-tensors `nvfp4-pack-quantized`: M.weight_packed U8 [N, K/2],
 *                   M.weight_scale F8_E4M3 [N, K/16], M.weight_global_scale F32 (a divisor),
 *                   M.input_global_scale F32 when activations are not fully dynamic.
 *   nvfp4-modelopt  ModelOpt export: M.weight U8 [N, K/2], M.weight_scale F8_E4M3 [N, K/16],
 *                   M.weight_scale_2 F32 (a multiplier, usually 0-dim), M.input_scale F32.
 *
 * Both store element 2i in the low nibble of byte i, so the codes are the LE 4-bit stream and the
 * kernels' stream unpacker decodes them. compressed-tensors' int format (`pack-quantized`, I32
 * weight_packed) belongs to formats/ct.c; this module claims only U8 packed weights, modules with
 * NVFP4 global scales, and checkpoints whose config names NVFP4. The config is read here (the
 * scheme room does not know NVFP4). Rules: family NV (rules/rules.json); CT-005 is checked by
 * `packcheck equiv` (harness/equiv.c), which needs two checkpoints. */
#include "../row_decode.h"
#include "formats/format.h"

#include "../ct/ct_match.h"
#include "nvfp4.h"

#include "../../core/arith.h"
#include "../../core/json_get.h"
#include "../../core/scan.h"
#include "formats/diag_util.h"
#include "formats/known_schemes.h"
#include "../../core/util.h"
#include "../../kernels/kernels.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV_SCALE_LIMIT (1ull << 28)   /* bytes of one weight_scale decode loads (NV-005 streams) */
#define NV_PACKED_LIMIT (1ull << 29)  /* bytes of one packed weight we decode (2^30 codes) */

extern const pc_format pc_format_nvfp4;

enum nv_naming { NV_CT = 0, NV_MO = 1 };

static const char *const k_layout[2] = {"nvfp4-ct", "nvfp4-modelopt"};
/* Tensor suffixes per naming: packed weight, global weight scale, input scale. */
static const char *const k_packed[2] = {"weight_packed", "weight"};
static const char *const k_gscale[2] = {"weight_global_scale", "weight_scale_2"};
static const char *const k_iscale[2] = {"input_global_scale", "input_scale"};

/* What the config says, for one naming. */
typedef struct nv_scheme {
    bool configured;        /* the config names NVFP4 under this naming */
    bool only_nvfp4;        /* CT: the top-level format is nvfp4-pack-quantized */
    bool needs_input_scale; /* NV-010 */
    const cJSON *ignore;    /* CT ignore list / ModelOpt exclude_modules (array of strings) */
    const char *ignore_key; /* for messages */
} nv_scheme;

/* The decodable description of one module. */
typedef struct nv_module {
    enum nv_naming naming;
    const pc_tensor *packed, *scale, *gscale;
    uint64_t rows, cols; /* logical [N, K] */
} nv_module;

/* ---- config ---- */


static const char *const k_nvfp4_format = "nvfp4-pack-quantized";

/* The compressed-tensors quantization config, when the checkpoint has one. */
static const cJSON *ct_qconfig(const pc_input *in)
{
    const cJSON *q = in->qconfig;
    return q && !strcmp(pc_json_str(q, "quant_method"), "compressed-tensors") ? q : NULL;
}

/* A config group is NVFP4 when its own format says so, or it has none and the top level does. */
static bool ct_group_is_nvfp4(const cJSON *q, const cJSON *g)
{
    const char *f = pc_json_str(g, "format");
    return !strcmp(*f ? f : pc_json_str(q, "format"), k_nvfp4_format);
}

static void ct_scheme(const pc_input *in, nv_scheme *s)
{
    const cJSON *q = ct_qconfig(in), *g;
    if (!q) return;
    s->only_nvfp4 = !strcmp(pc_json_str(q, "format"), k_nvfp4_format);
    s->configured = s->only_nvfp4;
    cJSON_ArrayForEach(g, pc_json_obj(q, "config_groups")) {
        if (!cJSON_IsObject(g) || !ct_group_is_nvfp4(q, g)) continue;
        s->configured = true;
        const cJSON *ia = pc_json_obj(g, "input_activations");
        const cJSON *dyn = ia ? cJSON_GetObjectItemCaseSensitive(ia, "dynamic") : NULL;
        if (ia && !cJSON_IsTrue(dyn)) s->needs_input_scale = true; /* false or "local" */
    }
    s->ignore = pc_json_arr(q, "ignore");
    s->ignore_key = "quantization_config.ignore";
}

/* ModelOpt: hf_quant_config.json {"producer": {"name": "modelopt"}, "quantization": {...}}, or
 * config.json's quantization_config with quant_method "modelopt". Returns the object holding
 * quant_algo, or NULL. */
static const cJSON *mo_quant(const pc_input *in, bool *from_hf)
{
    const cJSON *hf = in->sidecars[2];
    const cJSON *hq = hf ? pc_json_obj(hf, "quantization") : NULL;
    if (hq && !strcmp(pc_json_str(pc_json_obj(hf, "producer"), "name"), "modelopt")) { *from_hf = true; return hq; }
    const cJSON *q = in->qconfig;
    if (q && !strcmp(pc_json_str(q, "quant_method"), "modelopt")) { *from_hf = false; return q; }
    return NULL;
}

static bool mo_algo_is_nvfp4(const char *a) { return !strcmp(a, "NVFP4") || !strcmp(a, "W4A16_NVFP4"); }

/* quant_algo MIXED_PRECISION lists each layer's algorithm under quantized_layers. */
static bool mo_mixed_has_nvfp4(const cJSON *q)
{
    const cJSON *l;
    if (strcmp(pc_json_str(q, "quant_algo"), "MIXED_PRECISION")) return false;
    cJSON_ArrayForEach(l, pc_json_obj(q, "quantized_layers"))
        if (cJSON_IsObject(l) && mo_algo_is_nvfp4(pc_json_str(l, "quant_algo"))) return true;
    return false;
}

static void mo_scheme(const pc_input *in, nv_scheme *s)
{
    bool from_hf = false;
    const cJSON *q = mo_quant(in, &from_hf);
    if (!q || (!mo_algo_is_nvfp4(pc_json_str(q, "quant_algo")) && !mo_mixed_has_nvfp4(q))) return;
    s->configured = true;
    s->needs_input_scale = !strcmp(pc_json_str(q, "quant_algo"), "NVFP4");
    s->ignore = pc_json_arr(q, from_hf ? "exclude_modules" : "ignore");
    s->ignore_key = from_hf ? "hf_quant_config.json exclude_modules" : "quantization_config.ignore";
}

/* NV-008: the config's numbers describe NVFP4. */
static void check_ct_config(const pc_input *in, pc_ctx *cx)
{
    const cJSON *q = ct_qconfig(in), *g;
    if (!q) return;
    pc_eval(cx, "NV-008");
    cJSON_ArrayForEach(g, pc_json_obj(q, "config_groups")) {
        if (!cJSON_IsObject(g) || !ct_group_is_nvfp4(q, g)) continue;
        const cJSON *w = pc_json_obj(g, "weights");
        const cJSON *nb = w ? cJSON_GetObjectItemCaseSensitive(w, "num_bits") : NULL;
        const cJSON *gs = w ? cJSON_GetObjectItemCaseSensitive(w, "group_size") : NULL;
        if (!w) pc_report(cx, "NV-008", "config.json", -1, "config group %s has no weights arguments", g->string);
        else if (!cJSON_IsNumber(nb) || nb->valuedouble != 4) pc_report(cx, "NV-008", "config.json", -1, "config group %s: num_bits is not 4", g->string);
        else if (strcmp(pc_json_str(w, "type"), "float")) pc_report(cx, "NV-008", "config.json", -1, "config group %s: weights type \"%s\", not float", g->string, pc_json_str(w, "type"));
        else if (!cJSON_IsNumber(gs) || gs->valuedouble != 16) pc_report(cx, "NV-008", "config.json", -1, "config group %s: group_size is not 16 (32 selects MXFP4)", g->string);
    }
}

static void check_mo_group_size(pc_ctx *cx, const cJSON *gs, const char *where)
{
    if (gs && (!cJSON_IsNumber(gs) || gs->valuedouble != 16))
        pc_report(cx, "NV-008", where, -1, "%s: group_size is not 16", where);
}

static void check_mo_config(const pc_input *in, pc_ctx *cx)
{
    bool from_hf = false;
    const cJSON *q = mo_quant(in, &from_hf), *g;
    if (!q) return;
    pc_eval(cx, "NV-008");
    if (!strcmp(pc_json_str(q, "quant_algo"), "MIXED_PRECISION")) {
        const cJSON *l;
        cJSON_ArrayForEach(l, pc_json_obj(q, "quantized_layers"))
            if (cJSON_IsObject(l) && mo_algo_is_nvfp4(pc_json_str(l, "quant_algo")))
                check_mo_group_size(cx, cJSON_GetObjectItemCaseSensitive(l, "group_size"), "quantized_layers group_size");
        return;
    }
    if (!mo_algo_is_nvfp4(pc_json_str(q, "quant_algo"))) {
        pc_report(cx, "NV-008", from_hf ? "hf_quant_config.json" : "config.json", -1,
                  "quant_algo \"%s\" is not NVFP4, yet the tensors carry NVFP4 names", pc_json_str(q, "quant_algo"));
        return;
    }
    if (from_hf) check_mo_group_size(cx, cJSON_GetObjectItemCaseSensitive(q, "group_size"), "hf_quant_config.json");
    const cJSON *qc = in->qconfig && !strcmp(pc_json_str(in->qconfig, "quant_method"), "modelopt") ? in->qconfig : NULL;
    const cJSON *groups = qc ? pc_json_obj(qc, "config_groups") : NULL;
    cJSON_ArrayForEach(g, groups)
        if (cJSON_IsObject(g) && pc_json_obj(g, "weights"))
            check_mo_group_size(cx, cJSON_GetObjectItemCaseSensitive(pc_json_obj(g, "weights"), "group_size"), "config.json config_groups weights");
}

/* The ignore entry naming module m: compressed-tensors' matcher (ct_ignored_by), or ModelOpt's
 * fnmatch patterns over exclude_modules, with the same bounds. */
static const char *ignored_by(const nv_scheme *s, enum nv_naming nm, const char *m, pc_ctx *cx)
{
    if (nm != NV_MO) return ct_ignored_by(s->ignore, m, s->ignore_key, cx);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, s->ignore) {
        if (n++ == CT_MATCH_MAX_ENTRIES) break;
        if (cJSON_IsString(e) && strlen(e->valuestring) <= CT_MATCH_MAX_PATTERN && fnmatch(e->valuestring, m, 0) == 0)
            return e->valuestring;
    }
    return NULL;
}

/* ---- tensors ---- */

static const pc_tensor *companion(const pc_input *in, const char *prefix, const char *suffix) { return pc_sibling(in, prefix, suffix); }

static bool has_suffix(const char *s, const char *suf, size_t *prefix_len)
{
    size_t n = strlen(s), m = strlen(suf);
    if (n <= m + 1 || strcmp(s + n - m, suf) || s[n - m - 1] != '.') return false;
    *prefix_len = n - m - 1;
    return true;
}

/* Tensor-name fingerprints (FORMATS.md 1.2), used when no config names NVFP4. */
/* The first packed weight carrying the naming's fingerprint (NULL when none). */
static const pc_tensor *fingerprint_tensor(const pc_input *in, enum nv_naming nm)
{
    for (size_t i = 0; i < in->ntensors; i++) {
        size_t pl;
        if (!has_suffix(in->tensors[i].name, k_packed[nm], &pl)) continue;
        char buf[256], *p = pl < sizeof buf ? buf : malloc(pl + 1); /* this runs for every tensor of a header */
        if (!p) continue;
        memcpy(p, in->tensors[i].name, pl);
        p[pl] = 0;
        bool hit = companion(in, p, k_gscale[nm]) && (nm == NV_MO || in->tensors[i].dtype == PC_DT_U8);
        if (p != buf) free(p);
        if (hit) return &in->tensors[i];
    }
    return NULL;
}

static bool fingerprint(const pc_input *in, enum nv_naming nm) { return fingerprint_tensor(in, nm) != NULL; }

/* Is the tensor `prefix.<packed>` an NVFP4 packed weight we claim? */
static bool claims(const pc_input *in, const nv_scheme *s, enum nv_naming nm, const char *prefix, const pc_tensor *t)
{
    bool has_g = companion(in, prefix, k_gscale[nm]) != NULL;
    if (nm == NV_CT) return t->dtype == PC_DT_U8 || has_g || s->only_nvfp4;
    /* ModelOpt: a plain `weight` is ours only with NVFP4 scales beside it, or as U8 under an
     * NVFP4 config; a bf16 embedding or norm is left alone. */
    const pc_tensor *sc = companion(in, prefix, "weight_scale");
    return has_g || (sc && sc->dtype == PC_DT_F8_E4M3) || (s->configured && t->dtype == PC_DT_U8);
}

/* NV-004 and NV-006 on one global scale; *v receives its value. */
static bool check_global(const pc_tensor *t, const char *what, float *v, pc_ctx *cx)
{
    if (t->dtype != PC_DT_F32 || !(t->ndim == 0 || (t->ndim == 1 && t->shape[0] == 1))) {
        pc_report(cx, "NV-004", t->name, (int64_t)t->offset, "%s is %s of rank %d (first dim %llu), not F32 of shape [] or [1]", what,
                  pc_dtype_name(t->dtype), t->ndim, (unsigned long long)(t->ndim ? t->shape[0] : 0));
        return false;
    }
    uint8_t b[4];
    if (pc_tensor_read(t, 0, b, 4)) {
        pc_report(cx, "NV-004", t->name, (int64_t)t->offset, "%s: cannot read its 4 bytes", what);
        return false;
    }
    uint32_t u = pc_le32(b);
    memcpy(v, &u, 4);
    if (!isfinite(*v) || *v == 0.0f) {
        pc_report(cx, "NV-006", t->name, (int64_t)t->offset, "%s is %g (bits 0x%08x): not finite and non-zero", what, (double)*v, u);
        return false;
    }
    return true;
}

/* NV-005: every fp8 block scale finite and not negative. The scales are not read here: a scan
 * joins the input's one streaming pass (core/scan.h: bounded windows, shards in parallel, hashed in
 * the same pass under --hash) and reports the first offending byte afterwards. */
typedef struct bs_scan {
    const pc_tensor *t;
    bool bad;
    uint64_t at;
    uint8_t v;
} bs_scan;

static int bs_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    bs_scan *s = arg;
    for (size_t i = 0; i < n; i++)
        if ((p[i] & 0x7f) == 0x7f || (p[i] & 0x80)) {
            s->bad = true;
            s->at = off + i;
            s->v = p[i];
            return 1; /* the first is reported */
        }
    return 0;
}

static void bs_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    const bs_scan *s = arg;
    if (!s->bad) return;
    if ((s->v & 0x7f) == 0x7f)
        pc_report(cx, "NV-005", s->t->name, (int64_t)(s->t->offset + s->at), "block scale %llu is NaN (0x%02x)", (unsigned long long)s->at, s->v);
    else
        pc_report(cx, "NV-005", s->t->name, (int64_t)(s->t->offset + s->at), "block scale %llu is negative (0x%02x = %g)",
                  (unsigned long long)s->at, s->v, (double)pc_f8e4m3_to_f32(s->v));
}

static bool check_block_scales(pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    bs_scan *s = calloc(1, sizeof *s);
    if (!s) { cx->oom = true; return false; }
    s->t = t;
    if (pc_scan_add(in, t, 0, t->nbytes, 1, bs_chunk, bs_finish, free, s)) { free(s); cx->oom = true; return false; }
    return true;
}

/* NV-002: [N, K/2], K a positive multiple of 16. */
static bool check_packed_shape(const pc_tensor *p, uint64_t *rows, uint64_t *cols, pc_ctx *cx)
{
    if (p->ndim != 2 || p->shape[0] == 0 || p->shape[1] == 0) {
        pc_report(cx, "NV-002", p->name, (int64_t)p->offset, "packed weight has rank %d; NVFP4 wants [N, K/2] with N, K > 0", p->ndim);
        return false;
    }
    uint64_t k;
    if (!pc_mul_u64(p->shape[1], 2, &k) || k % 16) {
        pc_report(cx, "NV-002", p->name, (int64_t)p->offset, "packed width %llu gives K = %llu, not a multiple of 16",
                  (unsigned long long)p->shape[1], (unsigned long long)(p->shape[1] * 2));
        return false;
    }
    *rows = p->shape[0];
    *cols = k;
    return true;
}

/* NV-003: weight_scale F8_E4M3 [N, K/16]. */
static bool check_scale_shape(const pc_input *in, const char *prefix, uint64_t rows, uint64_t cols,
                              const pc_tensor **out, pc_ctx *cx)
{
    const pc_tensor *s = companion(in, prefix, "weight_scale");
    if (!s) {
        pc_report(cx, "NV-003", prefix, -1, "%s.weight_scale is missing", prefix);
        return false;
    }
    if (s->dtype != PC_DT_F8_E4M3 || s->ndim != 2 || s->shape[0] != rows || s->shape[1] != cols / 16) {
        pc_report(cx, "NV-003", s->name, (int64_t)s->offset, "weight_scale is %s of rank %d [%llu, %llu], expected F8_E4M3 [%llu, %llu]",
                  pc_dtype_name(s->dtype), s->ndim, (unsigned long long)(s->ndim > 0 ? s->shape[0] : 0),
                  (unsigned long long)(s->ndim > 1 ? s->shape[1] : 0), (unsigned long long)rows, (unsigned long long)(cols / 16));
        return false;
    }
    *out = s;
    return true;
}

/* Every rule of one module; adds it as decodable when all hold. */
static void check_module(pc_input *in, const nv_scheme *s, enum nv_naming nm, const char *prefix, const pc_tensor *p, pc_ctx *cx)
{
    pc_input_note_layout(in, k_layout[nm]);
    const char *ign = ignored_by(s, nm, prefix, cx);
    if (ign) {
        pc_report(cx, "NV-009", p->name, (int64_t)p->offset, "module %s is excluded by %s entry \"%s\" yet holds an NVFP4 packed weight",
                  prefix, s->ignore_key, ign);
        return;
    }
    if (p->dtype != PC_DT_U8) {
        pc_report(cx, "NV-001", p->name, (int64_t)p->offset, "%s is %s under an NVFP4 scheme; NVFP4 packs two codes per U8 byte",
                  k_packed[nm], pc_dtype_name(p->dtype));
        return;
    }
    uint64_t rows, cols;
    const pc_tensor *sc = NULL;
    if (!check_packed_shape(p, &rows, &cols, cx) || !check_scale_shape(in, prefix, rows, cols, &sc, cx)) return;
    bool ok = check_block_scales(in, sc, cx);
    const pc_tensor *g = companion(in, prefix, k_gscale[nm]), *is = companion(in, prefix, k_iscale[nm]);
    float v;
    if (!g) {
        pc_report(cx, "NV-004", prefix, -1, "%s.%s is missing", prefix, k_gscale[nm]);
        ok = false;
    } else if (!check_global(g, k_gscale[nm], &v, cx)) {
        ok = false;
    }
    if (is && !check_global(is, k_iscale[nm], &v, cx)) ok = false;
    if (!is && s->needs_input_scale) {
        pc_report(cx, "NV-010", prefix, -1, "%s.%s is missing, but the config's input activations are not fully dynamic", prefix, k_iscale[nm]);
        ok = false;
    }
    if (!ok) return;
    pc_module *m = pc_module_add(in, &pc_format_nvfp4, prefix, k_layout[nm]);
    nv_module *d = m ? calloc(1, sizeof *d) : NULL;
    if (!d) { cx->oom = true; return; }
    *d = (nv_module){nm, p, sc, g, rows, cols};
    m->priv = d;
    m->ndim = 2;
    m->shape[0] = rows;
    m->shape[1] = cols;
    m->numel = rows * cols; /* rows * cols / 2 = packed nbytes, which fits */
    m->bits = 4;
    /* both namings' parts: a module carrying both is decoded once, and every part was checked */
    static const char *const k_parts[] = {"weight_packed", "weight_global_scale", "input_global_scale", "weight",
                                          "weight_scale", "weight_scale_2", "input_scale", NULL};
    pc_module_claim_suffixes(in, prefix, m->layout, k_parts);
}

/* A module carrying both namings is decoded once, under the compressed-tensors names (checked first). */
static bool have_module(const pc_input *in, const char *prefix)
{
    for (size_t i = 0; i < in->nmodules; i++)
        if (!strcmp(in->modules[i].prefix, prefix)) return true;
    return false;
}

/* A ModelOpt config that names no NVFP4 layer: its U8 weights beside weight_scale_2 are W4A8_AWQ
 * (formats/modelopt), not NVFP4 tensors missing a config. */
static bool mo_config_without_nvfp4(const pc_input *in, const nv_scheme *s)
{
    bool from_hf = false;
    return !s->configured && mo_quant(in, &from_hf) != NULL;
}

/* Under MIXED_PRECISION, a module whose quantized_layers entry names another algorithm is not ours. */
static bool mo_layer_other_algo(const pc_input *in, const char *prefix)
{
    bool from_hf = false;
    const cJSON *q = mo_quant(in, &from_hf);
    if (!q || strcmp(pc_json_str(q, "quant_algo"), "MIXED_PRECISION")) return false;
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(pc_json_obj(q, "quantized_layers"), prefix);
    return cJSON_IsObject(l) && !mo_algo_is_nvfp4(pc_json_str(l, "quant_algo"));
}

static void check_naming(pc_input *in, enum nv_naming nm, pc_ctx *cx)
{
    nv_scheme s = {0};
    if (nm == NV_CT) ct_scheme(in, &s); else mo_scheme(in, &s);
    if (nm == NV_MO && mo_config_without_nvfp4(in, &s)) return;
    if (!s.configured && !fingerprint(in, nm)) return;
    /* CFG-030: NVFP4 tensors under either naming with no config naming either method. */
    pc_eval(cx, "CFG-030");
    nv_scheme other = {0};
    if (nm == NV_CT) mo_scheme(in, &other); else ct_scheme(in, &other);
    if (!s.configured && !other.configured) {
        const pc_tensor *t = fingerprint_tensor(in, nm);
        pc_input_note_layout(in, k_layout[nm]);
        pc_report(cx, "CFG-030", t->name, (int64_t)t->offset,
                  "NVFP4 tensors (%s names) but no quantization config names compressed-tensors nvfp4-pack-quantized or modelopt NVFP4: "
                  "a loader reads them as dense", nm == NV_CT ? "compressed-tensors" : "ModelOpt");
        return;
    }
    if (nm == NV_CT) check_ct_config(in, cx); else check_mo_config(in, cx);
    static const char *const rules[] = {"NV-001", "NV-002", "NV-003", "NV-004", "NV-005", "NV-006", "NV-007", "NV-009", "NV-010"};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) pc_eval(cx, rules[i]);
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        size_t pl;
        const pc_tensor *t = &in->tensors[i];
        if (!has_suffix(t->name, k_packed[nm], &pl)) continue;
        char *prefix = pc_strndup(t->name, pl);
        if (!prefix) { cx->oom = true; return; }
        if (claims(in, &s, nm, prefix, t) && !have_module(in, prefix) && !(nm == NV_MO && mo_layer_other_algo(in, prefix)))
            check_module(in, &s, nm, prefix, t, cx);
        free(prefix);
    }
}

/* ---- the format ---- */

static bool nvfp4_detect(const pc_input *in)
{
    for (int nm = NV_CT; nm <= NV_MO; nm++) {
        nv_scheme s = {0};
        if (nm == NV_CT) ct_scheme(in, &s); else mo_scheme(in, &s);
        if (s.configured || fingerprint(in, (enum nv_naming)nm)) return true;
    }
    return false;
}

static void nvfp4_check(pc_input *in, pc_ctx *cx)
{
    check_naming(in, NV_CT, cx);
    check_naming(in, NV_MO, cx);
}

/* The global scale (one F32). */
static int global_scale(const nv_module *d, float *g, pc_ctx *cx)
{
    uint8_t gb[4];
    if (pc_tensor_read(d->gscale, 0, gb, 4)) { pc_io_error(cx, "%s: cannot read the NVFP4 global scale", d->gscale->name); return -1; }
    uint32_t u = pc_le32(gb);
    memcpy(g, &u, 4);
    return 0;
}

/* The per-group f32 scale of the contract (CONTRACT 3) of n E4M3 block scales: CT divides by the
 * global scale, ModelOpt multiplies; each is one f32 rounding of the exact fp8 value and the
 * global scale. */
static void scales_f32(const nv_module *d, const uint8_t *fp8, size_t n, float g, float *s)
{
    for (size_t i = 0; i < n; i++) {
        float b = pc_f8e4m3_to_f32(fp8[i]);
        s[i] = d->naming == NV_CT ? b / g : b * g;
    }
}

static int group_scales(const nv_module *d, float **out, pc_ctx *cx)
{
    float g;
    uint8_t *fp8 = pc_tensor_load(d->scale, NV_SCALE_LIMIT);
    if (!fp8 || global_scale(d, &g, cx)) {
        free(fp8);
        pc_io_error(cx, "%s: cannot read the NVFP4 scales", d->scale->name);
        return -1;
    }
    size_t n = (size_t)d->scale->nbytes;
    float *s = malloc(n ? n * sizeof *s : sizeof *s);
    if (!s) { free(fp8); cx->oom = true; return -1; }
    scales_f32(d, fp8, n, g, s);
    free(fp8);
    *out = s;
    return 0;
}

static int nvfp4_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const nv_module *d = m->priv;
    size_t n = (size_t)m->numel;
    uint8_t *packed = pc_tensor_load(d->packed, NV_PACKED_LIMIT);
    uint8_t *c = codes ? codes : malloc(n ? n : 1);
    if (!packed || !c) {
        if (!packed) pc_io_error(cx, "%s: cannot read %llu bytes", d->packed->name, (unsigned long long)d->packed->nbytes);
        else cx->oom = true;
        free(packed);
        if (c != codes) free(c);
        return -1;
    }
    pc_stream_fn(impl)(packed, 4, n, c);
    free(packed);
    int rc = 0;
    float *s = NULL;
    if (weights) {
        rc = group_scales(d, &s, cx);
        if (!rc) pc_nvfp4_dequant(impl)(c, (size_t)d->rows, (size_t)d->cols, s, weights);
    }
    free(s);
    if (c != codes) free(c);
    return rc;
}

static void nvfp4_module_free(void *priv) { free(priv); }

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* Row r of [rows, cols] is packed bytes [r * cols / 2, (r + 1) * cols / 2) and block scales
 * [r * cols / 16, (r + 1) * cols / 16) (cols is a multiple of 16, check_module), so a slice of whole
 * rows is a contiguous run of both: its scales are converted per slice (scales_f32, as the whole
 * decode converts them) and the same kernels see the same bytes. Only the global scale is kept. */
typedef struct nv_rows {
    float g;
    bool have_g;
    uint8_t *buf;    /* packed bytes, fp8 scales, f32 scales, codes when the caller wants none */
    size_t cap;
} nv_rows;

static void nv_rows_free(void *p)
{
    nv_rows *r = p;
    if (r) free(r->buf);
    free(r);
}

static int nvfp4_decode_rows(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                             uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const nv_module *d = m->priv;
    nv_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (weights && !st->have_g && global_scale(d, &st->g, cx)) return -1;
    st->have_g = st->have_g || weights;
    size_t cnt = (size_t)(n * d->cols), bytes = cnt / 2, ns = cnt / 16, at = (bytes + ns + 3) / 4 * 4; /* <= numel <= 2^30 */
    if (!pc_rows_buf(&st->buf, &st->cap, at + ns * sizeof(float) + cnt, cx)) return -1; /* malloc'd: f32-aligned at `at` */
    float *s = (float *)(void *)(st->buf + at);
    uint8_t *c = codes ? codes : st->buf + at + ns * sizeof(float);
    if (pc_tensor_read(d->packed, r0 * d->cols / 2, st->buf, bytes) ||
        (weights && pc_tensor_read(d->scale, r0 * (d->cols / 16), st->buf + bytes, ns))) {
        pc_io_error(cx, "%s: cannot read", m->prefix);
        return -1;
    }
    pc_stream_fn(impl)(st->buf, 4, cnt, c);
    if (!weights) return 0;
    scales_f32(d, st->buf + bytes, ns, st->g, s);
    pc_nvfp4_dequant(impl)(c, (size_t)n, (size_t)d->cols, s, weights);
    return 0;
}

/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* Rows of shard 0 of a layer fused in the checkpoint (0: not fused): gate_up_proj's gate half,
 * qkv_proj's q rows = num_attention_heads * head_dim from config.json (Phi-3's layout). */
static uint64_t shard0_rows(const pc_input *in, const char *prefix, uint64_t N)
{
    size_t n = strlen(prefix);
    if (n >= 13 && !strcmp(prefix + n - 13, ".gate_up_proj")) return N / 2;
    if (n < 9 || strcmp(prefix + n - 9, ".qkv_proj")) return 0;
    const cJSON *c = in->config_json;
    double heads = pc_json_num(c, "num_attention_heads", 0), hidden = pc_json_num(c, "hidden_size", 0);
    double hd = pc_json_num(c, "head_dim", heads > 0 ? hidden / heads : 0), q = heads * hd;
    return q >= 1 && q < (double)N && q == (double)(uint64_t)q ? (uint64_t)q : 0;
}

/* The global scale of the module's shard sibling (NaN when there is none). */
static float sibling_global(const pc_input *in, const char *prefix, bool modelopt)
{
    char *sib = pc_diag_shard_sibling(prefix);
    const pc_tensor *t = sib ? pc_diag_find(in, sib, modelopt ? "weight_scale_2" : "weight_global_scale") : NULL;
    free(sib);
    float *v = t && t->numel == 1 ? pc_diag_load_floats(t) : NULL, g = v ? v[0] : NAN;
    free(v);
    return g;
}

static int nv_diag_alloc(pc_diag_params *p, size_t n)
{
    static const pc_diag_alt alts[] = {PC_ALT_GLOBAL_RECIP, PC_ALT_GLOBAL_DROPPED, PC_ALT_SHARD_REUSED, PC_ALT_SLOT0_ONLY, PC_ALT_SCALE_ZEROED};
    if (pc_diag_alloc(p, n, PC_ALT_GLOBAL_OTHER)) return -1;
    for (size_t i = 0; i < sizeof alts / sizeof *alts; i++)
        if (pc_diag_alloc_alt(p, n, alts[i])) return -1;
    return 0;
}

/* FP8 block scales [N, K/16] and a global scale: a divisor under the compressed-tensors name
 * (weight_global_scale), a multiplier under ModelOpt's (weight_scale_2). Byte i holds element 2i low. */
static int nv_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t K = pm->shape[pm->ndim - 1], per = pm->numel / (pm->ndim == 3 ? pm->shape[0] : 1);
    bool modelopt = !strcmp(pm->layout, k_layout[1]);
    const pc_tensor *ts = pc_diag_find(in, pm->prefix, "weight_scale");
    const pc_tensor *tg = pc_diag_find(in, pm->prefix, modelopt ? "weight_scale_2" : "weight_global_scale");
    uint64_t E = pm->ndim == 3 ? pm->shape[0] : 1;
    if (!ts || !tg || K % 16 || ts->numel != pm->numel / 16 || (tg->numel != 1 && tg->numel != E)) { snprintf(p->note, sizeof p->note, "NVFP4 scale tensors not found in the expected shapes"); return 1; }
    float *ws = pc_diag_load_floats(ts), *gs = pc_diag_load_floats(tg);
    int rc = 1;
    if (!ws || !gs) { snprintf(p->note, sizeof p->note, "NVFP4 scales unreadable"); goto out; }
    rc = -1;
    if (nv_diag_alloc(p, (size_t)pm->numel)) goto out;
    float sib = sibling_global(in, pm->prefix, modelopt);
    uint64_t s0 = shard0_rows(in, pm->prefix, pm->shape[pm->ndim - 2]);
    for (size_t i = 0; i < pm->numel; i++) {
        float block = ws[i / 16], g = gs[tg->numel == 1 ? 0 : i / per];
        float inv = 1.0f / g; /* what a converter between the two namings stores */
        float reused = isnan(sib) ? g : sib, slot = s0 && (i % per) / K >= s0 ? 0.0f : g;
        p->s[i] = modelopt ? block * g : block / g;
        p->alt_s[PC_ALT_GLOBAL_OTHER][i] = modelopt ? block / g : block * g;
        p->alt_s[PC_ALT_GLOBAL_RECIP][i] = modelopt ? block / inv : block * inv;
        p->alt_s[PC_ALT_GLOBAL_DROPPED][i] = block;
        p->alt_s[PC_ALT_SHARD_REUSED][i] = modelopt ? block * reused : block / reused;
        p->alt_s[PC_ALT_SLOT0_ONLY][i] = modelopt ? block * slot : block / slot;
        p->alt_s[PC_ALT_SCALE_ZEROED][i] = modelopt ? 0.0f * g : 0.0f / g;
    }
    rc = 0;
out:
    free(ws); free(gs);
    return rc;
}

static int nv_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    p->lay = (pc_diag_layout){.nibble = PC_NIB_K_XOR, .nib_xor = 1};
    p->kind = PC_DIAG_E2M1;
    return want ? nv_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_nvfp4_bench[]; /* nvfp4_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight_packed", PC_PART_CODES},
    {".weight", PC_PART_CODES},
    {".weight_global_scale", PC_PART_COMPANION},
    {".input_global_scale", PC_PART_COMPANION},
    {".weight_scale", PC_PART_COMPANION},
    {".weight_scale_2", PC_PART_COMPANION},
    {".input_scale", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_nvfp4 = {.parts = k_format_parts, .name = "nvfp4", .detect = nvfp4_detect, .check = nvfp4_check, .decode = nvfp4_decode, .decode_rows = nvfp4_decode_rows, .decode_rows_free = nv_rows_free,
                                   .module_free = nvfp4_module_free, .pair_detect = pc_nvfp4_pair_detect,
                                   .pair_check = pc_nvfp4_pair_check, .diag_params = nv_diag_params, .bench = pc_nvfp4_bench};
