/* Format module: 8-bit weights with float scales, unpacked (rules: family FP8).
 *
 *   fp8-deepseek  DeepSeek-native `quant_method: "fp8"` (deepseek-ai/DeepSeek-V3 README_WEIGHTS.md):
 *                 M.weight F8_E4M3 [N, K], M.weight_scale_inv F32 [ceil(N/bh), ceil(K/bw)] with
 *                 (bh, bw) = weight_block_size; w = f32(x) * s, a multiply despite the name
 *                 (inference/kernel.py weight_dequant).
 *                 Fused MoE experts under the same config (transformers 5.24.0 integrations/
 *                 finegrained_fp8.py FP8Experts / _alloc_expert_proj): P.gate_up_proj F8_E4M3
 *                 [E, 2I, H] (gate rows 0..I-1, up rows I..2I-1: _apply_gate chunks in two),
 *                 P.up_proj [E, I, H] without a gate, P.down_proj [E, H, I], each beside
 *                 P.<name>_scale_inv F32 [E, ceil(N/bh), ceil(K/bw)]; every expert is one [N, K]
 *                 matrix of the 2-D rule (CONTRACT 3 view [E, N, K], like formats/mxfp4.c).
 *   ct-fp8        compressed-tensors float weights of 8 bits (format float-quantized, or
 *                 naive-quantized): M.weight F8_E4M3, M.weight_scale by strategy (tensor [1],
 *                 channel [N, 1], group [N, ceil(K/gs)], block [ceil(N/bh), ceil(K/bw)]).
 *   ct-int8       compressed-tensors int weights of 8 bits (int-quantized / naive-quantized, W8A8):
 *                 M.weight I8 stored unpacked, M.weight_scale as above, M.weight_zero_point I8 of
 *                 the scale's shape when asymmetric. compressed-tensors 0.20.1's
 *                 NaiveQuantizationCompressor writes both (compressors/naive_quantized/base.py).
 *   ct-mxfp8      compressed-tensors `mxfp8-quantized` (0.15+, compressors/mxfp8/base.py): ct-fp8 with
 *                 strategy group 32 and M.weight_scale U8 of E8M0 exponents, s = 2^(byte - 127)
 *                 (compressors/mx_utils.py); the same kernels, fed the exact f32 powers of two.
 *
 * Codes (CONTRACT 3): the stored byte; for int8 u = q + 128 like compressed-tensors int.
 * Weights: f32(e4m3(x)) * f32(s), or f32(q - zp) * f32(s), s = scale[n // bh, k // bw].
 * The compressed-tensors config is read with ct_config.c (the library's pydantic rules, CFG-02x). */
#include "../ct/ct.h"
#include "fp8_module.h"
#include "../row_decode.h"

#include "../../core/arith.h"
#include "../../core/scan.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "../../kernels/kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F8_WEIGHT_LIMIT (1ull << 30) /* bytes of one weight we decode */
#define F8_SCALE_LIMIT (1ull << 28)

extern const pc_format pc_format_fp8;
extern const pc_format pc_format_ct;

static const char *const k_layout[3] = {"fp8-deepseek", "ct-fp8", "ct-int8"};
static const char k_layout_mx[] = "ct-mxfp8"; /* ct-fp8 with E8M0 scales per 32 (mxfp8-quantized) */

/* How one module's scale grid maps onto its [N, K] weight. */
typedef struct f8_grid {
    const char *strategy;      /* for messages */
    uint64_t bh, bw;           /* block rows, cols (tensor: N, K; channel: 1, K) */
    bool tensor;               /* one scale: [1] or 0-dim */
    bool e8m0;                 /* mxfp8-quantized: U8 E8M0 scales per 32 (FP8-010) */
    bool ue8m0;                /* quant_method fp8, scale_fmt ue8m0: power-of-two scales (FP8-012) */
    unsigned bits;             /* int weights: num_bits (values of fewer bits stored one per I8 byte: FP8-013) */
} f8_grid;


static const char *const k_parts[] = {"weight", "weight_scale", "weight_scale_inv", "weight_zero_point",
                                      "input_scale", "input_zero_point", NULL};

/* ---- names ---- */

/* The tensor named name + sep + suffix, or NULL. */
static const pc_tensor *find_joined(const pc_input *in, const char *name, const char *sep, const char *suffix)
{
    char *n = pc_asprintf("%s%s%s", name, sep, suffix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

/* M.suffix of module prefix M; P + suffix of fused experts P. */
static const pc_tensor *sibling(const pc_input *in, const char *prefix, const char *suffix) { return find_joined(in, prefix, ".", suffix); }
static const pc_tensor *sibling_suffix(const pc_input *in, const char *name, const char *suffix) { return find_joined(in, name, "", suffix); }

/* M for a tensor named M.weight, else NULL (caller frees). */

static char *weight_prefix(const char *name)
{
    size_t n = strlen(name);
    if (n <= 7 || strcmp(name + n - 7, ".weight")) return NULL;
    return pc_strndup(name, n - 7);
}

static bool is_f8(pc_dtype d) { return d == PC_DT_F8_E4M3 || d == PC_DT_F8_E5M2; }

/* The fingerprint of scaled 8-bit weights: FP8 beside a scale (either name), or I8 beside weight_scale. */
static bool scaled_8bit(const pc_input *in, const pc_tensor *t, const char *prefix)
{
    if (is_f8(t->dtype)) return sibling(in, prefix, "weight_scale_inv") || sibling(in, prefix, "weight_scale");
    return t->dtype == PC_DT_I8 && sibling(in, prefix, "weight_scale");
}

static const pc_tensor *first_fingerprint(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++) {
        char *p = weight_prefix(in->tensors[i].name);
        bool hit = p && scaled_8bit(in, &in->tensors[i], p);
        free(p);
        if (hit) return &in->tensors[i];
    }
    return NULL;
}

/* ---- config ---- */

static bool is_deepseek(const pc_input *in)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    return qm && !strcmp(qm, "fp8");
}

