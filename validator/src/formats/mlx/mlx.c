/* Format module: MLX affine and MLX's microscaling float modes (FORMATS-2.md D; ml-explore/mlx
 * mlx/ops.cpp quantize and mlx/backend/cpu/quantized.cpp, mlx_lm utils.py load/save of `quantization`).
 *
 * Per module M: M.weight U32 [..., out, in*bits/32] holding the codes as one LSB-first bit stream
 * (3/5/6-bit fields straddle words), M.scales and M.biases [..., out, in/group] in the model dtype
 * (F16, BF16 or F32). Config: config.json `quantization` {group_size, bits, mode} with per-layer
 * overrides keyed by module path (a dict, or false for a module left dense); mlx_lm writes the
 * same dict again as `quantization_config`. No quant_method anywhere.
 *
 * Logical view (CONTRACT 3): codes = q; weight w = rT(rT(s * q) + b), T the scales' dtype, as
 * mlx.core.dequantize computes it on the CPU (bit-exact with its output widened to f32).
 *
 * Modes mxfp4, nvfp4, mxfp8 (mlx 0.32.4 mx.quantize(w, mode=...), the table in its docstring):
 * M.weight U32 as above (4-bit E2M1 codes, or 8-bit E4M3 bytes, LSB-first), M.scales U8
 * [..., out, in/group] and no biases; group 32 (E8M0 scales, 2^(e - 127)) for mxfp4 and mxfp8,
 * 16 (E4M3 scales) for nvfp4; mlx_lm's QuantizedLinear stores no nvfp4 global scale. Weight:
 * value(code) * scale in f32, exact but for overflow (mx.dequantize(dtype=float32) bit for bit;
 * without dtype it returns bf16). Decoded with the NVFP4 / FP8 kernels and pc_e8m0_value. The one
 * place MLX's CPU decode leaves the OCP formula: E8M0 255 (NaN) reads as 2^128 (inf weights, NaN
 * for code 0); MLX-010 rejects that byte, so the decode never sees it. */
#include "../row_decode.h"
#include "../known_schemes.h"
#include "../qlinear.h"

#include "../../core/arith.h"
#include "formats/diag_util.h"
#include "../../core/scan.h"
#include "../../core/json_index.h"
#include "../../core/util.h"
#include "kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_mlx;

#define MLX_LAYOUT "mlx-affine"
#define MLX_TENSOR_LIMIT (1ull << 30)
#define PREFIX_MAX 1024

typedef enum { MLX_AFFINE, MLX_MXFP4, MLX_NVFP4, MLX_MXFP8, MLX_NMODES } mlx_mode;

/* The modes mx.quantize knows and the only bits / group size each fp mode takes ([quantize]
 * "mxfp4 quantization requires group size 32", ...). */
static const struct { const char *name, *layout; long long bits, group; } k_mode[MLX_NMODES] = {
    [MLX_AFFINE] = {"affine", MLX_LAYOUT, 0, 0},
    [MLX_MXFP4] = {"mxfp4", "mlx-mxfp4", 4, 32},
    [MLX_NVFP4] = {"nvfp4", "mlx-nvfp4", 4, 16},
    [MLX_MXFP8] = {"mxfp8", "mlx-mxfp8", 8, 32},
};

typedef struct mlx_params {
    long long bits, group;
    bool quantized; /* false: an override `false` (the module stays dense) */
    mlx_mode mode;  /* mode absent: affine */
} mlx_params;

