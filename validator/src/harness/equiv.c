/* `packcheck equiv`: prove two checkpoints hold the same quantized model (see equiv.h).
 *
 * The comparison goes through the logical view only, so any two formats packcheck decodes can be
 * compared (one layout against another, or two namings of one layout), as the seed's repacking rule
 * asks: the conversion is right when the codes and the dequantized weights agree. A format may add
 * its converter's byte-level contract (pc_format.pair_check, e.g. a rule on how a renamed global
 * scale must be stored), stronger than any weight comparison. Which formats do is in README. */
#include "equiv.h"

#include "../core/pagebuf.h"
#include "../core/util.h"
#include "../report/report.h"
#include "equiv_rows.h"
#include "logical.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EQ_CHUNK (1u << 20)         /* streamed comparison of unquantized tensors */

typedef struct eq_side {
    const char *label;   /* "source" / "target" */
    const char *path;
    pc_ctx cx;
    pc_input *in;
} eq_side;

typedef struct eq_run {
    eq_side s[2];
    pc_ctx ecx;          /* the pair's own findings: CT-005, EQ-*, and each side's first failure */
    pc_tolerance tol;
    cJSON *modules;      /* per-module summaries */
    const pc_format *map; /* the format declaring the pair's module correspondence, or NULL */
} eq_run;

/* ---- step 2: a format's own contract for a converted pair (pc_format.pair_*) ---- */

/* The format whose pair contract applies to (source, target), or NULL. */
static const pc_format *pair_format(const eq_run *r, unsigned *ulp)
{
    for (const pc_format *const *f = pc_formats; *f; f++)
        if ((*f)->pair_detect && (*f)->pair_detect(r->s[0].in, r->s[1].in, ulp)) return *f;
    return NULL;
}

/* The format whose pc_format.pair_map knows (source, target), or NULL: names must then be equal. */
static const pc_format *map_format(const eq_run *r)
{
    for (const pc_format *const *f = pc_formats; *f; f++)
        if ((*f)->pair_map && (*f)->pair_map(r->s[0].in, r->s[1].in, NULL, NULL)) return *f;
    return NULL;
}

/* Where target module or tensor `name` comes from: through the map, else the same name, all rows. */
static pc_pair_ref target_ref(const eq_run *r, const char *name)
{
    pc_pair_ref ref = {name, 0, 1};
    if (r->map && !r->map->pair_map(r->s[0].in, r->s[1].in, name, &ref)) ref.source = NULL;
    return ref;
}

/* ---- EQ-001..EQ-003: the logical views ---- */