static bool ct_format_is_ours(const char *f)
{
    return f && (!strcmp(f, "float-quantized") || !strcmp(f, "int-quantized") || !strcmp(f, "naive-quantized") ||
                 !strcmp(f, "mxfp8-quantized"));
}

/* A compressed-tensors config with our format at the top level or in a group. */
static bool ct_is_ours(const pc_input *in)
{
    if (!in->qconfig || !ct_config_is_ct(in)) return false;
    const cJSON *q = in->qconfig, *g;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(q, "format");
    if (cJSON_IsString(f) && ct_format_is_ours(f->valuestring)) return true;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(q, "config_groups")) {
        const cJSON *gf = cJSON_GetObjectItemCaseSensitive(g, "format");
        if (cJSON_IsString(gf) && ct_format_is_ours(gf->valuestring)) return true;
    }
    return false;
}

/* An integer-valued positive JSON number. */
static bool pos_int(const cJSON *j, uint64_t *v)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= 1 && j->valuedouble <= 9.0e15) || j->valuedouble != floor(j->valuedouble))
        return false;
    *v = (uint64_t)j->valuedouble;
    return true;
}

/* FP8-004 on the DeepSeek config; fills the block size. */
static bool deepseek_config(const pc_input *in, f8_grid *g, bool *static_act, pc_ctx *cx)
{
    const cJSON *q = in->qconfig;
    const char *src = in->qconfig_source ? in->qconfig_source : "config.json";
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(q, "weight_block_size");
    const char *fmt = pc_input_qconfig_str(in, "fmt"), *act = pc_input_qconfig_str(in, "activation_scheme");
    pc_eval(cx, "FP8-004");
    *g = (f8_grid){.strategy = "block"};
    *static_act = act && !strcmp(act, "static");
    if (fmt && strcmp(fmt, "e4m3")) {
        pc_report(cx, "FP8-004", src, -1, "quant_method fp8 with fmt \"%.40s\": only e4m3 weights are defined", fmt);
        return false;
    }
    /* transformers 5.25 FineGrainedFP8Config: scale_fmt "float" (default) or "ue8m0", else a ValueError */
    const char *sf = pc_input_qconfig_str(in, "scale_fmt");
    pc_eval(cx, "FP8-012");
    if (sf && strcmp(sf, "float") && strcmp(sf, "ue8m0")) {
        pc_report(cx, "FP8-012", src, -1, "scale_fmt \"%.40s\" is neither float nor ue8m0", sf);
        return false;
    }
    g->ue8m0 = sf && !strcmp(sf, "ue8m0");
    if (act && strcmp(act, "dynamic") && strcmp(act, "static")) {
        pc_report(cx, "FP8-004", src, -1, "activation_scheme \"%.40s\" is neither dynamic nor static", act);
        return false;
    }
    if (!cJSON_IsArray(b) || cJSON_GetArraySize(b) != 2 || !pos_int(cJSON_GetArrayItem(b, 0), &g->bh) ||
        !pos_int(cJSON_GetArrayItem(b, 1), &g->bw)) {
        pc_report(cx, "FP8-004", src, -1, "weight_block_size is %s, not [rows, cols] of positive integers: the scale grid cannot be read without guessing",
                  b ? "malformed" : "missing");
        return false;
    }
    return true;
}

/* FP8-004 on one compressed-tensors group; fills the grid for a weight of [rows, cols]. */
static bool ct_grid(const ct_group *grp, const char *src, const pc_tensor *w, f8_grid *g, pc_ctx *cx)
{
    const ct_scheme *s = &grp->w;
    pc_eval(cx, "FP8-004");
    /* IntQuantizationCompressor stores any int of <= 8 bits one value per int8 (the W4AFP8 preset's int4) */
    if (s->is_int ? s->num_bits < 2 || s->num_bits > 8 : s->num_bits != 8) {
        pc_report(cx, "FP8-004", src, -1, "config group %s: num_bits %lld; float-quantized weights of this module are 8-bit, int ones 2..8",
                  grp->name, (long long)s->num_bits);
        return false;
    }
    uint64_t n = w->ndim == 2 ? w->shape[0] : 1, k = w->ndim == 2 ? w->shape[1] : 1;
    *g = (f8_grid){.strategy = s->strategy_name, .bits = (unsigned)s->num_bits};
    switch (s->strategy) {
    case CT_STRAT_TENSOR: g->bh = n; g->bw = k; g->tensor = true; return true;
    case CT_STRAT_CHANNEL: g->bh = 1; g->bw = k; return true;
    case CT_STRAT_GROUP: g->bh = 1; g->bw = (uint64_t)s->group_size; return true;
    case CT_STRAT_BLOCK: g->bh = (uint64_t)s->block[0]; g->bw = (uint64_t)s->block[1]; return true;
    default:
        pc_report(cx, "FP8-004", src, -1, "config group %s: weight strategy %s is not tensor, channel, group or block", grp->name, s->strategy_name);
        return false;
    }
}

/* FP8-010: compressed-tensors mxfp8-quantized (MXFP8QuantizationCompressor.can_compress, 0.15..0.20.1
 * compressors/mxfp8/base.py) is float 8-bit with group_size 32 and E8M0 scales (compress_mx_scale,
 * 127 + floor(log2(scale)), compressors/mx_utils.py). */
static bool mx_group(const ct_group *grp, const char *fmt, const char *src, f8_grid *g, pc_ctx *cx)
{
    if (!fmt || strcmp(fmt, "mxfp8-quantized")) return true;
    pc_eval(cx, "FP8-010");
    if (grp->w.is_int || grp->w.strategy != CT_STRAT_GROUP || grp->w.group_size != 32) {
        pc_report(cx, "FP8-010", src, -1, "config group %s: mxfp8-quantized wants float weights, strategy group, group_size 32", grp->name);
        return false;
    }
    g->e8m0 = true;
    return true;
}

