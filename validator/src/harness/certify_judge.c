/* Judging what a reader wrote (certify_internal.h): its exit against the case's verdict, then its
 * output read with our own container reader, shape relations (padded, transposed, leading ones),
 * codes and weights against the reference view, the first difference and the bug it matches. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify_internal.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "corpus.h"
#include "diagnose.h"
#include "expect_fail.h"
#include "bounded.h"
#include "case_copy.h"
#include "logical.h"
#include "runner.h"

#include <pwd.h>
#include <strings.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define WIDE_SLACK 64                /* a padded output may have up to 2K + 64 columns (the packed width) */
#define PICTURE_MAX 64               /* side of the expected-vs-got window */

static const char *short_reason(const pc_ctx *cx)
{
    if (cx->io_error) return cx->io_message;
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_FAIL) return cx->findings[i].message;
    return "unreadable";
}

typedef struct ref_view {
    pc_ctx cx;
    pc_input *in;
    bool opened;
} ref_view;

static void ref_open(ref_view *rv, const pc_case *k)
{
    if (rv->opened) return;
    rv->opened = true;
    pc_profile prof = !strcmp(pc_json_str(k->expect, "profile"), "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    if (pc_ctx_init(&rv->cx, prof)) return;
    rv->in = pc_input_open(k->input, NULL, &rv->cx);
    if (rv->in) pc_validate(rv->in, &rv->cx);
}

static void ref_close(ref_view *rv)
{
    if (!rv->opened) return;
    pc_input_free(rv->in);
    pc_ctx_free(&rv->cx);
}

typedef struct mod_check {
    cJSON *problems;      /* strings */
    cJSON *first_diff;    /* object or NULL */
    cJSON *diagnosis;     /* object or NULL */
    cJSON *picture;       /* object or NULL */
    unsigned precisions;  /* bit per pc_round_t the reader answered weights in */
    uint64_t max_ulp;     /* over differing weights, against the reference at the reader's precision */
    bool weights_differ;
} mod_check;

static void add_problem(mod_check *mc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_problem(mod_check *mc, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(mc->problems, cJSON_CreateString(buf));
}

static char *b64(const uint8_t *p, size_t n)
{
    pc_sb b = {0};
    pc_sb_base64(&b, p, n);
    return pc_sb_take(&b);
}

/* Top-left window of expected vs got (expert 0), codes when the reader wrote codes, else weights
 * scaled to 0..255 over the expected window's range. */
static cJSON *picture(const dg_module *m, const uint8_t *gc, const float *gw, uint64_t got_k)
{
    uint64_t rows = m->N < PICTURE_MAX ? m->N : PICTURE_MAX, cols = m->K < PICTURE_MAX ? m->K : PICTURE_MAX;
    if (got_k < cols) cols = got_k; /* a narrower output: the columns both have */
    size_t n = (size_t)(rows * cols);
    uint8_t *ex = malloc(n ? n : 1), *got = malloc(n ? n : 1);
    if (!ex || !got) { free(ex); free(got); return NULL; }
    float lo = INFINITY, hi = -INFINITY;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            float v = m->weights[r * m->K + c];
            if (isfinite(v)) { lo = v < lo ? v : lo; hi = v > hi ? v : hi; }
        }
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t c = 0; c < cols; c++) {
            size_t i = (size_t)(r * cols + c);
            if (gc) { ex[i] = m->codes[r * m->K + c]; got[i] = gc[r * got_k + c]; continue; }
            float e = m->weights[r * m->K + c], g = gw[r * got_k + c];
            float span = hi > lo ? hi - lo : 1;
            float fe = (e - lo) / span * 255, fg = (g - lo) / span * 255;
            ex[i] = isfinite(fe) ? (uint8_t)(fe < 0 ? 0 : fe > 255 ? 255 : fe) : 0;
            got[i] = isfinite(fg) ? (uint8_t)(fg < 0 ? 0 : fg > 255 ? 255 : fg) : 255;
        }
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "module", m->prefix);
    cJSON_AddStringToObject(p, "kind", gc ? "codes" : "weights");
    cJSON_AddNumberToObject(p, "rows", (double)rows);
    cJSON_AddNumberToObject(p, "cols", (double)cols);
    cJSON_AddNumberToObject(p, "levels", gc ? (double)(1u << (m->bits > 8 ? 8 : m->bits)) : 256);
    char *e64 = b64(ex, n), *g64 = b64(got, n);
    cJSON_AddStringToObject(p, "expected", e64 ? e64 : "");
    cJSON_AddStringToObject(p, "got", g64 ? g64 : "");
    free(e64); free(g64); free(ex); free(got);
    return p;
}

