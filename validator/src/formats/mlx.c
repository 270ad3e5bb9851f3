/* Format module: MLX affine (FORMATS-2.md D; ml-explore/mlx mlx/ops.cpp quantize and
 * mlx/backend/cpu/quantized.cpp, mlx_lm utils.py load/save of `quantization`).
 *
 * Per module M: M.weight U32 [..., out, in*bits/32] holding the codes as one LSB-first bit stream
 * (3/5/6-bit fields straddle words), M.scales and M.biases [..., out, in/group] in the model dtype
 * (F16, BF16 or F32). Config: config.json `quantization` {group_size, bits, mode} with per-layer
 * overrides keyed by module path (a dict, or false for a module left dense); mlx_lm writes the
 * same dict again as `quantization_config`. No quant_method anywhere.
 *
 * Logical view (CONTRACT 3): codes = q; weight w = rT(rT(s * q) + b), T the scales' dtype, as
 * mlx.core.dequantize computes it on the CPU (bit-exact with its output widened to f32). */
#include "affine_params.h"
#include "known_schemes.h"
#include "qlinear.h"

#include "../core/arith.h"
#include "../core/diag_util.h"
#include "../core/util.h"
#include "../kernels/kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_mlx;

#define MLX_LAYOUT "mlx-affine"
#define MLX_TENSOR_LIMIT (1ull << 30)
#define PREFIX_MAX 1024

typedef struct mlx_params {
    long long bits, group;
    bool quantized; /* false: an override `false` (the module stays dense) */
    bool affine;    /* mode absent or "affine"; mxfp4/nvfp4/mxfp8 are other layouts, not decoded */
} mlx_params;

typedef struct mlx_mod {
    const pc_tensor *weight, *scales, *biases;
    uint64_t rows, cols, group; /* rows: every dim but the last, multiplied */
    unsigned bits;
} mlx_mod;

/* ---- config ---------------------------------------------------------------------------- */

/* Keys of `quantization` that are global parameters, not module paths (mlx_lm utils.py). */
static bool is_global_key(const char *k)
{
    return !strcmp(k, "group_size") || !strcmp(k, "bits") || !strcmp(k, "mode");
}

static const cJSON *mlx_quant(const pc_input *in)
{
    const cJSON *root = in->config_json;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quantization");
    return cJSON_IsObject(q) ? q : NULL;
}

static bool valid_bits(long long b) { return (b >= 1 && b <= 6) || b == 8; }
static bool valid_group(long long g) { return g == 32 || g == 64 || g == 128; }

/* Read {bits, group_size, mode} of one dict (global or an override) over `base`; false with a
 * reason in `why` when a value is out of mlx's domain. */
static bool read_params(const cJSON *d, const mlx_params *base, mlx_params *out, char *why, size_t n)
{
    *out = base ? *base : (mlx_params){.bits = 4, .group = 64, .quantized = true, .affine = true};
    bool present;
    long long v;
    if (ql_cfg_int(d, "bits", &v, &present)) out->bits = v;
    else if (present || !base) { snprintf(why, n, present ? "bits is not an integer" : "bits is missing"); return false; }
    if (ql_cfg_int(d, "group_size", &v, &present)) out->group = v;
    else if (present || !base) { snprintf(why, n, present ? "group_size is not an integer" : "group_size is missing"); return false; }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(d, "mode");
    if (mode && !cJSON_IsString(mode)) { snprintf(why, n, "mode is not a string"); return false; }
    if (mode) out->affine = !strcmp(mode->valuestring, "affine");
    if (!out->affine) return true; /* another MLX mode: its modules are left unchecked (mlx_explain) */
    if (!valid_bits(out->bits)) { snprintf(why, n, "bits %lld is not one of 1, 2, 3, 4, 5, 6, 8", out->bits); return false; }
    if (!valid_group(out->group)) { snprintf(why, n, "group_size %lld is not one of 32, 64, 128", out->group); return false; }
    return true;
}