/* Static input activations in a compressed-tensors group (dynamic false or absent). */
static bool ct_static_input(const pc_input *in, const ct_group *grp)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, "config_groups"), grp->name);
    const cJSON *ia = cJSON_GetObjectItemCaseSensitive(g, "input_activations");
    if (!cJSON_IsObject(ia)) return false;
    const cJSON *dy = cJSON_GetObjectItemCaseSensitive(ia, "dynamic");
    return !cJSON_IsTrue(dy) && !cJSON_IsString(dy); /* false, null or absent; "local" is dynamic */
}

/* ---- one module ---- */

static bool check_weight(const pc_tensor *w, enum f8_kind kind, bool experts, pc_ctx *cx)
{
    pc_dtype want = kind == F8_CT_INT ? PC_DT_I8 : PC_DT_F8_E4M3;
    if (w->dtype != want) {
        pc_report(cx, "FP8-001", w->name, (int64_t)w->offset, "weight is %s; the %s scheme stores %s", pc_dtype_name(w->dtype),
                  k_layout[kind], pc_dtype_name(want));
        return false;
    }
    int want_rank = experts ? 3 : 2;
    bool empty = false;
    for (int i = 0; i < w->ndim; i++) empty |= w->shape[i] == 0;
    if (w->ndim != want_rank || empty) {
        pc_report(cx, "FP8-002", w->name, (int64_t)w->offset, "weight has rank %d%s; want a non-empty %s", w->ndim,
                  w->ndim == want_rank ? " with a zero dimension" : "", experts ? "[E, N, K] of fused experts" : "[N, K]");
        return false;
    }
    return true;
}

/* FP8-011: a fused gate_up_proj [E, 2I, H] holds gate rows 0..I-1 then up rows I..2I-1
 * (FP8Experts._apply_gate chunks the output in two halves). A block of bh scale rows that
 * crosses row I shares one scale between two projections quantized apart; vLLM refuses such a
 * checkpoint (quantization/fp8.py Fp8MoEMethod.create_weights: "output_size of gate's and up's
 * weight ... is not divisible by weight quantization block_n"), and transformers' merge of
 * per-expert grids gives 2 * ceil(I/bh) scale rows where the fused grid has ceil(2I/bh). */
static bool check_gate_up(const pc_tensor *w, const f8_grid *g, pc_ctx *cx)
{
    size_t n = strlen(w->name);
    if (n < 12 || strcmp(w->name + n - 12, "gate_up_proj")) return true;
    pc_eval(cx, "FP8-011");
    uint64_t rows = w->shape[1];
    if (rows % 2 || (rows / 2) % g->bh) {
        pc_report(cx, "FP8-011", w->name, (int64_t)w->offset,
                  "fused gate_up_proj has %llu rows per expert: the gate/up boundary at row %llu%s is not on a %llu-row scale block boundary, so one scale would cover rows of both projections",
                  (unsigned long long)rows, (unsigned long long)(rows / 2), rows % 2 ? " (odd row count)" : "", (unsigned long long)g->bh);
        return false;
    }
    return true;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* FP8-003's diagnosis of a wrong grid: transposed, or what block size a shape-derived guess implies. */
static void grid_mismatch(const pc_tensor *s, const f8_module *m, const f8_grid *g, pc_ctx *cx)
{
    int o = m->experts && s->ndim == 3; /* an expert grid: its last two dims are one expert's */
    uint64_t a = s->ndim > o ? s->shape[o] : 0, b = s->ndim > o + 1 ? s->shape[o + 1] : 0;
    char why[200] = "";
    if (s->ndim == 2 + o && a == m->gc && b == m->gr && a != b)
        snprintf(why, sizeof why, ": the grid is transposed ([K blocks, N blocks])");
    else if (s->ndim == 2 + o && (s->ndim == 3) == (m->experts != 0) && a && b && (ceil_div(m->rows, a) != g->bh || ceil_div(m->cols, b) != g->bw))
        snprintf(why, sizeof why, ": a block size derived from the shapes would be %llux%llu, not the config's %llux%llu",
                 (unsigned long long)ceil_div(m->rows, a), (unsigned long long)ceil_div(m->cols, b),
                 (unsigned long long)g->bh, (unsigned long long)g->bw);
    if (m->experts && s->ndim != 3) snprintf(why, sizeof why, ": fused experts want one grid per expert, [E = %llu, %llu, %llu]",
                                             (unsigned long long)m->experts, (unsigned long long)m->gr, (unsigned long long)m->gc);
    pc_report(cx, "FP8-003", s->name, (int64_t)s->offset,
              "scale is %s of rank %d [%s%llu, %llu]; %s strategy with block %llux%llu over [%llu, %llu] wants %s [%llu, %llu]%s",
              pc_dtype_name(s->dtype), s->ndim, o ? "E, " : "", (unsigned long long)a, (unsigned long long)b, g->strategy,
              (unsigned long long)g->bh, (unsigned long long)g->bw, (unsigned long long)m->rows, (unsigned long long)m->cols,
              m->kind != F8_DEEPSEEK ? "float" : g->ue8m0 ? (m->experts ? "F32, F8_E8M0 or U8 per expert" : "F32, F8_E8M0 or U8")
                                                             : (m->experts ? "F32 per expert" : "F32"), (unsigned long long)m->gr, (unsigned long long)m->gc, why);
}

/* The scale dtypes each writer emits: DeepSeek F32; transformers' scale_fmt ue8m0 float8_e8m0fnu (its
 * reload also takes the bytes as U8) or, as DeepSeek-V3.1 ships, F32 powers of two (FP8-012). */
static bool scale_dtype_ok(enum f8_kind kind, const f8_grid *g, pc_dtype d)
{
    if (g->e8m0) return d == PC_DT_U8 || d == PC_DT_F8_E8M0;
    if (kind == F8_DEEPSEEK) return d == PC_DT_F32 || (g->ue8m0 && (d == PC_DT_U8 || d == PC_DT_F8_E8M0));
    return d == PC_DT_F32 || d == PC_DT_BF16 || d == PC_DT_F16;
}

/* The scale's name beside a weight: M.weight_scale_inv / M.weight_scale, or P_scale_inv for fused experts P. */
static char *scale_name(const char *prefix, const f8_module *m)
{
    if (m->experts) return pc_asprintf("%s_scale_inv", prefix);
    return pc_asprintf("%s.%s", prefix, m->kind == F8_DEEPSEEK ? "weight_scale_inv" : "weight_scale");
}

static bool grid_shape_ok(const pc_tensor *s, const f8_module *m, const f8_grid *g)
{
    if (g->tensor) return s->ndim == 0 || (s->ndim == 1 && s->shape[0] == 1);
    if (m->experts) return s->ndim == 3 && s->shape[0] == m->experts && s->shape[1] == m->gr && s->shape[2] == m->gc;
    return s->ndim == 2 && s->shape[0] == m->gr && s->shape[1] == m->gc;
}

/* FP8-012: under scale_fmt ue8m0 an F32 scale is an E8M0 value, a power of two in [2^-127, 2^127]:
 * transformers casts it into its float8_e8m0fnu parameter, which holds nothing else. */
typedef struct pow2_scan {
    const pc_tensor *t;
    uint64_t bad, first;
} pow2_scan;

static bool f32_is_e8m0(uint32_t v)
{
    uint32_t e = v >> 23; /* sign 0 and the exponent field */
    return v == 0x00400000u || (e >= 1 && e <= 254 && !(v & 0x7FFFFFu)); /* 2^-127 is subnormal in f32 */
}

static int pow2_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    pow2_scan *s = arg;
    for (size_t i = 0; i + 4 <= n; i += 4)
        if (!f32_is_e8m0(pc_le32(p + i)) && s->bad++ == 0) s->first = off + i;
    return 0;
}

