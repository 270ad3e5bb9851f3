/* Diagnosis: simulate the known reader bugs on the reference view and name the one a reader's
 * output equals. See diagnose.h for the model (w = f32(v - zq) * s, or e2m1(code) * s). */
#include "diagnose.h"

#include "../core/arith.h"
#include "../core/util.h"
#include "../kernels/kernels.h"
#include "../core/fp8_module.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameters are re-derived only for modules up to this size; bigger ones get code-level diagnosis. */
#define DG_MAX_ELEMS (1ull << 26)
#define DG_TENSOR_LIMIT (1ull << 30)

static const struct { const char *id, *title; int variants; } k_bugs[PC_BUG_COUNT] = {
    [PC_BUG_PACK_AXIS] = {"pack-axis", "pack axis transposed (GPTQ read as packed along N, or AWQ along K)", 1},
    [PC_BUG_AWQ_ORDER] = {"awq-order", "AWQ slot order 0,2,4,6,1,3,5,7 not undone", 1},
    [PC_BUG_NIBBLE_SWAP] = {"nibble-swap", "nibbles swapped (high and low half of each byte)", 1},
    [PC_BUG_SIGN_EXT] = {"sign-extension", "top slot of each int32 word sign-extended (arithmetic shift, no mask)", 1},
    [PC_BUG_ZERO_OFF_BY_ONE] = {"zero-off-by-one", "zero point off by one (GPTQ v1 read as v2, or the reverse)", 2},
    [PC_BUG_G_IDX_IGNORED] = {"g-idx-ignored", "g_idx ignored (group k // group_size instead of g_idx[k])", 1},
    [PC_BUG_CT_LAYOUT] = {"ct-layout", "compressed-tensors dense layout read as legacy word-aligned, or the reverse", 1},
    [PC_BUG_PAD_NOT_SLICED] = {"pad-not-sliced", "padded columns not sliced off (width taken from the packed tensor, not weight_shape)", 1},
    [PC_BUG_GLOBAL_SCALE_MUL] = {"global-scale-multiplied", "NVFP4 global scale multiplied instead of divided (or the reverse)", 1},
    [PC_BUG_SCALE_GRID_T] = {"scale-grid-transposed", "FP8/INT8 block scale grid read transposed (scale[k // bw, n // bh])", 1},
    [PC_BUG_BLOCK_FROM_SHAPE] = {"block-from-shape", "FP8/INT8 block size derived from the shapes (N // scale rows), not read from the config", 1},
    [PC_BUG_SCALE_INV_DIVIDED] = {"scale-inv-divided", "DeepSeek weight_scale_inv divided instead of multiplied", 1},
    [PC_BUG_E8M0_LINEAR] = {"e8m0-linear", "MXFP4 E8M0 scale byte used as a linear value instead of 2^(s - 127)", 1},
    [PC_BUG_ZERO_WRAP] = {"zero-wrap", "GPTQ v1 zero point stored as 2^b - 1 decoded as (stored + 1) & mask = 0 instead of 2^b", 1},
    [PC_BUG_MLX_BIAS_SUB] = {"mlx-bias-sub", "MLX affine bias subtracted instead of added (w = s*q - b)", 1},
    [PC_BUG_GLOBAL_SCALE_RECIP] = {"global-scale-reciprocal", "NVFP4 global scale converted through its reciprocal (1/(1/x) is not x in f32; ModelOpt <-> compressed-tensors names)", 1},
};

static const unsigned k_awq_order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
static const float k_e2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

const char *pc_bug_id(pc_bug b) { return b < PC_BUG_COUNT ? k_bugs[b].id : "?"; }
const char *pc_bug_title(pc_bug b) { return b < PC_BUG_COUNT ? k_bugs[b].title : "?"; }
int pc_bug_variants(pc_bug b) { return b < PC_BUG_COUNT ? k_bugs[b].variants : 0; }

int pc_bug_parse(const char *id)
{
    for (int i = 0; i < PC_BUG_COUNT; i++)
        if (!strcmp(id, k_bugs[i].id)) return i;
    return -1;
}

static bool is_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }
static bool layout_ct_int(const char *l) { return !strcmp(l, "ct-dense") || !strcmp(l, "ct-legacy"); }
static bool layout_gptq(const char *l) { return is_prefix(l, "gptq"); }
static bool layout_awq(const char *l) { return is_prefix(l, "awq"); }
static bool layout_nvfp4(const char *l) { return is_prefix(l, "nvfp4"); }
static bool layout_bnb(const char *l) { return !strcmp(l, "bnb-4bit"); }
static bool layout_mlx(const char *l) { return !strcmp(l, "mlx-affine"); }
static bool layout_fp8(const char *l) { return !strcmp(l, "fp8-deepseek") || !strcmp(l, "ct-fp8") || !strcmp(l, "ct-int8"); }
static bool layout_mxfp4(const char *l) { return !strcmp(l, "mxfp4-gptoss"); }
static bool layout_q4_0(const char *l) { return !strcmp(l, "gguf") || !strcmp(l, "q4_0") || is_prefix(l, "gguf-q4"); }

/* ---- reading parameter tensors ---- */

static const pc_tensor *find_t(const pc_input *in, const char *prefix, const char *suffix)
{
    char *name = suffix ? pc_asprintf("%s.%s", prefix, suffix) : pc_strdup(prefix);
    const pc_tensor *t = name ? pc_input_find(in, name) : NULL;
    free(name);
    return t;
}

/* A whole tensor as floats (exact conversions), or NULL. */
static float *load_floats(const pc_tensor *t)
{
    unsigned bits = pc_dtype_bits(t->dtype);
    if (!bits || t->numel > DG_MAX_ELEMS) return NULL;
    uint8_t *raw = pc_tensor_load(t, DG_TENSOR_LIMIT);
    float *f = raw ? malloc((size_t)(t->numel ? t->numel : 1) * sizeof *f) : NULL;
    bool ok = f != NULL;
    for (uint64_t i = 0; ok && i < t->numel; i++) {
        const uint8_t *p = raw + i * (bits / 8);
        switch (t->dtype) {
        case PC_DT_F32: { uint32_t u = pc_le32(p); memcpy(&f[i], &u, 4); break; }
        case PC_DT_F16: f[i] = pc_f16_to_f32(pc_le16(p)); break;
        case PC_DT_BF16: f[i] = pc_bf16_to_f32(pc_le16(p)); break;
        case PC_DT_F8_E4M3: f[i] = pc_f8e4m3_to_f32(p[0]); break;
        case PC_DT_F64: { uint64_t u = pc_le64(p); double d; memcpy(&d, &u, 8); f[i] = (float)d; break; }
        default: ok = false;
        }
    }
    free(raw);
    if (!ok) { free(f); return NULL; }
    return f;
}

