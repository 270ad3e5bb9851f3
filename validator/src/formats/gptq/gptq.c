/* Format module: GPTQ v1 and v2 (AutoGPTQ, GPTQModel), FORMATS.md section 5.
 *
 * Per module M: M.qweight I32 [K*b/32, N] (each column one LE bit stream down the rows),
 * M.qzeros I32 [G, N*b/32] (each row one LE stream), M.scales float [G, N], M.g_idx I32 [K],
 * optional M.bias [N]. The scheme comes from the quantization config: bits, group_size,
 * desc_act, static_groups, sym, checkpoint_format ("gptq" or absent = v1: stored zero = z - 1;
 * "gptq_v2": stored zero = z).
 *
 * Logical view (CONTRACT 3): codes [N, K] = the stored field transposed; weight
 * w = f32(q - z) * f32(scales[g_idx[k], n]), z = stored (v2) or stored + 1 (v1).
 * v1 wrap policy: a stored all-ones field (2^b - 1) can only be a zero of 0 that wrapped to -1
 * when AutoGPTQ/GPTQModel subtracted one (FORMATS.md 5.3). It is decoded as z = (stored + 1)
 * mod 2^b = 0, the producer's intent for that field and what GPTQModel's own dequantizer and
 * AutoGPTQ's qlinear_cuda_old compute; rule GPTQ-013 rejects such files under the strict
 * profile (decoders disagree on them) and warns under compat. */
#include "../row_decode.h"
#include "../qlinear.h"
#include "../ql_strip.h"
#include "../autoround/autoround.h"

#include "../../core/arith.h"
#include "../../core/pyre.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_gptq;

typedef struct gptq_cfg {
    bool ok;                 /* every config rule held: modules can be checked and decoded */
    unsigned bits;
    long long group_size;    /* -1 (one group) or > 0 */
    bool desc_act;           /* absent: treated as true, which only asks for the weaker histogram */
    bool static_groups;
    bool sym;                /* absent: true, as AutoGPTQ defaults it */
    bool v2;
    const char *layout;      /* "gptq-v1" or "gptq-v2"; AutoRound's "autoround-gptq-v1" / "-v2" */
    const char *src;         /* config file name, for messages */
    ar_packing ar;           /* an AutoRound config (quant_method auto-round), else AR_PACK_NONE */
} gptq_cfg;

typedef struct gptq_mod {
    const pc_tensor *qweight, *qzeros, *scales, *g_idx;
    uint64_t K, N, G, gs;
    unsigned bits;
    bool v2;
} gptq_mod;

/* ---- config ---------------------------------------------------------------------------- */

static void cfg_bits(const cJSON *qc, pc_ctx *cx, gptq_cfg *c)
{
    long long bits = 0;
    bool present;
    pc_eval(cx, "GPTQ-001");
    if (!ql_cfg_int(qc, "bits", &bits, &present) || (bits != 2 && bits != 3 && bits != 4 && bits != 8)) {
        pc_report(cx, "GPTQ-001", c->src, -1, present ? "bits must be 2, 3, 4 or 8 (an integer)" : "bits is missing");
        c->ok = false;
        return;
    }
    c->bits = (unsigned)bits;
}

static void cfg_format(const cJSON *qc, pc_ctx *cx, gptq_cfg *c)
{
    pc_eval(cx, "GPTQ-002");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(qc, "checkpoint_format");
    if (!f) f = cJSON_GetObjectItemCaseSensitive(qc, "format"); /* GPTQModel's newer key */
    if (f && !cJSON_IsString(f) && !cJSON_IsNull(f)) {
        pc_report(cx, "GPTQ-002", c->src, -1, "checkpoint_format is not a string");
        c->ok = false;
        return;
    }
    const char *name = cJSON_IsString(f) ? f->valuestring : NULL;
    if (!name || !strcmp(name, "gptq")) c->v2 = false;
    else if (!strcmp(name, "gptq_v2")) c->v2 = true;
    else {
        pc_report(cx, "GPTQ-002", c->src, -1,
                  "checkpoint_format \"%.64s\" is another layout (marlin, gemm, gptq_p, bitblas, ...): not decoded as GPTQ", name);
        c->ok = false;
    }
    c->layout = c->v2 ? "gptq-v2" : "gptq-v1";
    const char *pd = ql_cfg_str(qc, "pack_dtype");
    if (cJSON_GetObjectItemCaseSensitive(qc, "pack_dtype") && (!pd || strcmp(pd, "int32"))) {
        pc_report(cx, "GPTQ-002", c->src, -1, "pack_dtype \"%.32s\" is not int32, the classic GPTQ layout", pd ? pd : "?");
        c->ok = false;
    }
}

