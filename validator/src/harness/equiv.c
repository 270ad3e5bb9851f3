/* `packcheck equiv`: prove two checkpoints hold the same quantized model (see equiv.h).
 *
 * The comparison goes through the logical view only, so any two formats packcheck decodes can be
 * compared (GPTQ vs AWQ, ct-legacy vs ct-dense, ModelOpt vs compressed-tensors NVFP4, ...), as the
 * seed's repacking rule asks: the conversion is right when the codes and the dequantized weights
 * agree. For the NVFP4 naming pair the converter's byte-level contract (CT-005) is checked too,
 * since it is stronger than any weight comparison: bytes copied, scales inverted in f32. */
#include "equiv.h"

#include "../core/pagebuf.h"
#include "../core/util.h"
#include "../report/report.h"
#include "logical.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EQ_LOAD_LIMIT (1ull << 29)  /* bytes of one tensor compared byte for byte in memory */
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
} eq_run;

/* ---- tolerance ---- */

int pc_tolerance_parse(const char *s, pc_tolerance *t)
{
    static const struct { const char *pfx; pc_tol_kind kind; } k[] = {{"ulp:", PC_TOL_ULP}, {"abs:", PC_TOL_ABS}, {"rel:", PC_TOL_REL}};
    memset(t, 0, sizeof *t);
    t->given = true;
    if (!strcmp(s, "exact") || !strcmp(s, "0")) return 0;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        size_t n = strlen(k[i].pfx);
        if (strncmp(s, k[i].pfx, n)) continue;
        char *end = NULL;
        double v = strtod(s + n, &end);
        if (end == s + n || *end || !isfinite(v) || v < 0) return -1;
        if (k[i].kind == PC_TOL_ULP && (v != floor(v) || v > 2147483647.0)) return -1;
        t->kind = k[i].kind;
        t->value = v;
        return 0;
    }
    return -1;
}