static bool same_shape(const pc_module *a, const pc_module *b)
{
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* "[r, c]" (or "[e, r, c]") of a flat index. */
static void index_str(const pc_module *m, size_t i, char *buf, size_t n)
{
    uint64_t c = m->shape[m->ndim - 1], rc = m->ndim == 3 ? m->shape[1] * c : 0;
    if (m->ndim == 3) snprintf(buf, n, "[%llu, %llu, %llu]", (unsigned long long)(i / rc), (unsigned long long)(i % rc / c), (unsigned long long)(i % c));
    else snprintf(buf, n, "[%llu, %llu]", (unsigned long long)(i / c), (unsigned long long)(i % c));
}

/* The source element target element i of b comes from (row map of ref; rows = axis ndim - 2). */
static size_t source_index(const pc_module *a, const pc_module *b, const pc_pair_ref *ref, size_t i)
{
    size_t k = (size_t)b->shape[b->ndim - 1], rb = (size_t)b->shape[b->ndim - 2], ra = (size_t)a->shape[a->ndim - 2];
    size_t col = i % k, row = i / k % rb, e = i / k / rb;
    return (e * ra + (size_t)(ref->first_row + row * ref->row_stride)) * k + col;
}

static void compare_views(eq_run *r, const pc_module *a, const pc_module *b, const pc_pair_ref *ref, cJSON *js)
{
    uint8_t *ca = NULL, *cb = NULL;
    float *wa = NULL, *wb = NULL;
    if (pc_logical_decode(r->s[0].in, a, PC_IMPL_FAST, &ca, &wa, &r->s[0].cx) ||
        pc_logical_decode(r->s[1].in, b, PC_IMPL_FAST, &cb, &wb, &r->s[1].cx)) {
        pc_io_error(&r->ecx, "module %s: could not be decoded", a->prefix);
        goto out;
    }
    size_t n = (size_t)b->numel, code_diffs = 0, w_diffs = 0;
    uint64_t max_ulp = 0;
    double max_abs = 0;
    char at[96];
    for (size_t i = 0; i < n; i++) {
        size_t si = ref ? source_index(a, b, ref, i) : i;
        if (ca[si] != cb[i] && code_diffs++ == 0) {
            index_str(b, i, at, sizeof at);
            pc_report(&r->ecx, "EQ-002", b->prefix, -1, "code %s is %u in %s, %u in %s", at, ca[si], r->s[0].label, cb[i], r->s[1].label);
        }
        uint64_t u = pc_ulp_distance(wa[si], wb[i]);
        double d = fabs((double)wa[si] - (double)wb[i]);
        if (u > max_ulp) max_ulp = u;
        if (d > max_abs) max_abs = d;
        if (!pc_tolerance_within(&r->tol, wa[si], wb[i]) && w_diffs++ == 0) {
            index_str(b, i, at, sizeof at);
            pc_report(&r->ecx, "EQ-003", b->prefix, -1, "weight %s is %.9g (0x%08x) in %s, %.9g (0x%08x) in %s: %llu ULP apart, tolerance %s",
                      at, (double)wa[si], pc_f32_bits(wa[si]), r->s[0].label, (double)wb[i], pc_f32_bits(wb[i]), r->s[1].label,
                      (unsigned long long)u, pc_tolerance_str(&r->tol));
        }
    }
    cJSON_AddNumberToObject(js, "codes_differing", (double)code_diffs);
    cJSON_AddNumberToObject(js, "weights_outside_tolerance", (double)w_diffs);
    cJSON_AddNumberToObject(js, "max_ulp", (double)max_ulp);
    cJSON_AddNumberToObject(js, "max_abs_diff", max_abs);
    cJSON_AddStringToObject(js, "status", code_diffs || w_diffs ? "differ" : "equal");
    /* A row-permuting converter? Asked of views of one shape (a plain rename at most: a split's
     * rows are already placed by its map). */
    bool same_rows = !ref || (ref->first_row == 0 && ref->row_stride == 1 && a->numel == b->numel);
    if (code_diffs && same_rows) pc_equiv_rows(r->s[0].in, a, ca, wa, cb, wb, &r->tol, js);
out:
    free(ca); free(cb); free(wa); free(wb);
}

static void compare_mapped_modules(eq_run *r);

static void compare_modules(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    for (int k = 0; k < 3; k++) pc_eval(&r->ecx, (const char *[]){"EQ-001", "EQ-002", "EQ-003"}[k]);
    if (r->map) { compare_mapped_modules(r); return; }
    for (size_t i = 0; i < b->nmodules; i++)
        if (pc_module_find(a, b->modules[i].prefix) < 0)
            pc_report(&r->ecx, "EQ-001", b->modules[i].prefix, -1, "module %s is quantized in %s only", b->modules[i].prefix, r->s[1].label);
    for (size_t i = 0; i < a->nmodules && !r->ecx.io_error && !r->ecx.oom; i++) {
        const pc_module *ma = &a->modules[i];
        long j = pc_module_find(b, ma->prefix);
        cJSON *js = cJSON_CreateObject();
        cJSON_AddStringToObject(js, "module", ma->prefix);
        cJSON_AddStringToObject(js, "source_layout", ma->layout);
        cJSON_AddStringToObject(js, "target_layout", j < 0 ? "" : b->modules[j].layout);
        cJSON_AddItemToArray(r->modules, js);
        if (j < 0) {
            pc_report(&r->ecx, "EQ-001", ma->prefix, -1, "module %s is quantized in %s only", ma->prefix, r->s[0].label);
            cJSON_AddStringToObject(js, "status", "missing");
        } else if (!same_shape(ma, &b->modules[j])) {
            pc_report(&r->ecx, "EQ-001", ma->prefix, -1, "module %s: logical shapes differ", ma->prefix);
            cJSON_AddStringToObject(js, "status", "differ");
        } else {
            compare_views(r, ma, &b->modules[j], NULL, js);
        }
    }
}

/* The map's shapes: same experts and columns, and the target's rows are every row_stride-th source
 * row from first_row, to the end. */
static bool mapped_shape(const pc_module *a, const pc_module *b, const pc_pair_ref *ref)
{
    int d = a->ndim;
    if (d != b->ndim || a->shape[d - 1] != b->shape[d - 1] || (d == 3 && a->shape[0] != b->shape[0])) return false;
    uint64_t ra = a->shape[d - 2], rb = b->shape[d - 2], s = ref->row_stride;
    return s >= 1 && ref->first_row < s && rb <= UINT64_MAX / s && rb * s == ra;
}

/* Modules paired through the format's map (pc_format.pair_map): each target module from its source
 * rows, then every source row must have been used once (EQ-001 otherwise). */
static void compare_mapped_modules(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    uint64_t *rows = calloc(a->nmodules ? a->nmodules : 1, sizeof *rows);
    if (!rows) { r->ecx.oom = true; return; }
    for (size_t j = 0; j < b->nmodules && !r->ecx.io_error && !r->ecx.oom; j++) {
        const pc_module *mb = &b->modules[j];
        pc_pair_ref ref = target_ref(r, mb->prefix);
        long i = ref.source ? pc_module_find(a, ref.source) : -1;
        cJSON *js = cJSON_CreateObject();
        cJSON_AddStringToObject(js, "module", mb->prefix);
        cJSON_AddStringToObject(js, "source_module", i < 0 ? "" : a->modules[i].prefix);
        cJSON_AddStringToObject(js, "source_layout", i < 0 ? "" : a->modules[i].layout);
        cJSON_AddStringToObject(js, "target_layout", mb->layout);
        cJSON_AddItemToArray(r->modules, js);
        if (i < 0) {
            pc_report(&r->ecx, "EQ-001", mb->prefix, -1, "module %s is quantized in %s only", mb->prefix, r->s[1].label);
            cJSON_AddStringToObject(js, "status", "missing");
        } else if (!mapped_shape(&a->modules[i], mb, &ref)) {
            pc_report(&r->ecx, "EQ-001", mb->prefix, -1, "module %s: logical shape is not rows %llu::%llu of %s", mb->prefix,
                      (unsigned long long)ref.first_row, (unsigned long long)ref.row_stride, ref.source);
            cJSON_AddStringToObject(js, "status", "differ");
        } else {
            rows[i] += mb->shape[mb->ndim - 2];
            compare_views(r, &a->modules[i], mb, &ref, js);
        }
    }
    for (size_t i = 0; i < a->nmodules; i++) {
        const pc_module *ma = &a->modules[i];
        if (rows[i] != ma->shape[ma->ndim - 2])
            pc_report(&r->ecx, "EQ-001", ma->prefix, -1, "module %s: %llu of its %llu rows are in %s", ma->prefix, (unsigned long long)rows[i],
                      (unsigned long long)ma->shape[ma->ndim - 2], r->s[1].label);
    }
    free(rows);
}

/* ---- EQ-004: tensors outside every quantized module ---- */

/* Is tensor `name` part of a quantized module of `in` (M.<anything> with M a module prefix, or a
 * tensor a module claimed under another naming, such as M_blocks)? */
static bool in_module(const pc_input *in, const char *name)
{
    const pc_tensor *t = in->claimed_by ? pc_input_find(in, name) : NULL;
    if (t && in->claimed_by[t - in->tensors]) return true;
    const char *dot = strrchr(name, '.');
    if (!dot) return false;
    char *p = pc_strndup(name, (size_t)(dot - name));
    bool hit = p && pc_module_find(in, p) >= 0;
    free(p);
    return hit;
}

static bool same_bytes(const pc_tensor *x, const pc_tensor *y, uint64_t *at, pc_ctx *cx)
{
    uint8_t *a = pc_page_alloc(EQ_CHUNK), *b = pc_page_alloc(EQ_CHUNK);
    bool same = true;
    if (!a || !b) { cx->oom = true; same = false; }
    for (uint64_t off = 0; same && off < x->nbytes; off += EQ_CHUNK) {
        size_t n = (size_t)(x->nbytes - off < EQ_CHUNK ? x->nbytes - off : EQ_CHUNK);
        if (pc_tensor_read(x, off, a, n) || pc_tensor_read(y, off, b, n)) { pc_io_error(cx, "%s: read failed", x->name); same = false; break; }
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i]) { *at = off + i; same = false; break; }
    }
    free(a);
    free(b);
    return same;
}