/* A boolean key, looked for at the top level and then in GPTQModel's meta block. */
static bool cfg_flag(const cJSON *qc, const char *key, bool dflt, pc_ctx *cx, gptq_cfg *c)
{
    bool v = dflt, present;
    const cJSON *where = qc;
    if (!cJSON_GetObjectItemCaseSensitive(qc, key)) {
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(qc, "meta");
        if (cJSON_IsObject(meta) && cJSON_GetObjectItemCaseSensitive(meta, key)) where = meta;
    }
    if (!ql_cfg_bool(where, key, &v, &present) && present) {
        pc_report(cx, "GPTQ-003", c->src, -1, "%s must be true or false", key);
        c->ok = false;
        return dflt;
    }
    return present ? v : dflt;
}

static void cfg_groups(const cJSON *qc, pc_ctx *cx, gptq_cfg *c)
{
    bool present;
    pc_eval(cx, "GPTQ-003");
    if (!ql_cfg_int(qc, "group_size", &c->group_size, &present) || (c->group_size != -1 && c->group_size <= 0)) {
        pc_report(cx, "GPTQ-003", c->src, -1, present ? "group_size must be -1 or a positive integer" : "group_size is missing");
        c->ok = false;
    }
    c->desc_act = cfg_flag(qc, "desc_act", true, cx, c);
    c->static_groups = cfg_flag(qc, "static_groups", false, cx, c);
    c->sym = cfg_flag(qc, "sym", true, cx, c);
}

/* AutoRound: its packers write GPTQ tensors without act order (g_idx absent or k // group_size);
 * auto_round:auto_gptq stores zero - 1 like GPTQ v1, auto_round / auto_round:gptqmodel the zero. */
static void read_autoround_config(const pc_input *in, pc_ctx *cx, gptq_cfg *c)
{
    ar_scheme s;
    c->v2 = c->ar == AR_PACK_GPTQ;
    c->layout = c->v2 ? "autoround-gptq-v2" : "autoround-gptq-v1";
    c->ok = pc_ar_base_scheme(in, &s, cx);
    c->bits = s.bits;
    c->group_size = s.group_size;
    c->sym = s.sym;
}

static void read_config(const pc_input *in, pc_ctx *cx, gptq_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->ok = true;
    c->layout = "gptq-v1";
    c->src = in->qconfig_source ? in->qconfig_source : "config";
    c->ar = pc_ar_packing(in);
    if (c->ar != AR_PACK_NONE) { read_autoround_config(in, cx, c); return; }
    pc_eval(cx, "CFG-002");
    if (ql_config_method(in) != QL_GPTQ) {
        pc_report(cx, "CFG-002", "", -1,
                  "GPTQ tensors (qweight, qzeros, scales, g_idx) without a GPTQ quantization config: bits, group_size and "
                  "checkpoint_format (v1 or v2 zero points) cannot be read from the tensors");
        c->ok = false;
        return;
    }
    const cJSON *qc = in->qconfig;
    cfg_bits(qc, cx, c);
    cfg_format(qc, cx, c);
    cfg_groups(qc, cx, c);
}

/* ---- tensors --------------------------------------------------------------------------- */

static bool want_tensor(const pc_tensor *t, const char *prefix, const char *suffix, int ndim, bool floating, pc_ctx *cx)
{
    return ql_want_tensor("GPTQ-004", t, prefix, suffix, ndim, floating, cx);
}

static bool check_tensor_set(const pc_input *in, const char *prefix, const gptq_cfg *c, gptq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-004");
    m->qweight = ql_sibling(in, prefix, ".qweight");
    m->qzeros = ql_sibling(in, prefix, ".qzeros");
    m->scales = ql_sibling(in, prefix, ".scales");
    m->g_idx = ql_sibling(in, prefix, ".g_idx");
    const pc_tensor *bias = ql_sibling(in, prefix, ".bias");
    bool ok = want_tensor(m->qweight, prefix, ".qweight", 2, false, cx);
    ok &= want_tensor(m->qzeros, prefix, ".qzeros", 2, false, cx);
    ok &= want_tensor(m->scales, prefix, ".scales", 2, true, cx);
    if (m->g_idx || c->ar == AR_PACK_NONE) ok &= want_tensor(m->g_idx, prefix, ".g_idx", 1, false, cx);
    if (bias) ok &= want_tensor(bias, prefix, ".bias", 1, true, cx);
    return ok;
}

