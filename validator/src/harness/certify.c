/* `packcheck certify` (CONTRACT 5). One process per case, in its own process group, at most
 * `jobs` at a time; a reader past its deadline has its whole group killed, and so does a reader
 * that exits leaving children behind. Exit 0 + logical view = accepted, exit 1 = refused, anything
 * else = crash. What the reader wrote is read with our own container reader, compared with the
 * corpus's pinned hashes and our reference view, and every wrong output is diagnosed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify.h"
#include "certify_line.h"

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

#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WIDE_SLACK 64                /* a padded output may have up to 2K + 64 columns (the packed width) */
#define PICTURE_MAX 64               /* side of the expected-vs-got window */

/* tampered: the reader changed its copy of the case (never an expected failure). */
static const char *const k_outcomes[] = {"pass", "wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout", "tampered"};
enum { O_PASS, O_WRONG, O_ACCEPTED_INVALID, O_REJECTED_VALID, O_CRASH, O_TIMEOUT, O_TAMPERED, O_COUNT };

static int pc_outcome_index(const char *name)
{
    for (int i = 0; i < O_COUNT; i++)
        if (!strcmp(name, k_outcomes[i])) return i;
    return O_CRASH;
}

/* ---- the command line ---- */

static void sb_shell_quote(pc_sb *b, const char *s)
{
    pc_sb_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'') pc_sb_puts(b, "'\\''");
        else { char one[2] = {*s, 0}; pc_sb_puts(b, one); }
    }
    pc_sb_puts(b, "'");
}

char *pc_certify_command(const char *tmpl, const char *input, const char *output, const char *profile)
{
    pc_sb b = {0};
    for (const char *p = tmpl; *p;) {
        if (!strncmp(p, "{profile}", 9)) { sb_shell_quote(&b, profile ? profile : "strict"); p += 9; }
        else if (!strncmp(p, "{input}", 7)) { sb_shell_quote(&b, input); p += 7; }
        else if (!strncmp(p, "{output}", 8)) { sb_shell_quote(&b, output); p += 8; }
        else { char one[2] = {*p++, 0}; pc_sb_puts(&b, one); }
    }
    return pc_sb_take(&b);
}

/* The words of the template, unquoted roughly (enough to find the files it names). */
static char *next_word(const char **p)
{
    while (**p == ' ' || **p == '\t') (*p)++;
    if (!**p) return NULL;
    pc_sb b = {0};
    char q = 0;
    for (; **p && (q || (**p != ' ' && **p != '\t')); (*p)++) {
        char c = **p;
        if (!q && (c == '\'' || c == '"')) { q = c; continue; }
        if (q && c == q) { q = 0; continue; }
        char one[2] = {c, 0};
        pc_sb_puts(&b, one);
    }
    return pc_sb_take(&b);
}

static char *which(const char *word)
{
    if (strchr(word, '/')) return realpath(word, NULL);
    const char *path = getenv("PATH");
    char *copy = pc_strdup(path ? path : "/usr/bin:/bin");
    char *found = NULL, *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *c = pc_path_join(d, word);
        if (c && access(c, X_OK) == 0 && !pc_is_dir(c)) found = realpath(c, NULL);
        free(c);
    }
    free(copy);
    return found;
}

/* reader: {name, command, executable, executable_sha256, files: [{path, sha256}]} */
static cJSON *reader_json(const pc_certify_opts *o)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "name", o->name ? o->name : o->reader);
    cJSON_AddStringToObject(r, "command", o->reader);
    cJSON *files = cJSON_CreateArray();
    const char *p = o->reader;
    char *w;
    bool have_exe = false;
    while ((w = next_word(&p))) {
        bool placeholder = strstr(w, "{input}") || strstr(w, "{output}") || strstr(w, "{profile}");
        bool assignment = !have_exe && strchr(w, '=') && !strchr(w, '/');
        if (!have_exe && !placeholder && !assignment && strcmp(w, "env") && strcmp(w, "exec")) {
            have_exe = true;
            char *exe = which(w), hex[65] = "";
            cJSON_AddStringToObject(r, "executable", exe ? exe : w);
            if (!exe || pc_sha256_file_hex(exe, hex)) snprintf(hex, sizeof hex, "unavailable");
            cJSON_AddStringToObject(r, "executable_sha256", hex);
            free(exe);
        } else if (!placeholder && !assignment) {
            struct stat st;
            char hex[65];
            if (stat(w, &st) == 0 && S_ISREG(st.st_mode) && !pc_sha256_file_hex(w, hex)) {
                cJSON *f = cJSON_CreateObject();
                char *rp = realpath(w, NULL);
                cJSON_AddStringToObject(f, "path", rp ? rp : w);
                cJSON_AddStringToObject(f, "sha256", hex);
                free(rp);
                cJSON_AddItemToArray(files, f);
            }
        }
        free(w);
    }
    if (!have_exe) { cJSON_AddStringToObject(r, "executable", ""); cJSON_AddStringToObject(r, "executable_sha256", "unavailable"); }
    cJSON_AddItemToObject(r, "files", files);
    return r;
}

/* ---- checking what the reader wrote ---- */

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
static void first_difference(mod_check *mc, const dg_module *m, const uint8_t *gc, const float *gw, unsigned ulp)
{
    for (size_t i = 0; i < m->numel; i++) {
        bool dc = gc && gc[i] != m->codes[i];
        bool dw = gw && !dg_f32_close(gw[i], m->weights[i], ulp);
        if (!dc && !dw) continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "module", m->prefix);
        cJSON_AddStringToObject(d, "tensor", dc ? "codes" : "weight");
        cJSON_AddNumberToObject(d, "index", (double)i);
        cJSON_AddItemToObject(d, "at", coord_json(m, i, m->K));
        if (dc) { cJSON_AddNumberToObject(d, "expected", m->codes[i]); cJSON_AddNumberToObject(d, "got", gc[i]); }
        else {
            char e[40], g[40];
            snprintf(e, sizeof e, "%.9g", (double)m->weights[i]);
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
        else add_problem(mc, "first difference: %s.weight%s: expected %.9g, got %.9g", m->prefix, at, (double)m->weights[i], (double)gw[i]);
        return;
    }
}