/* The element type by name, so one container's F32 equals another's (a typed container's dtype, or
 * the type id of a container that stores one per tensor: pc_ggml_type_name). */
static const char *elem_type(const pc_tensor *t)
{
    return t->dtype == PC_DT_GGML ? pc_ggml_type_name(t->ggml_type) : pc_dtype_name(t->dtype);
}

static void compare_plain_tensor(eq_run *r, const pc_tensor *x, const pc_tensor *y)
{
    if (!y) {
        pc_report(&r->ecx, "EQ-004", x->name, (int64_t)x->offset, "%s is in %s only (or quantized in %s)", x->name, r->s[0].label, r->s[1].label);
        return;
    }
    if (strcmp(elem_type(x), elem_type(y)) || x->ndim != y->ndim || memcmp(x->shape, y->shape, sizeof x->shape)) {
        pc_report(&r->ecx, "EQ-004", y->name, (int64_t)y->offset, "%s: %s rank %d in %s, %s rank %d in %s", x->name, elem_type(x), x->ndim,
                  r->s[0].label, elem_type(y), y->ndim, r->s[1].label);
        return;
    }
    uint64_t at = 0;
    if (!same_bytes(x, y, &at, &r->ecx) && !r->ecx.io_error && !r->ecx.oom)
        pc_report(&r->ecx, "EQ-004", y->name, (int64_t)(y->offset + at), "%s: byte %llu differs", x->name, (unsigned long long)at);
}

