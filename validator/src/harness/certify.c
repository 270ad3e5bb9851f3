/* `packcheck certify` (CONTRACT 5). One process per case, in its own process group, at most
 * `jobs` at a time; a reader past its deadline has its whole group killed, and so does a reader
 * that exits leaving children behind. Exit 0 + logical view = accepted, exit 1 = refused, anything
 * else = crash. What the reader wrote is read with our own container reader, compared with the
 * corpus's pinned hashes and our reference view, and every wrong output is diagnosed. */
#define _XOPEN_SOURCE 700
#include "certify.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "corpus.h"
#include "diagnose.h"
#include "expect_fail.h"
#include "logical.h"
#include "runner.h"

#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define VIEW_LIMIT (1ull << 32)      /* bytes of one output tensor we are willing to load */
#define PICTURE_MAX 64               /* side of the expected-vs-got window */

static const char *const k_outcomes[] = {"pass", "wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout"};
enum { O_PASS, O_WRONG, O_ACCEPTED_INVALID, O_REJECTED_VALID, O_CRASH, O_TIMEOUT, O_COUNT };

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

static bool shape_equals(const pc_tensor *t, const cJSON *shape)
{
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) != t->ndim) return false;
    for (int d = 0; d < t->ndim; d++)
        if (cJSON_GetArrayItem(shape, d)->valuedouble != (double)t->shape[d]) return false;
    return true;
}

/* The same shape except the last dimension (padded columns kept, or a layout misread that
 * truncates): still worth diagnosing. */
static bool shape_other_width(const pc_tensor *t, const cJSON *shape)
{
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) != t->ndim || t->ndim < 1) return false;
    for (int d = 0; d < t->ndim - 1; d++)
        if (cJSON_GetArrayItem(shape, d)->valuedouble != (double)t->shape[d]) return false;
    return t->shape[t->ndim - 1] > 0;
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
        return;
    }
}

typedef struct got_tensors { uint8_t *codes; float *weights; uint64_t k; bool codes_ok, weights_ok; } got_tensors;

static bool hash_is(const void *p, size_t n, const char *want)
{
    char hex[65];
    pc_sha256_hex(p, n, hex);
    return *want && !strcmp(hex, want);
}

/* Read M.codes / M.weight of the output, checking dtype and shape. */
static int read_got(mod_check *mc, const pc_input *out, const char *name, const cJSON *pin, got_tensors *g, bool *shape_pad)
{
    const cJSON *shape = cJSON_GetObjectItem(pin, "shape");
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
        bool wide = false;
        if (!shape_equals(t, shape)) {
            wide = shape_other_width(t, shape);
            if (!wide) { add_problem(mc, "%s: shape differs from the pinned one", t->name); return -1; }
            *shape_pad = true;
        }
        void *data = pc_tensor_load(t, VIEW_LIMIT);
        if (!data) { add_problem(mc, "%s: unreadable", t->name); return -1; }
        g->k = t->ndim ? t->shape[t->ndim - 1] : 1;
        if (w) g->weights = data; else g->codes = data;
        if (!wide && !w) g->codes_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "codes_sha256"));
        if (!wide && w) g->weights_ok = hash_is(data, (size_t)t->nbytes, pc_json_str(pin, "weight_f32_sha256"));
    }
    if (tc && tw && tc->ndim == tw->ndim && tc->shape[tc->ndim - 1] != tw->shape[tw->ndim - 1]) {
        add_problem(mc, "module %s: codes and weight shapes differ", name);
        return -1;
    }
    return 0;
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