typedef struct got_tensors { uint8_t *codes; float *weights; uint64_t k; bool codes_ok, weights_ok, transposed; } got_tensors;

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
        pc_dtype want = w ? PC_DT_F32 : PC_DT_U8;
        if (t->dtype != want) { add_problem(mc, "%s: dtype %s, expected %s", t->name, pc_dtype_name(t->dtype), pc_dtype_name(want)); return -1; }
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
        if (w) g->weights = data; else g->codes = data;
        if (sk == SHAPE_SAME && !w) g->codes_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "codes_sha256"));
        if (sk == SHAPE_SAME && w) g->weights_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "weight_f32_sha256"));
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
    g->weights_ok = w && hash_is(w, n * 4, pc_json_str(pin, "weight_f32_sha256"));
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
static bool square_transposed(const dg_module *m, const uint8_t *gc, const float *gw, unsigned ulp)
{
    if (m->N != m->K || m->N < 2) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t r = 0; r < m->N; r++)
            for (uint64_t k = 0; k < m->K; k++) {
                size_t a = (size_t)((e * m->N + r) * m->K + k), b = (size_t)((e * m->N + k) * m->K + r);
                if (gc && gc[b] != m->codes[a]) return false;
                if (gw && !dg_f32_close(gw[b], m->weights[a], ulp)) return false;
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

static void check_module(mod_check *mc, ref_view *rv, const pc_case *k, const pc_input *out, const cJSON *pin, unsigned ulp, bool want_picture)
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
    /* Something differs (or --ulp asks for a value comparison): our reference view is needed. */
    uint8_t *rc = NULL;
    float *rw = NULL;
    const pc_module *pm = NULL;
    char why[200] = "";
    bool have_ref = reference(rv, k, name, pin, &rc, &rw, &pm, why, sizeof why) == 0;
    if (weights_bad && !pad && ulp && have_ref) {
        weights_bad = false;
        for (size_t i = 0; i < (size_t)pm->numel && !weights_bad; i++) weights_bad = !dg_f32_close(g.weights[i], rw[i], ulp);
    }
    dg_module dm;
    bool have_dm = false;
    if (!pad && !codes_bad && !weights_bad) goto done;
    if (pad) add_problem(mc, "module %s: %llu columns, the pinned shape has %.0f", name, (unsigned long long)g.k,
                         cJSON_GetArrayItem(cJSON_GetObjectItem(pin, "shape"), cJSON_GetArraySize(cJSON_GetObjectItem(pin, "shape")) - 1)->valuedouble);
    else add_problem(mc, "module %s: %s%s%s differ from the corpus", name, codes_bad ? "codes" : "", codes_bad && weights_bad ? " and " : "", weights_bad ? "weights" : "");
    have_dm = have_ref && dg_module_load(rv->in, pm, rc, rw, &dm) == 0;
    if (!have_dm) { add_problem(mc, "no diagnosis: %s", have_ref ? "out of memory" : why); goto done; }
    if (!pad && !mc->first_diff) first_difference(mc, &dm, g.codes, g.weights, ulp);
    if (!mc->diagnosis && !pad && square_transposed(&dm, g.codes, g.weights, ulp)) mc->diagnosis = transposed_diagnosis(true);
    if (!mc->diagnosis) mc->diagnosis = dg_diagnose(&dm, g.codes, g.weights, g.k, ulp);
    if (!mc->diagnosis && *dm.note) add_problem(mc, "diagnosis limited: %s", dm.note);
    if (want_picture && !mc->picture && g.k) mc->picture = picture(&dm, g.codes, g.weights, g.k);
done:
    if (have_dm) dg_module_free(&dm);
    free(rc); free(rw); free(g.codes); free(g.weights);
}

static bool is_patterned(const pc_case *k)
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

/* An accepted case: is the output the corpus's logical view? Fills detail fields of c. */
static int check_output(const pc_case *k, const char *out_path, unsigned ulp, bool want_picture, cJSON *c, pc_sb *detail)
{
    pc_ctx ocx;
    if (pc_ctx_init(&ocx, PC_PROFILE_STRICT)) return O_WRONG;
    int outcome = O_PASS;
    pc_input *out = NULL;
    ref_view rv = {0};
    mod_check mc = {cJSON_CreateArray(), NULL, NULL, NULL};
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
    cJSON_ArrayForEach(pin, cJSON_GetObjectItem(k->expect, "modules")) check_module(&mc, &rv, k, out, pin, ulp, want_picture);
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
    cJSON_Delete(mc.problems);
    ref_close(&rv);
    pc_input_free(out);
    pc_ctx_free(&ocx);
    return outcome;
}

/* The reader's answer from its exit alone; -1 when an accepted output must be looked at. */
static int classify(const pc_case *k, const pc_run *r, pc_profile prof, pc_sb *detail)
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

/* ---- rollups ---- */

