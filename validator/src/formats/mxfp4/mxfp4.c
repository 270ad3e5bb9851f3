/* Format module: MXFP4 under the gpt-oss / transformers naming (rules: family MX).
 *
 *   mxfp4-gptoss  `quant_method: "mxfp4"`; each fused MoE weight P is two tensors
 *                 (huggingface/transformers integrations/mxfp4.py, _convert_moe_packed_tensors):
 *                 P_blocks U8 [E, R, G, 16]: 32 E2M1 codes per block, element 2i in the low nibble
 *                 of byte i; P_scales U8 [E, R, G]: one E8M0 exponent per block, 2^(s - 127).
 *                 The checkpoint's stored orientation is [E, R, K = 32 G]: transformers transposes
 *                 its dequantized result to [E, K, R] for its own parameter, the logical view
 *                 keeps [E, R, K] (CONTRACT 3: [E, out, in]).
 *
 * Codes: the E2M1 nibble; weights: f32(e2m1(code) * 2^(s - 127)), which is exact in f32 except
 * where it overflows to infinity (transformers' torch.ldexp gives the same). Scale byte 255 (E8M0
 * NaN) is rejected. The nibble stream is the little-endian 4-bit stream and the E2M1 table is
 * NVFP4's, so the stream and NVFP4 kernels (oracle and fast) decode it with the scale of each
 * 32-block given to both 16-halves.
 *
 *   mxfp4-ct      compressed-tensors `mxfp4-pack-quantized` (MXFP4PackedCompressor, an NVFP4PackedCompressor
 *                 without the global scale: compressors/mxfp4/base.py in 0.15..0.20.1,
 *                 quantized_compressors/fp4_quantized.py in 0.13.0/0.14.0): M.weight_packed U8 [N, K/2]
 *                 (element 2i low, unpack_fp4_from_uint8), M.weight_scale U8 [N, K/32] of E8M0 bytes,
 *                 true scale 2^(s - bias). The bias is the writer's: 0.13.0 stores
 *                 127 + floor(log2(scale)) - 2 (bias 125), >= 0.14.0 stores 127 + floor(log2(scale))
 *                 (PR #538; reports/ct-mxfp4-e8m0-bias.md); quantization_config.version picks it, and a
 *                 version that does not settle it decodes with 127 and warns (MX-005). */
#include "../row_decode.h"
#include "formats/format.h"

#include "../../core/arith.h"
#include "../../core/json_get.h"
#include "../../core/scan.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "../../kernels/kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MX_LIMIT (1ull << 29) /* bytes of one _blocks tensor we decode */

extern const pc_format pc_format_mxfp4;

static const char k_layout[] = "mxfp4-gptoss";
static const char k_layout_ct[] = "mxfp4-ct";
static const char k_ct_format[] = "mxfp4-pack-quantized";

typedef struct mx_module {
    const pc_tensor *blocks, *scales; /* ct: weight_packed, weight_scale */
    int bias;                         /* E8M0 bias: 127, or 125 for compressed-tensors 0.13.0 */
} mx_module;

/* P for a tensor named P_blocks, else NULL (caller frees). */
static char *blocks_prefix(const char *name)
{
    size_t n = strlen(name);
    if (n <= 7 || strcmp(name + n - 7, "_blocks")) return NULL;
    return pc_strndup(name, n - 7);
}

static const pc_tensor *scales_of(const pc_input *in, const char *prefix)
{
    char *n = pc_asprintf("%s_scales", prefix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

static bool configured(const pc_input *in)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    return qm && !strcmp(qm, "mxfp4");
}

/* The first P_blocks with a P_scales beside it. */
static const pc_tensor *fingerprint(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++) {
        char *p = blocks_prefix(in->tensors[i].name);
        bool hit = p && scales_of(in, p);
        free(p);
        if (hit) return &in->tensors[i];
    }
    return NULL;
}