/* An accepted case: is the output the corpus's logical view? Fills detail fields of c. */
static int check_output(const pc_case *k, const char *out_path, unsigned ulp, bool want_picture, cJSON *c, pc_sb *detail)
{
    pc_ctx ocx;
    if (pc_ctx_init(&ocx, PC_PROFILE_STRICT)) return O_WRONG;
    int outcome = O_PASS;
    pc_input *out = NULL;
    ref_view rv = {0};
    mod_check mc = {cJSON_CreateArray(), NULL, NULL, NULL};
    if (!pc_file_exists(out_path)) { add_problem(&mc, "exit 0 but no output file"); goto done; }
    out = pc_input_open(out_path, NULL, &ocx);
    if (!out || ocx.oom || ocx.io_error || pc_rejected(&ocx) || out->is_gguf) {
        add_problem(&mc, "the output is not a valid safetensors file: %s", out && out->is_gguf ? "GGUF" : short_reason(&ocx));
        goto done;
    }
    const cJSON *pin;
    cJSON_ArrayForEach(pin, cJSON_GetObjectItem(k->expect, "modules")) check_module(&mc, &rv, k, out, pin, ulp, want_picture);
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

/* A reader built with sanitizers may find its own memory error and still exit 0 or 1. */
static const char *sanitizer_report(const char *log)
{
    static const char *const marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "ERROR: MemorySanitizer",
                                        "WARNING: ThreadSanitizer", "runtime error: "};
    size_t len;
    char *t = pc_slurp(log, 64u << 20, &len);
    const char *hit = NULL;
    for (size_t i = 0; t && !hit && i < sizeof marks / sizeof *marks; i++)
        if (memmem(t, len, marks[i], strlen(marks[i]))) hit = marks[i];
    free(t);
    return hit;
}

static int classify(const pc_case *k, const pc_run *r, const char *out_path, unsigned ulp, bool want_picture, bool container_only,
                    cJSON *c, pc_sb *detail)
{
    const char *verdict = pc_json_str(k->expect, "verdict");
    if (r->spawn_failed) { pc_sb_puts(detail, "could not start the reader (fork failed)"); return O_CRASH; }
    if (r->timed_out) { pc_sb_printf(detail, "still running after %.1f s; process group killed", r->secs); return O_TIMEOUT; }
    if (WIFSIGNALED(r->status)) { pc_sb_printf(detail, "killed by signal %d (%s)", WTERMSIG(r->status), strsignal(WTERMSIG(r->status))); return O_CRASH; }
    int code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
    if (code != 0 && code != 1) { pc_sb_printf(detail, "exit %d (only 0 = accepted and 1 = refused are answers)", code); return O_CRASH; }
    const char *san = sanitizer_report(r->log);
    if (san) { pc_sb_printf(detail, "exit %d, but the reader's output holds a sanitizer report (%s): a memory error is a crash, whatever the exit code", code, san); return O_CRASH; }
    if (code == 1) {
        if (!strcmp(verdict, "pass")) { pc_sb_puts(detail, "refused a valid input"); return O_REJECTED_VALID; }
        return O_PASS;
    }
    if (!strcmp(verdict, "reject")) {
        const char *rule = pc_json_str(k->expect, "reject_rule");
        pc_sb_printf(detail, "accepted an input that breaks %s", *rule ? rule : pc_json_str(k->expect, "reject_family"));
        return O_ACCEPTED_INVALID;
    }
    if (container_only) return O_PASS; /* accepted a valid input: the verdict is all a container reader gives */
    return check_output(k, out_path, ulp, want_picture, c, detail);
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
        if (strstr(id, o->only[i])) return true;
    return false;
}

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *f)
{
    (void)st; (void)type; (void)f;
    return remove(p);
}

/* Everything one certify run holds. */
typedef struct certify_run {
    const pc_certify_opts *o;
    FILE *log;
    pc_corpus c;
    pc_xf_list xf;
    pc_run *runs;       /* per case; cmd NULL when the case is not run */
    char **outs;        /* per case: where the reader writes its view */
    char *work;
    bool own_work;
    cJSON *skipped;
} certify_run;

typedef struct tally { int outcomes[O_COUNT], xfail, stale, fail, run, pictures; } tally;