/* MLX-001 and MLX-002 over the whole config; false when no module can be decoded. */
static bool check_config(const pc_input *in, pc_ctx *cx, mlx_params *global)
{
    pc_eval(cx, "MLX-001");
    pc_eval(cx, "MLX-002");
    pc_eval(cx, "MLX-003");
    const cJSON *q = mlx_quant(in);
    char why[160];
    if (!q) {
        pc_report(cx, "MLX-001", "config.json", -1,
                  "MLX tensors (U32 weight, scales, biases) without a `quantization` dict in config.json: bits and "
                  "group size cannot be read from the tensors (in*bits/32 words fit several pairs)");
        return false;
    }
    if (!read_params(q, NULL, global, why, sizeof why)) {
        pc_report(cx, "MLX-001", "config.json", -1, "quantization: %s", why);
        return false;
    }
    bool ok = true;
    for (const cJSON *e = q->child; e; e = e->next) {
        if (is_global_key(e->string)) continue;
        mlx_params p;
        if (cJSON_IsBool(e)) continue;
        if (!cJSON_IsObject(e)) {
            pc_report(cx, "MLX-002", "config.json", -1, "quantization[\"%.200s\"] is neither a dict nor a boolean", e->string);
            ok = false;
        } else if (!read_params(e, global, &p, why, sizeof why)) {
            pc_report(cx, "MLX-002", "config.json", -1, "quantization[\"%.200s\"]: %s", e->string, why);
            ok = false;
        }
    }
    const cJSON *dup = cJSON_GetObjectItemCaseSensitive((const cJSON *)in->config_json, "quantization_config");
    if (dup && !cJSON_Compare(dup, q, true))
        pc_report(cx, "MLX-003", "config.json", -1,
                  "quantization_config differs from quantization: mlx_lm loads `quantization`, a reader of the other "
                  "dict decodes with other parameters");
    return ok;
}

/* The parameters that apply to module M: its override, else the global ones. */
static mlx_params module_params(const pc_input *in, const char *prefix, const mlx_params *global)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(mlx_quant(in), prefix);
    mlx_params p = *global;
    char why[160];
    if (cJSON_IsFalse(e)) p.quantized = false;
    else if (cJSON_IsObject(e) && !read_params(e, global, &p, why, sizeof why)) p = *global; /* MLX-002 said so */
    return p;
}

/* ---- tensors --------------------------------------------------------------------------- */

/* M.weight is U32 and M.scales exists: the MLX fingerprint (affine when M.biases is there too). */
static bool mlx_weight(const pc_input *in, const pc_tensor *t, char *prefix, size_t n)
{
    static const char *const k_w[] = {"weight", NULL};
    if (t->dtype != PC_DT_U32 || !pc_split_suffix(t->name, k_w, prefix, n)) return false;
    return pc_sibling(in, prefix, "scales") != NULL;
}

static bool mlx_affine_module(const pc_input *in, const pc_tensor *t, char *prefix, size_t n)
{
    if (!mlx_weight(in, t, prefix, n)) return false;
    const pc_tensor *s = pc_sibling(in, prefix, "scales");
    return pc_sibling(in, prefix, "biases") || ql_float_dtype(s->dtype); /* mxfp4/nvfp4: U8 scales, no biases */
}