/* MX-001: blocks U8 [E, R, G, 16] with E, R, G > 0; scales U8 (or F8_E8M0) [E, R, G]. */
static bool check_shapes(const pc_tensor *b, const pc_tensor *s, pc_ctx *cx)
{
    if (b->dtype != PC_DT_U8 || b->ndim != 4 || b->shape[3] != 16 || !b->shape[0] || !b->shape[1] || !b->shape[2]) {
        pc_report(cx, "MX-001", b->name, (int64_t)b->offset, "blocks are %s of rank %d; gpt-oss MXFP4 wants U8 [E, R, G, 16]",
                  pc_dtype_name(b->dtype), b->ndim);
        return false;
    }
    bool ok = (s->dtype == PC_DT_U8 || s->dtype == PC_DT_F8_E8M0) && s->ndim == 3;
    for (int i = 0; ok && i < 3; i++) ok = s->shape[i] == b->shape[i];
    if (!ok) {
        pc_report(cx, "MX-001", s->name, (int64_t)s->offset, "scales are %s of rank %d [%llu, %llu, %llu]; want U8 [%llu, %llu, %llu] (the blocks' shape without its 16)",
                  pc_dtype_name(s->dtype), s->ndim, (unsigned long long)(s->ndim > 0 ? s->shape[0] : 0),
                  (unsigned long long)(s->ndim > 1 ? s->shape[1] : 0), (unsigned long long)(s->ndim > 2 ? s->shape[2] : 0),
                  (unsigned long long)b->shape[0], (unsigned long long)b->shape[1], (unsigned long long)b->shape[2]);
        return false;
    }
    return true;
}

static void check_module(pc_input *in, const char *prefix, const pc_tensor *b, pc_ctx *cx)
{
    const pc_tensor *s = scales_of(in, prefix);
    pc_input_note_layout(in, k_layout);
    if (!check_shapes(b, s, cx)) return;
    /* MX-002: E8M0 255 is NaN; a U8 tensor holds E8M0 bits, never a linear value */
    if (pc_scan_ints_in_range(in, cx, s, "MX-002", 0, 254) || pc_scan_floats_finite(in, cx, s, "MX-002", false)) {
        cx->oom = true;
        return;
    }
    pc_module *m = pc_module_add(in, &pc_format_mxfp4, prefix, k_layout);
    mx_module *d = m ? malloc(sizeof *d) : NULL;
    if (!d) { cx->oom = true; return; }
    d->blocks = b;
    d->scales = s;
    d->bias = 127;
    m->priv = d;
    m->ndim = 3;
    m->shape[0] = b->shape[0];
    m->shape[1] = b->shape[1];
    m->shape[2] = b->shape[2] * 32; /* G * 32 <= 2 * nbytes, which fits */
    m->numel = b->nbytes * 2;
    m->bits = 4;
    pc_tensor_claim(in, b, k_layout);
    pc_tensor_claim(in, s, k_layout);
}

/* ---- the compressed-tensors naming (mxfp4-ct) ---- */

static const cJSON *ct_q(const pc_input *in)
{
    const cJSON *q = in->qconfig;
    return q && !strcmp(pc_json_str(q, "quant_method"), "compressed-tensors") ? q : NULL;
}

/* A config group is MXFP4 when its own format says so, or it has none and the top level does. */
static bool ct_group_is_mx(const cJSON *q, const cJSON *g)
{
    const char *f = pc_json_str(g, "format");
    return !strcmp(*f ? f : pc_json_str(q, "format"), k_ct_format);
}

static bool ct_configured(const pc_input *in, bool *only)
{
    const cJSON *q = ct_q(in), *g;
    *only = q && !strcmp(pc_json_str(q, "format"), k_ct_format);
    if (*only) return true;
    if (!q) return false;
    cJSON_ArrayForEach(g, pc_json_obj(q, "config_groups"))
        if (cJSON_IsObject(g) && ct_group_is_mx(q, g)) return true;
    return false;
}