static cJSON *coord_json(const dg_module *m, size_t i, uint64_t kcols)
{
    cJSON *a = cJSON_CreateArray();
    uint64_t k = i % kcols, row = i / kcols;
    if (m->E > 1) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)(row / m->N)));
    cJSON_AddItemToArray(a, cJSON_CreateNumber((double)(row % m->N)));
    cJSON_AddItemToArray(a, cJSON_CreateNumber((double)k));
    return a;
}

/* Compare with the reference values: the first differing element. */
static void first_difference(mod_check *mc, const dg_module *m, const uint8_t *gc, const float *gw, const pc_weight_compare *cmp)
{
    for (size_t i = 0; i < m->numel; i++) {
        bool dc = gc && gc[i] != m->codes[i];
        bool dw = gw && !pc_weight_close(cmp, gw[i], m->weights[i]);
        if (!dc && !dw) continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "module", m->prefix);
        cJSON_AddStringToObject(d, "tensor", dc ? "codes" : "weight");
        cJSON_AddNumberToObject(d, "index", (double)i);
        cJSON_AddItemToObject(d, "at", coord_json(m, i, m->K));
        if (dc) { cJSON_AddNumberToObject(d, "expected", m->codes[i]); cJSON_AddNumberToObject(d, "got", gc[i]); }
        else {
            char e[40], g[40];
            snprintf(e, sizeof e, "%.9g", (double)pc_reference_at(cmp, m->weights[i]));
            snprintf(g, sizeof g, "%.9g", (double)gw[i]);
            cJSON_AddStringToObject(d, "expected", e);
            cJSON_AddStringToObject(d, "got", g);
        }
        mc->first_diff = d;
        /* Also in words: the terminal line and the Markdown report carry the detail text. */
        uint64_t row = i / m->K;
        char at[80];
        if (m->E > 1) snprintf(at, sizeof at, "[%llu, %llu, %llu]", (unsigned long long)(row / m->N), (unsigned long long)(row % m->N), (unsigned long long)(i % m->K));
        else snprintf(at, sizeof at, "[%llu, %llu]", (unsigned long long)row, (unsigned long long)(i % m->K));
        if (dc) add_problem(mc, "first difference: %s.codes%s: expected %u, got %u", m->prefix, at, m->codes[i], gc[i]);
        else add_problem(mc, "first difference: %s.weight%s: expected %.9g, got %.9g", m->prefix, at, (double)pc_reference_at(cmp, m->weights[i]), (double)gw[i]);
        return;
    }
}

typedef struct got_tensors {
    uint8_t *codes;
    float *weights;          /* widened to f32 from the reader's dtype */
    pc_round_t precision;    /* the dtype the reader wrote M.weight in */
    uint64_t k;
    bool codes_ok, weights_ok, transposed;
} got_tensors;

static bool hash_is(const void *p, size_t n, const char *want)
{
    char hex[65];
    pc_sha256_hex(p, n, hex);
    return *want && !strcmp(hex, want);
}