static bool check_dims(const pc_input *in, const char *prefix, const gptq_cfg *c, gptq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-006");
    m->N = m->qweight->shape[1];
    m->bits = c->bits;
    m->v2 = c->v2;
    /* without g_idx (AutoRound's auto_gptq packing) K is the packed rows' width: rows = K / 32 * bits */
    m->K = m->g_idx ? m->g_idx->shape[0] : m->qweight->shape[0] * 32 / m->bits;
    if (m->K == 0 || m->N == 0 || m->K % 32 || m->N % 32) {
        pc_report(cx, "GPTQ-006", m->qweight->name, (int64_t)m->qweight->offset,
                  "in_features K = %llu (g_idx length) and out_features N = %llu must be positive multiples of 32: the "
                  "packers drop a partial word, so a tail would be lost",
                  (unsigned long long)m->K, (unsigned long long)m->N);
        return false;
    }
    pc_eval(cx, "GPTQ-005");
    m->gs = c->group_size == -1 ? m->K : (uint64_t)c->group_size;
    m->G = pc_ceil_div(m->K, m->gs);
    uint64_t rows = m->K / 32 * m->bits, zcols = m->N / 32 * m->bits;
    bool ok = true;
    struct { const pc_tensor *t; uint64_t d0, d1; } want[] = {
        {m->qweight, rows, m->N}, {m->qzeros, m->G, zcols}, {m->scales, m->G, m->N},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const pc_tensor *t = want[i].t;
        if (t->shape[0] != want[i].d0 || t->shape[1] != want[i].d1) {
            pc_report(cx, "GPTQ-005", t->name, (int64_t)t->offset, "%s has shape [%llu, %llu]; K = %llu, N = %llu, %u bits, "
                      "G = %llu groups need [%llu, %llu]", t->name, (unsigned long long)t->shape[0],
                      (unsigned long long)t->shape[1], (unsigned long long)m->K, (unsigned long long)m->N, m->bits,
                      (unsigned long long)m->G, (unsigned long long)want[i].d0, (unsigned long long)want[i].d1);
            ok = false;
        }
    }
    const pc_tensor *bias = ql_sibling(in, prefix, ".bias");
    if (bias && bias->shape[0] != m->N) {
        pc_report(cx, "GPTQ-005", bias->name, (int64_t)bias->offset, "bias has %llu entries, out_features is %llu",
                  (unsigned long long)bias->shape[0], (unsigned long long)m->N);
        ok = false;
    }
    return ok;
}

static bool check_limits(const gptq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-014");
    uint64_t numel;
    const pc_tensor *ts[] = {m->qweight, m->qzeros, m->scales, m->g_idx};
    for (size_t i = 0; i < 4; i++)
        if (ts[i] && ts[i]->nbytes > QL_TENSOR_LIMIT) {
            pc_report(cx, "GPTQ-014", ts[i]->name, (int64_t)ts[i]->offset, "%s holds %llu bytes; packcheck reads at most 1 GiB per tensor",
                      ts[i]->name, (unsigned long long)ts[i]->nbytes);
            return false;
        }
    if (!pc_mul_u64(m->K, m->N, &numel) || numel > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "GPTQ-014", m->qweight->name, (int64_t)m->qweight->offset, "K x N exceeds the logical-view limit of 2^30 elements");
        return false;
    }
    return true;
}

/* ---- g_idx ----------------------------------------------------------------------------- */

static int32_t *load_gidx(const gptq_mod *m)
{
    if (!m->g_idx) { /* no act order: group k // group_size */
        int32_t *g = malloc((size_t)m->K * sizeof *g);
        for (size_t k = 0; g && k < m->K; k++) g[k] = (int32_t)(k / m->gs);
        return g;
    }
    uint8_t *raw = pc_tensor_load(m->g_idx, QL_TENSOR_LIMIT);
    if (!raw || m->g_idx->nbytes != m->K * 4) { free(raw); return NULL; }
    int32_t *g = malloc((size_t)m->K * sizeof *g);
    for (size_t k = 0; g && k < m->K; k++) g[k] = (int32_t)pc_le32(raw + 4 * k);
    free(raw);
    return g;
}

static bool check_gidx_values(const gptq_cfg *c, const gptq_mod *m, const int32_t *g, pc_ctx *cx)
{
    if (!m->g_idx) return true;
    pc_eval(cx, "GPTQ-007");
    for (size_t k = 0; k < m->K; k++)
        if (g[k] < 0 || (uint64_t)g[k] >= m->G) {
            pc_report(cx, "GPTQ-007", m->g_idx->name, (int64_t)(m->g_idx->offset + 4 * k),
                      "g_idx[%zu] = %d is outside [0, %llu)", k, g[k], (unsigned long long)m->G);
            return false;
        }
    if (!c->desc_act || c->static_groups) {
        pc_eval(cx, "GPTQ-008");
        for (size_t k = 0; k < m->K; k++)
            if ((uint64_t)g[k] != k / m->gs) {
                pc_report(cx, "GPTQ-008", m->g_idx->name, (int64_t)(m->g_idx->offset + 4 * k),
                          "g_idx[%zu] = %d, but with desc_act %s and static_groups %s it must be k // group_size = %llu",
                          k, g[k], c->desc_act ? "true" : "false", c->static_groups ? "true" : "false",
                          (unsigned long long)(k / m->gs));
                return false;
            }
        return true;
    }
    /* Act order: rows stay in input order, groups are scattered, but each group is still used
     * by exactly group_size rows (the last by the remainder). Never infer groups from k // gs. */
    pc_eval(cx, "GPTQ-009");
    uint64_t *count = calloc((size_t)m->G, sizeof *count);
    if (!count) { cx->oom = true; return false; }
    for (size_t k = 0; k < m->K; k++) count[g[k]]++;
    bool ok = true;
    for (uint64_t i = 0; i < m->G && ok; i++) {
        uint64_t want = i + 1 < m->G ? m->gs : m->K - (m->G - 1) * m->gs;
        if (count[i] != want) {
            pc_report(cx, "GPTQ-009", m->g_idx->name, (int64_t)m->g_idx->offset,
                      "desc_act: group %llu is used by %llu rows of g_idx; every group needs exactly %llu",
                      (unsigned long long)i, (unsigned long long)count[i], (unsigned long long)want);
            ok = false;
        }
    }
    free(count);
    return ok;
}