/* A whole integer tensor as int64 (signed dtypes sign-extended), or NULL. */
static int64_t *load_ints(const pc_tensor *t)
{
    unsigned bits = pc_dtype_bits(t->dtype);
    if (!bits || t->numel > DG_MAX_ELEMS) return NULL;
    uint8_t *raw = pc_tensor_load(t, DG_TENSOR_LIMIT);
    int64_t *v = raw ? malloc((size_t)(t->numel ? t->numel : 1) * sizeof *v) : NULL;
    bool ok = v != NULL;
    for (uint64_t i = 0; ok && i < t->numel; i++) {
        const uint8_t *p = raw + i * (bits / 8);
        switch (t->dtype) {
        case PC_DT_I8: v[i] = (int8_t)p[0]; break;
        case PC_DT_U8: v[i] = p[0]; break;
        case PC_DT_I16: v[i] = (int16_t)pc_le16(p); break;
        case PC_DT_I32: v[i] = (int32_t)pc_le32(p); break;
        case PC_DT_U32: v[i] = pc_le32(p); break;
        case PC_DT_I64: v[i] = (int64_t)pc_le64(p); break;
        default: ok = false;
        }
    }
    free(raw);
    if (!ok) { free(v); return NULL; }
    return v;
}

/* Field j (width b) of a little-endian stream of int32 words laid out with `stride` between
 * consecutive words (1 along a row, the row length down a column). Dense: bit j*b, crossing words;
 * legacy: floor(32/b) whole fields per word. Words past nwords read as 0. */
static uint32_t stream_get(const int64_t *base, size_t stride, uint64_t nwords, uint64_t j, unsigned b, bool legacy)
{
    uint64_t word, off;
    if (legacy) { unsigned pf = 32 / b; word = j / pf; off = (j % pf) * b; }
    else { word = j * b / 32; off = j * b % 32; }
    uint64_t lo = word < nwords ? (uint32_t)base[word * stride] : 0;
    uint64_t hi = !legacy && off + b > 32 && word + 1 < nwords ? (uint32_t)base[(word + 1) * stride] : 0;
    return (uint32_t)(((lo | (hi << 32)) >> off) & ((1u << b) - 1));
}

/* Set field j of a row of words (for re-packing a row in the other layout). */
static void stream_put(uint32_t *w, uint64_t nwords, uint64_t j, unsigned b, bool legacy, uint32_t v)
{
    uint64_t word, off;
    if (legacy) { unsigned pf = 32 / b; word = j / pf; off = (j % pf) * b; }
    else { word = j * b / 32; off = j * b % 32; }
    uint64_t both = (uint64_t)v << off;
    if (word < nwords) w[word] |= (uint32_t)both;
    if (word + 1 < nwords) w[word + 1] |= (uint32_t)(both >> 32);
}

/* ---- parameters per layout ---- */

typedef struct params {
    float *s, *s_nog, *s_alt, *s_recip;
    int16_t *zq, *zq_nog, *zq_layout;
    float *s_grid_t, *s_shape, *s_linear;
} params;

static void params_free(params *p)
{
    free(p->s); free(p->s_nog); free(p->s_alt); free(p->s_recip); free(p->zq); free(p->zq_nog); free(p->zq_layout);
    free(p->s_grid_t); free(p->s_shape); free(p->s_linear);
    memset(p, 0, sizeof *p);
}

static int params_alloc(params *p, size_t n, bool nog, bool alt)
{
    p->s = malloc(n * sizeof *p->s);
    p->zq = malloc(n * sizeof *p->zq);
    if (nog) { p->s_nog = malloc(n * sizeof *p->s_nog); p->zq_nog = malloc(n * sizeof *p->zq_nog); }
    if (alt) { p->s_alt = malloc(n * sizeof *p->s_alt); p->s_recip = malloc(n * sizeof *p->s_recip); }
    return p->s && p->zq && (!nog || (p->s_nog && p->zq_nog)) && (!alt || (p->s_alt && p->s_recip)) ? 0 : -1;
}

#define FAIL(...) do { snprintf(m->note, sizeof m->note, __VA_ARGS__); goto out; } while (0)

/* GPTQ: qzeros [G, N*b/32] packed along N, scales [G, N], g_idx [K]; logical (n, k). */
static int params_gptq(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    int64_t *qz = NULL, *gi = NULL;
    float *sc = NULL;
    const pc_tensor *tz = find_t(in, m->prefix, "qzeros"), *ts = find_t(in, m->prefix, "scales"), *tg = find_t(in, m->prefix, "g_idx");
    if (m->E != 1 || !tz || !ts || ts->ndim != 2 || ts->shape[1] != m->N || tz->ndim != 2) FAIL("qzeros/scales not in the GPTQ shapes");
    uint64_t G = ts->shape[0], nz = tz->shape[1];
    if (!G || tz->shape[0] != G || nz * 32 < m->N * m->bits) FAIL("qzeros shape does not cover N");
    qz = load_ints(tz);
    sc = load_floats(ts);
    gi = tg ? load_ints(tg) : NULL;
    if (!qz || !sc || (tg && (!gi || tg->numel != m->K))) FAIL("qzeros/scales/g_idx unreadable");
    uint64_t gs = m->K % G == 0 ? m->K / G : 0;
    if (!gi && !gs) FAIL("no g_idx and K not a multiple of the group count");
    if (params_alloc(p, m->numel, gi && gs, false)) { rc = -1; goto out; }
    int plus = !strcmp(m->layout, "gptq-v1");
    for (uint64_t k = 0; k < m->K; k++) {
        uint64_t g = gi ? (uint64_t)gi[k] : k / gs, g0 = gs ? k / gs : 0;
        if (g >= G) FAIL("g_idx[%llu] = %lld out of range", (unsigned long long)k, (long long)gi[k]);
        for (uint64_t n = 0; n < m->N; n++) {
            size_t i = (size_t)(n * m->K + k);
            p->s[i] = sc[g * m->N + n];
            p->zq[i] = (int16_t)(stream_get(qz + g * nz, 1, nz, n, m->bits, false) + plus);
            if (p->s_nog) {
                p->s_nog[i] = sc[g0 * m->N + n];
                p->zq_nog[i] = (int16_t)(stream_get(qz + g0 * nz, 1, nz, n, m->bits, false) + plus);
            }
        }
    }
    rc = 0;
out:
    free(qz); free(gi); free(sc);
    return rc;
}