/* The pinned shape as numbers; 0 dims when the pin is unusable. */
static int pin_dims(const cJSON *shape, uint64_t d[PC_MAX_DIMS])
{
    int n = cJSON_IsArray(shape) ? cJSON_GetArraySize(shape) : 0;
    if (n < 1 || n > PC_MAX_DIMS) return 0;
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(shape, i);
        if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 9e15) return 0;
        d[i] = (uint64_t)x->valuedouble;
    }
    return n;
}

static void shape_str(char *buf, size_t len, const uint64_t *d, int n)
{
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < n && o < len; i++) o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? ", " : "", (unsigned long long)d[i]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

typedef enum { SHAPE_SAME, SHAPE_WIDE, SHAPE_TRANSPOSED, SHAPE_OTHER } shape_kind;

/* How the output's declared shape relates to the case's, from the header alone: nothing is read
 * (or allocated) for a tensor whose shape the case does not explain. Padded columns may reach the
 * packed width, never more than 2K + WIDE_SLACK. */
/* Leading 1s say nothing about element order, and a ggml-based reader cannot see them (ggml pads
 * ne with 1s: a declared [1, 4, 256] is its [4, 256]), so shapes are compared without them
 * (CONTRACT 3, GGUF logical shape; the same for every format). At least one dim is kept. */
static int drop_leading_ones(const uint64_t *d, int nd, const uint64_t **out)
{
    int i = 0;
    while (i < nd - 1 && d[i] == 1) i++;
    *out = d + i;
    return nd - i;
}

static shape_kind shape_relation(const pc_tensor *t, const uint64_t *pin, int npin)
{
    const uint64_t *s, *d;
    int ns = drop_leading_ones(t->shape, (int)t->ndim, &s), nd = drop_leading_ones(pin, npin, &d);
    if (ns != nd || nd < 1) return SHAPE_OTHER;
    bool same = true, lead = true;
    for (int i = 0; i < nd; i++) same = same && s[i] == d[i];
    for (int i = 0; i < nd - 1; i++) lead = lead && s[i] == d[i];
    if (same) return SHAPE_SAME;
    uint64_t k = d[nd - 1], w = s[nd - 1];
    if (lead && w > 0 && w <= 2 * k + WIDE_SLACK) return SHAPE_WIDE;
    if (nd >= 2 && s[nd - 1] == d[nd - 2] && s[nd - 2] == d[nd - 1]) {
        bool outer = true;
        for (int i = 0; i < nd - 2; i++) outer = outer && s[i] == d[i];
        if (outer) return SHAPE_TRANSPOSED;
    }
    return SHAPE_OTHER;
}

static bool weight_dtype_ok(pc_dtype d) { return d == PC_DT_F32 || d == PC_DT_BF16 || d == PC_DT_F16; }

/* M.weight as f32 (data is consumed): bf16 and f16 widen exactly, so the comparison happens at the
 * reader's precision against the reference rounded once to it (compare.h). */
static float *widen_weights(const pc_tensor *t, void *data, pc_round_t *precision)
{
    *precision = t->dtype == PC_DT_BF16 ? PC_ROUND_BF16 : t->dtype == PC_DT_F16 ? PC_ROUND_F16 : PC_ROUND_F32;
    if (*precision == PC_ROUND_F32) return data;
    size_t n = (size_t)t->nbytes / 2;
    float *w = malloc((n ? n : 1) * sizeof *w);
    const uint8_t *h = data;
    for (size_t i = 0; w && i < n; i++) {
        uint16_t v = (uint16_t)(h[2 * i] | h[2 * i + 1] << 8);
        w[i] = *precision == PC_ROUND_BF16 ? pc_bf16_to_f32(v) : pc_f16_to_f32(v);
    }
    free(data);
    return w;
}