/* ---- scales and zeros ------------------------------------------------------------------ */

/* AutoRound's symmetric int quantizer keeps the sign of the block's extreme in its scale, so its
 * negative scales are no defect (GPTQ-011 is about GPTQ's quantizer). */
static bool check_scales(const gptq_mod *m, bool negative_ok, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-010");
    pc_eval(cx, "GPTQ-011");
    uint64_t n = m->G * m->N;
    float *s = ql_load_f32(m->scales, n, QL_TENSOR_LIMIT);
    if (!s) { pc_io_error(cx, "%s: cannot read", m->scales->name); return false; }
    unsigned esz = m->scales->dtype == PC_DT_F32 ? 4 : 2;
    bool ok = true, warned = false;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(s[i])) {
            pc_report(cx, "GPTQ-010", m->scales->name, (int64_t)(m->scales->offset + esz * i),
                      "scales[%zu, %zu] is %s", i / (size_t)m->N, i % (size_t)m->N, isnan(s[i]) ? "NaN" : "infinite");
            ok = false;
            break;
        }
        if (!(s[i] > 0) && !warned && !negative_ok) {
            pc_report(cx, "GPTQ-011", m->scales->name, (int64_t)(m->scales->offset + esz * i),
                      "scales[%zu, %zu] = %g: the quantizer makes positive scales", i / (size_t)m->N, i % (size_t)m->N, (double)s[i]);
            warned = true;
        }
    }
    free(s);
    return ok;
}

/* Stored zero fields [G, N]: each qzeros row is one LE stream of N fields. */
static uint8_t *load_zeros(const gptq_mod *m, pc_impl impl)
{
    uint8_t *raw = pc_tensor_load(m->qzeros, QL_TENSOR_LIMIT);
    size_t rowbytes = (size_t)(m->N / 32 * m->bits * 4);
    if (!raw || m->qzeros->nbytes != m->G * rowbytes) { free(raw); return NULL; }
    uint8_t *z = malloc((size_t)(m->G * m->N));
    for (size_t g = 0; z && g < m->G; g++) pc_stream_fn(impl)(raw + g * rowbytes, m->bits, (size_t)m->N, z + g * m->N);
    free(raw);
    return z;
}

static int64_t zero_offset(const gptq_mod *m, size_t g, size_t n)
{
    return (int64_t)(m->qzeros->offset + g * (m->N / 32 * m->bits * 4) + n * m->bits / 32 * 4);
}

static bool check_sym_zeros(const gptq_cfg *c, const gptq_mod *m, const uint8_t *z, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-012");
    unsigned half = 1u << (m->bits - 1), want = c->v2 ? half : half - 1, other = c->v2 ? half - 1 : half;
    size_t n = (size_t)(m->G * m->N), bad = 0, first = 0, as_other = 0;
    for (size_t i = 0; i < n; i++)
        if (z[i] != want) {
            if (!bad++) first = i;
            as_other += z[i] == other;
        }
    if (!bad) return true;
    size_t g = first / (size_t)m->N, col = first % (size_t)m->N;
    if (as_other == n && !c->v2)
        pc_report(cx, "GPTQ-012", m->qzeros->name, zero_offset(m, g, col),
                  "mislabelled checkpoint: every stored zero is %u, the gptq_v2 pattern of a symmetric %u-bit file, but "
                  "checkpoint_format is gptq (v1 stores zero - 1 = %u); a v1 reader adds one and shifts every weight by one "
                  "quantization step (vLLM PR #38966)", other, m->bits, want);
    else if (as_other == n)
        pc_report(cx, "GPTQ-012", m->qzeros->name, zero_offset(m, g, col),
                  "mislabelled checkpoint: every stored zero is %u, the v1 (gptq) pattern of a symmetric %u-bit file, but "
                  "checkpoint_format is gptq_v2 (stores the zero itself, %u); a v2 reader shifts every weight by one step",
                  other, m->bits, want);
    else
        pc_report(cx, "GPTQ-012", m->qzeros->name, zero_offset(m, g, col),
                  "sym is true but stored zero [%zu, %zu] is %u; a symmetric %u-bit %s file stores %u everywhere (%zu fields differ)",
                  g, col, z[first], m->bits, c->v2 ? "gptq_v2" : "gptq", want, bad);
    return false;
}