/* AWQ GEMM: qzeros [K/gs, N/8] with the slot interleave, scales [K/gs, N]. */
static int params_awq(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    int64_t *qz = NULL;
    float *sc = NULL;
    const pc_tensor *tz = find_t(in, m->prefix, "qzeros"), *ts = find_t(in, m->prefix, "scales");
    if (m->E != 1 || m->bits != 4 || !tz || !ts || ts->ndim != 2 || ts->shape[1] != m->N || tz->ndim != 2) FAIL("qzeros/scales not in the AWQ shapes");
    uint64_t G = ts->shape[0], nz = tz->shape[1];
    if (!G || m->K % G || tz->shape[0] != G || nz * 8 < m->N) FAIL("qzeros/scales shapes inconsistent");
    qz = load_ints(tz);
    sc = load_floats(ts);
    if (!qz || !sc) FAIL("qzeros/scales unreadable");
    if (params_alloc(p, m->numel, false, false)) { rc = -1; goto out; }
    uint64_t gs = m->K / G;
    for (uint64_t k = 0; k < m->K; k++)
        for (uint64_t n = 0; n < m->N; n++) {
            size_t i = (size_t)(n * m->K + k);
            uint64_t g = k / gs;
            unsigned slot = 0;
            while (k_awq_order[slot] != n % 8) slot++;
            p->s[i] = sc[g * m->N + n];
            p->zq[i] = (int16_t)(((uint32_t)qz[g * nz + n / 8] >> (4 * slot)) & 15);
        }
    rc = 0;
out:
    free(qz); free(sc);
    return rc;
}

/* GGUF Q4_0: blocks of 32 along K, fp16 d then 16 bytes; zero point 8. */
static int params_q4_0(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    uint8_t *raw = NULL;
    const pc_tensor *t = find_t(in, m->prefix, NULL);
    if (!t) t = find_t(in, m->prefix, "weight");
    if (!t || t->ggml_type != 2 || m->K % 32) FAIL("no Q4_0 tensor of the module's shape"); /* other GGUF block types: not simulated */
    uint64_t nb = m->K / 32, rows = m->E * m->N; /* experts are consecutive [N, K] slices */
    if (t->nbytes != rows * nb * 18) FAIL("Q4_0 tensor size does not match the shape");
    raw = pc_tensor_load(t, DG_TENSOR_LIMIT);
    if (!raw) FAIL("Q4_0 tensor unreadable");
    if (params_alloc(p, m->numel, false, false)) { rc = -1; goto out; }
    for (uint64_t n = 0; n < rows; n++)
        for (uint64_t k = 0; k < m->K; k++) {
            size_t i = (size_t)(n * m->K + k);
            p->s[i] = pc_f16_to_f32(pc_le16(raw + (n * nb + k / 32) * 18));
            p->zq[i] = 8;
        }
    rc = 0;
out:
    free(raw);
    return rc;
}

/* NVFP4: fp8 block scales [N, K/16] and a global scale (divisor, CT names) or multiplier (ModelOpt). */
static int params_nvfp4(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    float *ws = NULL, *gs = NULL;
    bool modelopt = !strcmp(m->layout, "nvfp4-modelopt");
    const pc_tensor *ts = find_t(in, m->prefix, "weight_scale");
    const pc_tensor *tg = find_t(in, m->prefix, modelopt ? "weight_scale_2" : "weight_global_scale");
    if (!ts || !tg || m->K % 16 || ts->numel != m->E * m->N * (m->K / 16) || (tg->numel != 1 && tg->numel != m->E)) FAIL("NVFP4 scale tensors not found in the expected shapes");
    ws = load_floats(ts);
    gs = load_floats(tg);
    if (!ws || !gs) FAIL("NVFP4 scales unreadable");
    if (params_alloc(p, m->numel, false, true)) { rc = -1; goto out; }
    for (size_t i = 0; i < m->numel; i++) {
        uint64_t e = i / (m->N * m->K), k = i % m->K, row = i / m->K;
        float block = ws[row * (m->K / 16) + k / 16], g = gs[tg->numel == 1 ? 0 : e];
        p->s[i] = modelopt ? block * g : block / g;
        p->s_alt[i] = modelopt ? block / g : block * g;
        float inv = 1.0f / g; /* what a converter between the two namings stores */
        p->s_recip[i] = modelopt ? block / inv : block * inv;
        p->zq[i] = 0;
    }
    rc = 0;
out:
    free(ws); free(gs);
    return rc;
}

/* FP8 / INT8 (formats/fp8.c): the module's own grid, plus the grid read transposed and the block size
 * a reader derives from the shapes (floor(N / grid rows), clamped to the grid as such code indexes). */