static void pow2_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; (void)in;
    const pow2_scan *s = arg;
    if (s->bad)
        pc_report(cx, "FP8-012", s->t->name, (int64_t)(s->t->offset + s->first),
                  "scale_fmt ue8m0 but %llu F32 scale(s) are not powers of two in [2^-127, 2^127] (first: element %llu)",
                  (unsigned long long)s->bad, (unsigned long long)(s->first / 4));
}

static int scan_powers_of_two(pc_input *in, pc_ctx *cx, const pc_tensor *t)
{
    pc_eval(cx, "FP8-012");
    pow2_scan *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->t = t;
    if (pc_scan_add(in, t, 0, t->nbytes / 4 * 4, 4, pow2_chunk, pow2_finish, free, s)) { free(s); return -1; }
    return 0;
}

static bool check_scale(const pc_input *in, const char *prefix, f8_module *m, const f8_grid *g, pc_ctx *cx)
{
    char *name = scale_name(prefix, m);
    const pc_tensor *s = name ? pc_input_find(in, name) : NULL;
    m->bh = g->bh;
    m->bw = g->bw;
    m->gr = ceil_div(m->rows, g->bh);
    m->gc = ceil_div(m->cols, g->bw);
    if (!s) {
        if (!name) cx->oom = true;
        else pc_report(cx, "FP8-003", m->w->name, (int64_t)m->w->offset, "%s is missing", name);
        free(name);
        return false;
    }
    free(name);
    if (!scale_dtype_ok(m->kind, g, s->dtype) || !grid_shape_ok(s, m, g)) {
        grid_mismatch(s, m, g, cx);
        return false;
    }
    m->scale = s;
    m->e8m0 = s->dtype != PC_DT_F32 && (g->e8m0 || g->ue8m0);
    /* FP8-010 / FP8-012: an E8M0 byte is an exponent; 255 is its NaN */
    const char *e8_rule = g->ue8m0 ? "FP8-012" : "FP8-010";
    int rc = m->e8m0 ? pc_scan_ints_in_range((pc_input *)in, cx, s, e8_rule, 0, 254) || pc_scan_floats_finite((pc_input *)in, cx, s, e8_rule, false)
                     : pc_scan_floats_finite((pc_input *)in, cx, s, "FP8-005", true);
    if (!rc && g->ue8m0 && !m->e8m0) rc = scan_powers_of_two((pc_input *)in, cx, s);
    if (rc) { cx->oom = true; return false; }
    return true;
}

static bool check_zero_point(const pc_input *in, const char *prefix, f8_module *m, bool symmetric, pc_ctx *cx)
{
    const pc_tensor *z = sibling(in, prefix, "weight_zero_point");
    if (m->kind != F8_CT_INT) return true;
    pc_eval(cx, "FP8-009");
    if (symmetric) {
        if (z) pc_report(cx, "FP8-009", z->name, (int64_t)z->offset, "a symmetric int8 scheme stores no zero point");
        return !z;
    }
    if (!z || z->dtype != PC_DT_I8 || z->ndim != m->scale->ndim || z->numel != m->scale->numel) {
        pc_report(cx, "FP8-009", z ? z->name : m->w->name, z ? (int64_t)z->offset : -1,
                  "asymmetric int8: %s.weight_zero_point must be I8 of the scale's shape", prefix);
        return false;
    }
    for (int i = 0; i < z->ndim; i++)
        if (z->shape[i] != m->scale->shape[i]) {
            pc_report(cx, "FP8-009", z->name, (int64_t)z->offset, "zero point dim %d is %llu, the scale's is %llu", i,
                      (unsigned long long)z->shape[i], (unsigned long long)m->scale->shape[i]);
            return false;
        }
    m->zp = z;
    return true;
}