static bool check_tensor_set(const pc_input *in, const char *prefix, mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-004");
    m->weight = pc_sibling(in, prefix, "weight");
    m->scales = pc_sibling(in, prefix, "scales");
    m->biases = pc_sibling(in, prefix, "biases");
    const pc_tensor *w = m->weight, *s = m->scales, *b = m->biases;
    if (!b) {
        pc_report(cx, "MLX-004", s->name, (int64_t)s->offset, "%s.biases is missing: affine mode stores one bias per group", prefix);
        return false;
    }
    if (w->ndim < 2 || w->ndim > 3) {
        pc_report(cx, "MLX-004", w->name, (int64_t)w->offset, "%s has %d dims; expected 2 ([out, in*bits/32]) or 3 (experts)", w->name, w->ndim);
        return false;
    }
    if (!ql_float_dtype(s->dtype) || s->dtype != b->dtype) {
        pc_report(cx, "MLX-004", b->name, (int64_t)b->offset, "scales are %s and biases %s: both must be the model dtype (F16, BF16 or F32)",
                  pc_dtype_name(s->dtype), pc_dtype_name(b->dtype));
        return false;
    }
    bool same = s->ndim == w->ndim && b->ndim == w->ndim;
    for (int d = 0; same && d < w->ndim; d++) same = s->shape[d] == b->shape[d] && (d == w->ndim - 1 || s->shape[d] == w->shape[d]);
    if (!same) {
        pc_report(cx, "MLX-004", s->name, (int64_t)s->offset, "scales and biases must have the same shape, and the same dims as %s but the last", w->name);
        return false;
    }
    return true;
}

static bool check_geometry(const char *prefix, const mlx_params *p, mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-005");
    const pc_tensor *w = m->weight, *s = m->scales;
    uint64_t words = w->shape[w->ndim - 1], gcount = s->shape[s->ndim - 1], bitsum;
    m->bits = (unsigned)p->bits;
    m->group = (uint64_t)p->group;
    m->rows = w->numel / (words ? words : 1);
    if (!pc_mul_u64(words, 32, &bitsum) || words == 0 || bitsum % m->bits) {
        pc_report(cx, "MLX-005", w->name, (int64_t)w->offset,
                  "%llu words per row are %llu bits, not a whole number of %u-bit fields: in = words*32/bits exactly "
                  "(not words*(32//bits)); the config's bits do not match %s", (unsigned long long)words,
                  (unsigned long long)bitsum, m->bits, prefix);
        return false;
    }
    m->cols = bitsum / m->bits;
    if (m->cols % m->group || gcount != m->cols / m->group) {
        pc_report(cx, "MLX-005", s->name, (int64_t)s->offset,
                  "in = %llu (%llu words at %u bits) with group_size %llu needs %llu scales per row; %s has %llu",
                  (unsigned long long)m->cols, (unsigned long long)words, m->bits, (unsigned long long)m->group,
                  (unsigned long long)(m->cols / m->group), s->name, (unsigned long long)gcount);
        return false;
    }
    return true;
}

static bool check_limits(const mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-007");
    const pc_tensor *ts[] = {m->weight, m->scales, m->biases};
    uint64_t numel;
    for (size_t i = 0; i < 3; i++)
        if (ts[i]->nbytes > MLX_TENSOR_LIMIT) {
            pc_report(cx, "MLX-007", ts[i]->name, (int64_t)ts[i]->offset, "%s holds %llu bytes; packcheck reads at most 1 GiB per tensor",
                      ts[i]->name, (unsigned long long)ts[i]->nbytes);
            return false;
        }
    if (!pc_mul_u64(m->rows, m->cols, &numel) || numel > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "MLX-007", m->weight->name, (int64_t)m->weight->offset, "the module exceeds the logical-view limit of 2^30 elements");
        return false;
    }
    return true;
}

static bool check_finite(const pc_tensor *t, uint64_t n, pc_ctx *cx)
{
    float *v = ql_load_f32(t, n, MLX_TENSOR_LIMIT);
    if (!v) { pc_io_error(cx, "%s: cannot read", t->name); return false; }
    unsigned esz = t->dtype == PC_DT_F32 ? 4 : 2;
    bool ok = true;
    for (size_t i = 0; ok && i < (size_t)n; i++)
        if (!isfinite(v[i])) {
            pc_report(cx, "MLX-006", t->name, (int64_t)(t->offset + esz * i), "%s element %zu is %s", t->name, i, isnan(v[i]) ? "NaN" : "infinite");
            ok = false;
        }
    free(v);
    return ok;
}