static int params_fp8(const pc_module *pm, dg_module *m, params *p)
{
    int rc = 1;
    const f8_module *d = pm->priv;
    float *sc = NULL;
    int64_t *zp = NULL;
    if (!d || m->E != 1 || d->rows != m->N || d->cols != m->K) FAIL("FP8 module description not understood");
    sc = load_floats(d->scale);
    zp = d->zp ? load_ints(d->zp) : NULL;
    if (!sc || (d->zp && !zp) || d->scale->numel != d->gr * d->gc) FAIL("FP8 scales unreadable");
    p->s = malloc(m->numel * sizeof *p->s);
    p->zq = malloc(m->numel * sizeof *p->zq);
    p->s_grid_t = malloc(m->numel * sizeof *p->s_grid_t);
    p->s_shape = malloc(m->numel * sizeof *p->s_shape);
    if (!p->s || !p->zq || !p->s_grid_t || !p->s_shape) { rc = -1; goto out; }
    uint64_t bh2 = m->N / d->gr ? m->N / d->gr : 1, bw2 = m->K / d->gc ? m->K / d->gc : 1;
    for (uint64_t n = 0; n < m->N; n++)
        for (uint64_t k = 0; k < m->K; k++) {
            size_t i = (size_t)(n * m->K + k);
            uint64_t g = (n / d->bh) * d->gc + k / d->bw, r2 = n / bh2, c2 = k / bw2;
            p->s[i] = sc[g];
            p->s_grid_t[i] = sc[(k / d->bw) * d->gr + n / d->bh];
            p->s_shape[i] = sc[(r2 < d->gr ? r2 : d->gr - 1) * d->gc + (c2 < d->gc ? c2 : d->gc - 1)];
            p->zq[i] = (int16_t)(d->kind == F8_CT_INT ? 128 + (zp ? zp[g] : 0) : 0); /* code u = q + 128 */
        }
    rc = 0;
out:
    free(sc); free(zp);
    return rc;
}

/* MXFP4 (formats/mxfp4.c): one E8M0 byte per 32 codes of a row, 2^(s - 127); a linear reader uses s. */
static int params_mxfp4(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    int64_t *e = NULL;
    char *name = pc_asprintf("%s_scales", m->prefix);
    const pc_tensor *ts = name ? pc_input_find(in, name) : NULL;
    free(name);
    if (!ts || m->K % 32 || ts->numel != m->E * m->N * (m->K / 32)) FAIL("MXFP4 scales not found in the expected shape");
    e = load_ints(ts);
    if (!e) FAIL("MXFP4 scales unreadable");
    p->s = malloc(m->numel * sizeof *p->s);
    p->zq = calloc(m->numel, sizeof *p->zq);
    p->s_linear = malloc(m->numel * sizeof *p->s_linear);
    if (!p->s || !p->zq || !p->s_linear) { rc = -1; goto out; }
    for (size_t i = 0; i < m->numel; i++) {
        int64_t v = e[i / 32];
        p->s[i] = ldexpf(1.0f, (int)v - 127);
        p->s_linear[i] = (float)v;
    }
    rc = 0;
out:
    free(e);
    return rc;
}

/* compressed-tensors int: weight_scale by strategy (tensor, channel, group, block), an optional
 * weight_zero_point (packed along dim 0 for group/channel, raw for tensor/block) and weight_g_idx. */
typedef struct ct_grid { uint64_t rows, cols, bh, bw; } ct_grid;

/* block_structure [rows, cols] anywhere in the quantization config (block strategy). */
static bool config_block(const cJSON *j, uint64_t *bh, uint64_t *bw)
{
    if (!j) return false;
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(j, "block_structure"), *x;
    if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(bs, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(bs, 1))) {
        double a = cJSON_GetArrayItem(bs, 0)->valuedouble, b = cJSON_GetArrayItem(bs, 1)->valuedouble;
        if (a >= 1 && b >= 1 && a < 1e9 && b < 1e9) { *bh = (uint64_t)a; *bw = (uint64_t)b; return true; }
    }
    cJSON_ArrayForEach(x, j)
        if ((cJSON_IsObject(x) || cJSON_IsArray(x)) && config_block(x, bh, bw)) return true;
    return false;
}

static bool ct_scale_grid(const pc_tensor *ts, const dg_module *m, const cJSON *qconfig, ct_grid *g)
{
    uint64_t per = ts->numel / m->E;
    if (ts->numel % m->E) return false;
    if (per == 1) { *g = (ct_grid){1, 1, m->N, m->K}; return true; }
    int nd = ts->ndim - (m->E > 1);
    if (nd != 2) return false;
    g->rows = ts->shape[ts->ndim - 2];
    g->cols = ts->shape[ts->ndim - 1];
    if (!g->rows || !g->cols) return false;
    g->bh = g->rows == m->N ? 1 : (m->N % g->rows ? 0 : m->N / g->rows);
    g->bw = g->cols == 1 ? m->K : (m->K % g->cols ? 0 : m->K / g->cols);
    uint64_t bh, bw;
    if ((!g->bh || !g->bw) && config_block(qconfig, &bh, &bw) && pc_ceil_div(m->N, bh) == g->rows && pc_ceil_div(m->K, bw) == g->cols) {
        g->bh = bh; /* a partial last block: the config's block_structure settles it */
        g->bw = bw;
    }
    return g->bh && g->bw;
}

static int params_ct(const pc_input *in, dg_module *m, params *p)
{
    int rc = 1;
    float *sc = NULL;
    int64_t *zp = NULL, *gi = NULL;
    const pc_tensor *ts = find_t(in, m->prefix, "weight_scale"), *tz = find_t(in, m->prefix, "weight_zero_point");
    const pc_tensor *tg = find_t(in, m->prefix, "weight_g_idx");
    ct_grid gr;
    if (!ts || !ct_scale_grid(ts, m, in->qconfig, &gr)) FAIL("weight_scale shape not understood");
    uint64_t per = gr.rows * gr.cols;
    sc = load_floats(ts);
    zp = tz ? load_ints(tz) : NULL;
    gi = tg ? load_ints(tg) : NULL;
    if (!sc || (tz && !zp) || (tg && (!gi || tg->numel != m->E * m->K))) FAIL("weight_scale/zero_point/g_idx unreadable");
    bool legacy = !strcmp(m->layout, "ct-legacy");
    /* Zero point packed along dim 0 (group/channel): [Zr, cols] words per expert. */
    uint64_t zr = 0;
    if (tz && tz->numel != ts->numel) {
        if (tz->dtype != PC_DT_I32 || tz->numel % (m->E * gr.cols)) FAIL("weight_zero_point shape not understood");
        zr = tz->numel / (m->E * gr.cols);
    }
    if (params_alloc(p, m->numel, gi && gr.cols > 1, false)) { rc = -1; goto out; }
    if (zr && !(p->zq_layout = malloc(m->numel * sizeof *p->zq_layout))) { rc = -1; goto out; }
    int half = 1 << (m->bits - 1);
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) {
                size_t i = (size_t)((e * m->N + n) * m->K + k);
                uint64_t r = n / gr.bh, c0 = gr.cols == 1 ? 0 : k / gr.bw;
                uint64_t c = gi ? (uint64_t)gi[e * m->K + k] : c0;
                if (c >= gr.cols) FAIL("weight_g_idx[%llu] out of range", (unsigned long long)k);
                for (int pass = 0; pass < 1 + (p->s_nog != NULL); pass++) {
                    uint64_t cc = pass ? c0 : c;
                    int64_t z = 0;
                    if (zp && zr) z = (int64_t)stream_get(zp + e * zr * gr.cols + cc, gr.cols, zr, r, m->bits, legacy) - half;
                    else if (zp) z = zp[e * per + r * gr.cols + cc];
                    float s = sc[e * per + r * gr.cols + cc];
                    if (pass) { p->s_nog[i] = s; p->zq_nog[i] = (int16_t)(z + half); }
                    else { p->s[i] = s; p->zq[i] = (int16_t)(z + half); }
                    if (!pass && p->zq_layout) /* what a reader of the other layout takes for this zero point */
                        p->zq_layout[i] = (int16_t)stream_get(zp + e * zr * gr.cols + cc, gr.cols, zr, r, m->bits, !legacy);
                }
            }
    rc = 0;