static bool check_v1_overflow(const gptq_mod *m, const uint8_t *z, pc_ctx *cx)
{
    pc_eval(cx, "GPTQ-013");
    unsigned maxq = (1u << m->bits) - 1;
    size_t n = (size_t)(m->G * m->N), bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (z[i] == maxq && !bad++) first = i;
    if (!bad) return true;
    size_t g = first / (size_t)m->N, col = first % (size_t)m->N;
    /* AutoGPTQ ORs -1 << (b*j) into the word, so every higher field of that word is all ones too. */
    size_t per_word = 32 / m->bits, start = col - col % per_word;
    bool smeared = m->bits != 3;
    for (size_t j = col; smeared && j < start + per_word && j < m->N; j++) smeared = z[g * m->N + j] == maxq;
    pc_report(cx, "GPTQ-013", m->qzeros->name, zero_offset(m, g, col),
              "v1 zero-point overflow: stored zero [%zu, %zu] is %u = 2^%u - 1, which a v1 file only holds when a zero of 0 "
              "wrapped to -1; decoders disagree ((%u + 1) & %u = 0, or %u)%s; fields holding it: %zu; packcheck decodes z = 0",
              g, col, maxq, m->bits, maxq, maxq, maxq + 1,
              smeared ? "; the higher fields of that word are all ones as well (AutoGPTQ's OR of -1)" : "", bad);
    return false;
}

static bool check_zeros(const gptq_cfg *c, const gptq_mod *m, pc_ctx *cx)
{
    if (!c->sym && c->v2) return true; /* every stored value 0..2^b - 1 is a legal v2 zero */
    uint8_t *z = load_zeros(m, PC_IMPL_FAST);
    if (!z) { pc_io_error(cx, "%s: cannot read", m->qzeros->name); return false; }
    bool ok = c->sym ? check_sym_zeros(c, m, z, cx) : check_v1_overflow(m, z, cx);
    free(z);
    return ok;
}

/* ---- the module ------------------------------------------------------------------------ */

/* ---- GPTQModel's per-module overrides (QuantizeConfig.dynamic) --------------------------------
 * Keys are patterns ("+:" optional, "-:" = module not quantized), tried in order; the first that
 * matches decides (gptqmodel/quantization/config.py _resolve_dynamic_override @v7.7.0). A pattern
 * without regex syntax is an exact module name; others are Python regexes applied with re.match
 * (anchored at the start only). Values override bits, group_size, desc_act, sym, static_groups. */

/* Does the pattern have regex syntax? Literal patterns (dots may be escaped) match whole names. */
static bool literal_equals(const char *pat, const char *name, bool *literal)
{
    const char *n = name;
    *literal = true;
    for (const char *p = pat; *p; p++) {
        if (strchr(".[]()*+?{}|^$", *p)) { *literal = false; return false; }
        if (*p == '\\') {
            if (p[1] != '.') { *literal = false; return false; }
            p++;
        }
        if (*n++ != *p) return false;
    }
    return *n == 0;
}

/* 1 match, 0 no match, -1 a pattern packcheck cannot evaluate. */
static int dynamic_match(const char *pat, const char *name)
{
    bool literal;
    bool eq = literal_equals(pat, name, &literal);
    if (literal) return eq;
    return pc_pyre_match(pat, name);
}

/* Apply the first matching dynamic entry to *mc. Returns false when the module cannot be checked. */
static bool apply_dynamic(const pc_input *in, const char *prefix, gptq_cfg *mc, pc_ctx *cx)
{
    const cJSON *dyn = cJSON_GetObjectItemCaseSensitive(in->qconfig, "dynamic");
    if (!cJSON_IsObject(dyn) || !dyn->child) return true;
    pc_eval(cx, "GPTQ-015");
    pc_eval(cx, "CFG-031");
    const cJSON *e;
    cJSON_ArrayForEach(e, dyn) {
        const char *key = e->string;
        bool neg = !strncmp(key, "-:", 2);
        const char *pat = !strncmp(key, "-:", 2) || !strncmp(key, "+:", 2) ? key + 2 : key;
        int m = dynamic_match(pat, prefix);
        if (m == PC_PYRE_BUDGET) {
            if (pc_pyre_budget_notice())
                pc_report(cx, "CFG-031", mc->src, -1, "the input's patterns are past the matcher's budget (%u compiled instructions in "
                          "all, %llu automaton steps): dynamic pattern \"%.80s\" and any later ones refused, not run",
                          PYRE_INPUT_MAX_PROG, PYRE_INPUT_MAX_STEPS, key);
            return false;
        }
        if (m == PC_PYRE_LIMIT) {
            pc_report(cx, "CFG-031", mc->src, -1, "dynamic pattern \"%.80s\" is over the matcher's limit of %d instructions: refused, not run",
                      key, PYRE_MAX_PROG);
            return false;
        }
        if (m < 0) {
            pc_report(cx, "GPTQ-015", mc->src, -1, "dynamic pattern \"%.80s\" uses regex syntax packcheck cannot evaluate "
                      "(no lookaround, flags, named groups, lazy quantifiers or back-references)", key);
            return false;
        }
        if (!m) continue;
        if (neg) {
            pc_report(cx, "GPTQ-003", prefix, -1, "%s has GPTQ tensors, but dynamic pattern \"%.80s\" marks it as not quantized", prefix, key);
            return false;
        }
        if (!cJSON_IsObject(e)) {
            pc_report(cx, "GPTQ-003", mc->src, -1, "dynamic entry \"%.80s\" is not an object", key);
            return false;
        }
        gptq_cfg o = *mc;
        o.ok = true;
        long long bits;
        bool present;
        if (!ql_cfg_int(e, "bits", &bits, &present) && present) bits = 0;
        if (present) {
            if (bits != 2 && bits != 3 && bits != 4 && bits != 8) {
                pc_report(cx, "GPTQ-001", mc->src, -1, "dynamic \"%.80s\": bits must be 2, 3, 4 or 8", key);
                return false;
            }
            o.bits = (unsigned)bits;
        }
        if (cJSON_GetObjectItemCaseSensitive(e, "group_size") &&
            (!ql_cfg_int(e, "group_size", &o.group_size, NULL) || (o.group_size != -1 && o.group_size <= 0))) {
            pc_report(cx, "GPTQ-003", mc->src, -1, "dynamic \"%.80s\": group_size must be -1 or a positive integer", key);
            return false;
        }
        o.desc_act = cfg_flag(e, "desc_act", mc->desc_act, cx, &o);
        o.static_groups = cfg_flag(e, "static_groups", mc->static_groups, cx, &o);
        o.sym = cfg_flag(e, "sym", mc->sym, cx, &o);
        if (!o.ok) return false;
        *mc = o;
        return true;
    }
    return true;
}