/* Read M.codes / M.weight of the output, checking dtype and declared shape before any byte. */
static int read_got(mod_check *mc, const pc_input *out, const char *name, const cJSON *pin, got_tensors *g, bool *shape_pad)
{
    uint64_t d[PC_MAX_DIMS];
    int nd = pin_dims(cJSON_GetObjectItem(pin, "shape"), d);
    char *cn = pc_asprintf("%s.codes", name), *wn = pc_asprintf("%s.weight", name);
    const pc_tensor *tc = cn ? pc_input_find(out, cn) : NULL, *tw = wn ? pc_input_find(out, wn) : NULL;
    free(cn);
    free(wn);
    memset(g, 0, sizeof *g);
    if (!tc && !tw) { add_problem(mc, "module %s: missing (neither %s.codes nor %s.weight in the output)", name, name, name); return -1; }
    const pc_tensor *ts[2] = {tc, tw};
    for (int w = 0; w < 2; w++) {
        const pc_tensor *t = ts[w];
        if (!t) continue;
        if (w ? !weight_dtype_ok(t->dtype) : t->dtype != PC_DT_U8) {
            add_problem(mc, "%s: dtype %s, expected %s", t->name, pc_dtype_name(t->dtype), w ? "F32, BF16 or F16" : "U8");
            return -1;
        }
        shape_kind sk = shape_relation(t, d, nd);
        char gs[160], es[160];
        shape_str(gs, sizeof gs, t->shape, t->ndim);
        shape_str(es, sizeof es, d, nd);
        if (sk == SHAPE_OTHER) { add_problem(mc, "%s: shape %s, the case's is %s (not read)", t->name, gs, es); return -1; }
        if (sk == SHAPE_TRANSPOSED) {
            add_problem(mc, "%s: shape %s is the case's %s transposed: the view is [out_features, in_features] (CONTRACT 3)", t->name, gs, es);
            g->transposed = true;
        }
        if (sk == SHAPE_WIDE) *shape_pad = true;
        /* The shape is one the case explains, so numel is bounded by what the case needs. */
        void *data = pc_tensor_load(t, t->nbytes);
        if (!data) { add_problem(mc, "%s: unreadable", t->name); return -1; }
        g->k = t->ndim ? t->shape[t->ndim - 1] : 1;
        if (!w) g->codes = data;
        if (sk == SHAPE_SAME && !w) g->codes_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "codes_sha256"));
        /* The pin is of f32 weights: an answer in another dtype is compared element by element. */
        if (sk == SHAPE_SAME && w && t->dtype == PC_DT_F32) g->weights_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "weight_f32_sha256"));
        if (w && !(g->weights = widen_weights(t, data, &g->precision))) { add_problem(mc, "%s: out of memory", t->name); return -1; }
        if (w) mc->precisions |= 1u << g->precision;
    }
    if (tc && tw && (tc->ndim != tw->ndim || memcmp(tc->shape, tw->shape, sizeof(uint64_t) * (size_t)tc->ndim))) {
        add_problem(mc, "module %s: codes and weight shapes differ", name);
        return -1;
    }
    return 0;
}

/* An output written [E,] K, N (GPTQ/AWQ's storage order, or a reader that forgot to transpose)
 * rearranged to the case's [E,] N, K, so it can be compared. */
static int transpose_back(got_tensors *g, const cJSON *pin)
{
    uint64_t d[PC_MAX_DIMS];
    int nd = pin_dims(cJSON_GetObjectItem(pin, "shape"), d);
    uint64_t E = 1, N = d[nd - 2], K = d[nd - 1];
    for (int i = 0; i < nd - 2; i++) E *= d[i];
    size_t n = (size_t)(E * N * K);
    uint8_t *c = g->codes ? malloc(n ? n : 1) : NULL;
    float *w = g->weights ? malloc((n ? n : 1) * sizeof *w) : NULL;
    if ((g->codes && !c) || (g->weights && !w)) { free(c); free(w); return -1; }
    for (uint64_t e = 0; e < E; e++)
        for (uint64_t r = 0; r < N; r++)
            for (uint64_t k = 0; k < K; k++) {
                size_t to = (size_t)((e * N + r) * K + k), from = (size_t)((e * K + k) * N + r);
                if (c) c[to] = g->codes[from];
                if (w) w[to] = g->weights[from];
            }
    free(g->codes);
    free(g->weights);
    g->codes = c;
    g->weights = w;
    g->k = K;
    g->codes_ok = c && hash_is(c, n, pc_json_str(pin, "codes_sha256"));
    g->weights_ok = w && g->precision == PC_ROUND_F32 && hash_is(w, n * 4, pc_json_str(pin, "weight_f32_sha256"));
    return 0;
}