static void rollup_add(cJSON *map, const char *key, const char *family, int outcome, const char *status, const char *id)
{
    cJSON *e = cJSON_GetObjectItemCaseSensitive(map, key);
    if (!e) {
        e = cJSON_AddObjectToObject(map, key);
        if (family) cJSON_AddStringToObject(e, "family", family);
        cJSON_AddNumberToObject(e, "cases", 0);
        cJSON_AddNumberToObject(e, "pass", 0);
        cJSON_AddNumberToObject(e, "expected_fail", 0);
        cJSON_AddNumberToObject(e, "fail", 0);
        cJSON_AddObjectToObject(e, "outcomes");
        cJSON_AddArrayToObject(e, "failing");
    }
    cJSON *o = cJSON_GetObjectItem(e, "outcomes"), *x = cJSON_GetObjectItem(o, k_outcomes[outcome]);
    if (x) cJSON_SetNumberValue(x, x->valuedouble + 1);
    else cJSON_AddNumberToObject(o, k_outcomes[outcome], 1);
    const char *field = !strcmp(status, "ok") ? "pass" : !strcmp(status, "expected-fail") ? "expected_fail" : "fail";
    cJSON *f = cJSON_GetObjectItem(e, field), *n = cJSON_GetObjectItem(e, "cases");
    cJSON_SetNumberValue(f, f->valuedouble + 1);
    cJSON_SetNumberValue(n, n->valuedouble + 1);
    if (outcome != O_PASS) cJSON_AddItemToArray(cJSON_GetObjectItem(e, "failing"), cJSON_CreateString(id));
}

static char *family_of(const char *rule)
{
    const char *dash = strchr(rule, '-');
    return pc_strndup(rule, dash ? (size_t)(dash - rule) : strlen(rule));
}

static void rollup_case(cJSON *rules, cJSON *fams, const pc_case *k, int outcome, const char *status)
{
    cJSON *seen = cJSON_CreateObject(), *fseen = cJSON_CreateObject();
    const cJSON *x;
    const char *rr = pc_json_str(k->expect, "reject_rule"), *rf = pc_json_str(k->expect, "reject_family");
    cJSON *all = cJSON_Duplicate(cJSON_GetObjectItem(k->expect, "rules"), 1);
    if (!cJSON_IsArray(all)) { cJSON_Delete(all); all = cJSON_CreateArray(); }
    if (*rr) cJSON_AddItemToArray(all, cJSON_CreateString(rr));
    cJSON_ArrayForEach(x, all) {
        if (!cJSON_IsString(x) || cJSON_GetObjectItemCaseSensitive(seen, x->valuestring)) continue;
        cJSON_AddTrueToObject(seen, x->valuestring);
        char *fam = family_of(x->valuestring);
        rollup_add(rules, x->valuestring, fam, outcome, status, k->id);
        cJSON *re = cJSON_GetObjectItemCaseSensitive(rules, x->valuestring);
        const pc_rule *pr = pc_rule_find(x->valuestring);
        if (!cJSON_GetObjectItem(re, "title")) cJSON_AddStringToObject(re, "title", pr ? pr->title : "(not in the catalogue)");
        if (fam && !cJSON_GetObjectItemCaseSensitive(fseen, fam)) { cJSON_AddTrueToObject(fseen, fam); rollup_add(fams, fam, NULL, outcome, status, k->id); }
        free(fam);
    }
    if (*rf && !cJSON_GetObjectItemCaseSensitive(fseen, rf)) rollup_add(fams, rf, NULL, outcome, status, k->id);
    cJSON_Delete(all);
    cJSON_Delete(seen);
    cJSON_Delete(fseen);
}

/* {"CT-001": {...}} -> [{"rule": "CT-001", ...}] sorted by key. */
static int cmp_json_key(const void *a, const void *b) { return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string); }
static cJSON *map_to_sorted_array(cJSON *map, const char *keyname)
{
    int n = cJSON_GetArraySize(map);
    cJSON **v = calloc((size_t)(n ? n : 1), sizeof *v), *x, *arr = cJSON_CreateArray();
    int i = 0;
    cJSON_ArrayForEach(x, map) v[i++] = x;
    pc_sort(v, (size_t)n, sizeof *v, cmp_json_key);
    for (i = 0; i < n; i++) {
        cJSON *e = cJSON_Duplicate(v[i], 1);
        cJSON_AddItemToObject(e, keyname, cJSON_CreateString(v[i]->string));
        cJSON_AddItemToArray(arr, e);
    }
    free(v);
    return arr;
}

/* ---- the run ---- */

/* Reports name the reader's output "{output}", not the temporary path it had (stable reports). */
static char *replace_all(const char *s, const char *what, const char *with)
{
    pc_sb b = {0};
    size_t n = strlen(what);
    for (const char *p = s; *p;) {
        if (n && !strncmp(p, what, n)) { pc_sb_puts(&b, with); p += n; }
        else { char one[2] = {*p++, 0}; pc_sb_puts(&b, one); }
    }
    return pc_sb_take(&b);
}

/* A case's expectations hold under one profile when expect.json names it ("profile"), else under both.
 * Under compat, a case with a "<id>-compat" twin defers to it, and a reject by a rule compat does
 * not enforce is not a reject there. NULL = run it. */
static const char *profile_skip(const pc_corpus *c, const pc_case *k, const char *profile)
{
    const char *cp = pc_json_str(k->expect, "profile");
    if (*cp && strcmp(cp, profile)) return !strcmp(cp, "compat") ? "a compat-profile case" : "a strict-profile case";
    if (!*cp && !strcmp(profile, "compat")) { /* a "<id>-compat" twin carries this input's compat expectation */
        char *twin = pc_asprintf("%s-compat", k->id);
        bool has = false;
        for (size_t i = 0; twin && i < c->ncases && !has; i++) has = !strcmp(c->cases[i].id, twin);
        free(twin);
        if (has) return "its -compat twin carries the compat expectation";
    }
    if (!strcmp(profile, "compat") && !*pc_json_str(k->expect, "profile") && !strcmp(pc_json_str(k->expect, "verdict"), "reject")) {
        const pc_rule *r = pc_rule_find(pc_json_str(k->expect, "reject_rule"));
        pc_severity sv = r ? pc_rule_severity(r, PC_PROFILE_COMPAT) : PC_SEV_MUST;
        if (sv != PC_SEV_MUST && sv != PC_SEV_LIMIT) return "its reject rule is not enforced under compat";
    }
    return NULL;
}