static void certify_run_free(certify_run *st)
{
    for (size_t i = 0; st->runs && i < st->c.ncases; i++) { free(st->runs[i].log); free(st->runs[i].cmd); free(st->outs[i]); }
    free(st->runs);
    free(st->outs);
    if (st->own_work && st->work) nftw(st->work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(st->work);
    cJSON_Delete(st->skipped);
    pc_xf_free(&st->xf);
    pc_corpus_free(&st->c);
}

/* Corpus (pins must hold), expected failures, work directory, one command line per selected case. */
static int prepare(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    if (pc_corpus_load(o->corpus, &st->c, st->log)) return -1;
    cJSON *pins = cJSON_CreateArray();
    int bad = pc_corpus_verify_pins(&st->c, pins, st->log);
    cJSON_Delete(pins);
    if (bad) { fprintf(st->log, "certify: %s: the corpus does not match its MANIFEST.sha256; refusing to certify against it\n", o->corpus); return -1; }
    if (o->expect_fail && pc_xf_load(o->expect_fail, &st->xf, o->update_expect, st->log)) return -1;
    if (o->workdir) {
        st->work = pc_strdup(o->workdir);
        mkdir(st->work, 0755);
    } else {
        const char *tmp = getenv("TMPDIR");
        st->work = pc_asprintf("%s/packcheck-certify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!st->work || !mkdtemp(st->work)) { fprintf(st->log, "certify: cannot create a work directory\n"); return -1; }
        st->own_work = true;
    }
    size_t n = st->c.ncases ? st->c.ncases : 1;
    st->runs = calloc(n, sizeof *st->runs);
    st->outs = calloc(n, sizeof *st->outs);
    st->skipped = cJSON_CreateArray();
    if (!st->runs || !st->outs || !st->skipped) return -1;
    for (size_t i = 0; i < st->c.ncases; i++) {
        const pc_case *k = &st->c.cases[i];
        if (!selected(o, k->id)) continue;
        const char *why = profile_skip(&st->c, k, o->profile ? o->profile : "strict");
        if (why) {
            cJSON *sk = cJSON_CreateObject();
            cJSON_AddStringToObject(sk, "case", k->id);
            cJSON_AddStringToObject(sk, "reason", why);
            cJSON_AddItemToArray(st->skipped, sk);
            continue;
        }
        char *dir = pc_asprintf("%s/%zu", st->work, i);
        if (!dir) return -1;
        mkdir(dir, 0755);
        free(dir);
        st->outs[i] = pc_asprintf("%s/%zu/view.safetensors", st->work, i);
        st->runs[i].log = pc_asprintf("%s/%zu.log", st->work, i);
        if (!st->outs[i] || !st->runs[i].log) return -1;
        remove(st->outs[i]);
        st->runs[i].cmd = pc_certify_command(o->reader, k->input, st->outs[i], o->profile);
        if (!st->runs[i].cmd) return -1;
    }
    return 0;
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
    cJSON_AddNumberToObject(corp, "cases", (double)st->c.ncases);
    cJSON_AddStringToObject(doc, "manifest_sha256", st->c.manifest_sha256);
    cJSON *opts = cJSON_AddObjectToObject(doc, "options");
    cJSON_AddNumberToObject(opts, "timeout_s", o->timeout_s);
    cJSON_AddNumberToObject(opts, "ulp", o->ulp);
    cJSON_AddNumberToObject(opts, "jobs", o->jobs);
    cJSON_AddStringToObject(opts, "profile", o->profile ? o->profile : "strict");
    cJSON_AddBoolToObject(opts, "partial", o->nonly > 0);
    cJSON_AddBoolToObject(opts, "container_only", o->container_only);
    if (o->expect_fail) cJSON_AddStringToObject(opts, "expect_fail", o->expect_fail);
    return doc;
}

/* Hold an outcome to the expected-failure list: ok, expected-fail, fail or stale. */
static const char *judge(certify_run *st, const pc_case *k, int oc, cJSON *cj, pc_sb *detail, tally *t)
{
    pc_xf_entry *xe = pc_xf_find(&st->xf, k->id);
    if (!xe) {
        if (oc == O_PASS) return "ok";
        t->fail++;
        return "fail";
    }
    xe->seen = true;
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

static cJSON *evaluate_case(certify_run *st, size_t i, tally *t)
{
    const pc_case *k = &st->c.cases[i];
    const pc_run *r = &st->runs[i];
    cJSON *cj = cJSON_CreateObject();
    cJSON_AddStringToObject(cj, "case", k->id);
    cJSON_AddStringToObject(cj, "expected", pc_json_str(k->expect, "verdict"));
    pc_sb detail = {0};
    bool want_pic = is_patterned(k) || t->pictures < 3;
    int oc = classify(k, r, st->outs[i], st->o->ulp, want_pic, st->o->container_only, cj, &detail);
    t->pictures += cJSON_GetObjectItem(cj, "picture") != NULL;
    t->outcomes[oc]++;
    t->run++;
    cJSON_AddStringToObject(cj, "outcome", k_outcomes[oc]);
    if (r->timed_out) cJSON_AddStringToObject(cj, "exit", "timeout");
    else if (WIFSIGNALED(r->status)) cJSON_AddNumberToObject(cj, "signal", WTERMSIG(r->status));
    else if (WIFEXITED(r->status)) cJSON_AddNumberToObject(cj, "exit", WEXITSTATUS(r->status));
    cJSON_AddNumberToObject(cj, "seconds", (double)(long)(r->secs * 1000) / 1000);
    const char *status = judge(st, k, oc, cj, &detail, t);
    cJSON_AddStringToObject(cj, "status", status);
    char *d = pc_sb_take(&detail);
    char *dd = d ? replace_all(d, st->outs[i], "{output}") : NULL;
    cJSON_AddStringToObject(cj, "detail", dd ? dd : "");
    free(dd);
    free(d);
    if (oc != O_PASS) { char *tail = pc_run_log_tail(r->log); cJSON_AddStringToObject(cj, "log_tail", tail ? tail : ""); free(tail); }
    const cJSON *rl = cJSON_GetObjectItem(k->expect, "rules");
    cJSON_AddItemToObject(cj, "rules", cJSON_IsArray(rl) ? cJSON_Duplicate(rl, 1) : cJSON_CreateArray());
    if (*pc_json_str(k->expect, "reject_rule")) cJSON_AddStringToObject(cj, "reject_rule", pc_json_str(k->expect, "reject_rule"));
    if (*pc_json_str(k->expect, "reject_family")) cJSON_AddStringToObject(cj, "reject_family", pc_json_str(k->expect, "reject_family"));
    fprintf(st->log, "%-16s %s%s%s\n", !strcmp(status, "stale") ? "STALE" : !strcmp(status, "expected-fail") ? "xfail" : k_outcomes[oc], k->id,
            oc != O_PASS ? ": " : "", oc != O_PASS ? pc_json_str(cj, "detail") : "");
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
}

cJSON *pc_certify_run(const pc_certify_opts *o, int *exit_code)
{
    certify_run st = {.o = o, .log = o->log ? o->log : stderr};
    cJSON *doc = NULL;
    *exit_code = PC_EXIT_ERROR;
    if (prepare(&st)) goto out;
    fprintf(st.log, "certify: %zu cases, reader: %s\n", st.c.ncases, o->reader);
    int sig = pc_run_all(st.runs, st.c.ncases, o->jobs, o->timeout_s, o->mem_limit_mb);
    if (sig) {
        fprintf(st.log, "certify: interrupted by signal %d; every reader's process group was killed\n", sig);
        goto out;
    }
    doc = doc_header(&st);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    cJSON *rules = cJSON_CreateObject(), *fams = cJSON_CreateObject();
    tally t = {0};
    for (size_t i = 0; i < st.c.ncases; i++) {
        if (!st.runs[i].cmd) continue;
        cJSON *cj = evaluate_case(&st, i, &t);
        rollup_case(rules, fams, &st.c.cases[i], pc_outcome_index(pc_json_str(cj, "outcome")), pc_json_str(cj, "status"));
        cJSON_AddItemToArray(cases, cj);
    }
    doc_summary(&st, doc, rules, fams, &t);
    cJSON_Delete(rules);
    cJSON_Delete(fams);
    if (o->update_expect) {
        if (pc_xf_write(o->expect_fail, &st.xf, cases, o->name ? o->name : o->reader)) {
            fprintf(st.log, "certify: cannot write %s\n", o->expect_fail);
            cJSON_Delete(doc);
            doc = NULL;
            goto out;
        }
        fprintf(st.log, "certify: rewrote %s from this run\n", o->expect_fail);
        t.fail = t.stale = 0;
    }
    bool certified = t.fail == 0 && t.stale == 0;
    cJSON_AddBoolToObject(doc, "certified", certified);
    cJSON_AddStringToObject(doc, "verdict", certified ? "certified" : "not certified");
    cJSON_AddArrayToObject(doc, "inputs");
    fprintf(st.log, "certify: %s: %d run, %d pass, %d expected failures, %d unexpected failures, %d stale expected failures\n",
            certified ? "CERTIFIED" : "NOT CERTIFIED", t.run, t.outcomes[O_PASS], t.xfail, t.fail, t.stale);
    *exit_code = certified ? PC_EXIT_OK : PC_EXIT_REJECT;
out:
    certify_run_free(&st);
    return doc;
}