static cJSON *transposed_diagnosis(bool values_right)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "bug", "transposed");
    cJSON_AddStringToObject(d, "title", "output not transposed to [out_features, in_features]");
    cJSON_AddStringToObject(d, "detail", values_right ? "transposed back, the output is the case's logical view: the reader kept the [in, out] storage order"
                                                      : "transposed back, the values still differ (see the first difference)");
    return d;
}

/* A square module written in [in, out] order has the right shape: are its values the transpose? */
static bool square_transposed(const dg_module *m, const uint8_t *gc, const float *gw, const pc_weight_compare *cmp)
{
    if (m->N != m->K || m->N < 2) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t r = 0; r < m->N; r++)
            for (uint64_t k = 0; k < m->K; k++) {
                size_t a = (size_t)((e * m->N + r) * m->K + k), b = (size_t)((e * m->N + k) * m->K + r);
                if (gc && gc[b] != m->codes[a]) return false;
                if (gw && !pc_weight_close(cmp, gw[b], m->weights[a])) return false;
            }
    return true;
}

/* Our reference view of one module, held to the corpus pins. */
static int reference(ref_view *rv, const pc_case *k, const char *name, const cJSON *pin, uint8_t **rc, float **rw, const pc_module **pm, char *why, size_t whylen)
{
    ref_open(rv, k);
    *rc = NULL;
    *rw = NULL;
    if (!rv->in || rv->cx.io_error) { snprintf(why, whylen, "the case input could not be opened by packcheck"); return -1; }
    long mi = pc_module_find(rv->in, name);
    if (mi < 0) { snprintf(why, whylen, "packcheck does not decode module %s on this branch", name); return -1; }
    *pm = &rv->in->modules[mi];
    if (pc_logical_decode(rv->in, *pm, PC_IMPL_REF, rc, rw, &rv->cx)) { snprintf(why, whylen, "packcheck's reference decode failed"); return -1; }
    size_t n = (size_t)(*pm)->numel;
    if (!hash_is(*rc, n, pc_json_str(pin, "codes_sha256")) || !hash_is(*rw, n * 4, pc_json_str(pin, "weight_f32_sha256"))) {
        snprintf(why, whylen, "packcheck's reference view disagrees with the corpus pins");
        free(*rc); free(*rw);
        *rc = NULL; *rw = NULL;
        return -1;
    }
    return 0;
}

/* Element by element at the reader's precision; the largest ULP distance of a differing element
 * (finite pairs) is kept for the report: a rounding-sized difference reads differently from a bug. */
static bool weights_differ(mod_check *mc, const pc_weight_compare *cmp, const float *got, const float *ref, size_t n)
{
    bool differ = false;
    for (size_t i = 0; i < n; i++) {
        if (pc_weight_close(cmp, got[i], ref[i])) continue;
        differ = true;
        float want = pc_reference_at(cmp, ref[i]);
        uint64_t u = isnan(got[i]) || isnan(want) ? 0 : pc_ulp_distance(got[i], want);
        if (u > mc->max_ulp) mc->max_ulp = u;
    }
    mc->weights_differ |= differ;
    return differ;
}