static bool selected(const pc_certify_opts *o, const char *id)
{
    if (!o->nonly) return true;
    for (int i = 0; i < o->nonly; i++)
        if (o->only_exact[i] ? !strcmp(id, o->only[i]) : strstr(id, o->only[i]) != NULL) return true;
    return false;
}

/* Everything one certify run holds. */
typedef struct certify_run {
    const pc_certify_opts *o;
    FILE *log;
    pc_corpus c;
    pc_xf_list xf;
    pc_run *runs;        /* per case; cmd NULL when the case is not run */
    char **outs;         /* per case: where the reader writes its view */
    pc_case_copy *copies;/* per case: the reader's private copy of the case */
    char **copy_inputs;  /* per case: {input} inside the copy */
    char **tampered;     /* per case: what the reader changed in its copy, or NULL */
    cJSON *corpus_changed; /* pin problems found after the readers ran */
    char *work;
    bool own_work;
    pc_run_opts ro;
    const char *reader_user;
    cJSON *skipped;
} certify_run;

typedef struct tally { int outcomes[O_COUNT], xfail, stale, fail, run, pictures; cJSON *valid; } tally;

static void certify_run_free(certify_run *st)
{
    for (size_t i = 0; st->runs && i < st->c.ncases; i++) {
        free(st->runs[i].cmd); free(st->runs[i].cwd); free(st->outs[i]);
        free(st->copy_inputs[i]); free(st->tampered[i]);
        pc_case_copy_free(&st->copies[i]);
    }
    free(st->runs); free(st->outs); free(st->copies); free(st->copy_inputs); free(st->tampered);
    if (st->own_work && st->work) pc_tree_remove(st->work);
    free(st->work);
    cJSON_Delete(st->skipped);
    cJSON_Delete(st->corpus_changed);
    pc_xf_free(&st->xf);
    pc_corpus_free(&st->c);
}

/* As root, readers run as an unprivileged user (default nobody): a reader can then neither signal
 * certify nor write the corpus or the reports. "--reader-user root" keeps root, knowingly. */
static int reader_identity(certify_run *st)
{
    const char *want = st->o->reader_user;
    if (geteuid() != 0) {
        if (want && strcmp(want, "-")) {
            struct passwd *pw = getpwnam(want);
            if (!pw || pw->pw_uid != geteuid()) { fprintf(st->log, "certify: --reader-user %s needs root (certify runs as uid %d)\n", want, (int)geteuid()); return -1; }
        }
        st->reader_user = "";
        return 0;
    }
    if (!want) want = "nobody";
    struct passwd *pw = getpwnam(want);
    if (!pw) { fprintf(st->log, "certify: no user %s for the readers (--reader-user USER)\n", want); return -1; }
    st->reader_user = want;
    if (pw->pw_uid == 0) { fprintf(st->log, "certify: readers run as root (--reader-user %s): a reader can kill or stop certify and rewrite its files\n", want); return 0; }
    st->ro.drop = true;
    st->ro.uid = pw->pw_uid;
    st->ro.gid = pw->pw_gid;
    st->ro.home = "/";
    return 0;
}

/* The corpus: loaded, only folders and regular files (nothing that blocks a read), pins holding,
 * and the digest --corpus-digest names. */
static int corpus_ready(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    char why[600];
    if (pc_corpus_load(o->corpus, &st->c, st->log)) return -1;
    if (pc_tree_regular_only(o->corpus, why, sizeof why)) { fprintf(st->log, "certify: %s: %s; refusing to certify against it\n", o->corpus, why); return -1; }
    cJSON *pins = cJSON_CreateArray();
    int bad = pc_corpus_verify_pins(&st->c, pins, st->log);
    cJSON_Delete(pins);
    if (bad) { fprintf(st->log, "certify: %s: the corpus does not match its MANIFEST.sha256; refusing to certify against it\n", o->corpus); return -1; }
    if (o->corpus_digest && strcasecmp(o->corpus_digest, st->c.manifest_sha256)) {
        fprintf(st->log, "certify: %s: MANIFEST.sha256 digest %s, --corpus-digest wants %s; refusing to certify against another corpus\n", o->corpus, st->c.manifest_sha256, o->corpus_digest);
        return -1;
    }
    return 0;
}