/* M.suffix, or NULL. */
static const pc_tensor *ct_part(const pc_input *in, const char *prefix, const char *suffix)
{
    char *n = pc_asprintf("%s.%s", prefix, suffix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

/* M for a tensor named M.weight_packed, else NULL (caller frees). */
static char *ct_prefix(const char *name)
{
    static const char k_suf[] = ".weight_packed";
    size_t n = strlen(name), m = sizeof k_suf - 1;
    if (n <= m || strcmp(name + n - m, k_suf)) return NULL;
    return pc_strndup(name, n - m);
}

/* Is M.weight_packed ours? Under a top-level mxfp4-pack-quantized format every one is; in a
 * mixed config only the U8 ones with an E8M0-typed scale and no NVFP4 global scale. */
static bool ct_claims(const pc_input *in, bool only, const char *prefix, const pc_tensor *p)
{
    if (only) return true;
    const pc_tensor *s = ct_part(in, prefix, "weight_scale");
    return p->dtype == PC_DT_U8 && s && (s->dtype == PC_DT_U8 || s->dtype == PC_DT_F8_E8M0) &&
           !ct_part(in, prefix, "weight_global_scale");
}

/* MX-004 (config): every MXFP4 group's weights are 4-bit float, symmetric, group_size 32
 * (MXFP4PackedCompressor.can_compress; 16 selects NVFP4). */
static void ct_check_config(const pc_input *in, pc_ctx *cx)
{
    const cJSON *q = ct_q(in), *g;
    cJSON_ArrayForEach(g, pc_json_obj(q, "config_groups")) {
        if (!cJSON_IsObject(g) || !ct_group_is_mx(q, g)) continue;
        const cJSON *w = pc_json_obj(g, "weights");
        const cJSON *sym = w ? cJSON_GetObjectItemCaseSensitive(w, "symmetric") : NULL;
        if (!w || pc_json_num(w, "num_bits", 0) != 4 || strcmp(pc_json_str(w, "type"), "float") ||
            pc_json_num(w, "group_size", 0) != 32 || cJSON_IsFalse(sym))
            pc_report(cx, "MX-004", "config.json", -1, "config group %s: MXFP4 wants weights num_bits 4, type float, symmetric, group_size 32",
                      g->string ? g->string : "?");
    }
}

/* The E8M0 bias quantization_config.version settles: 125 for 0.13.0, 127 for releases >= 0.14.0
 * and for any version (pre-release included) above 0.14.0; 0 when it does not settle it (absent,
 * unparsable, below 0.13.0, a 0.13.0 or 0.14.0 pre-release/dev/local build between the two). */
static int ct_bias_of(const char *v)
{
    unsigned long x[3];
    const char *p = v;
    for (int i = 0; i < 3; i++) {
        if (!p || *p < '0' || *p > '9') return 0;
        char *end;
        x[i] = strtoul(p, &end, 10);
        if (end - p > 6) return 0;
        p = end;
        if (i < 2 && *p++ != '.') return 0;
    }
    unsigned long key = x[0] * 1000000ul + x[1] * 1000ul + x[2];
    bool release = !*p || !strncmp(p, ".post", 5);
    if (key == 13000ul && !*p) return 125;
    if (key > 14000ul || (key == 14000ul && release)) return 127;
    return 0;
}

/* MX-005: the writer's version settles the bias; otherwise 127 with a warning naming the assumption. */
static int ct_bias(const pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "MX-005");
    const cJSON *jv = cJSON_GetObjectItemCaseSensitive(ct_q(in), "version");
    const char *v = cJSON_IsString(jv) ? jv->valuestring : NULL;
    int b = ct_bias_of(v);
    if (b) return b;
    pc_report(cx, "MX-005", "config.json", -1,
              "quantization_config.version %s%s%s does not settle the E8M0 bias of mxfp4-pack-quantized scales "
              "(compressed-tensors 0.13.0 wrote 2^(s - 125), >= 0.14.0 writes 2^(s - 127)): decoded assuming bias 127",
              v ? "\"" : "", v ? v : "absent", v ? "\"" : "");
    return 127;
}

/* MX-004 (tensors): weight_packed U8 [N, K/2] with K a positive multiple of 32, weight_scale U8
 * (or F8_E8M0) [N, K/32]. */
static bool ct_check_shapes(const pc_input *in, const char *prefix, const pc_tensor *p, const pc_tensor **sp, pc_ctx *cx)
{
    if (p->dtype != PC_DT_U8 || p->ndim != 2 || !p->shape[0] || !p->shape[1] || p->shape[1] % 16) {
        pc_report(cx, "MX-004", p->name, (int64_t)p->offset, "weight_packed is %s of rank %d; mxfp4-pack-quantized wants U8 [N, K/2] with K a positive multiple of 32",
                  pc_dtype_name(p->dtype), p->ndim);
        return false;
    }
    const pc_tensor *s = ct_part(in, prefix, "weight_scale");
    uint64_t g = p->shape[1] / 16;
    if (!s) {
        pc_report(cx, "MX-004", p->name, (int64_t)p->offset, "%s.weight_scale is missing", prefix);
        return false;
    }
    if ((s->dtype != PC_DT_U8 && s->dtype != PC_DT_F8_E8M0) || s->ndim != 2 || s->shape[0] != p->shape[0] || s->shape[1] != g) {
        pc_report(cx, "MX-004", s->name, (int64_t)s->offset, "weight_scale is %s of rank %d [%llu, %llu]; want U8 [%llu, %llu] (one E8M0 byte per 32 codes of a row)",
                  pc_dtype_name(s->dtype), s->ndim, (unsigned long long)(s->ndim > 0 ? s->shape[0] : 0),
                  (unsigned long long)(s->ndim > 1 ? s->shape[1] : 0), (unsigned long long)p->shape[0], (unsigned long long)g);
        return false;
    }
    *sp = s;
    return true;
}

static void ct_check_module(pc_input *in, const char *prefix, const pc_tensor *p, int bias, pc_ctx *cx)
{
    const pc_tensor *s = NULL;
    pc_input_note_layout(in, k_layout_ct);
    if (!ct_check_shapes(in, prefix, p, &s, cx)) return;
    if (pc_scan_ints_in_range(in, cx, s, "MX-002", 0, 254) || pc_scan_floats_finite(in, cx, s, "MX-002", false)) {
        cx->oom = true;
        return;
    }
    pc_module *m = pc_module_add(in, &pc_format_mxfp4, prefix, k_layout_ct);
    mx_module *d = m ? malloc(sizeof *d) : NULL;
    if (!d) { cx->oom = true; return; }
    *d = (mx_module){p, s, bias};
    m->priv = d;
    m->ndim = 2;
    m->shape[0] = p->shape[0];
    m->shape[1] = p->shape[1] * 2; /* <= 2 * nbytes, which fits */
    m->numel = p->nbytes * 2;
    m->bits = 4;
    static const char *const k_parts[] = {"weight_packed", "weight_scale", NULL};
    pc_module_claim_suffixes(in, prefix, k_layout_ct, k_parts);
}

static void ct_check(pc_input *in, pc_ctx *cx)
{
    bool only;
    if (!ct_configured(in, &only)) return;
    pc_eval(cx, "MX-002");
    pc_eval(cx, "MX-004");
    ct_check_config(in, cx);
    int bias = ct_bias(in, cx);
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        char *prefix = ct_prefix(in->tensors[i].name);
        if (prefix && ct_claims(in, only, prefix, &in->tensors[i])) ct_check_module(in, prefix, &in->tensors[i], bias, cx);
        free(prefix);
    }
}