/* AutoRound's per-layer scheme (extra_config) onto *mc. False when the module is not decoded here. */
static bool apply_autoround(const pc_input *in, const char *prefix, gptq_cfg *mc, pc_ctx *cx)
{
    ar_scheme base = {.bits = mc->bits, .group_size = mc->group_size, .sym = mc->sym}, s;
    int r = pc_ar_layer_scheme(in, prefix, &base, &s, cx);
    if (r == 0) {
        const pc_tensor *q = ql_sibling(in, prefix, ".qweight");
        pc_report(cx, "AR-003", q->name, (int64_t)q->offset, "the config keeps %s unquantized (bits %u), but it holds packed "
                  "tensors: auto-round's loader builds a float layer there and never reads them", prefix, s.bits);
    }
    if (r != 1) return false;
    mc->bits = s.bits;
    mc->group_size = s.group_size;
    mc->sym = s.sym;
    mc->desc_act = false;
    return true;
}

static void check_module(pc_input *in, const char *prefix, const gptq_cfg *c0, pc_ctx *cx)
{
    gptq_cfg cfg = *c0;
    const gptq_cfg *c = &cfg;
    if (c->ar != AR_PACK_NONE ? !apply_autoround(in, prefix, &cfg, cx) : !apply_dynamic(in, prefix, &cfg, cx)) return;
    gptq_mod m = {0};
    size_t fails = ql_fail_count(cx);
    if (!check_tensor_set(in, prefix, c, &m, cx) || !check_dims(in, prefix, c, &m, cx) || !check_limits(&m, cx)) return;
    int32_t *g = load_gidx(&m);
    if (!g) { pc_io_error(cx, "%s: cannot read", m.g_idx->name); return; }
    check_gidx_values(c, &m, g, cx);
    free(g);
    check_scales(&m, c->ar != AR_PACK_NONE, cx);
    check_zeros(c, &m, cx);
    /* Decodable unless a rule failed here. GPTQ-013 only warns under compat: the module then
     * decodes with the wrap policy above. */
    if (cx->oom || cx->io_error || ql_fail_count(cx) != fails) return;
    pc_module *pm = pc_module_add_with(in, &pc_format_gptq, prefix, c->layout, &m, sizeof m, cx);
    if (!pm) return;
    pc_module_set_matrix(pm, m.N, m.K, m.bits);
    pc_module_claim_parts(in, pm->fmt, prefix, pm->layout);
}

static bool gptq_detect(const pc_input *in) { return ql_any_module(in, QL_GPTQ); }

static void gptq_check(pc_input *in, pc_ctx *cx)
{
    gptq_cfg c;
    read_config(in, cx, &c);
    pc_input_note_layout(in, c.layout);
    if (!c.ok) return;
    if (c.ar != AR_PACK_NONE) pc_ar_check_pinned_layers(in, cx);
    for (size_t i = 0; i < in->ntensors; i++) {
        char *prefix = ql_prefix(in->tensors[i].name);
        if (prefix && ql_module_owner(in, in->tensors[i].name) == QL_GPTQ) check_module(in, prefix, &c, cx);
        free(prefix);
        if (cx->oom || cx->io_error) return;
    }
}