out:
    free(sc); free(zp); free(gi);
    return rc;
}

/* ---- the weight formula ---- */

static float weight_of(const dg_module *m, int v, float s, int zq)
{
    if (m->table) return m->table[v & 15] * s;
    if (m->fp4) {
        float e = k_e2m1[v & 7];
        return (v & 8 ? -e : e) * s;
    }
    if (m->fp8) return pc_f8e4m3_to_f32((uint8_t)v) * s;
    return (float)(v - zq) * s;
}

bool dg_f32_close(float a, float b, unsigned ulp)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    if (ua == ub) return true;
    if (!ulp) return false;
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    /* Map to a monotonic integer line so that -0 and +0 are neighbours. */
    int64_t ia = ua & 0x80000000u ? -(int64_t)(ua & 0x7fffffffu) : (int64_t)ua;
    int64_t ib = ub & 0x80000000u ? -(int64_t)(ub & 0x7fffffffu) : (int64_t)ub;
    int64_t d = ia > ib ? ia - ib : ib - ia;
    return d <= (int64_t)ulp;
}

/* MLX: w = rT(rT(s * q) + sign * b), computed by the oracle kernel one element at a time. */
static float mlx_weight(const dg_module *m, size_t i, int v, float sign)
{
    uint8_t q = (uint8_t)v;
    float s = m->s[i], b = sign * m->bias[i], w;
    pc_mlx_affine_ref(&q, 1, 1, 1, &s, &b, (pc_mlx_t)m->mlx_t, &w);
    return w;
}

/* Formats with per-group scales (MLX, bitsandbytes) hand their parameters over themselves
 * (pc_format.group_params): diagnosis does not re-derive them. */
static int params_affine(const pc_module *pm, dg_module *m, params *p)
{
    pc_group_params gp = {0};
    int rc = pm->fmt && pm->fmt->group_params ? pm->fmt->group_params(pm, &gp) : -1;
    float *sc = gp.scales, *bi = gp.biases;
    size_t group = gp.group;
    pc_mlx_t t = (pc_mlx_t)gp.scale_type;
    const float *table = gp.table;
    bool mlx = gp.row_groups;
    if (rc || !group) { snprintf(m->note, sizeof m->note, "%s parameters unreadable", m->layout); free(sc); free(bi); return 1; }
    if (params_alloc(p, m->numel, false, false)) { free(sc); free(bi); return -1; }
    for (size_t i = 0; i < m->numel; i++) {
        size_t g = mlx ? i / m->K * (m->K / group) + i % m->K / group : i / group;
        p->s[i] = sc[g];
        p->zq[i] = 0;
    }
    if (mlx) {
        m->bias = malloc(m->numel * sizeof *m->bias);
        if (!m->bias) { free(sc); free(bi); return -1; }
        for (size_t i = 0; i < m->numel; i++) m->bias[i] = bi[i / m->K * (m->K / group) + i % m->K / group];
        m->mlx_t = (int)t;
    }
    m->table = table;
    free(sc); free(bi);
    return 0;
}

int dg_module_load(const pc_input *in, const pc_module *pm, const uint8_t *codes, const float *weights, dg_module *m)
{
    memset(m, 0, sizeof *m);
    m->prefix = pm->prefix;
    m->layout = pm->layout ? pm->layout : "";
    m->bits = pm->bits;
    m->E = pm->ndim == 3 ? pm->shape[0] : 1;
    m->N = pm->shape[pm->ndim - 2];
    m->K = pm->shape[pm->ndim - 1];
    m->numel = (size_t)pm->numel;
    m->codes = codes;
    m->weights = weights;
    m->fp4 = layout_nvfp4(m->layout) || layout_mxfp4(m->layout);
    m->fp8 = !strcmp(m->layout, "fp8-deepseek") || !strcmp(m->layout, "ct-fp8");
    if (pm->ndim < 2 || pm->ndim > 3 || m->bits < 1 || m->bits > 8) { snprintf(m->note, sizeof m->note, "module shape or bits not understood"); return 0; }
    if (layout_ct_int(m->layout)) {
        const pc_tensor *tp = find_t(in, m->prefix, "weight_packed");
        if (tp && tp->ndim >= 2) m->packed_w = tp->shape[tp->ndim - 1];
    }
    if (pm->numel > DG_MAX_ELEMS || !weights) { snprintf(m->note, sizeof m->note, "module too large for weight-level diagnosis"); return 0; }
    params p = {0};
    int rc = layout_gptq(m->layout) ? params_gptq(in, m, &p)
           : layout_awq(m->layout) ? params_awq(in, m, &p)
           : layout_q4_0(m->layout) ? params_q4_0(in, m, &p)
           : layout_nvfp4(m->layout) ? params_nvfp4(in, m, &p)
           : layout_ct_int(m->layout) ? params_ct(in, m, &p)
           : layout_mlx(m->layout) || layout_bnb(m->layout) ? params_affine(pm, m, &p)
           : layout_fp8(m->layout) ? params_fp8(pm, m, &p)
           : layout_mxfp4(m->layout) ? params_mxfp4(in, m, &p)
           : (snprintf(m->note, sizeof m->note, "layout %s has no weight-level diagnosis", m->layout), 1);
    if (rc < 0) { params_free(&p); return -1; }
    if (rc > 0) { params_free(&p); return 0; }
    /* Trust the parameters only if they reproduce the reference weights exactly. */
    for (size_t i = 0; i < m->numel; i++) {
        m->s = p.s; /* mlx_weight reads m->s */
        float w = m->bias ? mlx_weight(m, i, codes[i], 1.0f) : weight_of(m, codes[i], p.s[i], p.zq[i]);
        m->s = NULL;
        if (!dg_f32_close(w, weights[i], 0)) {
            free(m->bias);
            m->bias = NULL;
            m->table = NULL;
            snprintf(m->note, sizeof m->note, "re-derived weights differ from the reference at element %zu", i);
            params_free(&p);
            return 0;
        }
    }
    m->s = p.s; m->zq = p.zq; m->s_nog = p.s_nog; m->zq_nog = p.zq_nog; m->s_alt = p.s_alt; m->s_recip = p.s_recip;
    m->zq_layout = p.zq_layout;
    m->s_grid_t = p.s_grid_t; m->s_shape = p.s_shape; m->s_linear = p.s_linear;
    return 0;
}