typedef struct mlx_mod {
    const pc_tensor *weight, *scales, *biases;
    uint64_t rows, cols, group; /* rows: every dim but the last, multiplied */
    unsigned bits;
    mlx_mode mode;
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

/* Read {bits, group_size, mode} of one dict (global or an override) over `base`. NULL when valid,
 * else the rule broken (`dflt`: the dict's own rule; MLX-008 for the mode and its parameters) with
 * a reason in `why`. */
static const char *read_params(const cJSON *d, const mlx_params *base, mlx_params *out, const char *dflt, char *why, size_t n)
{
    *out = base ? *base : (mlx_params){.bits = 4, .group = 64, .quantized = true, .mode = MLX_AFFINE};
    bool present;
    long long v;
    if (ql_cfg_int(d, "bits", &v, &present)) out->bits = v;
    else if (present || !base) { snprintf(why, n, present ? "bits is not an integer" : "bits is missing"); return dflt; }
    if (ql_cfg_int(d, "group_size", &v, &present)) out->group = v;
    else if (present || !base) { snprintf(why, n, present ? "group_size is not an integer" : "group_size is missing"); return dflt; }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(d, "mode");
    if (mode && !cJSON_IsString(mode)) { snprintf(why, n, "mode is not a string"); return dflt; }
    if (mode) {
        int m = 0;
        while (m < MLX_NMODES && strcmp(mode->valuestring, k_mode[m].name)) m++;
        if (m == MLX_NMODES) {
            snprintf(why, n, "mode \"%.40s\" is not one of affine, mxfp4, nvfp4, mxfp8", mode->valuestring);
            return "MLX-008";
        }
        out->mode = (mlx_mode)m;
    }
    if (out->mode != MLX_AFFINE) {
        if (out->bits == k_mode[out->mode].bits && out->group == k_mode[out->mode].group) return NULL;
        snprintf(why, n, "mode %s takes bits %lld and group_size %lld, not %lld and %lld (mx.quantize refuses them)",
                 k_mode[out->mode].name, k_mode[out->mode].bits, k_mode[out->mode].group, out->bits, out->group);
        return "MLX-008";
    }
    if (!valid_bits(out->bits)) { snprintf(why, n, "bits %lld is not one of 1, 2, 3, 4, 5, 6, 8", out->bits); return dflt; }
    if (!valid_group(out->group)) { snprintf(why, n, "group_size %lld is not one of 32, 64, 128", out->group); return dflt; }
    return NULL;
}

/* MLX-001 and MLX-002 over the whole config; false when no module can be decoded. */
static bool check_config(const pc_input *in, pc_ctx *cx, mlx_params *global)
{
    pc_eval(cx, "MLX-001");
    pc_eval(cx, "MLX-002");
    pc_eval(cx, "MLX-003");
    pc_eval(cx, "MLX-008");
    const cJSON *q = mlx_quant(in);
    const char *rule;
    char why[160];
    if (!q) {
        pc_report(cx, "MLX-001", "config.json", -1,
                  "MLX tensors (U32 weight, scales, biases) without a `quantization` dict in config.json: bits and "
                  "group size cannot be read from the tensors (in*bits/32 words fit several pairs)");
        return false;
    }
    if ((rule = read_params(q, NULL, global, "MLX-001", why, sizeof why))) {
        pc_report(cx, rule, "config.json", -1, "quantization: %s", why);
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
        } else if ((rule = read_params(e, global, &p, "MLX-002", why, sizeof why))) {
            pc_report(cx, rule, "config.json", -1, "quantization[\"%.200s\"]: %s", e->string, why);
            ok = false;
        }
    }
    const cJSON *dup = cJSON_GetObjectItemCaseSensitive((const cJSON *)in->config_json, "quantization_config");
    if (dup && !pc_json_equal(dup, q)) /* cJSON_Compare matches members pairwise: quadratic in overrides */
        pc_report(cx, "MLX-003", "config.json", -1,
                  "quantization_config differs from quantization: mlx_lm loads `quantization`, a reader of the other "
                  "dict decodes with other parameters");
    return ok;
}

/* The parameters that apply to module M: its override, else the global ones. */
static mlx_params module_params(const pc_json_index *overrides, const char *prefix, const mlx_params *global)
{
    const cJSON *e = pc_json_index_get(overrides, prefix); /* one key lookup per module, not a walk of the dict */
    mlx_params p = *global;
    char why[160];
    if (cJSON_IsFalse(e)) p.quantized = false;
    else if (cJSON_IsObject(e) && read_params(e, global, &p, "MLX-002", why, sizeof why)) p = *global; /* MLX-002/008 said so */
    return p;
}