/* Plain tensors paired through the format's map (renames only): each target tensor against the
 * source tensor it names, then the source tensors no target tensor came from. */
static void compare_mapped_plain(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    bool *used = calloc(a->ntensors ? a->ntensors : 1, sizeof *used);
    if (!used) { r->ecx.oom = true; return; }
    for (size_t j = 0; j < b->ntensors && !r->ecx.io_error && !r->ecx.oom; j++) {
        const pc_tensor *y = &b->tensors[j];
        if (in_module(b, y->name)) continue;
        pc_pair_ref ref = target_ref(r, y->name);
        const pc_tensor *x = ref.source && ref.first_row == 0 && ref.row_stride == 1 ? pc_input_find(a, ref.source) : NULL;
        if (!x || in_module(a, x->name)) {
            pc_report(&r->ecx, "EQ-004", y->name, (int64_t)y->offset, "%s is in %s only", y->name, r->s[1].label);
            continue;
        }
        used[x - a->tensors] = true;
        compare_plain_tensor(r, x, y);
    }
    for (size_t i = 0; i < a->ntensors && !r->ecx.io_error && !r->ecx.oom; i++)
        if (!used[i] && !in_module(a, a->tensors[i].name))
            compare_plain_tensor(r, &a->tensors[i], NULL);
    free(used);
}