void dg_module_free(dg_module *m)
{
    free(m->s); free(m->zq); free(m->s_nog); free(m->zq_nog); free(m->s_alt); free(m->s_recip); free(m->zq_layout); free(m->bias);
    free(m->s_grid_t); free(m->s_shape); free(m->s_linear);
    m->s = m->s_nog = m->s_alt = m->s_recip = m->s_grid_t = m->s_shape = m->s_linear = NULL;
    m->zq = m->zq_nog = m->zq_layout = NULL;
    m->bias = NULL;
}

void dg_out_free(dg_out *o)
{
    free(o->codes);
    free(o->weights);
    o->codes = NULL;
    o->weights = NULL;
}

/* ---- simulations ---- */

/* Code-level bugs are a map: output element i takes the code `src[i]` reads (an index into the
 * reference, or -1 for a field that reads as 0) or a different value `val[i]` (sign extension).
 * Weights follow with the parameters of the output position (the reader applies scales where it
 * believes the value is). */
typedef struct remap { int64_t *src; int16_t *val; } remap;

static size_t idx(const dg_module *m, uint64_t e, uint64_t n, uint64_t k) { return (size_t)((e * m->N + n) * m->K + k); }

static bool remap_pack_axis(const dg_module *m, int64_t *src)
{
    unsigned b = m->bits;
    if (m->E != 1 || 32 % b) return false;
    uint64_t pf = 32 / b, N = m->N, K = m->K;
    if (layout_gptq(m->layout)) {
        /* qweight [K/pf, N] read as packed along N: flat word w = r*N + n holds T[r*pf + f][n];
         * the reader puts field f of word w at (k' = w / (N/pf), n' = (w % (N/pf))*pf + f). */
        if (K % pf || N % pf) return false;
        for (uint64_t w = 0; w < K / pf * N; w++)
            for (uint64_t f = 0; f < pf; f++) {
                uint64_t r = w / N, n = w % N, k2 = w / (N / pf), n2 = (w % (N / pf)) * pf + f;
                src[idx(m, 0, n2, k2)] = (int64_t)idx(m, 0, n, r * pf + f);
            }
        return true;
    }
    if (layout_awq(m->layout)) {
        /* qweight [K, N/8] read as packed along K (plain order): flat word w = k*(N/8) + c holds
         * column 8c + ORDER[f] in slot f; the reader puts it at (k' = 8*(w / N) + f, n' = w % N). */
        if (b != 4 || K % 8 || N % 8) return false;
        for (uint64_t w = 0; w < K * (N / 8); w++)
            for (uint64_t f = 0; f < 8; f++) {
                uint64_t k = w / (N / 8), c = w % (N / 8), k2 = 8 * (w / N) + f, n2 = w % N;
                src[idx(m, 0, n2, k2)] = (int64_t)idx(m, 0, 8 * c + k_awq_order[f], k);
            }
        return true;
    }
    return false;
}

static bool remap_awq_order(const dg_module *m, int64_t *src)
{
    if (!layout_awq(m->layout) || m->N % 8) return false;
    for (uint64_t n = 0; n < m->N; n++)
        for (uint64_t k = 0; k < m->K; k++) src[idx(m, 0, n, k)] = (int64_t)idx(m, 0, n - n % 8 + k_awq_order[n % 8], k);
    return true;
}

static bool remap_nibble_swap(const dg_module *m, int64_t *src)
{
    const char *l = m->layout;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) {
                uint64_t n2 = n, k2 = k;
                if (layout_bnb(l)) { /* byte i: flat elements 2i (high) and 2i + 1 (low), across rows */
                    size_t i = idx(m, e, n, k), j = i ^ 1;
                    src[i] = j < m->numel ? (int64_t)j : -1;
                    continue;
                }
                if (layout_q4_0(l)) k2 = k ^ 16;       /* byte j: element j low, j + 16 high */
                else if (layout_nvfp4(l)) k2 = k ^ 1;  /* byte i: element 2i low, 2i + 1 high */
                else if (m->bits != 4) return false;
                else if (layout_awq(l)) {              /* slots 2i and 2i+1 of a word trade columns */
                    unsigned slot = 0;
                    while (k_awq_order[slot] != n % 8) slot++;
                    n2 = n - n % 8 + k_awq_order[slot ^ 1];
                } else if (layout_gptq(l) || layout_ct_int(l)) k2 = k ^ 1; /* fields along K */
                else return false;
                src[idx(m, e, n, k)] = n2 < m->N && k2 < m->K ? (int64_t)idx(m, e, n2, k2) : -1;
            }
    return true;
}

/* The field in the top slot of its int32 word (bits 32-b..31), for layouts with b | 32. */
static bool top_slot(const dg_module *m, uint64_t n, uint64_t k)
{
    uint64_t pf = 32 / m->bits;
    if (layout_awq(m->layout)) return n % 8 == 7; /* slot 7 holds column 8c + ORDER[7] = 8c + 7 */
    return k % pf == pf - 1;
}