const char *pc_tolerance_str(const pc_tolerance *t)
{
    static char buf[64];
    switch (t->kind) {
    case PC_TOL_ULP: snprintf(buf, sizeof buf, "ulp:%.0f", t->value); break;
    case PC_TOL_ABS: snprintf(buf, sizeof buf, "abs:%g", t->value); break;
    case PC_TOL_REL: snprintf(buf, sizeof buf, "rel:%g", t->value); break;
    default: snprintf(buf, sizeof buf, "exact"); break;
    }
    return buf;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Floats in the integer order of their values (+0 and -0 both map to 0): ULP distance is a
 * difference of these. */
static int64_t f32_ordered(float f)
{
    uint32_t u = f32_bits(f);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

static uint64_t ulp_distance(float a, float b)
{
    int64_t d = f32_ordered(a) - f32_ordered(b);
    return (uint64_t)(d < 0 ? -d : d);
}

static bool within(const pc_tolerance *t, float a, float b)
{
    if (f32_bits(a) == f32_bits(b)) return true;
    if (isnan(a) || isnan(b)) return false;
    switch (t->kind) {
    case PC_TOL_ULP: return ulp_distance(a, b) <= (uint64_t)t->value;
    case PC_TOL_ABS: return fabs((double)a - (double)b) <= t->value;
    case PC_TOL_REL: return fabs((double)a - (double)b) <= t->value * fmax(fabs((double)a), fabs((double)b));
    default: return false;
    }
}

/* ---- CT-005: the ModelOpt -> compressed-tensors converter's contract ---- */

static const pc_tensor *find2(const pc_input *in, const char *prefix, const char *suffix)
{
    char *n = pc_asprintf("%s.%s", prefix, suffix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

static float read_f32(const pc_tensor *t)
{
    uint8_t b[4] = {0};
    float f = NAN;
    if (t->nbytes >= 4 && pc_tensor_read(t, 0, b, 4) == 0) {
        uint32_t u = pc_le32(b);
        memcpy(&f, &u, 4);
    }
    return f;
}

/* Byte-for-byte copy: `to` holds exactly `from`'s bytes. Names a nibble swap when it sees one. */
static void ct005_bytes(eq_run *r, const pc_tensor *from, const pc_tensor *to, uint64_t row_bytes)
{
    if (from->dtype != to->dtype || from->nbytes != to->nbytes || from->ndim != to->ndim ||
        memcmp(from->shape, to->shape, sizeof from->shape)) {
        pc_report(&r->ecx, "CT-005", to->name, (int64_t)to->offset, "%s is %s [%d dims, %llu bytes], %s is %s [%d dims, %llu bytes]: not a copy",
                  to->name, pc_dtype_name(to->dtype), to->ndim, (unsigned long long)to->nbytes, from->name,
                  pc_dtype_name(from->dtype), from->ndim, (unsigned long long)from->nbytes);
        return;
    }
    uint8_t *a = pc_tensor_load(from, EQ_LOAD_LIMIT), *b = pc_tensor_load(to, EQ_LOAD_LIMIT);
    if (!a || !b) {
        pc_io_error(&r->ecx, "%s / %s: cannot read for the byte comparison", from->name, to->name);
    } else {
        for (uint64_t i = 0; i < from->nbytes; i++) {
            if (a[i] == b[i]) continue;
            uint8_t swapped = (uint8_t)((a[i] >> 4) | (a[i] << 4)), x = (uint8_t)(a[i] ^ b[i]);
            /* Codes 0x0 and 0x8 are +0 and -0: the libraries disagree on the sign of an exact zero. */
            bool zero_sign = (x == 0x08 && !(a[i] & 0x07)) || (x == 0x80 && !(a[i] & 0x70));
            pc_report(&r->ecx, "CT-005", to->name, (int64_t)(to->offset + i),
                      "byte %llu (row %llu, byte %llu) is 0x%02x, %s has 0x%02x%s", (unsigned long long)i,
                      (unsigned long long)(row_bytes ? i / row_bytes : 0), (unsigned long long)(row_bytes ? i % row_bytes : i),
                      b[i], from->name, a[i], b[i] == swapped ? ": the nibbles are swapped (CT-005 forbids a swap)"
                      : zero_sign ? ": not copied unchanged (E2M1 +0 vs -0, the sign of an exact zero)" : ": not copied unchanged");
            break;
        }
    }
    free(a);
    free(b);
}

/* A global scale on the target side must be the f32 reciprocal of the source side's. With
 * `either`, the source's may instead be the reciprocal of the target's: a pair compared against the
 * converter's direction (compressed-tensors as SOURCE) came from either converter. */
static void ct005_inverse(eq_run *r, const pc_tensor *from, const pc_tensor *to, const char *from_name, const char *to_name,
                          const char *prefix, bool either)
{
    if (!from && !to) return;
    if (!from || !to) {
        pc_report(&r->ecx, "CT-005", to ? to->name : prefix, to ? (int64_t)to->offset : -1, "%s.%s %s but %s.%s %s", prefix,
                  from_name, from ? "exists" : "is missing", prefix, to_name, to ? "exists" : "is missing");
        return;
    }
    float x = read_f32(from), y = read_f32(to), want = 1.0f / x, back = 1.0f / y;
    if (f32_bits(y) == f32_bits(want) || (either && f32_bits(x) == f32_bits(back))) return;
    pc_report(&r->ecx, "CT-005", to->name, (int64_t)to->offset, "%s = %.9g (0x%08x), expected f32(1/%s) = %.9g (0x%08x)%s", to_name,
              (double)y, f32_bits(y), from_name, (double)want, f32_bits(want),
              f32_bits(y) == f32_bits(x) ? ": copied without inversion" : "");
}

/* `src` and `dst` are the two sides in the user's order; `mo` says which one has ModelOpt names. */
static void ct005_module(eq_run *r, const char *prefix, int mo)
{
    const pc_input *in_mo = r->s[mo].in, *in_ct = r->s[1 - mo].in;
    const pc_tensor *w = find2(in_mo, prefix, "weight"), *wp = find2(in_ct, prefix, "weight_packed");
    if (!wp) {
        pc_report(&r->ecx, "CT-005", prefix, -1, "%s.weight_packed is missing on the compressed-tensors side (%s)", prefix,
                  find2(in_ct, prefix, "weight") ? "the weight kept its ModelOpt name" : "module not converted");
        return;
    }
    bool mo_is_source = mo == 0;
    const pc_tensor *src_w = mo_is_source ? w : wp, *dst_w = mo_is_source ? wp : w;
    ct005_bytes(r, src_w, dst_w, w->ndim == 2 ? w->shape[1] : 0);
    const pc_tensor *s_mo = find2(in_mo, prefix, "weight_scale"), *s_ct = find2(in_ct, prefix, "weight_scale");
    if (s_mo && s_ct) ct005_bytes(r, mo_is_source ? s_mo : s_ct, mo_is_source ? s_ct : s_mo, 0);
    static const char *const names[2][2] = {{"weight_scale_2", "weight_global_scale"}, {"input_scale", "input_global_scale"}};
    for (int k = 0; k < 2; k++) {
        const pc_tensor *a = find2(in_mo, prefix, names[k][0]), *b = find2(in_ct, prefix, names[k][1]);
        if (mo_is_source) ct005_inverse(r, a, b, names[k][0], names[k][1], prefix, false);
        else ct005_inverse(r, b, a, names[k][1], names[k][0], prefix, true);
    }
}

static bool has_layout(const pc_input *in, const char *layout)
{
    for (size_t i = 0; i < in->nlayouts; i++)
        if (!strcmp(in->layouts[i], layout)) return true;
    return false;
}

/* The side holding ModelOpt NVFP4 names when the other holds compressed-tensors NVFP4 names (all of
 * them, or some: a partly converted checkpoint is "mixed"); -1 when the pair is not a naming pair. */
static int naming_pair_mo_side(const eq_run *r)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(pc_input_format(r->s[i].in), "nvfp4-modelopt") && has_layout(r->s[1 - i].in, "nvfp4-ct")) return i;
    return -1;
}

static void check_ct005(eq_run *r)
{
    int mo = naming_pair_mo_side(r);
    if (mo < 0) return;
    pc_eval(&r->ecx, "CT-005");
    const pc_input *in = r->s[mo].in;
    for (size_t i = 0; i < in->nmodules && !r->ecx.io_error; i++) ct005_module(r, in->modules[i].prefix, mo);
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

static void compare_views(eq_run *r, const pc_module *a, const pc_module *b, cJSON *js)
{
    uint8_t *ca = NULL, *cb = NULL;
    float *wa = NULL, *wb = NULL;
    if (pc_logical_decode(r->s[0].in, a, PC_IMPL_FAST, &ca, &wa, &r->s[0].cx) ||
        pc_logical_decode(r->s[1].in, b, PC_IMPL_FAST, &cb, &wb, &r->s[1].cx)) {
        pc_io_error(&r->ecx, "module %s: could not be decoded", a->prefix);
        goto out;
    }
    size_t n = (size_t)a->numel, code_diffs = 0, w_diffs = 0;
    uint64_t max_ulp = 0;
    double max_abs = 0;
    char at[96];
    for (size_t i = 0; i < n; i++) {
        if (ca[i] != cb[i] && code_diffs++ == 0) {
            index_str(a, i, at, sizeof at);
            pc_report(&r->ecx, "EQ-002", a->prefix, -1, "code %s is %u in %s, %u in %s", at, ca[i], r->s[0].label, cb[i], r->s[1].label);
        }
        uint64_t u = ulp_distance(wa[i], wb[i]);
        double d = fabs((double)wa[i] - (double)wb[i]);
        if (u > max_ulp) max_ulp = u;
        if (d > max_abs) max_abs = d;
        if (!within(&r->tol, wa[i], wb[i]) && w_diffs++ == 0) {
            index_str(a, i, at, sizeof at);
            pc_report(&r->ecx, "EQ-003", a->prefix, -1, "weight %s is %.9g (0x%08x) in %s, %.9g (0x%08x) in %s: %llu ULP apart, tolerance %s",
                      at, (double)wa[i], f32_bits(wa[i]), r->s[0].label, (double)wb[i], f32_bits(wb[i]), r->s[1].label,
                      (unsigned long long)u, pc_tolerance_str(&r->tol));
        }
    }
    cJSON_AddNumberToObject(js, "codes_differing", (double)code_diffs);
    cJSON_AddNumberToObject(js, "weights_outside_tolerance", (double)w_diffs);
    cJSON_AddNumberToObject(js, "max_ulp", (double)max_ulp);
    cJSON_AddNumberToObject(js, "max_abs_diff", max_abs);
    cJSON_AddStringToObject(js, "status", code_diffs || w_diffs ? "differ" : "equal");
out:
    free(ca); free(cb); free(wa); free(wb);
}

static void compare_modules(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    for (int k = 0; k < 3; k++) pc_eval(&r->ecx, (const char *[]){"EQ-001", "EQ-002", "EQ-003"}[k]);
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
            compare_views(r, ma, &b->modules[j], js);
        }
    }
}

/* ---- EQ-004: tensors outside every quantized module ---- */

/* Is tensor `name` part of a quantized module of `in` (M.<anything> with M a module prefix)? */
static bool in_module(const pc_input *in, const char *name)
{
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

static void compare_plain_tensor(eq_run *r, const pc_tensor *x, const pc_tensor *y)
{
    if (!y) {
        pc_report(&r->ecx, "EQ-004", x->name, (int64_t)x->offset, "%s is in %s only (or quantized in %s)", x->name, r->s[0].label, r->s[1].label);
        return;
    }
    if (x->dtype != y->dtype || x->ndim != y->ndim || memcmp(x->shape, y->shape, sizeof x->shape)) {
        pc_report(&r->ecx, "EQ-004", y->name, (int64_t)y->offset, "%s: %s rank %d in %s, %s rank %d in %s", x->name, pc_dtype_name(x->dtype), x->ndim,
                  r->s[0].label, pc_dtype_name(y->dtype), y->ndim, r->s[1].label);
        return;
    }
    uint64_t at = 0;
    if (!same_bytes(x, y, &at, &r->ecx) && !r->ecx.io_error && !r->ecx.oom)
        pc_report(&r->ecx, "EQ-004", y->name, (int64_t)(y->offset + at), "%s: byte %llu differs", x->name, (unsigned long long)at);
}

static void compare_plain(eq_run *r)
{
    const pc_input *a = r->s[0].in, *b = r->s[1].in;
    pc_eval(&r->ecx, "EQ-004");
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

/* The pair as one more report input: its CT-005 and EQ-* results, and any other rule it failed by
 * (a side's rejection), in catalogue order. */
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
        if (strcmp(rule->family, "EQ") && strcmp(rule->id, "CT-005") && st != PC_STATUS_FAIL) continue;
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
        if (!tol->given && naming_pair_mo_side(&r) >= 0) r.tol = (pc_tolerance){PC_TOL_ULP, PC_EQUIV_NAMING_PAIR_ULP, false};
        for (int i = 0; i < 2; i++) if (pc_rejected(&r.s[i].cx)) forward_rejection(&r, &r.s[i]);
        if (!pc_rejected(&r.ecx)) {
            check_ct005(&r);
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