static void compare_plain(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    pc_eval(&r->ecx, "EQ-004");
    if (r->map) { compare_mapped_plain(r); return; }
    for (size_t i = 0; i < a->ntensors && !r->ecx.io_error && !r->ecx.oom; i++) {
        const pc_tensor *x = &a->tensors[i];
        if (in_module(a, x->name)) continue;
        const pc_tensor *y = pc_input_find(b, x->name);
        compare_plain_tensor(r, x, y && !in_module(b, y->name) ? y : NULL);
    }
    for (size_t i = 0; i < b->ntensors; i++) {
        const pc_tensor *y = &b->tensors[i];
        if (!in_module(b, y->name) && !pc_input_find(a, y->name))
            pc_report(&r->ecx, "EQ-004", y->name, (int64_t)y->offset, "%s is in %s only", y->name, r->s[1].label);
    }
}

/* ---- the run ---- */

static bool open_side(eq_side *s, pc_profile p)
{
    if (pc_ctx_init(&s->cx, p)) return false;
    s->in = pc_input_open(s->path, NULL, &s->cx);
    if (s->in) pc_validate(s->in, &s->cx);
    return s->in && !s->cx.io_error && !s->cx.oom;
}

/* A side that fails validation makes the pair differ by the rule it breaks. */
static void forward_rejection(eq_run *r, const eq_side *s)
{
    for (size_t i = 0; i < s->cx.nfindings; i++) {
        const pc_finding *f = &s->cx.findings[i];
        if (f->status != PC_STATUS_FAIL) continue;
        pc_report(&r->ecx, f->rule->id, f->tensor, f->offset, "%s %s is rejected: %s", s->label, s->path, f->message);
        return;
    }
}

static cJSON *first_difference(const pc_ctx *cx)
{
    for (size_t i = 0; i < cx->nfindings; i++) {
        const pc_finding *f = &cx->findings[i];
        if (f->status != PC_STATUS_FAIL) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "rule", f->rule->id);
        cJSON_AddStringToObject(o, "tensor", f->tensor);
        if (f->offset >= 0) cJSON_AddNumberToObject(o, "offset", (double)f->offset);
        cJSON_AddStringToObject(o, "message", f->message);
        return o;
    }
    return NULL;
}

static cJSON *result_json(const char *rule, pc_status st, const char *tensor, int64_t offset, const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "rule", rule);
    cJSON_AddStringToObject(e, "status", pc_status_name(st));
    cJSON_AddStringToObject(e, "tensor", tensor);
    if (offset >= 0) cJSON_AddNumberToObject(e, "offset", (double)offset);
    cJSON_AddStringToObject(e, "message", msg);
    return e;
}

/* The pair as one more report input: its EQ-* results, the rules a format's pair contract evaluated
 * (CT-005), and any other rule it failed by (a side's rejection), in catalogue order. */
static cJSON *pair_input_json(const eq_run *r, int verdict)
{
    char *label = pc_asprintf("equiv %s -> %s", r->s[0].path, r->s[1].path);
    cJSON *pair = cJSON_CreateObject();
    cJSON_AddStringToObject(pair, "path", label ? label : "equiv");
    free(label);
    cJSON_AddStringToObject(pair, "format", "equiv");
    cJSON_AddStringToObject(pair, "verdict", verdict == PC_EQUIV_EQUAL ? "pass" : verdict == PC_EQUIV_DIFFER ? "reject" : "error");
    cJSON *res = cJSON_AddArrayToObject(pair, "results");
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *rule = pc_rule_at(i);
        pc_status st = pc_rule_status(&r->ecx, rule);
        if (strcmp(rule->family, "EQ") && st == PC_STATUS_SKIP) continue;
        bool any = false;
        for (size_t k = 0; k < r->ecx.nfindings; k++) {
            const pc_finding *f = &r->ecx.findings[k];
            if (f->rule != rule) continue;
            cJSON_AddItemToArray(res, result_json(rule->id, f->status, f->tensor, f->offset, f->message));
            any = true;
        }
        if (!any) cJSON_AddItemToArray(res, result_json(rule->id, st, "", -1, ""));
    }
    return pair;
}