static bool remap_sign_ext(const dg_module *m, int64_t *src, int16_t *val)
{
    if (32 % m->bits || !(layout_gptq(m->layout) || layout_awq(m->layout) || layout_ct_int(m->layout))) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) {
                size_t i = idx(m, e, n, k);
                src[i] = (int64_t)i;
                if (top_slot(m, n, k) && m->codes[i] >> (m->bits - 1)) val[i] = (int16_t)(m->codes[i] - (1 << m->bits));
            }
    return true;
}

/* Dense <-> legacy: re-pack each row in its true layout, read it back in the other one. */
static bool remap_ct_layout(const dg_module *m, int16_t *val, int64_t *src)
{
    unsigned b = m->bits;
    if (!layout_ct_int(m->layout) || 32 % b == 0) return false;
    bool legacy = !strcmp(m->layout, "ct-legacy");
    uint64_t W = m->packed_w ? m->packed_w : legacy ? pc_ceil_div(m->K, 32 / b) : pc_ceil_div(m->K * b, 32);
    uint32_t *row = malloc((size_t)W * sizeof *row);
    int64_t *wide = malloc((size_t)W * sizeof *wide);
    if (!row || !wide) { free(row); free(wide); return false; }
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++) {
            memset(row, 0, (size_t)W * sizeof *row);
            for (uint64_t k = 0; k < m->K; k++) stream_put(row, W, k, b, legacy, m->codes[idx(m, e, n, k)]);
            for (uint64_t w = 0; w < W; w++) wide[w] = row[w];
            for (uint64_t k = 0; k < m->K; k++) {
                size_t i = idx(m, e, n, k);
                src[i] = (int64_t)i;
                val[i] = (int16_t)stream_get(wide, 1, W, k, b, !legacy);
            }
        }
    free(row);
    free(wide);
    return true;
}

static int apply_remap(const dg_module *m, const remap *r, dg_out *out)
{
    out->K = m->K;
    out->codes = malloc(m->numel ? m->numel : 1);
    out->weights = m->s ? malloc((m->numel ? m->numel : 1) * sizeof *out->weights) : NULL;
    if (!out->codes || (m->s && !out->weights)) return -1;
    for (size_t i = 0; i < m->numel; i++) {
        int v = r->val && r->val[i] != INT16_MIN ? r->val[i] : r->src[i] < 0 ? 0 : m->codes[r->src[i]];
        out->codes[i] = (uint8_t)v;
        if (out->weights) out->weights[i] = weight_of(m, v, m->s[i], m->zq[i]);
    }
    return 0;
}

static int sim_remap(const dg_module *m, pc_bug b, dg_out *out)
{
    remap r = {malloc((m->numel ? m->numel : 1) * sizeof *r.src), malloc((m->numel ? m->numel : 1) * sizeof *r.val)};
    int rc = -1;
    if (!r.src || !r.val) goto done;
    for (size_t i = 0; i < m->numel; i++) r.val[i] = INT16_MIN;
    bool ok = b == PC_BUG_PACK_AXIS ? remap_pack_axis(m, r.src)
            : b == PC_BUG_AWQ_ORDER ? remap_awq_order(m, r.src)
            : b == PC_BUG_NIBBLE_SWAP ? remap_nibble_swap(m, r.src)
            : b == PC_BUG_SIGN_EXT ? remap_sign_ext(m, r.src, r.val)
            : remap_ct_layout(m, r.val, r.src);
    rc = ok ? apply_remap(m, &r, out) : 1;
    /* AWQ readers that skip the interleave skip it on qzeros too (GPTQModel's AWQ path); a reader
     * of the wrong compressed-tensors layout misreads a packed zero point as well. */
    if (!rc && b == PC_BUG_AWQ_ORDER && out->weights)
        for (size_t i = 0; i < m->numel; i++) out->weights[i] = weight_of(m, out->codes[i], m->s[i], m->zq[r.src[i]]);
    if (!rc && b == PC_BUG_CT_LAYOUT && out->weights && m->zq_layout)
        for (size_t i = 0; i < m->numel; i++) out->weights[i] = weight_of(m, out->codes[i], m->s[i], m->zq_layout[i]);
done:
    free(r.src);
    free(r.val);
    return rc;
}

static int sim_params(const dg_module *m, pc_bug b, int variant, dg_out *out)
{
    const float *s = m->s;
    const int16_t *zq = m->zq;
    int dz = 0, wrap = 0;
    bool divide = false;
    if (!m->s) return 1;
    if (b == PC_BUG_MLX_BIAS_SUB) {
        if (!m->bias) return 1;
        out->K = m->K;
        out->codes = malloc(m->numel ? m->numel : 1);
        out->weights = malloc((m->numel ? m->numel : 1) * sizeof *out->weights);
        if (!out->codes || !out->weights) return -1;
        memcpy(out->codes, m->codes, m->numel);
        for (size_t i = 0; i < m->numel; i++) out->weights[i] = mlx_weight(m, i, m->codes[i], -1.0f);
        return 0;
    }
    if (m->bias || m->table) return 1; /* the integer/zero-point bugs below do not apply */
    if (b == PC_BUG_ZERO_OFF_BY_ONE) {
        if (m->fp4 || layout_q4_0(m->layout) || layout_fp8(m->layout)) return 1;
        dz = variant ? 1 : -1;
    } else if (b == PC_BUG_G_IDX_IGNORED) {
        if (!m->s_nog) return 1;
        s = m->s_nog;
        zq = m->zq_nog;
    } else if (b == PC_BUG_GLOBAL_SCALE_MUL) {
        if (!m->s_alt) return 1;
        s = m->s_alt;
    } else if (b == PC_BUG_GLOBAL_SCALE_RECIP) {
        if (!m->s_recip) return 1;
        s = m->s_recip;
    } else if (b == PC_BUG_SCALE_GRID_T || b == PC_BUG_BLOCK_FROM_SHAPE || b == PC_BUG_E8M0_LINEAR) {
        s = b == PC_BUG_SCALE_GRID_T ? m->s_grid_t : b == PC_BUG_BLOCK_FROM_SHAPE ? m->s_shape : m->s_linear;
        if (!s) return 1;
    } else if (b == PC_BUG_SCALE_INV_DIVIDED) {
        if (strcmp(m->layout, "fp8-deepseek")) return 1;
        divide = true;
    } else if (b == PC_BUG_ZERO_WRAP) {
        if (strcmp(m->layout, "gptq-v1")) return 1;
        wrap = 1 << m->bits;
    }
    out->K = m->K;
    out->codes = malloc(m->numel ? m->numel : 1);
    out->weights = malloc((m->numel ? m->numel : 1) * sizeof *out->weights);
    if (!out->codes || !out->weights) return -1;
    memcpy(out->codes, m->codes, m->numel);
    for (size_t i = 0; i < m->numel; i++)
        out->weights[i] = divide ? pc_f8e4m3_to_f32(m->codes[i]) / s[i] : weight_of(m, m->codes[i], s[i], wrap && zq[i] == wrap ? 0 : zq[i] + dz);
    return 0;
}