static bool check_input_scale(const pc_input *in, const char *prefix, bool needed, pc_ctx *cx)
{
    const pc_tensor *is = sibling(in, prefix, "input_scale");
    pc_eval(cx, "FP8-008");
    if (needed && (!is || !pc_dtype_is_float(is->dtype))) {
        pc_report(cx, "FP8-008", is ? is->name : prefix, is ? (int64_t)is->offset : -1,
                  "static input activations but %s.input_scale is %s", prefix, is ? "not a float tensor" : "missing");
        return false;
    }
    if (is && pc_scan_floats_finite((pc_input *)in, cx, is, "FP8-008", true)) { cx->oom = true; return false; }
    return true;
}

/* FP8-006: no E4M3 NaN byte (0x7F / 0xFF) in a weight. Joins the one streaming pass; the chunk is a
 * branch-free count the compiler vectorises, so the scan runs near memory speed, and only a chunk
 * that holds a NaN is searched for the first one. */
typedef struct nan_scan {
    const pc_tensor *t;
    uint64_t count, first;
} nan_scan;

/* NaN bytes among 8: with the sign bits cleared every byte is <= 0x7F, so adding 1 per byte sets a
 * byte's top bit exactly when it was 0x7F, with no carry into its neighbour. */
static unsigned nan_bytes8(uint64_t x)
{
    return (unsigned)__builtin_popcountll(((x & 0x7F7F7F7F7F7F7F7Full) + 0x0101010101010101ull) & 0x8080808080808080ull);
}

static int nan_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    nan_scan *s = arg;
    uint64_t bad = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8); /* byte order does not matter for a count */
        bad += nan_bytes8(x);
    }
    for (; i < n; i++) bad += (p[i] & 0x7F) == 0x7F;
    if (bad && !s->count)
        for (size_t j = 0; j < n; j++)
            if ((p[j] & 0x7F) == 0x7F) { s->first = off + j; break; }
    s->count += bad;
    return 0;
}

static void nan_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    const nan_scan *s = arg;
    if (s->count)
        pc_report(cx, "FP8-006", s->t->name, (int64_t)(s->t->offset + s->first), "%llu NaN weight byte(s) (0x7F / 0xFF), first at element %llu",
                  (unsigned long long)s->count, (unsigned long long)s->first);
}

static int scan_nan_weights(pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    pc_eval(cx, "FP8-006");
    nan_scan *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->t = t;
    if (pc_scan_add(in, t, 0, t->nbytes, 1, nan_chunk, nan_finish, free, s)) { free(s); return -1; }
    return 0;
}

/* Module prefix as decodable, described by d: its view is [rows, cols], or [E, rows, cols] for
 * fused experts. NULL when out of memory (cx->oom set). */
static pc_module *add_module(pc_input *in, const char *prefix, const char *layout, const f8_module *d, pc_ctx *cx)
{
    pc_module *m = pc_module_add(in, &pc_format_fp8, prefix, layout);
    f8_module *p = m ? malloc(sizeof *p) : NULL;
    if (!p) { cx->oom = true; return NULL; }
    *p = *d;
    m->priv = p;
    int o = d->experts ? 1 : 0;
    m->ndim = 2 + o;
    if (o) m->shape[0] = d->experts;
    m->shape[o] = d->rows;
    m->shape[o + 1] = d->cols;
    m->numel = d->w->numel;
    m->bits = d->kind == F8_CT_INT ? d->bits : 8;
    return m;
}

/* Every rule of one module; adds it as decodable when all hold. */
static void check_module(pc_input *in, enum f8_kind kind, const char *prefix, const pc_tensor *w, const f8_grid *g,
                         bool symmetric, bool static_act, pc_ctx *cx)
{
    const char *layout = g->e8m0 ? k_layout_mx : k_layout[kind];
    pc_input_note_layout(in, layout);
    if (!check_weight(w, kind, false, cx)) return;
    f8_module d = {.kind = kind, .w = w, .rows = w->shape[0], .cols = w->shape[1], .bits = g->bits ? g->bits : 8};
    f8_grid gg = *g;
    if (g->tensor) { gg.bh = d.rows; gg.bw = d.cols; }
    if (!check_scale(in, prefix, &d, &gg, cx)) return;
    bool ok = check_zero_point(in, prefix, &d, symmetric, cx);
    ok = check_input_scale(in, prefix, static_act, cx) && ok;
    if (kind != F8_CT_INT && scan_nan_weights(in, w, cx)) { cx->oom = true; return; }
    /* FP8-013: b-bit values in an int8 byte lie in [-2^(b-1), 2^(b-1) - 1] (the quantizer's clamp) */
    if (kind == F8_CT_INT && d.bits < 8 &&
        pc_scan_ints_in_range(in, cx, w, "FP8-013", -(1ll << (d.bits - 1)), (1ll << (d.bits - 1)) - 1)) { cx->oom = true; return; }
    if (!ok) return;
    pc_module *m = add_module(in, prefix, layout, &d, cx);
    if (m) pc_module_claim_suffixes(in, prefix, m->layout, k_parts);
}

/* Fused MoE experts P [E, N, K] beside P_scale_inv (and P_activation_scale [E] under static
 * activations: FP8Experts' gate_up_proj_activation_scale / down_proj_activation_scale). */
static void check_experts(pc_input *in, const pc_tensor *w, const f8_grid *g, bool static_act, pc_ctx *cx)
{
    pc_input_note_layout(in, k_layout[F8_DEEPSEEK]);
    if (!check_weight(w, F8_DEEPSEEK, true, cx) || !check_gate_up(w, g, cx)) return;
    f8_module d = {.kind = F8_DEEPSEEK, .w = w, .experts = w->shape[0], .rows = w->shape[1], .cols = w->shape[2]};
    if (!check_scale(in, w->name, &d, g, cx)) return;
    const pc_tensor *as = sibling_suffix(in, w->name, "_activation_scale");
    pc_eval(cx, "FP8-008");
    bool ok = true;
    if (static_act && (!as || !pc_dtype_is_float(as->dtype))) {
        pc_report(cx, "FP8-008", as ? as->name : w->name, as ? (int64_t)as->offset : -1,
                  "static input activations but %s_activation_scale is %s", w->name, as ? "not a float tensor" : "missing");
        ok = false;
    }
    if (as && pc_scan_floats_finite(in, cx, as, "FP8-008", true)) { cx->oom = true; return; }
    if (scan_nan_weights(in, w, cx)) { cx->oom = true; return; }
    if (!ok) return;
    pc_module *m = add_module(in, w->name, k_layout[F8_DEEPSEEK], &d, cx);
    if (!m) return;
    pc_tensor_claim(in, w, m->layout);
    pc_tensor_claim(in, d.scale, m->layout);
    if (as) pc_tensor_claim(in, as, m->layout);
}