static int gptq_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const gptq_mod *m = pm->priv;
    size_t K = (size_t)m->K, N = (size_t)m->N;
    uint8_t *raw = pc_tensor_load(m->qweight, QL_TENSOR_LIMIT), *q = malloc(K * N), *z = load_zeros(m, impl);
    float *s = ql_load_f32(m->scales, m->G * m->N, QL_TENSOR_LIMIT);
    int32_t *g = load_gidx(m);
    int rc = -1;
    if (!raw || !q || !z || !s || !g || m->qweight->nbytes != K / 32 * m->bits * N * 4) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        goto out;
    }
    pc_gptq_unpack_fn(impl)(raw, m->bits, K, N, q);
    const unsigned maxq = (1u << m->bits) - 1;
    for (size_t k = 0; k < K; k++)
        if (g[k] < 0 || (uint64_t)g[k] >= m->G) { /* the file changed since check(): never index out of bounds */
            pc_report(cx, "GPTQ-007", m->g_idx->name, (int64_t)(m->g_idx->offset + 4 * k), "g_idx[%zu] = %d out of range", k, g[k]);
            goto out;
        }
    if (codes) ql_transpose_u8(q, K, N, codes);
    for (size_t k = 0; weights && k < K; k++) {
        size_t grp = (size_t)g[k] * N;
        for (size_t n = 0; n < N; n++) {
            unsigned stored = z[grp + n];
            int zero = (int)(m->v2 ? stored : (stored + 1) & maxq);
            weights[n * K + k] = (float)((int)q[k * N + n] - zero) * s[grp + n];
        }
    }
    rc = 0;
out:
    free(raw); free(q); free(z); free(s); free(g);
    return rc;
}


/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* View row n of [N, K] is column n of qweight [K * b / 32, N] (int32 words packed along K), so a
 * slice of view rows is a strip of whole columns: read through a window of columns (ql_strip.h),
 * unpacked by the same kernel with N = the slice's rows (each column unpacks on its own), then
 * transposed like the whole decode. Zero points, scales and g_idx are loaded once per module. */
typedef struct gptq_rows {
    ql_strip strip;
    uint8_t *z;
    float *s;
    int32_t *g;
    uint8_t *buf;    /* packed strip, unpacked [K, n], transposed [n, K] */
    size_t cap;
} gptq_rows;

static void gptq_rows_free(void *p)
{
    gptq_rows *r = p;
    if (r) { ql_strip_free(&r->strip); free(r->z); free(r->s); free(r->g); free(r->buf); }
    free(r);
}

static gptq_rows *gptq_rows_state(const pc_module *pm, pc_impl impl, void **state, pc_ctx *cx)
{
    const gptq_mod *m = pm->priv;
    gptq_rows *r = *state;
    if (r) return r;
    if (!(r = *state = calloc(1, sizeof *r))) { cx->oom = true; return NULL; }
    r->strip = (ql_strip){.t = m->qweight, .rows = m->K / 32 * m->bits, .row_bytes = m->N * 4};
    r->z = load_zeros(m, impl);
    r->s = ql_load_f32(m->scales, m->G * m->N, QL_TENSOR_LIMIT);
    r->g = load_gidx(m);
    if (!r->z || !r->s || !r->g || m->qweight->nbytes != m->K / 32 * m->bits * m->N * 4) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        return NULL;
    }
    for (size_t k = 0; k < m->K; k++)
        if (r->g[k] < 0 || (uint64_t)r->g[k] >= m->G) { /* the file changed since check() */
            pc_report(cx, "GPTQ-007", m->g_idx->name, (int64_t)(m->g_idx->offset + 4 * k), "g_idx[%zu] = %d out of range", k, r->g[k]);
            return NULL;
        }
    return r;
}

static int gptq_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                            uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const gptq_mod *m = pm->priv;
    gptq_rows *st = gptq_rows_state(pm, impl, state, cx);
    if (!st) return -1;
    size_t K = (size_t)m->K, N = (size_t)m->N, cnt = (size_t)n * K, pb = (size_t)(st->strip.rows * n * 4);
    if (!pc_rows_buf(&st->buf, &st->cap, pb + 2 * cnt, cx)) return -1;
    uint8_t *q = st->buf + pb, *c = codes ? codes : q + cnt;
    if (ql_strip_get(&st->strip, r0 * 4, n * 4, st->buf, cx)) return -1;
    pc_gptq_unpack_fn(impl)(st->buf, m->bits, K, (size_t)n, q);
    ql_transpose_u8(q, K, (size_t)n, c);
    const unsigned maxq = (1u << m->bits) - 1;
    for (size_t j = 0; weights && j < (size_t)n; j++) {
        size_t col = (size_t)r0 + j;
        const uint8_t *cj = c + j * K;
        float *wj = weights + j * K;
        for (size_t k0 = 0, k1; k0 < K; k0 = k1) { /* runs of columns in one group (all of a group without act order) */
            for (k1 = k0 + 1; k1 < K && st->g[k1] == st->g[k0];) k1++;
            size_t grp = (size_t)st->g[k0] * N;
            unsigned stored = st->z[grp + col];
            int zero = (int)(m->v2 ? stored : (stored + 1) & maxq);
            float sc = st->s[grp + col];
            for (size_t k = k0; k < k1; k++) wj[k] = (float)((int)cj[k] - zero) * sc; /* the whole decode's arithmetic */
        }
    }
    return 0;
}