static bool mx_detect(const pc_input *in)
{
    bool only;
    return configured(in) || fingerprint(in) || ct_configured(in, &only);
}

static void mx_check(pc_input *in, pc_ctx *cx)
{
    ct_check(in, cx);
    if (!configured(in) && !fingerprint(in)) return;
    pc_eval(cx, "MX-003");
    if (!configured(in)) {
        const pc_tensor *t = fingerprint(in);
        pc_input_note_layout(in, k_layout);
        pc_report(cx, "MX-003", t->name, (int64_t)t->offset,
                  "gpt-oss MXFP4 tensors (*_blocks beside *_scales) but no quantization config with quant_method \"mxfp4\": a loader reads them as plain bytes");
        return;
    }
    pc_eval(cx, "MX-001");
    pc_eval(cx, "MX-002");
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        char *p = blocks_prefix(in->tensors[i].name);
        if (p && scales_of(in, p)) check_module(in, p, &in->tensors[i], cx);
        free(p);
    }
}

static int mx_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mx_module *d = m->priv;
    size_t n = (size_t)m->numel, nblk = n / 32;
    uint8_t *packed = pc_tensor_load(d->blocks, MX_LIMIT);
    uint8_t *e = packed ? pc_tensor_load(d->scales, MX_LIMIT) : NULL;
    uint8_t *c = codes ? codes : malloc(n);
    float *s = weights ? malloc(nblk * 2 * sizeof *s) : NULL;
    int rc = 0;
    if (!packed || !e) {
        pc_io_error(cx, "%s: cannot read the MXFP4 blocks and scales", m->prefix);
        rc = -1;
    } else if (!c || (weights && !s)) {
        cx->oom = true;
        rc = -1;
    } else {
        pc_stream_fn(impl)(packed, 4, n, c);
        if (weights) {
            /* 2^(e - bias) is exact in f32 for e = 0..254 (2^-127 is a subnormal); one per 16-half */
            for (size_t i = 0; i < nblk; i++) s[2 * i] = s[2 * i + 1] = ldexpf(1.0f, (int)e[i] - d->bias);
            pc_nvfp4_dequant(impl)(c, n / 32, 32, s, weights);
        }
    }
    free(packed);
    free(e);
    free(s);
    if (c != codes) free(c);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* Rows of K codes (K a multiple of 32): row r is packed bytes [r * K / 2, (r + 1) * K / 2) and
 * E8M0 bytes [r * K / 32, (r + 1) * K / 32), so a slice of rows is a run of both; its f32 scales are
 * made per slice exactly as the whole decode makes them. */