static int make_workdir(certify_run *st)
{
    if (st->o->workdir) {
        st->work = pc_strdup(st->o->workdir);
        if (st->work) mkdir(st->work, 0711);
    } else {
        const char *tmp = getenv("TMPDIR");
        st->work = pc_asprintf("%s/packcheck-certify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!st->work || !mkdtemp(st->work)) { fprintf(st->log, "certify: cannot create a work directory\n"); return -1; }
        st->own_work = true;
    }
    chmod(st->work, 0711); /* a dropped reader reaches its own folders, cannot list the others */
    return 0;
}

/* Case i's private folder: work/i/case (the copy, read-only) and work/i/out (the reader's). */
static int case_folder(certify_run *st, size_t i)
{
    const pc_case *k = &st->c.cases[i];
    char *dir = pc_asprintf("%s/%zu", st->work, i), *cdir = pc_asprintf("%s/%zu/case", st->work, i), *odir = pc_asprintf("%s/%zu/out", st->work, i);
    char why[600];
    int rc = -1;
    if (!dir || !cdir || !odir || mkdir(dir, 0711) || mkdir(odir, 0700)) { fprintf(st->log, "certify: cannot create %s\n", dir ? dir : "a case folder"); goto out; }
    if (pc_case_copy_make(k->dir, cdir, "expect.json", &st->copies[i], why, sizeof why)) { fprintf(st->log, "certify: %s: %s\n", k->id, why); goto out; }
    if (st->ro.drop && chown(odir, st->ro.uid, st->ro.gid)) { fprintf(st->log, "certify: cannot hand %s to the reader user\n", odir); goto out; }
    const char *rel = k->input + strlen(k->dir); /* k->input is k->dir joined with expect.input */
    st->copy_inputs[i] = pc_asprintf("%s%s", cdir, rel);
    st->outs[i] = pc_asprintf("%s/view.safetensors", odir);
    /* The reader keeps certify's working directory: templates name scripts relative to it. */
    st->runs[i].label = k->id;
    if (!st->copy_inputs[i] || !st->outs[i]) goto out;
    st->runs[i].cmd = pc_certify_command(st->o->reader, st->copy_inputs[i], st->outs[i], st->o->profile);
    rc = st->runs[i].cmd ? 0 : -1;
out:
    free(dir); free(cdir); free(odir);
    return rc;
}

/* A case outside the reader's declared scope (--layout, --format): listed as `unsupported`, never run. */
static bool out_of_scope(certify_run *st, const pc_case *k)
{
    if (!pc_scope_declared(&st->o->scope)) return false;
    pc_case_scope cs;
    char why[96];
    pc_case_scope_of(k, &cs);
    if (!pc_scope_excludes(&st->o->scope, &cs, why, sizeof why)) return false;
    cJSON *sk = cJSON_CreateObject();
    cJSON_AddStringToObject(sk, "case", k->id);
    cJSON_AddStringToObject(sk, "outcome", "unsupported");
    cJSON_AddStringToObject(sk, "reason", why);
    cJSON_AddItemToArray(st->skipped, sk);
    return true;
}

/* Corpus (pins must hold), expected failures, work directory, one private case folder and command
 * line per selected case. */
static int prepare(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    if (corpus_ready(st) || reader_identity(st)) return -1;
    if (o->expect_fail && pc_xf_load(o->expect_fail, &st->xf, o->update_expect, st->log)) return -1;
    if (make_workdir(st)) return -1;
    size_t n = st->c.ncases ? st->c.ncases : 1;
    st->runs = calloc(n, sizeof *st->runs);
    st->outs = calloc(n, sizeof *st->outs);
    st->copies = calloc(n, sizeof *st->copies);
    st->copy_inputs = calloc(n, sizeof *st->copy_inputs);
    st->tampered = calloc(n, sizeof *st->tampered);
    st->skipped = cJSON_CreateArray();
    if (!st->runs || !st->outs || !st->copies || !st->copy_inputs || !st->tampered || !st->skipped) return -1;
    for (size_t i = 0; i < st->c.ncases; i++) {
        const pc_case *k = &st->c.cases[i];
        if (!selected(o, k->id)) continue;
        if (out_of_scope(st, k)) continue;
        const char *why = profile_skip(&st->c, k, o->profile ? o->profile : "strict");
        if (why) {
            cJSON *sk = cJSON_CreateObject();
            cJSON_AddStringToObject(sk, "case", k->id);
            cJSON_AddStringToObject(sk, "reason", why);
            cJSON_AddItemToArray(st->skipped, sk);
            continue;
        }
        if (case_folder(st, i)) return -1;
    }
    return 0;
}

/* After the readers: every private copy byte for byte, and the corpus itself (a reader running as
 * certify's user could have found it). */
static void check_integrity(certify_run *st)
{
    char why[600];
    for (size_t i = 0; i < st->c.ncases; i++) {
        if (!st->runs[i].cmd) continue;
        int v = pc_case_copy_verify(&st->copies[i], why, sizeof why);
        if (v) st->tampered[i] = pc_strdup(v < 0 ? "could not verify the copy (out of memory)" : why);
    }
    st->corpus_changed = cJSON_CreateArray();
    if (pc_tree_regular_only(st->o->corpus, why, sizeof why)) cJSON_AddItemToArray(st->corpus_changed, cJSON_CreateString(why));
    else pc_corpus_verify_pins(&st->c, st->corpus_changed, st->log);
}

static cJSON *doc_header(const certify_run *st)
{
    const pc_certify_opts *o = st->o;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "certify");
    cJSON_AddItemToObject(doc, "reader", reader_json(o));
    cJSON *corp = cJSON_AddObjectToObject(doc, "corpus");
    cJSON_AddStringToObject(corp, "path", o->corpus);
    cJSON_AddStringToObject(corp, "manifest_sha256", st->c.manifest_sha256);
    cJSON_AddStringToObject(corp, "version", st->c.version);
    cJSON_AddNumberToObject(corp, "cases", (double)st->c.ncases);
    cJSON_AddStringToObject(doc, "manifest_sha256", st->c.manifest_sha256);
    cJSON_AddStringToObject(doc, "corpus_version", st->c.version);
    cJSON *opts = cJSON_AddObjectToObject(doc, "options");
    cJSON_AddNumberToObject(opts, "timeout_s", o->timeout_s);
    cJSON_AddNumberToObject(opts, "ulp", o->ulp);
    cJSON_AddNumberToObject(opts, "jobs", o->jobs);
    cJSON_AddStringToObject(opts, "profile", o->profile ? o->profile : "strict");
    cJSON_AddBoolToObject(opts, "partial", o->nonly > 0);
    cJSON_AddBoolToObject(opts, "container_only", o->container_only);
    cJSON_AddStringToObject(opts, "reader_user", *st->reader_user ? st->reader_user : "(certify's own)");
    if (o->expect_fail) cJSON_AddStringToObject(opts, "expect_fail", o->expect_fail);
    return doc;
}

/* Hold an outcome to the expected-failure list: ok, expected-fail, fail or stale. A tampered case
 * fails whatever the list says. */