static void add_module(pc_input *in, const char *prefix, const mlx_mod *m, pc_ctx *cx)
{
    mlx_mod *priv = malloc(sizeof *priv);
    pc_module *pm = priv ? pc_module_add(in, &pc_format_mlx, prefix, MLX_LAYOUT) : NULL;
    if (!pm) { free(priv); cx->oom = true; return; }
    *priv = *m;
    const pc_tensor *w = m->weight;
    pm->ndim = w->ndim;
    for (int d = 0; d < w->ndim - 1; d++) pm->shape[d] = w->shape[d];
    pm->shape[w->ndim - 1] = m->cols;
    pm->numel = m->rows * m->cols;
    pm->bits = m->bits;
    pm->priv = priv;
    static const char *const k_parts[] = {"weight", "scales", "biases", NULL};
    pc_module_claim_suffixes(in, prefix, pm->layout, k_parts);
}

static void check_module(pc_input *in, const char *prefix, const mlx_params *global, pc_ctx *cx)
{
    mlx_mod m = {0};
    mlx_params p = module_params(in, prefix, global);
    if (!p.affine && !pc_sibling(in, prefix, "biases")) return; /* not an affine module: mlx_explain names it */
    if (!check_tensor_set(in, prefix, &m, cx)) return;
    if (!p.affine) {
        pc_report(cx, "MLX-004", m.biases->name, (int64_t)m.biases->offset,
                  "%s is present but the module's mode is not affine: only affine mode stores biases", m.biases->name);
        return;
    }
    if (!p.quantized) {
        pc_report(cx, "MLX-002", m.weight->name, (int64_t)m.weight->offset,
                  "quantization[\"%.200s\"] is false (a dense module) but %s is packed with scales and biases", prefix, m.weight->name);
        return;
    }
    if (!check_geometry(prefix, &p, &m, cx) || !check_limits(&m, cx)) return;
    pc_eval(cx, "MLX-006");
    uint64_t ng = m.rows * (m.cols / m.group);
    if (!check_finite(m.scales, ng, cx) || !check_finite(m.biases, ng, cx)) return;
    add_module(in, prefix, &m, cx);
}

static bool mlx_detect(const pc_input *in)
{
    char prefix[PREFIX_MAX];
    if (in->is_gguf) return false;
    for (size_t i = 0; i < in->ntensors; i++)
        if (mlx_affine_module(in, &in->tensors[i], prefix, sizeof prefix)) return true;
    return false;
}

static void mlx_check(pc_input *in, pc_ctx *cx)
{
    mlx_params global;
    pc_input_note_layout(in, MLX_LAYOUT);
    if (!check_config(in, cx, &global)) return;
    char prefix[PREFIX_MAX];
    for (size_t i = 0; i < in->ntensors; i++) {
        if (!mlx_affine_module(in, &in->tensors[i], prefix, sizeof prefix)) continue;
        check_module(in, prefix, &global, cx);
        if (cx->oom || cx->io_error) return;
    }
}

static pc_mlx_t scale_type(const pc_tensor *s)
{
    return s->dtype == PC_DT_F32 ? PC_MLX_T_F32 : s->dtype == PC_DT_BF16 ? PC_MLX_T_BF16 : PC_MLX_T_F16;
}

int pc_mlx_params(const pc_module *pm, float **scales, float **biases, size_t *group, pc_mlx_t *t)
{
    if (pm->fmt != &pc_format_mlx) return -1;
    const mlx_mod *m = pm->priv;
    size_t ng = (size_t)(m->rows * (m->cols / m->group));
    *scales = ql_load_f32(m->scales, ng, MLX_TENSOR_LIMIT);
    *biases = ql_load_f32(m->biases, ng, MLX_TENSOR_LIMIT);
    *group = (size_t)m->group;
    *t = scale_type(m->scales);
    if (*scales && *biases) return 0;
    free(*scales); free(*biases);
    return -1;
}