/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* qweight [K*b/32, N]: b | 32 fields of each int32 word run along K (a reader may take them as
 * packed along N, or shift arithmetically); v1 stores zero - 1, so +-1 misreads apply. */
static void gptq_diag_layout(const pc_module *pm, pc_diag_layout *l)
{
    bool v1 = pm->layout && (!strcmp(pm->layout, "gptq-v1") || !strcmp(pm->layout, "autoround-gptq-v1"));
    *l = (pc_diag_layout){.word_bits = 32 % pm->bits ? 0 : 32, .pack_dim = 'K', .axis_misread = pm->ndim == 2,
                          .sign_ext = 32 % pm->bits == 0, .nibble = pm->bits == 4 ? PC_NIB_K_XOR : PC_NIB_NONE, .nib_xor = 1,
                          .zero_shift = true, .zero_wrap = v1 ? 1 << pm->bits : 0};
}

/* qzeros [G, N*b/32] packed along N (dense), scales [G, N], g_idx [K]; zero point + 1 for v1. */
static int gptq_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t N = pm->shape[0], K = pm->shape[1];
    int64_t *qz = NULL, *gi = NULL;
    float *sc = NULL;
    int rc = 1;
    const pc_tensor *tz = pc_diag_find(in, pm->prefix, "qzeros"), *ts = pc_diag_find(in, pm->prefix, "scales"), *tg = pc_diag_find(in, pm->prefix, "g_idx");
    if (pm->ndim != 2 || !tz || !ts || ts->ndim != 2 || ts->shape[1] != N || tz->ndim != 2) { snprintf(p->note, sizeof p->note, "qzeros/scales not in the GPTQ shapes"); return 1; }
    const gptq_mod *m = pm->priv;
    uint64_t G = ts->shape[0], nz = tz->shape[1], gs = m ? m->gs : G && K % G == 0 ? K / G : 0;
    if (!G || tz->shape[0] != G || nz * 32 < N * pm->bits) { snprintf(p->note, sizeof p->note, "qzeros shape does not cover N"); return 1; }
    qz = pc_diag_load_ints(tz);
    sc = pc_diag_load_floats(ts);
    gi = tg ? pc_diag_load_ints(tg) : NULL;
    if (!qz || !sc || (tg && (!gi || tg->numel != K)) || (!gi && !gs)) { snprintf(p->note, sizeof p->note, "qzeros/scales/g_idx unreadable or no group size"); goto out; }
    if (pc_diag_alloc(p, (size_t)pm->numel, gi && gs ? PC_ALT_NO_GIDX : -1)) { rc = -1; goto out; }
    if (gi && gs && !(p->alt_zq[PC_ALT_NO_GIDX] = malloc((size_t)pm->numel * sizeof(int16_t)))) { rc = -1; goto out; }
    int plus = !strcmp(pm->layout, "gptq-v1") || !strcmp(pm->layout, "autoround-gptq-v1");
    for (uint64_t k = 0; k < K; k++) {
        uint64_t g = gi ? (uint64_t)gi[k] : k / gs, g0 = gs ? k / gs : 0;
        if (g >= G) { snprintf(p->note, sizeof p->note, "g_idx[%llu] out of range", (unsigned long long)k); goto out; }
        for (uint64_t n = 0; n < N; n++) {
            size_t i = (size_t)(n * K + k);
            p->s[i] = sc[g * N + n];
            p->zq[i] = (int16_t)(pc_diag_stream_get(qz + g * nz, 1, nz, n, pm->bits, false) + plus);
            if (p->alt_zq[PC_ALT_NO_GIDX]) {
                p->alt_s[PC_ALT_NO_GIDX][i] = sc[g0 * N + n];
                p->alt_zq[PC_ALT_NO_GIDX][i] = (int16_t)(pc_diag_stream_get(qz + g0 * nz, 1, nz, n, pm->bits, false) + plus);
            }
        }
    }
    rc = 0;
out:
    free(qz); free(gi); free(sc);
    return rc;
}

static int gptq_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    gptq_diag_layout(pm, &p->lay);
    p->kind = PC_DIAG_INT;
    return want ? gptq_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_gptq_bench[]; /* gptq_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".qweight", PC_PART_CODES},
    {".qzeros", PC_PART_COMPANION},
    {".scales", PC_PART_COMPANION},
    {".g_idx", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_gptq = {.parts = k_format_parts, .name = "gptq", .detect = gptq_detect, .check = gptq_check, .decode = gptq_decode, .decode_rows = gptq_decode_rows, .decode_rows_free = gptq_rows_free, .module_free = free, .diag_params = gptq_diag_params, .bench = pc_gptq_bench};