/* A fused-experts tensor: not M.weight nor a scale, and FP8 or beside its own P_scale_inv. */
static bool is_experts_tensor(const pc_input *in, const pc_tensor *t)
{
    size_t n = strlen(t->name);
    if ((n >= 7 && !strcmp(t->name + n - 7, ".weight")) || (n >= 10 && !strcmp(t->name + n - 10, "_scale_inv")) ||
        (n >= 6 && !strcmp(t->name + n - 6, "_scale")) || strstr(t->name, ".weight_"))
        return false;
    return is_f8(t->dtype) || sibling_suffix(in, t->name, "_scale_inv");
}

static void eval_all(pc_ctx *cx)
{
    static const char *const rules[] = {"FP8-001", "FP8-002", "FP8-003", "FP8-004", "FP8-005", "FP8-006", "FP8-008", "FP8-011"};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) pc_eval(cx, rules[i]);
}

static void check_deepseek(pc_input *in, pc_ctx *cx)
{
    f8_grid g;
    bool static_act;
    bool cfg_ok = deepseek_config(in, &g, &static_act, cx);
    eval_all(cx);
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        const pc_tensor *t = &in->tensors[i];
        char *p = weight_prefix(t->name);
        if (!p) {
            if (is_experts_tensor(in, t)) {
                if (cfg_ok) check_experts(in, t, &g, static_act, cx);
                else pc_input_note_layout(in, k_layout[F8_DEEPSEEK]);
            }
            continue;
        }
        /* a module: an FP8 weight, or any weight beside a weight_scale_inv (its dtype is then FP8-001's) */
        if (is_f8(t->dtype) || sibling(in, p, "weight_scale_inv")) {
            if (cfg_ok) check_module(in, F8_DEEPSEEK, p, t, &g, true, static_act, cx);
            else pc_input_note_layout(in, k_layout[F8_DEEPSEEK]);
        }
        free(p);
    }
}

static void check_ct(pc_input *in, pc_ctx *cx)
{
    /* ct.c parses the same config when it also runs (packed int weights beside ours): its CFG
     * findings are its own, so ours go to a scratch context then. */
    pc_ctx scratch, *ccx = cx;
    bool ct_runs = pc_format_ct.detect(in);
    if (ct_runs) {
        if (pc_ctx_init(&scratch, cx->profile)) { cx->oom = true; return; }
        ccx = &scratch;
    }
    ct_config c;
    if (ct_config_parse(in, &c, ccx)) cx->oom = true;
    eval_all(cx);
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        const pc_tensor *t = &in->tensors[i];
        char *p = weight_prefix(t->name);
        if (!p) continue;
        bool ignored;
        const ct_group *grp = ct_config_match(&c, p, &ignored, ccx);
        f8_grid g;
        /* ours: a group with our format targets it, and it is FP8/I8 or carries a weight_scale */
        if (!ignored && grp && grp->has_weights && ct_format_is_ours(ct_group_format(&c, grp)) &&
            (is_f8(t->dtype) || t->dtype == PC_DT_I8 || sibling(in, p, "weight_scale"))) {
            enum f8_kind kind = grp->w.is_int ? F8_CT_INT : F8_CT_FLOAT;
            if (!grp->valid) pc_input_note_layout(in, k_layout[kind]); /* CFG-02x said why */
            else if (!grp->w.is_int && !grp->w.symmetric) pc_input_note_layout(in, k_layout[kind]); /* not decoded: unchecked */
            else if (ct_grid(grp, c.source, t, &g, cx) && mx_group(grp, ct_group_format(&c, grp), c.source, &g, cx)) check_module(in, kind, p, t, &g, grp->w.symmetric, ct_static_input(in, grp), cx);
        }
        free(p);
    }
    ct_config_free(&c);
    if (ct_runs) pc_ctx_free(&scratch);
}

/* FP8-007: scaled 8-bit weights and no quantization config at all. */
static void check_no_config(pc_input *in, pc_ctx *cx)
{
    const pc_tensor *t = first_fingerprint(in);
    pc_eval(cx, "FP8-007");
    if (!t) return;
    pc_report(cx, "FP8-007", t->name, (int64_t)t->offset,
              "%s weight beside a scale but there is no quantization config: the scheme and block size are unknown, nothing is decoded",
              pc_dtype_name(t->dtype));
}

/* ---- the format ---- */

static bool fp8_detect(const pc_input *in)
{
    if (!in->qconfig) return first_fingerprint(in) != NULL;
    return is_deepseek(in) || ct_is_ours(in);
}

static void fp8_check(pc_input *in, pc_ctx *cx)
{
    if (!in->qconfig) check_no_config(in, cx);
    else if (is_deepseek(in)) check_deepseek(in, cx);
    else check_ct(in, cx);
}