static cJSON *build_doc(eq_run *r, int verdict)
{
    static const char *const names[] = {"equal", "differ", "error"};
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "equiv");
    cJSON_AddStringToObject(doc, "source", r->s[0].path);
    cJSON_AddStringToObject(doc, "target", r->s[1].path);
    for (int i = 0; i < 2; i++)
        cJSON_AddStringToObject(doc, i ? "target_format" : "source_format", r->s[i].in ? pc_input_format(r->s[i].in) : "");
    cJSON_AddStringToObject(doc, "tolerance", pc_tolerance_str(&r->tol));
    cJSON_AddStringToObject(doc, "verdict", names[verdict]);
    cJSON *fd = verdict == PC_EQUIV_DIFFER ? first_difference(&r->ecx) : NULL;
    cJSON_AddItemToObject(doc, "rule", fd ? cJSON_CreateString(pc_json_str(fd, "rule")) : cJSON_CreateNull());
    cJSON_AddItemToObject(doc, "first_difference", fd ? fd : cJSON_CreateNull());
    if (verdict == PC_EQUIV_ERROR) {
        const char *why = "out of memory";
        for (int i = 1; i >= 0; i--) if (r->s[i].cx.io_error) why = r->s[i].cx.io_message;
        if (r->ecx.io_error) why = r->ecx.io_message;
        cJSON_AddStringToObject(doc, "error", why);
    }
    cJSON_AddItemToObject(doc, "modules", r->modules);
    r->modules = NULL;
    /* "inputs": both sides as validate reports them, then the pair, so every writer renders it. */
    cJSON *inputs = cJSON_AddArrayToObject(doc, "inputs");
    for (int i = 0; i < 2; i++) {
        pc_result res = {r->s[i].path, r->s[i].in, &r->s[i].cx, -1};
        cJSON_AddItemToArray(inputs, pc_report_input_json(&res));
    }
    cJSON_AddItemToArray(inputs, pair_input_json(r, verdict));
    return doc;
}

cJSON *pc_equiv_run(const char *source, const char *target, const pc_tolerance *tol, pc_profile profile, int *verdict)
{
    eq_run r;
    memset(&r, 0, sizeof r);
    r.s[0] = (eq_side){"source", source, {0}, NULL};
    r.s[1] = (eq_side){"target", target, {0}, NULL};
    r.modules = cJSON_CreateArray();
    *verdict = PC_EQUIV_ERROR;
    if (pc_ctx_init(&r.ecx, profile) || !r.modules) { cJSON_Delete(r.modules); return NULL; }
    bool ok0 = open_side(&r.s[0], profile), ok1 = open_side(&r.s[1], profile);
    r.tol = *tol;
    if (ok0 && ok1) {
        unsigned ulp = 0;
        const pc_format *pf = pair_format(&r, &ulp);
        r.map = map_format(&r);
        if (!tol->given && pf && ulp) r.tol = (pc_tolerance){PC_TOL_ULP, ulp == PC_ULP_SIGNED_ZERO ? 0 : ulp, false};
        for (int i = 0; i < 2; i++) if (pc_rejected(&r.s[i].cx)) forward_rejection(&r, &r.s[i]);
        if (!pc_rejected(&r.ecx)) {
            if (pf && pf->pair_check) pf->pair_check(r.s[0].in, r.s[1].in, &r.ecx);
            if (!r.ecx.io_error) compare_modules(&r);
            if (!r.ecx.io_error && !r.ecx.oom) compare_plain(&r);
        }
        *verdict = r.ecx.io_error || r.ecx.oom ? PC_EQUIV_ERROR : pc_rejected(&r.ecx) ? PC_EQUIV_DIFFER : PC_EQUIV_EQUAL;
    }
    cJSON *doc = build_doc(&r, *verdict);
    cJSON_Delete(r.modules);
    for (int i = 0; i < 2; i++) { pc_input_free(r.s[i].in); pc_ctx_free(&r.s[i].cx); }
    pc_ctx_free(&r.ecx);
    return doc;
}