static const char *judge(certify_run *st, const pc_case *k, int oc, cJSON *cj, pc_sb *detail, tally *t)
{
    pc_xf_entry *xe = pc_xf_find(&st->xf, k->id);
    if (xe) xe->seen = true;
    if (!xe || oc == O_TAMPERED) {
        if (oc == O_PASS) return "ok";
        t->fail++;
        return "fail";
    }
    cJSON_AddStringToObject(cj, "expected_failure", xe->reason ? xe->reason : "");
    if (oc == O_PASS) {
        t->stale++;
        pc_sb_puts(detail, detail->n ? "; " : "");
        pc_sb_puts(detail, "listed as an expected failure but passes: remove it from the list");
        return "stale";
    }
    if (xe->outcome && strcmp(xe->outcome, k_outcomes[oc])) {
        t->fail++;
        pc_sb_printf(detail, "; listed as expected %s, got %s", xe->outcome, k_outcomes[oc]);
        return "fail";
    }
    t->xfail++;
    return "expected-fail";
}

/* Valid (verdict pass) cases run and passed, per corpus family (the case id's first part). */
static void count_valid(tally *t, const pc_case *k, int oc)
{
    if (strcmp(pc_json_str(k->expect, "verdict"), "pass")) return;
    const char *slash = strchr(k->id, '/');
    char *fam = pc_strndup(k->id, slash ? (size_t)(slash - k->id) : strlen(k->id));
    cJSON *e = fam ? cJSON_GetObjectItemCaseSensitive(t->valid, fam) : NULL;
    if (fam && !e) { e = cJSON_AddObjectToObject(t->valid, fam); cJSON_AddNumberToObject(e, "valid", 0); cJSON_AddNumberToObject(e, "passed", 0); }
    free(fam);
    if (!e) return;
    cJSON *v = cJSON_GetObjectItem(e, "valid"), *p = cJSON_GetObjectItem(e, "passed");
    cJSON_SetNumberValue(v, v->valuedouble + 1);
    if (oc == O_PASS) cJSON_SetNumberValue(p, p->valuedouble + 1);
}

/* What the reader wrote, judged in a bounded child (bounded.h). */
typedef struct eval_arg { const pc_case *k; const char *out; unsigned ulp; bool want_picture; } eval_arg;

static cJSON *eval_child(void *p)
{
    const eval_arg *a = p;
    cJSON *ans = cJSON_CreateObject(), *extra = cJSON_CreateObject();
    pc_sb detail = {0};
    int oc = check_output(a->k, a->out, a->ulp, a->want_picture, extra, &detail);
    char *d = pc_sb_take(&detail);
    cJSON_AddNumberToObject(ans, "outcome", oc);
    cJSON_AddStringToObject(ans, "detail", d ? d : "");
    cJSON_AddItemToObject(ans, "extra", extra);
    free(d);
    return ans;
}

static int evaluate_output(certify_run *st, size_t i, bool want_pic, cJSON *cj, pc_sb *detail)
{
    pc_case kc = st->c.cases[i]; /* the reference view comes from the verified private copy */
    kc.input = st->copy_inputs[i];
    kc.dir = st->copies[i].root;
    eval_arg a = {&kc, st->outs[i], st->o->ulp, want_pic};
    char why[200];
    cJSON *ans = pc_run_bounded(eval_child, &a, st->o->eval_timeout_s > 0 ? st->o->eval_timeout_s : 60, why, sizeof why);
    if (!ans) { pc_sb_printf(detail, "packcheck's evaluation of the output %s", why); return O_WRONG; }
    int oc = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ans, "outcome"));
    if (oc < 0 || oc >= O_COUNT) oc = O_WRONG;
    pc_sb_puts(detail, pc_json_str(ans, "detail"));
    cJSON *extra = cJSON_GetObjectItem(ans, "extra"), *x;
    while (extra && (x = extra->child)) {
        cJSON_DetachItemViaPointer(extra, x);
        cJSON_AddItemToObject(cj, x->string, x);
    }
    cJSON_Delete(ans);
    return oc;
}