/* The scale grid as f32 (exact conversions of F32/BF16/F16). */
static float *load_scales(const f8_module *d, pc_ctx *cx)
{
    uint8_t *raw = pc_tensor_load(d->scale, F8_SCALE_LIMIT);
    size_t n = (size_t)d->scale->numel, esz = pc_dtype_bits(d->scale->dtype) / 8;
    float *s = raw ? malloc(n ? n * sizeof *s : sizeof *s) : NULL;
    if (!s) {
        if (!raw) pc_io_error(cx, "%s: cannot read the scales", d->scale->name); else cx->oom = true;
        free(raw);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = raw + i * esz;
        if (d->e8m0) s[i] = ldexpf(1.0f, (int)p[0] - 127); /* exact: 2^-127 .. 2^127 */
        else if (d->scale->dtype == PC_DT_F32) { uint32_t u = pc_le32(p); memcpy(&s[i], &u, 4); }
        else if (d->scale->dtype == PC_DT_BF16) s[i] = pc_bf16_to_f32(pc_le16(p));
        else s[i] = pc_f16_to_f32(pc_le16(p));
    }
    free(raw);
    return s;
}

static int fp8_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const f8_module *d = m->priv;
    uint8_t *w = pc_tensor_load(d->w, F8_WEIGHT_LIMIT);
    if (!w) { pc_io_error(cx, "%s: cannot read %llu bytes", d->w->name, (unsigned long long)d->w->nbytes); return -1; }
    size_t n = (size_t)m->numel;
    if (codes) {
        if (d->kind == F8_CT_INT) for (size_t i = 0; i < n; i++) codes[i] = (uint8_t)((int8_t)w[i] + (1 << (d->bits - 1))); /* q + 2^(b-1) */
        else memcpy(codes, w, n);
    }
    int rc = 0;
    if (weights) {
        float *s = load_scales(d, cx);
        int8_t *z = d->zp ? pc_tensor_load(d->zp, F8_SCALE_LIMIT) : NULL;
        if (!s || (d->zp && !z)) {
            if (s && !z) pc_io_error(cx, "%s: cannot read", d->zp->name);
            rc = -1;
        } else if (d->kind == F8_CT_INT) {
            pc_int8_dequant(impl)(w, (size_t)d->rows, (size_t)d->cols, (size_t)d->bh, (size_t)d->bw, s, z, weights);
        } else {
            /* each expert is one [rows, cols] matrix with its own grid (FP8Experts indexes [expert_idx]) */
            size_t e_n = d->experts ? (size_t)d->experts : 1, per = (size_t)(d->rows * d->cols), grid = (size_t)(d->gr * d->gc);
            for (size_t e = 0; e < e_n; e++)
                pc_fp8_dequant(impl)(w + e * per, (size_t)d->rows, (size_t)d->cols, (size_t)d->bh, (size_t)d->bw, s + e * grid, weights + e * per);
        }
        free(s);
        free(z);
    }
    free(w);
    return rc;
}

static void fp8_module_free(void *priv) { free(priv); }

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* What every slice of one module needs, loaded once: the scale grid (and zero points) as the
 * whole decode uses them, and a read buffer for the slice's stored bytes. */
typedef struct f8_rows {
    float *s;
    int8_t *z;
    uint8_t *buf;
    size_t cap;
} f8_rows;

static void f8_rows_free(void *p)
{
    f8_rows *r = p;
    if (r) { free(r->s); free(r->z); free(r->buf); }
    free(r);
}

static f8_rows *f8_rows_state(const f8_module *d, void **state, bool weights, pc_ctx *cx)
{
    f8_rows *r = *state;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) { cx->oom = true; return NULL; }
        *state = r;
    }
    if (weights && !r->s) {
        if (!(r->s = load_scales(d, cx))) return NULL;
        if (d->zp && !(r->z = pc_tensor_load(d->zp, F8_SCALE_LIMIT))) { pc_io_error(cx, "%s: cannot read", d->zp->name); return NULL; }
    }
    return r;
}

/* Rows [r, r + n) of one expert's [rows, cols] matrix (raw: their stored bytes), against that
 * expert's grid; a slice may cut a block of bh rows (row_decode.h). */
static void f8_rows_dequant(const f8_module *d, const f8_rows *st, pc_impl impl, uint64_t e, uint64_t r, uint64_t n,
                            const uint8_t *raw, float *out)
{
    uint64_t grid = e * d->gr * d->gc;
    pc_grid_rows(impl, d->kind == F8_CT_INT, raw, r, n, (size_t)d->cols, (size_t)d->bh, (size_t)d->bw, st->s + grid,
                 st->z ? st->z + grid : NULL, out);
}

/* Rows [r0, r0 + n) of the view flattened to [E * rows, cols]. */
static int fp8_decode_rows(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                           uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const f8_module *d = m->priv;
    f8_rows *st = f8_rows_state(d, state, weights != NULL, cx);
    if (!st) return -1;
    size_t cnt = (size_t)(n * d->cols); /* <= numel <= 2^30 */
    if (!pc_rows_buf(&st->buf, &st->cap, cnt, cx)) return -1;
    if (pc_tensor_read(d->w, r0 * d->cols, st->buf, cnt)) {
        pc_io_error(cx, "%s: cannot read %zu bytes at %llu", d->w->name, cnt, (unsigned long long)(r0 * d->cols));
        return -1;
    }
    if (codes) {
        if (d->kind == F8_CT_INT) for (size_t i = 0; i < cnt; i++) codes[i] = (uint8_t)((int8_t)st->buf[i] + (1 << (d->bits - 1)));
        else memcpy(codes, st->buf, cnt);
    }
    for (uint64_t i = 0; weights && i < n;) { /* one run per expert the slice touches */
        uint64_t e = (r0 + i) / d->rows, r = (r0 + i) % d->rows, len = d->rows - r < n - i ? d->rows - r : n - i;
        f8_rows_dequant(d, st, impl, e, r, len, st->buf + i * d->cols, weights + i * d->cols);
        i += len;
    }
    return 0;
}



/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* A per-tensor module's shard sibling's single scale (NaN when none): what a loader that reuses
 * the first shard's scale for the fused layer applies. */