/* ---- tensors --------------------------------------------------------------------------- */

/* M.weight is U32 and M.scales exists: the MLX fingerprint (the mode comes from the config). */
static bool mlx_weight(const pc_input *in, const pc_tensor *t, char *prefix, size_t n)
{
    static const char *const k_w[] = {"weight", NULL};
    if (t->dtype != PC_DT_U32 || !pc_split_suffix(t->name, k_w, prefix, n)) return false;
    return pc_sibling(in, prefix, "scales") != NULL;
}

static bool check_tensor_set(const pc_input *in, const char *prefix, mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-004");
    m->weight = pc_sibling(in, prefix, "weight");
    m->scales = pc_sibling(in, prefix, "scales");
    m->biases = pc_sibling(in, prefix, "biases");
    const pc_tensor *w = m->weight, *s = m->scales, *b = m->biases;
    if (!b) {
        pc_report(cx, "MLX-004", s->name, (int64_t)s->offset, "%s.biases is missing: affine mode stores one bias per group%s", prefix,
                  s->dtype == PC_DT_U8 ? " (U8 scales belong to mode mxfp4, nvfp4 or mxfp8, which the config does not name)" : "");
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

/* MLX-009: mx.quantize in an fp mode returns (weight, scales): U8 scales of the weight's dims but
 * the last, no biases. */
static bool check_fp_tensor_set(const pc_input *in, const char *prefix, mlx_mode mode, mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-009");
    m->weight = pc_sibling(in, prefix, "weight");
    m->scales = pc_sibling(in, prefix, "scales");
    m->biases = pc_sibling(in, prefix, "biases");
    const pc_tensor *w = m->weight, *s = m->scales;
    const char *mn = k_mode[mode].name;
    if (m->biases) {
        pc_report(cx, "MLX-009", m->biases->name, (int64_t)m->biases->offset,
                  "%s is present but the module's mode is %s: only affine mode stores biases (mx.quantize returns weight and scales)", m->biases->name, mn);
        return false;
    }
    if (w->ndim < 2 || w->ndim > 3) {
        pc_report(cx, "MLX-009", w->name, (int64_t)w->offset, "%s has %d dims; expected 2 ([out, in*bits/32]) or 3 (experts)", w->name, w->ndim);
        return false;
    }
    if (s->dtype != PC_DT_U8) {
        pc_report(cx, "MLX-009", s->name, (int64_t)s->offset, "%s is %s; mode %s stores its %s scales as U8 bytes", s->name,
                  pc_dtype_name(s->dtype), mn, mode == MLX_NVFP4 ? "E4M3" : "E8M0");
        return false;
    }
    bool same = s->ndim == w->ndim;
    for (int d = 0; same && d < w->ndim - 1; d++) same = s->shape[d] == w->shape[d];
    if (!same) {
        pc_report(cx, "MLX-009", s->name, (int64_t)s->offset, "%s must have the dims of %s but the last", s->name, w->name);
        return false;
    }
    m->mode = mode;
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
        if (ts[i] && ts[i]->nbytes > MLX_TENSOR_LIMIT) {
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
    pc_module *pm = pc_module_add_with(in, &pc_format_mlx, prefix, k_mode[m->mode].layout, m, sizeof *m, cx);
    if (!pm) return;
    const pc_tensor *w = m->weight;
    pm->ndim = w->ndim;
    for (int d = 0; d < w->ndim - 1; d++) pm->shape[d] = w->shape[d];
    pm->shape[w->ndim - 1] = m->cols;
    pm->numel = m->rows * m->cols;
    pm->bits = m->bits;
    pc_module_claim_parts(in, pm->fmt, prefix, pm->layout);
}

/* MLX-010: no E8M0 NaN byte (255; MLX's CPU reads it as 2^128) and no NaN (0x7F) or negative E4M3
 * scale (mx.quantize writes e4m3(absmax / 6) >= 0). Scans run after the check pass. */
static bool scan_fp_scales(pc_input *in, const mlx_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "MLX-010");
    if (pc_scan_ints_in_range(in, cx, m->scales, "MLX-010", 0, m->mode == MLX_NVFP4 ? 0x7E : 254)) { cx->oom = true; return false; }
    return true;
}

static void check_fp_module(pc_input *in, const char *prefix, const mlx_params *p, pc_ctx *cx)
{
    mlx_mod m = {0};
    if (!check_fp_tensor_set(in, prefix, p->mode, &m, cx)) return;
    if (!p->quantized) {
        pc_report(cx, "MLX-002", m.weight->name, (int64_t)m.weight->offset,
                  "quantization[\"%.200s\"] is false (a dense module) but %s is packed with scales", prefix, m.weight->name);
        return;
    }
    if (!check_geometry(prefix, p, &m, cx) || !check_limits(&m, cx) || !scan_fp_scales(in, &m, cx)) return;
    add_module(in, prefix, &m, cx);
}

static void check_module(pc_input *in, const char *prefix, const pc_json_index *overrides, const mlx_params *global, pc_ctx *cx)
{
    mlx_mod m = {0};
    mlx_params p = module_params(overrides, prefix, global);
    if (p.mode != MLX_AFFINE) {
        check_fp_module(in, prefix, &p, cx);
        return;
    }
    if (!check_tensor_set(in, prefix, &m, cx)) return;
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
        if (mlx_weight(in, &in->tensors[i], prefix, sizeof prefix)) return true;
    return false;
}

static void mlx_check(pc_input *in, pc_ctx *cx)
{
    mlx_params global = {.bits = 4, .group = 64, .quantized = true, .mode = MLX_AFFINE};
    bool ok = check_config(in, cx, &global);
    pc_input_note_layout(in, k_mode[global.mode].layout); /* the global mode names the input's format */
    if (!ok) return;
    pc_json_index overrides;
    if (pc_json_index_build(&overrides, mlx_quant(in))) { cx->oom = true; return; }
    char prefix[PREFIX_MAX];
    for (size_t i = 0; i < in->ntensors; i++) {
        if (!mlx_weight(in, &in->tensors[i], prefix, sizeof prefix)) continue;
        check_module(in, prefix, &overrides, &global, cx);
        if (cx->oom || cx->io_error) break;
    }
    pc_json_index_free(&overrides);
}

static pc_mlx_t scale_type(const pc_tensor *s)
{
    return s->dtype == PC_DT_F32 ? PC_MLX_T_F32 : s->dtype == PC_DT_BF16 ? PC_MLX_T_BF16 : PC_MLX_T_F16;
}

/* The module's scale parameters as it decodes them (its diag_params re-derives weights from them). */
static int mlx_scale_params(const pc_module *pm, float **scales, float **biases, size_t *group, pc_mlx_t *t)
{
    if (pm->fmt != &pc_format_mlx) return -1;
    const mlx_mod *m = pm->priv;
    if (m->mode != MLX_AFFINE) return -1;
    size_t ng = (size_t)(m->rows * (m->cols / m->group));
    *scales = ql_load_f32(m->scales, ng, MLX_TENSOR_LIMIT);
    *biases = ql_load_f32(m->biases, ng, MLX_TENSOR_LIMIT);
    *group = (size_t)m->group;
    *t = scale_type(m->scales);
    if (*scales && *biases) return 0;
    free(*scales); free(*biases);
    return -1;
}

/* An fp mode's f32 scale of each group: E8M0 2^(e - 127) (mxfp4, mxfp8) or the E4M3 value (nvfp4),
 * `per` copies each (the NVFP4 kernel takes one scale per 16 codes). */
static float *fp_scales(const mlx_mod *m, size_t per)
{
    size_t ng = (size_t)(m->rows * (m->cols / m->group));
    uint8_t *e = m->scales->nbytes == ng ? pc_tensor_load(m->scales, MLX_TENSOR_LIMIT) : NULL;
    float *s = e ? malloc(ng * per * sizeof *s + 1) : NULL;
    for (size_t i = 0; s && i < ng; i++) {
        float v = m->mode == MLX_NVFP4 ? pc_f8e4m3_to_f32(e[i]) : pc_e8m0_value(e[i]);
        for (size_t j = 0; j < per; j++) s[i * per + j] = v;
    }
    free(e);
    return s;
}

/* value(code) * scale in f32: E2M1 through the NVFP4 kernel (16 codes per scale), E4M3 through the
 * FP8 kernel (blocks of 1 x 32). */
static int decode_fp(const mlx_mod *m, pc_impl impl, const uint8_t *q, float *out)
{
    bool fp8 = m->mode == MLX_MXFP8;
    float *s = fp_scales(m, fp8 ? 1 : (size_t)m->group / 16);
    if (!s) return -1;
    if (fp8) pc_fp8_dequant(impl)(q, (size_t)m->rows, (size_t)m->cols, 1, (size_t)m->group, s, out);
    else pc_nvfp4_dequant(impl)(q, (size_t)m->rows, (size_t)m->cols, s, out);
    free(s);
    return 0;
}

static int mlx_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mlx_mod *m = pm->priv;
    bool affine = m->mode == MLX_AFFINE;
    size_t n = (size_t)(m->rows * m->cols), ng = (size_t)(m->rows * (m->cols / m->group));
    uint8_t *raw = pc_tensor_load(m->weight, MLX_TENSOR_LIMIT);
    uint8_t *q = codes ? codes : malloc(n ? n : 1);
    float *s = weights && affine ? ql_load_f32(m->scales, ng, MLX_TENSOR_LIMIT) : NULL;
    float *b = weights && affine ? ql_load_f32(m->biases, ng, MLX_TENSOR_LIMIT) : NULL;
    int rc = -1;
    if (!raw || !q || (weights && affine && (!s || !b)) || m->weight->nbytes * 8 != (uint64_t)n * m->bits) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        goto out;
    }
    pc_stream_fn(impl)(raw, m->bits, n, q);
    if (weights && affine) {
        pc_mlx_affine(impl)(q, (size_t)m->rows, (size_t)m->cols, (size_t)m->group, s, b, scale_type(m->scales), weights);
    } else if (weights && decode_fp(m, impl, q, weights)) {
        pc_io_error(cx, "%s: cannot read the scales", pm->prefix);
        goto out;
    }
    rc = 0;
out:
    free(raw); free(s); free(b);
    if (q != codes) free(q);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* The scales (and biases) as the whole decode loads them, once per module, and a read buffer. The
 * weight is one LSB-first stream over the flattened [rows, cols] tensor; a row is cols * bits bits,
 * a whole number of bytes (cols is a multiple of the group, itself of 16), so a slice of whole rows
 * is a byte run that starts a stream of its own, and its scales are rows r0.. of [rows, groups]. */
typedef struct mlx_rows {
    float *s, *b;
    uint8_t *buf;
    size_t cap;
} mlx_rows;

static void mlx_rows_free(void *p)
{
    mlx_rows *r = p;
    if (r) { free(r->s); free(r->b); free(r->buf); }
    free(r);
}

static int mlx_rows_scales(const mlx_mod *m, mlx_rows *st)
{
    size_t ng = (size_t)(m->rows * (m->cols / m->group));
    if (m->mode != MLX_AFFINE) return (st->s = fp_scales(m, m->mode == MLX_MXFP8 ? 1 : (size_t)m->group / 16)) ? 0 : -1;
    st->s = ql_load_f32(m->scales, ng, MLX_TENSOR_LIMIT);
    st->b = ql_load_f32(m->biases, ng, MLX_TENSOR_LIMIT);
    return st->s && st->b ? 0 : -1;
}

static int mlx_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                           uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mlx_mod *m = pm->priv;
    mlx_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if ((m->cols * m->bits) % 8 || m->weight->nbytes * 8 != m->rows * m->cols * m->bits) {
        pc_io_error(cx, "%s: rows are not whole bytes of the weight", pm->prefix);
        return -1;
    }
    if (weights && !st->s && mlx_rows_scales(m, st)) { pc_io_error(cx, "%s: cannot read the scales", pm->prefix); return -1; }
    size_t cnt = (size_t)(n * m->cols), bytes = (size_t)(n * m->cols * m->bits / 8); /* <= numel <= 2^30 */
    if (!pc_rows_buf(&st->buf, &st->cap, bytes + cnt, cx)) return -1; /* the packed rows, then codes when the caller wants none */
    if (pc_tensor_read(m->weight, r0 * m->cols * m->bits / 8, st->buf, bytes)) { pc_io_error(cx, "%s: cannot read", m->weight->name); return -1; }
    uint8_t *q = codes ? codes : st->buf + bytes;
    pc_stream_fn(impl)(st->buf, m->bits, cnt, q);
    if (!weights) return 0;
    size_t gpr = (size_t)(m->cols / m->group); /* groups per row */
    if (m->mode == MLX_AFFINE)
        pc_mlx_affine(impl)(q, (size_t)n, (size_t)m->cols, (size_t)m->group, st->s + r0 * gpr, st->b + r0 * gpr, scale_type(m->scales), weights);
    else if (m->mode == MLX_MXFP8)
        pc_fp8_dequant(impl)(q, (size_t)n, (size_t)m->cols, 1, (size_t)m->group, st->s + r0 * gpr, weights);
    else
        pc_nvfp4_dequant(impl)(q, (size_t)n, (size_t)m->cols, st->s + r0 * (m->cols / 16), weights);
    return 0;
}