static int outcome_of(certify_run *st, size_t i, bool want_pic, cJSON *cj, pc_sb *detail)
{
    if (st->tampered[i]) {
        pc_sb_printf(detail, "the reader changed its copy of the case: %s (a reader may only read its input and write {output})", st->tampered[i]);
        return O_TAMPERED;
    }
    pc_profile prof = st->o->profile && !strcmp(st->o->profile, "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    int oc = classify(&st->c.cases[i], &st->runs[i], prof, detail);
    if (oc < 0 && st->o->container_only) return O_PASS; /* accepted a valid input: a container reader's verdict is all it gives */
    return oc >= 0 ? oc : evaluate_output(st, i, want_pic, cj, detail);
}

static cJSON *evaluate_case(certify_run *st, size_t i, tally *t)
{
    const pc_case *k = &st->c.cases[i];
    const pc_run *r = &st->runs[i];
    cJSON *cj = cJSON_CreateObject();
    cJSON_AddStringToObject(cj, "case", k->id);
    cJSON_AddStringToObject(cj, "expected", pc_json_str(k->expect, "verdict"));
    pc_sb detail = {0};
    bool want_pic = is_patterned(k) || t->pictures < 3;
    cJSON *extras = cJSON_CreateObject(); /* first_diff, diagnosis, picture: after the outcome */
    int oc = outcome_of(st, i, want_pic, extras, &detail);
    t->pictures += cJSON_GetObjectItem(extras, "picture") != NULL;
    t->outcomes[oc]++;
    t->run++;
    count_valid(t, k, oc);
    cJSON_AddStringToObject(cj, "outcome", k_outcomes[oc]);
    if (r->timed_out) cJSON_AddStringToObject(cj, "exit", "timeout");
    else if (WIFSIGNALED(r->status)) cJSON_AddNumberToObject(cj, "signal", WTERMSIG(r->status));
    else if (WIFEXITED(r->status)) cJSON_AddNumberToObject(cj, "exit", WEXITSTATUS(r->status));
    cJSON_AddNumberToObject(cj, "seconds", (double)(long)(r->secs * 1000) / 1000);
    if (r->strays) cJSON_AddNumberToObject(cj, "detached_killed", r->strays);
    for (cJSON *x; extras && (x = extras->child);) {
        cJSON_DetachItemViaPointer(extras, x);
        cJSON_AddItemToObject(cj, x->string, x);
    }
    cJSON_Delete(extras);
    const char *status = judge(st, k, oc, cj, &detail, t);
    cJSON_AddStringToObject(cj, "status", status);
    char *d = pc_sb_take(&detail);
    char *dd = d ? replace_all(d, st->outs[i], "{output}") : NULL;
    cJSON_AddStringToObject(cj, "detail", dd ? dd : "");
    free(dd);
    free(d);
    if (oc != O_PASS) { char *tail = pc_run_log_tail(r); cJSON_AddStringToObject(cj, "log_tail", tail ? tail : ""); free(tail); }
    const cJSON *rl = cJSON_GetObjectItem(k->expect, "rules");
    cJSON_AddItemToObject(cj, "rules", cJSON_IsArray(rl) ? cJSON_Duplicate(rl, 1) : cJSON_CreateArray());
    if (*pc_json_str(k->expect, "reject_rule")) cJSON_AddStringToObject(cj, "reject_rule", pc_json_str(k->expect, "reject_rule"));
    if (*pc_json_str(k->expect, "reject_family")) cJSON_AddStringToObject(cj, "reject_family", pc_json_str(k->expect, "reject_family"));
    pc_profile prof = st->o->profile && !strcmp(st->o->profile, "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    pc_certify_line(st->log, k, cj, !strcmp(status, "stale") ? "STALE" : !strcmp(status, "expected-fail") ? "xfail" : k_outcomes[oc], prof);
    return cj;
}

/* Counts, rollups, the expected-failure summary; entries naming no case are stale too. */
static void doc_summary(certify_run *st, cJSON *doc, cJSON *rules, cJSON *fams, tally *t)
{
    cJSON *unknown = cJSON_CreateArray();
    for (size_t i = 0; i < st->xf.n; i++) {
        bool exists = false;
        for (size_t j = 0; j < st->c.ncases && !exists; j++) exists = !strcmp(st->c.cases[j].id, st->xf.e[i].id);
        if (exists) continue;
        cJSON_AddItemToArray(unknown, cJSON_CreateString(st->xf.e[i].id));
        t->stale++;
        fprintf(st->log, "STALE            %s: listed as an expected failure but no such case in the corpus\n", st->xf.e[i].id);
    }
    cJSON_AddItemToObject(doc, "rules", map_to_sorted_array(rules, "rule"));
    cJSON_AddItemToObject(doc, "families", map_to_sorted_array(fams, "family"));
    cJSON *cnt = cJSON_AddObjectToObject(doc, "counts");
    for (int i = 0; i < O_COUNT; i++) cJSON_AddNumberToObject(cnt, k_outcomes[i], t->outcomes[i]);
    cJSON_AddNumberToObject(cnt, "expected-fail", t->xfail);
    cJSON_AddNumberToObject(cnt, "stale", t->stale);
    cJSON_AddNumberToObject(cnt, "unexpected", t->fail);
    cJSON_AddNumberToObject(cnt, "run", t->run);
    cJSON_AddNumberToObject(cnt, "skipped", cJSON_GetArraySize(st->skipped));
    cJSON_AddItemToObject(doc, "skipped", st->skipped);
    st->skipped = NULL;
    cJSON *xj = cJSON_AddObjectToObject(doc, "expect_fail");
    cJSON_AddStringToObject(xj, "path", st->o->expect_fail ? st->o->expect_fail : "");
    cJSON_AddNumberToObject(xj, "entries", (double)st->xf.n);
    cJSON_AddItemToObject(xj, "unknown_cases", unknown);
    cJSON_AddItemToObject(doc, "valid_by_family", cJSON_Duplicate(t->valid, 1));
    cJSON_AddItemToObject(doc, "corpus_changed", cJSON_Duplicate(st->corpus_changed, 1));
}

/* "ct 40/40, gguf 0/12, ..." */
static void print_valid(FILE *log, const cJSON *valid)
{
    const cJSON *f;
    fprintf(log, "certify: valid cases passed per family:");
    int k = 0;
    cJSON_ArrayForEach(f, valid) fprintf(log, "%s %s %.0f/%.0f", k++ ? "," : "", f->string, cJSON_GetNumberValue(cJSON_GetObjectItem(f, "passed")), cJSON_GetNumberValue(cJSON_GetObjectItem(f, "valid")));
    fprintf(log, "%s\n", k ? "" : " none run");
}

static int valid_passed(const cJSON *valid)
{
    const cJSON *f;
    int n = 0;
    cJSON_ArrayForEach(f, valid) n += (int)cJSON_GetNumberValue(cJSON_GetObjectItem(f, "passed"));
    return n;
}

/* A declared scope: what it claims and how much of the corpus that covers (unsupported cases are
 * coverage, not failures). */
static void scope_coverage(certify_run *st, cJSON *doc)
{
    const pc_scope *sc = &st->o->scope;
    if (!pc_scope_declared(sc)) return;
    int unsupported = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "skipped")) unsupported += !strcmp(pc_json_str(x, "outcome"), "unsupported");
    cJSON *j = cJSON_AddObjectToObject(doc, "scope");
    cJSON *ls = cJSON_AddArrayToObject(j, "layouts"), *fs = cJSON_AddArrayToObject(j, "formats");
    for (int i = 0; i < sc->nlayouts; i++) cJSON_AddItemToArray(ls, cJSON_CreateString(sc->layouts[i]));
    for (int i = 0; i < sc->nformats; i++) cJSON_AddItemToArray(fs, cJSON_CreateString(sc->formats[i]));
    cJSON_AddNumberToObject(j, "unsupported", unsupported);
    cJSON_AddNumberToObject(j, "cases", (double)st->c.ncases);
    fprintf(st->log, "certify: declared scope (--layout/--format): %zu of %zu cases in scope, %d unsupported (coverage, neither pass nor failure)\n",
            st->c.ncases - (size_t)unsupported, st->c.ncases, unsupported);
}