static void check_module(mod_check *mc, ref_view *rv, const pc_case *k, const pc_input *out, const cJSON *pin, const pc_weight_compare *basis, bool want_picture)
{
    const char *name = pin->string;
    got_tensors g;
    bool pad = false;
    if (read_got(mc, out, name, pin, &g, &pad)) { free(g.codes); free(g.weights); return; }
    if (g.transposed) {
        if (transpose_back(&g, pin)) { add_problem(mc, "module %s: out of memory", name); free(g.codes); free(g.weights); return; }
        mc->diagnosis = mc->diagnosis ? mc->diagnosis : transposed_diagnosis((!g.codes || g.codes_ok) && (!g.weights || g.weights_ok));
    }
    bool codes_bad = g.codes && !g.codes_ok, weights_bad = g.weights && !g.weights_ok;
    if (!pad && !codes_bad && !weights_bad) { free(g.codes); free(g.weights); return; } /* the pins hold: pass */
    /* Something differs (or the answer is in another dtype, or a tolerance applies): our reference
     * view is needed, compared at the reader's precision. */
    pc_weight_compare cmp = *basis;
    cmp.precision = g.precision;
    uint8_t *rc = NULL;
    float *rw = NULL;
    const pc_module *pm = NULL;
    char why[200] = "";
    bool have_ref = reference(rv, k, name, pin, &rc, &rw, &pm, why, sizeof why) == 0;
    if (weights_bad && !pad && have_ref) weights_bad = weights_differ(mc, &cmp, g.weights, rw, (size_t)pm->numel);
    dg_module dm;
    bool have_dm = false;
    if (!pad && !codes_bad && !weights_bad) goto done;
    if (pad) add_problem(mc, "module %s: %llu columns, the pinned shape has %.0f", name, (unsigned long long)g.k,
                         cJSON_GetArrayItem(cJSON_GetObjectItem(pin, "shape"), cJSON_GetArraySize(cJSON_GetObjectItem(pin, "shape")) - 1)->valuedouble);
    else add_problem(mc, "module %s: %s%s%s differ from the corpus", name, codes_bad ? "codes" : "", codes_bad && weights_bad ? " and " : "", weights_bad ? "weights" : "");
    have_dm = have_ref && dg_module_load(rv->in, pm, rc, rw, &dm) == 0;
    if (!have_dm) { add_problem(mc, "no diagnosis: %s", have_ref ? "out of memory" : why); goto done; }
    if (!pad && !mc->first_diff) first_difference(mc, &dm, g.codes, g.weights, &cmp);
    if (!mc->diagnosis && !pad && square_transposed(&dm, g.codes, g.weights, &cmp)) mc->diagnosis = transposed_diagnosis(true);
    if (!mc->diagnosis) mc->diagnosis = dg_diagnose(&dm, g.codes, g.weights, g.k, &cmp);
    if (!mc->diagnosis && *dm.note) add_problem(mc, "diagnosis limited: %s", dm.note);
    if (want_picture && !mc->picture && g.k) mc->picture = picture(&dm, g.codes, g.weights, g.k);
done:
    if (have_dm) dg_module_free(&dm);
    free(rc); free(rw); free(g.codes); free(g.weights);
}

bool pc_certify_is_patterned(const pc_case *k)
{
    return strstr(k->id, "pattern") || cJSON_GetObjectItem(k->expect, "probe") || cJSON_GetObjectItem(k->expect, "pattern");
}

/* The view holds M.codes / M.weight of the case's modules and nothing else (CONTRACT 3): a module
 * the case does not have is a wrong output, however right the others are. */