typedef struct mx_rows {
    uint8_t *buf;    /* packed bytes, E8M0 bytes, f32 scales, codes when the caller wants none */
    size_t cap;
} mx_rows;

static void mx_rows_free(void *p)
{
    mx_rows *r = p;
    if (r) free(r->buf);
    free(r);
}

static int mx_decode_rows(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                          uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mx_module *d = m->priv;
    uint64_t K = m->shape[m->ndim - 1];
    size_t cnt = (size_t)(n * K), bytes = cnt / 2, nblk = cnt / 32, at = (bytes + nblk + 3) / 4 * 4;
    mx_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (K % 32) { pc_io_error(cx, "%s: rows of %llu codes are not whole blocks", m->prefix, (unsigned long long)K); return -1; }
    if (!pc_rows_buf(&st->buf, &st->cap, at + 2 * nblk * sizeof(float) + cnt, cx)) return -1; /* malloc'd: f32-aligned at `at` */
    uint8_t *e = st->buf + bytes, *c = codes ? codes : st->buf + at + 2 * nblk * sizeof(float);
    float *s = (float *)(void *)(st->buf + at);
    if (pc_tensor_read(d->blocks, r0 * K / 2, st->buf, bytes) || (weights && pc_tensor_read(d->scales, r0 * K / 32, e, nblk))) {
        pc_io_error(cx, "%s: cannot read the MXFP4 blocks and scales", m->prefix);
        return -1;
    }
    pc_stream_fn(impl)(st->buf, 4, cnt, c);
    if (!weights) return 0;
    for (size_t i = 0; i < nblk; i++) s[2 * i] = s[2 * i + 1] = ldexpf(1.0f, (int)e[i] - d->bias); /* as mx_decode */
    pc_nvfp4_dequant(impl)(c, nblk, 32, s, weights);
    return 0;
}

static void mx_module_free(void *priv) { free(priv); }


/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* One E8M0 byte per 32 codes of a row, 2^(s - bias) (OCP MX spec; bias 125 for compressed-tensors
 * 0.13.0's files); a linear reader uses s, a reader with the other bias 2^(s - other). */
static int mx_diag_fill(const pc_module *pm, pc_diag_params *p)
{
    const mx_module *d = pm->priv;
    uint64_t K = pm->shape[pm->ndim - 1];
    if (!d || K % 32 || d->scales->numel != pm->numel / 32) { snprintf(p->note, sizeof p->note, "MXFP4 scales not found in the expected shape"); return 1; }
    int64_t *e = pc_diag_load_ints(d->scales);
    if (!e) { snprintf(p->note, sizeof p->note, "MXFP4 scales unreadable"); return 1; }
    if (pc_diag_alloc(p, (size_t)pm->numel, PC_ALT_EXP_LINEAR) || pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_E8M0_BIAS) ||
        pc_diag_alloc_alt(p, (size_t)pm->numel, PC_ALT_SCALE_ZEROED)) { free(e); return -1; }
    int other = d->bias == 127 ? 125 : 127; /* the compressed-tensors 0.13.0 / >= 0.14.0 mix-up (MX-005) */
    for (size_t i = 0; i < pm->numel; i++) {
        p->s[i] = ldexpf(1.0f, (int)e[i / 32] - d->bias);
        p->alt_s[PC_ALT_EXP_LINEAR][i] = (float)e[i / 32];
        p->alt_s[PC_ALT_E8M0_BIAS][i] = ldexpf(1.0f, (int)e[i / 32] - other);
        p->alt_s[PC_ALT_SCALE_ZEROED][i] = ldexpf(1.0f, -d->bias); /* a zero-filled E8M0 byte */
    }
    free(e);
    return 0;
}

static int mx_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    p->lay = (pc_diag_layout){0};
    p->kind = PC_DIAG_E2M1;
    (void)in;
    return want ? mx_diag_fill(pm, p) : 0;
}

/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {"_blocks", PC_PART_CODES},
    {"_scales", PC_PART_COMPANION},
    {".weight_packed", PC_PART_CODES},
    {".weight_scale", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_mxfp4 = {.parts = k_format_parts, .name = "mxfp4", .detect = mx_detect, .check = mx_check, .decode = mx_decode, .decode_rows = mx_decode_rows, .decode_rows_free = mx_rows_free, .module_free = mx_module_free, .diag_params = mx_diag_params};