/* The verdict: certified only for a full run with nothing unexpected, nothing tampered, the corpus
 * intact, at least one valid case read, and no failure absorbed by --update-expect in this run. */
static int verdict(certify_run *st, cJSON *doc, tally *t, int absorbed)
{
    const pc_certify_opts *o = st->o;
    const char *why = NULL;
    int changed = cJSON_GetArraySize(st->corpus_changed);
    if (changed) why = "the corpus changed while the readers ran";
    else if (t->outcomes[O_TAMPERED]) why = "a reader changed its copy of a case";
    else if (absorbed) why = "failures were absorbed into the rewritten expected-failure list: rerun with it to certify";
    else if (t->fail || t->stale) why = NULL;
    else if (!valid_passed(t->valid)) why = "no valid case passed: a reader that reads nothing is not certified";
    bool clean = !why && !t->fail && !t->stale;
    bool partial = o->nonly > 0;
    bool certified = clean && !partial;
    const char *v = certified ? "certified" : clean ? "partial" : "not certified";
    cJSON_AddBoolToObject(doc, "certified", certified);
    cJSON_AddStringToObject(doc, "verdict", v);
    if (why) cJSON_AddStringToObject(doc, "verdict_reason", why);
    print_valid(st->log, t->valid);
    scope_coverage(st, doc);
    if (why) fprintf(st->log, "certify: %s\n", why);
    fprintf(st->log, "certify: %s: %d run, %d pass, %d expected failures, %d unexpected failures, %d stale expected failures%s; corpus MANIFEST.sha256 %s\n",
            certified ? (pc_scope_declared(&o->scope) ? "CERTIFIED for its declared scope" : "CERTIFIED") : clean ? "PARTIAL (--only: not a certificate)" : "NOT CERTIFIED", t->run, t->outcomes[O_PASS], t->xfail, t->fail, t->stale,
            t->outcomes[O_TAMPERED] ? ", tampered" : "", st->c.manifest_sha256);
    return clean ? PC_EXIT_OK : PC_EXIT_REJECT;
}

/* --update-expect: the list is rewritten from this run; what it absorbs is counted, not forgiven. */
static int update_list(certify_run *st, cJSON *cases, tally *t, int *absorbed)
{
    const pc_certify_opts *o = st->o;
    char corpus_line[128];
    snprintf(corpus_line, sizeof corpus_line, "%s (MANIFEST sha256 %s)", *st->c.version ? st->c.version : "unversioned", st->c.manifest_sha256);
    if (pc_xf_write(o->expect_fail, &st->xf, cases, o->name ? o->name : o->reader, corpus_line)) { fprintf(st->log, "certify: cannot write %s\n", o->expect_fail); return -1; }
    *absorbed = t->fail + t->stale;
    fprintf(st->log, "certify: rewrote %s from this run (%d unexpected or stale failure%s absorbed)\n", o->expect_fail, *absorbed, *absorbed == 1 ? "" : "s");
    t->fail = t->stale = 0;
    return 0;
}

static cJSON *evaluate_all(certify_run *st, tally *t, int *exit_code)
{
    cJSON *doc = doc_header(st);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    cJSON *rules = cJSON_CreateObject(), *fams = cJSON_CreateObject();
    for (size_t i = 0; i < st->c.ncases; i++) {
        if (!st->runs[i].cmd) continue;
        cJSON *cj = evaluate_case(st, i, t);
        rollup_case(rules, fams, &st->c.cases[i], pc_outcome_index(pc_json_str(cj, "outcome")), pc_json_str(cj, "status"));
        cJSON_AddItemToArray(cases, cj);
    }
    doc_summary(st, doc, rules, fams, t);
    cJSON_Delete(rules);
    cJSON_Delete(fams);
    int absorbed = 0;
    if (st->o->update_expect && update_list(st, cases, t, &absorbed)) { cJSON_Delete(doc); return NULL; }
    *exit_code = verdict(st, doc, t, absorbed);
    cJSON_AddArrayToObject(doc, "inputs");
    return doc;
}

cJSON *pc_certify_run(const pc_certify_opts *o, int *exit_code)
{
    certify_run st = {.o = o, .log = o->log ? o->log : stderr};
    cJSON *doc = NULL;
    tally t = {0};
    *exit_code = PC_EXIT_ERROR;
    if (prepare(&st)) goto out;
    size_t nrun = 0;
    for (size_t i = 0; i < st.c.ncases; i++) nrun += st.runs[i].cmd != NULL;
    if (!nrun) { fprintf(st.log, "certify: no case to run (%s); nothing was certified\n", o->nonly ? "--only matches none" : "the corpus has none for this profile"); goto out; }
    fprintf(st.log, "certify: %zu cases (%zu to run), reader: %s, corpus MANIFEST.sha256 %s\n", st.c.ncases, nrun, o->reader, st.c.manifest_sha256);
    st.ro = (pc_run_opts){.jobs = o->jobs, .timeout_s = o->timeout_s, .mem_mb = o->mem_limit_mb, .drop = st.ro.drop, .uid = st.ro.uid, .gid = st.ro.gid,
                          .home = st.ro.home, .progress = o->progress};
    int sig = pc_run_all(st.runs, st.c.ncases, &st.ro);
    if (sig < 0) { fprintf(st.log, "certify: cannot become a child subreaper: a reader's detached processes could outlive it; refusing\n"); goto out; }
    if (sig) {
        fprintf(st.log, "certify: interrupted by signal %d; every reader's process group was killed\n", sig);
        goto out;
    }
    check_integrity(&st);
    t.valid = cJSON_CreateObject();
    doc = evaluate_all(&st, &t, exit_code);
out:
    cJSON_Delete(t.valid);
    certify_run_free(&st);
    return doc;
}