static int mlx_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mlx_mod *m = pm->priv;
    size_t n = (size_t)(m->rows * m->cols), ng = (size_t)(m->rows * (m->cols / m->group));
    uint8_t *raw = pc_tensor_load(m->weight, MLX_TENSOR_LIMIT);
    uint8_t *q = codes ? codes : malloc(n ? n : 1);
    float *s = weights ? ql_load_f32(m->scales, ng, MLX_TENSOR_LIMIT) : NULL;
    float *b = weights ? ql_load_f32(m->biases, ng, MLX_TENSOR_LIMIT) : NULL;
    int rc = -1;
    if (!raw || !q || (weights && (!s || !b)) || m->weight->nbytes * 8 != (uint64_t)n * m->bits) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        goto out;
    }
    pc_stream_fn(impl)(raw, m->bits, n, q);
    if (weights) {
        pc_mlx_affine(impl)(q, (size_t)m->rows, (size_t)m->cols, (size_t)m->group, s, b, scale_type(m->scales), weights);
    }
    rc = 0;
out:
    free(raw); free(s); free(b);
    if (q != codes) free(q);
    return rc;
}

/* Unclaimed MLX tensors: other MLX modes (mxfp4, nvfp4, mxfp8: U32 weight, U8 scales, no biases),
 * and the parts of affine modules a rule rejected (the verdict then is the rejection). */
static bool mlx_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    static const char *const k_parts[] = {"weight", "scales", "biases", NULL};
    char m[PREFIX_MAX];
    if (!pc_split_suffix(t->name, k_parts, m, sizeof m)) return false;
    const pc_tensor *w = pc_sibling(in, m, "weight");
    if (!w || !mlx_weight(in, w, m, sizeof m)) return false;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(mlx_quant(in), "mode");
    snprintf(e->scheme, sizeof e->scheme, "MLX %.32s", cJSON_IsString(mode) ? mode->valuestring : "affine");
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

/* Certify's diagnosis: MLX's affine w = rT(rT(s * q) + b) per group along each row, a uint32 stream
 * packed LSB-first (mlx/backend/cpu/quantized.cpp), so no word-level misreads but a reader may take
 * the slots from the top bit down (b | 32 only: 3/6-bit groups cross bytes). */
/* One element through the oracle kernel: w = rT(rT(s * q) + b). */
static float mlx_diag_affine(uint8_t q, float s, float b, int t)
{
    float w;
    pc_mlx_affine_ref(&q, 1, 1, 1, &s, &b, (pc_mlx_t)t, &w);
    return w;
}

static int mlx_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    (void)in;
    uint64_t K = pm->shape[pm->ndim - 1];
    float *sc = NULL, *bi = NULL;
    size_t group = 0;
    pc_mlx_t t = PC_MLX_T_F32;
    p->lay = (pc_diag_layout){.word_bits = 32 % pm->bits ? 0 : 32, .pack_dim = 'K', .msb_first = 32 % pm->bits == 0};
    p->kind = PC_DIAG_AFFINE;
    p->affine = mlx_diag_affine;
    if (!want) return 0;
    if (pc_mlx_params(pm, &sc, &bi, &group, &t) || !group || K % group) { snprintf(p->note, sizeof p->note, "MLX parameters unreadable"); free(sc); free(bi); return 1; }
    p->scale_type = (int)t;
    int rc = pc_diag_alloc(p, (size_t)pm->numel, -1);
    if (!rc && !(p->bias = malloc((size_t)pm->numel * sizeof *p->bias))) rc = -1;
    for (size_t i = 0; !rc && i < pm->numel; i++) {
        size_t g = i / K * (K / group) + i % K / group;
        p->s[i] = sc[g];
        p->bias[i] = bi[g];
    }
    free(sc); free(bi);
    return rc;
}

extern const pc_bench_entry pc_mlx_bench[]; /* mlx_bench.c */
const pc_format pc_format_mlx = {.name = "mlx", .detect = mlx_detect, .check = mlx_check, .decode = mlx_decode,
                                 .module_free = free, .explain = mlx_explain, .diag_params = mlx_diag_params,
                                 .bench = pc_mlx_bench};