/* Unclaimed MLX tensors: the parts of modules a rule rejected (the verdict then is the rejection),
 * named with the config's global mode. */
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

/* fp modes: w = e2m1(q) * s or e4m3(q) * s, one scale per group along the row. */
static int mlx_diag_fp(const mlx_mod *m, const pc_module *pm, bool want, pc_diag_params *p)
{
    p->kind = m->mode == MLX_MXFP8 ? PC_DIAG_E4M3 : PC_DIAG_E2M1;
    if (!want) return 0;
    float *sc = fp_scales(m, 1);
    if (!sc) { snprintf(p->note, sizeof p->note, "MLX %s scales unreadable", k_mode[m->mode].name); return 1; }
    int rc = pc_diag_alloc(p, (size_t)pm->numel, -1);
    for (size_t i = 0; !rc && i < pm->numel; i++) p->s[i] = sc[i / m->group]; /* groups never cross rows */
    free(sc);
    return rc;
}

static int mlx_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    (void)in;
    uint64_t K = pm->shape[pm->ndim - 1];
    float *sc = NULL, *bi = NULL;
    size_t group = 0;
    pc_mlx_t t = PC_MLX_T_F32;
    p->lay = (pc_diag_layout){.word_bits = 32 % pm->bits ? 0 : 32, .pack_dim = 'K', .msb_first = 32 % pm->bits == 0};
    const mlx_mod *m = pm->priv; /* NULL when only the layout is asked for (want false) */
    if (m && m->mode != MLX_AFFINE) return mlx_diag_fp(m, pm, want, p);
    p->kind = PC_DIAG_AFFINE;
    p->affine = mlx_diag_affine;
    if (!want) return 0;
    if (mlx_scale_params(pm, &sc, &bi, &group, &t) || !group || K % group) { snprintf(p->note, sizeof p->note, "MLX parameters unreadable"); free(sc); free(bi); return 1; }
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
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES},
    {".scales", PC_PART_COMPANION},
    {".biases", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_mlx = {.parts = k_format_parts, .name = "mlx", .detect = mlx_detect, .check = mlx_check, .decode = mlx_decode, .decode_rows = mlx_decode_rows, .decode_rows_free = mlx_rows_free,
                                 .module_free = free, .explain = mlx_explain, .diag_params = mlx_diag_params,
                                 .bench = pc_mlx_bench};