static float sibling_scale(const pc_input *in, const pc_module *pm, const f8_module *d)
{
    if (d->experts || d->gr != 1 || d->gc != 1) return NAN;
    char *sib = pc_diag_shard_sibling(pm->prefix);
    const pc_tensor *t = sib ? pc_diag_find(in, sib, "weight_scale") : NULL;
    free(sib);
    float *v = t && t->numel == 1 ? pc_diag_load_floats(t) : NULL, s = v ? v[0] : NAN;
    free(v);
    return s;
}

/* The module's own block grid, the grid read transposed, and the block size a reader derives from
 * the shapes (floor(N / grid rows), clamped to the grid as such code indexes). INT8 codes are
 * stored u = q + 2^(bits-1), so the zero point is that offset + zp. Loader bugs: the scales zeroed,
 * and a per-tensor shard given its sibling's scale. */
/* E8M0 scale bytes as their integer values (the exponent, not yet 2^(s - 127)). */
static float *e8m0_bytes(const pc_tensor *t)
{
    uint8_t *raw = pc_tensor_load(t, F8_SCALE_LIMIT);
    float *f = raw ? malloc(t->numel ? (size_t)t->numel * sizeof *f : sizeof *f) : NULL;
    for (uint64_t i = 0; f && i < t->numel; i++) f[i] = raw[i];
    free(raw);
    return f;
}

static int fp8_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    const f8_module *d = pm->priv;
    int o = d && d->experts ? 1 : 0; /* fused experts [E, N, K]: each expert its own grid */
    uint64_t E = o ? pm->shape[0] : 1, N = pm->shape[o], K = pm->shape[o + 1];
    if (!d || pm->ndim != 2 + o || d->rows != N || d->cols != K || (o && d->experts != E)) { snprintf(p->note, sizeof p->note, "FP8 module description not understood"); return 1; }
    float *sc = d->e8m0 ? e8m0_bytes(d->scale) : pc_diag_load_floats(d->scale);
    int64_t *zp = d->zp ? pc_diag_load_ints(d->zp) : NULL;
    int rc = 1;
    if (!sc || (d->zp && !zp) || d->scale->numel != E * d->gr * d->gc) { snprintf(p->note, sizeof p->note, "FP8 scales unreadable"); goto out; }
    rc = -1;
    if (pc_diag_alloc(p, (size_t)pm->numel, PC_ALT_GRID_T) || pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_BLOCK_SHAPE) ||
        pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_SCALE_ZEROED) || pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_SHARD_REUSED)) goto out;
    float sib = sibling_scale(in, pm, d);
    if (d->e8m0) { /* MXFP8: the exact powers of two; a linear reader multiplies by the byte itself */
        if (pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_EXP_LINEAR)) goto out;
        for (size_t i = 0; i < (size_t)pm->numel; i++) /* row i / K of the [E * N, K] view */
            p->alt_s[PC_ALT_EXP_LINEAR][i] = sc[(i / K / N) * d->gr * d->gc + ((i / K) % N / d->bh) * d->gc + (i % K) / d->bw];
        for (size_t i = 0; i < (size_t)d->scale->numel; i++) sc[i] = ldexpf(1.0f, (int)sc[i] - 127);
    }
    uint64_t bh2 = N / d->gr ? N / d->gr : 1, bw2 = K / d->gc ? K / d->gc : 1;
    for (uint64_t row = 0; row < E * N; row++) { /* row e * N + n of the [E * N, K] view */
        uint64_t n = row % N, eg = (row / N) * d->gr * d->gc, r2 = n / bh2;
        for (uint64_t k = 0; k < K; k++) {
            size_t i = (size_t)(row * K + k);
            uint64_t g = eg + (n / d->bh) * d->gc + k / d->bw, c2 = k / bw2;
            p->s[i] = sc[g];
            p->alt_s[PC_ALT_GRID_T][i] = sc[eg + (k / d->bw) * d->gr + n / d->bh];
            p->alt_s[PC_ALT_BLOCK_SHAPE][i] = sc[eg + (r2 < d->gr ? r2 : d->gr - 1) * d->gc + (c2 < d->gc ? c2 : d->gc - 1)];
            p->zq[i] = (int16_t)(d->kind == F8_CT_INT ? (1 << (d->bits - 1)) + (zp ? zp[g] : 0) : 0);
            p->alt_s[PC_ALT_SCALE_ZEROED][i] = 0.0f;
            p->alt_s[PC_ALT_SHARD_REUSED][i] = isnan(sib) ? sc[g] : sib;
        }
    }
    rc = 0;
out:
    free(sc); free(zp);
    return rc;
}

/* DeepSeek stores weight_scale_inv (multiply); a reader may divide by it. A block grid with more
 * than one row of blocks gives each bh rows their own scale row: a converter that permutes rows
 * must move those too (sgl-project/sglang PR #35703 did not). */
static int fp8_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    bool deepseek = pm->layout && !strcmp(pm->layout, k_layout[F8_DEEPSEEK]);
    const f8_module *d = pm->priv;
    p->lay = (pc_diag_layout){.scale_divided = deepseek, .row_block = d && d->bh > 1 && d->gr > 1 ? d->bh : 0};
    p->kind = pm->layout && !strcmp(pm->layout, k_layout[F8_CT_INT]) ? PC_DIAG_INT : PC_DIAG_E4M3;
    return want ? fp8_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_fp8_bench[]; /* fp8_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES},
    {"", PC_PART_CODES},
    {".weight_scale", PC_PART_COMPANION},
    {".weight_scale_inv", PC_PART_COMPANION},
    {".weight_zero_point", PC_PART_COMPANION},
    {".input_scale", PC_PART_COMPANION},
    {".input_zero_point", PC_PART_COMPANION},
    {"_scale_inv", PC_PART_COMPANION},
    {"_activation_scale", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_fp8 = {.parts = k_format_parts, .name = "fp8", .detect = fp8_detect, .check = fp8_check, .decode = fp8_decode, .decode_rows = fp8_decode_rows, .decode_rows_free = f8_rows_free, .module_free = fp8_module_free, .diag_params = fp8_diag_params, .bench = pc_fp8_bench};