static void extra_tensors(mod_check *mc, const pc_input *out, const cJSON *modules)
{
    size_t extra = 0;
    const char *first = NULL;
    for (size_t i = 0; i < out->ntensors; i++) {
        const char *nm = out->tensors[i].name;
        size_t n = strlen(nm);
        bool c = n >= 6 && !strcmp(nm + n - 6, ".codes"), w = n >= 7 && !strcmp(nm + n - 7, ".weight");
        char *prefix = c || w ? pc_strndup(nm, n - (c ? 6 : 7)) : NULL; /* "" is a module name too (GGUF) */
        bool known = prefix && cJSON_GetObjectItemCaseSensitive(modules, prefix);
        free(prefix);
        if (known) continue;
        if (!extra++) first = nm;
    }
    if (!extra) return;
    char shown[200]; /* a reader's tensor name may hold any byte: printable ASCII only, the rest \xNN */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)first; *p && o + 5 < sizeof shown; p++)
        o += (size_t)(*p >= 0x20 && *p < 0x7f && *p != '\\' ? snprintf(shown + o, sizeof shown - o, "%c", *p) : snprintf(shown + o, sizeof shown - o, "\\x%02x", *p));
    shown[o] = 0;
    add_problem(mc, "%zu tensor%s in the output that the case does not have (first: %s): the view holds only M.codes and M.weight of the case's modules", extra,
                extra == 1 ? "" : "s", shown);
}

/* The output's header length (its first 8 bytes) against what the case's modules can need: a
 * header is parsed only when it is no bigger than HEADER_BASE + HEADER_PER_MODULE per module. */
#define HEADER_BASE (1u << 20)
#define HEADER_PER_MODULE 4096u
static int header_too_big(const char *path, const cJSON *modules, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t b[8];
    bool got = f && fread(b, 1, 8, f) == 8;
    if (f) fclose(f);
    if (!got) return 0; /* too short: the container reader says why */
    *len = pc_le64(b);
    return *len > HEADER_BASE + (uint64_t)HEADER_PER_MODULE * (uint64_t)cJSON_GetArraySize(modules);
}

/* The dtype(s) the reader answered weights in: "f32", "bf16", "f16", or "bf16+f32" when mixed. */
static void add_precision(cJSON *c, unsigned set)
{
    char buf[32] = "";
    static const pc_round_t order[] = {PC_ROUND_BF16, PC_ROUND_F16, PC_ROUND_F32};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (set & 1u << order[i]) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", *buf ? "+" : "", pc_precision_name(order[i]));
    if (*buf) cJSON_AddStringToObject(c, "precision", buf);
}

/* An accepted case: is the output the corpus's logical view? Fills detail fields of c. */
int pc_certify_check_output(const pc_case *k, const char *out_path, const pc_weight_compare *basis, bool want_picture, cJSON *c, pc_sb *detail)
{
    pc_ctx ocx;
    if (pc_ctx_init(&ocx, PC_PROFILE_STRICT)) return O_WRONG;
    int outcome = O_PASS;
    pc_input *out = NULL;
    ref_view rv = {0};
    mod_check mc = {cJSON_CreateArray(), NULL, NULL, NULL, 0, 0, false};
    struct stat ost;
    if (lstat(out_path, &ost)) { add_problem(&mc, "exit 0 but no output file"); goto done; }
    /* Every reader process is dead by now, so what is checked here is what gets opened. */
    if (!S_ISREG(ost.st_mode)) { add_problem(&mc, "the output is %s, not a regular file", S_ISFIFO(ost.st_mode) ? "a FIFO" : S_ISLNK(ost.st_mode) ? "a symlink" : S_ISDIR(ost.st_mode) ? "a folder" : "a special file"); goto done; }
    uint64_t hlen;
    if (header_too_big(out_path, cJSON_GetObjectItem(k->expect, "modules"), &hlen)) {
        add_problem(&mc, "the output declares a %llu-byte header, more than a view of %d module%s needs (not read)", (unsigned long long)hlen,
                    cJSON_GetArraySize(cJSON_GetObjectItem(k->expect, "modules")), cJSON_GetArraySize(cJSON_GetObjectItem(k->expect, "modules")) == 1 ? "" : "s");
        goto done;
    }
    out = pc_input_open(out_path, NULL, &ocx);
    if (!out || ocx.oom || ocx.io_error || pc_rejected(&ocx) || out->is_gguf) {
        add_problem(&mc, "the output is not a valid safetensors file: %s", out && out->is_gguf ? "GGUF" : short_reason(&ocx));
        goto done;
    }
    const cJSON *pin;
    cJSON_ArrayForEach(pin, cJSON_GetObjectItem(k->expect, "modules")) check_module(&mc, &rv, k, out, pin, basis, want_picture);
    extra_tensors(&mc, out, cJSON_GetObjectItem(k->expect, "modules"));
done:
    if (cJSON_GetArraySize(mc.problems)) {
        outcome = O_WRONG;
        const cJSON *p;
        cJSON_ArrayForEach(p, mc.problems) {
            if (detail->n) pc_sb_puts(detail, "; ");
            pc_sb_puts(detail, p->valuestring);
        }
    }
    if (mc.first_diff) cJSON_AddItemToObject(c, "first_diff", mc.first_diff);
    if (mc.diagnosis) cJSON_AddItemToObject(c, "diagnosis", mc.diagnosis);
    if (mc.picture) cJSON_AddItemToObject(c, "picture", mc.picture);
    add_precision(c, mc.precisions);
    if (mc.weights_differ) cJSON_AddNumberToObject(c, "max_ulp", (double)mc.max_ulp);
    cJSON_Delete(mc.problems);
    ref_close(&rv);
    pc_input_free(out);
    pc_ctx_free(&ocx);
    return outcome;
}