/* Padded columns kept: the reader takes K from the packed width (dense floor(32W/b), legacy
 * floor(32/b)*W); the pad fields are zero, and their weights use the last column's parameters. */
static int sim_pad(const dg_module *m, dg_out *out)
{
    if (!layout_ct_int(m->layout) || !m->packed_w) return 1;
    bool legacy = !strcmp(m->layout, "ct-legacy");
    uint64_t kp = legacy ? m->packed_w * (32 / m->bits) : m->packed_w * 32 / m->bits;
    if (kp <= m->K) return 1;
    uint64_t rows = m->E * m->N, n_out;
    if (!pc_mul_u64(rows, kp, &n_out) || n_out > DG_MAX_ELEMS) return 1;
    out->K = kp;
    out->codes = calloc((size_t)n_out, 1);
    out->weights = m->s ? malloc((size_t)n_out * sizeof *out->weights) : NULL;
    if (!out->codes || (m->s && !out->weights)) return -1;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < kp; k++) {
            size_t src = (size_t)(r * m->K + (k < m->K ? k : m->K - 1)), dst = (size_t)(r * kp + k);
            int v = k < m->K ? m->codes[src] : 0;
            out->codes[dst] = (uint8_t)v;
            if (out->weights) out->weights[dst] = weight_of(m, v, m->s[src], m->zq[src]);
        }
    return 0;
}

static bool same_as_reference(const dg_module *m, const dg_out *o)
{
    if (o->K != m->K) return false;
    if (memcmp(o->codes, m->codes, m->numel)) return false;
    if (!o->weights) return true;
    for (size_t i = 0; i < m->numel; i++)
        if (!dg_f32_close(o->weights[i], m->weights[i], 0)) return false;
    return true;
}

int dg_simulate(const dg_module *m, pc_bug b, int variant, dg_out *out)
{
    memset(out, 0, sizeof *out);
    int rc;
    switch (b) {
    case PC_BUG_PACK_AXIS: case PC_BUG_AWQ_ORDER: case PC_BUG_NIBBLE_SWAP: case PC_BUG_SIGN_EXT: case PC_BUG_CT_LAYOUT:
        rc = sim_remap(m, b, out);
        break;
    case PC_BUG_PAD_NOT_SLICED:
        rc = sim_pad(m, out);
        break;
    default:
        rc = sim_params(m, b, variant, out);
    }
    if (rc == 0 && same_as_reference(m, out)) rc = 1;
    if (rc) dg_out_free(out);
    return rc;
}

/* ---- diagnosis ---- */

/* Does the reader's output equal the simulation? Outputs of another width are compared on the
 * columns both have: a padded width keeps the logical columns first, and a reader of the wrong CT
 * layout whose packed width holds fewer columns than weight_shape says truncates (0.17's slice). */
static bool matches(const dg_module *m, pc_bug b, const dg_out *o, const uint8_t *gc, const float *gw, uint64_t got_k, unsigned ulp, bool *weights_checked)
{
    bool narrower = b == PC_BUG_CT_LAYOUT && got_k < o->K && got_k > 0;
    if (o->K != got_k && !narrower) return false;
    uint64_t rows = m->E * m->N, kc = got_k < m->K ? got_k : m->K;
    *weights_checked = false;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < kc; k++) {
            size_t i = (size_t)(r * got_k + k), j = (size_t)(r * o->K + k);
            if (gc && gc[i] != o->codes[j]) return false;
            if (gw && o->weights && !dg_f32_close(gw[i], o->weights[j], ulp)) return false;
        }
    if (gw && !o->weights && !gc) return false; /* nothing could be compared */
    *weights_checked = gw && o->weights;
    return true;
}

/* Every bug (and direction) whose simulation equals the reader's output: the first is named, the
 * others listed, since on some shapes two bugs write the same thing. */
cJSON *dg_diagnose(const dg_module *m, const uint8_t *got_codes, const float *got_weights, uint64_t got_k, unsigned ulp)
{
    cJSON *d = NULL, *also = NULL;
    for (int b = 0; b < PC_BUG_COUNT; b++)
        for (int v = 0; v < pc_bug_variants((pc_bug)b); v++) {
            dg_out o;
            int rc = dg_simulate(m, (pc_bug)b, v, &o);
            if (rc < 0) return d;
            if (rc) continue;
            bool wchk;
            bool hit = matches(m, (pc_bug)b, &o, got_codes, got_weights, got_k, ulp, &wchk);
            dg_out_free(&o);
            if (!hit) continue;
            if (d) {
                bool dup = false;
                const cJSON *x;
                cJSON_ArrayForEach(x, also) dup |= !strcmp(x->valuestring, pc_bug_id((pc_bug)b));
                if (!dup && strcmp(pc_bug_id((pc_bug)b), cJSON_GetObjectItem(d, "bug")->valuestring))
                    cJSON_AddItemToArray(also, cJSON_CreateString(pc_bug_id((pc_bug)b)));
                continue;
            }
            d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "bug", pc_bug_id((pc_bug)b));
            cJSON_AddStringToObject(d, "title", pc_bug_title((pc_bug)b));
            char detail[200];
            snprintf(detail, sizeof detail, "%s%s%s", b == PC_BUG_ZERO_OFF_BY_ONE ? (v ? "zero point +1; " : "zero point -1; ") : "",
                     got_codes ? "codes match the simulation" : "weights match the simulation",
                     got_codes && got_weights ? (wchk ? ", weights too" : "; weights not re-derivable") : "");
            cJSON_AddStringToObject(d, "detail", detail);
            also = cJSON_AddArrayToObject(d, "also");
        }
    return d;
}