/* The reader's answer from its exit alone; -1 when an accepted output must be looked at. */
int pc_certify_classify(const pc_case *k, const pc_run *r, pc_profile prof, pc_sb *detail)
{
    const char *verdict = pc_json_str(k->expect, "verdict");
    if (r->spawn_failed) { pc_sb_puts(detail, "could not start the reader (fork failed)"); return O_CRASH; }
    if (r->timed_out) { pc_sb_printf(detail, "still running after %.1f s; process group killed", r->secs); return O_TIMEOUT; }
    if (WIFSIGNALED(r->status)) { pc_sb_printf(detail, "killed by signal %d (%s)", WTERMSIG(r->status), strsignal(WTERMSIG(r->status))); return O_CRASH; }
    int code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
    if (code != 0 && code != 1) { pc_sb_printf(detail, "exit %d (only 0 = accepted and 1 = refused are answers)", code); return O_CRASH; }
    /* A reader built with sanitizers may find its own memory error and still exit 0 or 1; the
     * whole output stream was scanned as it came (logscan.h). */
    const char *san = r->log.hit;
    if (san) { pc_sb_printf(detail, "exit %d, but the reader's output holds a sanitizer report (%s): a memory error is a crash, whatever the exit code", code, san); return O_CRASH; }
    if (code == 1) {
        if (!strcmp(verdict, "pass")) { pc_sb_puts(detail, "refused a valid input"); return O_REJECTED_VALID; }
        return O_PASS;
    }
    if (!strcmp(verdict, "reject")) {
        const char *rule = pc_json_str(k->expect, "reject_rule");
        /* A LIMIT is packcheck's own resource bound, not the format's (e.g. GGUF-013): a reader
         * that accepts such an input is not wrong, so the case counts as `either`. Judged in the
         * run's profile: GGUF-038 (big-endian v3) is a LIMIT in strict but a MUST in compat. */
        const pc_rule *pr = *rule ? pc_rule_find(rule) : NULL;
        if (pr && pc_rule_severity(pr, prof) == PC_SEV_LIMIT) {
            pc_sb_printf(detail, "accepted; %s is packcheck's own LIMIT, so either answer is right", rule);
            return O_PASS;
        }
        pc_sb_printf(detail, "accepted an input that breaks %s", *rule ? rule : pc_json_str(k->expect, "reject_family"));
        return O_ACCEPTED_INVALID;
    }
    return -1;
}
