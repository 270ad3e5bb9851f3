/* Tensor accounting (the accounting issue): every tensor ends in exactly one class.
 *
 *   checked    a format module claimed it (pc_tensor_claim) while checking the input;
 *   unchecked  nobody claimed it, and either a format's explain() recognises it as part of a
 *              quantization scheme, or its dtype is quantized/packed storage (integers, FP8, FP4,
 *              GGUF block types): a quantized tensor packcheck did not decode;
 *   plain      nobody claimed it and it is an unquantized float (F16/BF16/F32/F64; GGUF F32, F16,
 *              BF16, F64 and GGUF's plain integer types), or BOOL/I64 (masks, index buffers: no
 *              quantization format stores codes in them).
 * A scheme's float companions (an FP8 weight's BF16 scale) are claimed through explain(), so they
 * count as unchecked with their weight, not as plain. A tensor a failing rule names was checked (and
 * found wrong) even when its module never became decodable. */
#include "formats/format.h"
#include "accounting.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A codes part of some format (PC_PART_CODES) and its suffix's length: listed once per accounting
 * run, not once per tensor (a 150k-tensor header spent a fifth of its run measuring suffixes). */
typedef struct codes_part {
    const pc_format *f;
    const pc_part *part;
    size_t len;
} codes_part;

typedef struct codes_parts {
    codes_part *v;
    size_t n;
} codes_parts;

static int list_codes_parts(codes_parts *cp)
{
    size_t n = 0;
    for (const pc_format *const *f = pc_formats; *f; f++)
        for (const pc_part *c = (*f)->parts; c && c->suffix; c++) n += (c->role & PC_PART_CODES) && *c->suffix;
    cp->v = calloc(n ? n : 1, sizeof *cp->v);
    if (!cp->v) return -1;
    cp->n = 0;
    for (const pc_format *const *f = pc_formats; *f; f++)
        for (const pc_part *c = (*f)->parts; c && c->suffix; c++)
            if ((c->role & PC_PART_CODES) && *c->suffix) cp->v[cp->n++] = (codes_part){*f, c, strlen(c->suffix)};
    return 0;
}

/* Recognition by structure: t is a codes part of some format's module whose companion part is there
 * too (HQQ's W_q stored as F16 beside its scale and zero). Such a tensor is that module's, never
 * plain, whatever its dtype. */
static bool explain_by_parts(const pc_input *in, const pc_tensor *t, const codes_parts *cp, pc_explain *e)
{
    size_t len = strlen(t->name), alone_len = SIZE_MAX;
    for (size_t i = 0; i < cp->n; i++) {
        const codes_part *c = &cp->v[i];
        size_t sl = c->len;
        if (sl >= len || memcmp(t->name + len - sl, c->part->suffix, sl)) continue;
        char prefix[512];
        if (len - sl >= sizeof prefix || len - sl == alone_len) continue;
        memcpy(prefix, t->name, len - sl);
        prefix[len - sl] = 0;
        /* A tensor alone under its prefix has no companion: one search, not one per companion
         * part of every format (a 150k-tensor header spent most of its time here). */
        if (!pc_input_prefix_shared(in, prefix)) { alone_len = len - sl; continue; }
        for (const pc_part *m = c->f->parts; m->suffix; m++) {
            if (!(m->role & PC_PART_COMPANION) || !pc_input_find_part(in, prefix, m->suffix)) continue;
            snprintf(e->scheme, sizeof e->scheme, "%s module (%s beside %s)", c->f->name, c->part->suffix, m->suffix);
            snprintf(e->reason, sizeof e->reason, "%s tensor laid out as a %s module's %s that no module of it decoded",
                     pc_dtype_name(t->dtype), c->f->name, c->part->suffix);
            return true;
        }
    }
    return false;
}

static bool plain_dtype(const pc_tensor *t)
{
    if (t->dtype == PC_DT_GGML) {
        const char *n = pc_ggml_type_name(t->ggml_type);
        static const char *const k_plain[] = {"F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64", NULL};
        for (const char *const *p = k_plain; n && *p; p++)
            if (!strcmp(n, *p)) return true;
        return false;
    }
    switch (t->dtype) {
    case PC_DT_F16: case PC_DT_BF16: case PC_DT_F32: case PC_DT_F64: case PC_DT_BOOL: case PC_DT_I64: return true;
    default: return false;
    }
}

/* No format recognised it: name the storage and, when the config names a method nobody knows, it. */
static void explain_generic(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    if (t->dtype == PC_DT_GGML) {
        const char *n = pc_ggml_type_name(t->ggml_type);
        snprintf(e->scheme, sizeof e->scheme, "GGUF %s", n ? n : "unknown type");
        snprintf(e->reason, sizeof e->reason, "GGUF block type %s is not decoded by this version", n ? n : "?");
    } else if (qm) {
        snprintf(e->scheme, sizeof e->scheme, "quant_method \"%.60s\"", qm);
        snprintf(e->reason, sizeof e->reason, "%s tensor that no module of %s's quant_method \"%.60s\" claims",
                 pc_dtype_name(t->dtype), in->qconfig_source ? in->qconfig_source : "the config", qm);
    } else {
        snprintf(e->scheme, sizeof e->scheme, "unknown");
        snprintf(e->reason, sizeof e->reason, "%s tensor (packed or low-precision storage) that no quantization module claims",
                 pc_dtype_name(t->dtype));
    }
}

static bool explain(const pc_input *in, const pc_tensor *t, const codes_parts *cp, pc_explain *e)
{
    for (const pc_format *const *f = pc_formats; *f; f++) {
        memset(e, 0, sizeof *e);
        if ((*f)->explain && (*f)->explain(in, t, e)) return true;
    }
    memset(e, 0, sizeof *e);
    if (explain_by_parts(in, t, cp, e)) return true;
    if (plain_dtype(t)) return false;
    explain_generic(in, t, e);
    return true;
}

/* Tensors named by a failing finding: checked by the rule that failed. */
static void claim_failed(pc_input *in, const pc_ctx *cx)
{
    for (size_t i = 0; i < cx->nfindings; i++) {
        const pc_finding *f = &cx->findings[i];
        if (f->status != PC_STATUS_FAIL || !*f->tensor) continue;
        const pc_tensor *t = pc_input_find(in, f->tensor);
        if (t && !in->claimed_by[t - in->tensors]) in->claimed_by[t - in->tensors] = f->rule->family;
    }
}

int pc_accounting_run(pc_input *in, const pc_ctx *cx)
{
    pc_accounting_free(in);
    pc_validation_attach(in);
    pc_accounting *a = calloc(1, sizeof *a);
    if (!a || pc_claims_ensure(in)) { free(a); return -1; }
    in->acct = a;
    if (in->claimed_by) claim_failed(in, cx);
    codes_parts cp;
    if (list_codes_parts(&cp)) return -1;
    int rc = 0;
    for (size_t i = 0; i < in->ntensors && !rc; i++) {
        if (in->claimed_by[i]) { a->checked++; continue; }
        pc_explain e;
        if (!explain(in, &in->tensors[i], &cp, &e)) { a->plain++; continue; }
        pc_unchecked *nl = realloc(a->list, (a->unchecked + 1) * sizeof *nl);
        if (!nl) { rc = -1; break; }
        a->list = nl;
        a->list[a->unchecked++] = (pc_unchecked){&in->tensors[i], e};
    }
    free(cp.v);
    return rc;
}

pc_tensor_class pc_tensor_class_of(const pc_input *in, size_t i)
{
    if (in->claimed_by && in->claimed_by[i]) return PC_TENSOR_CHECKED;
    for (size_t k = 0; in->acct && k < in->acct->unchecked; k++)
        if (in->acct->list[k].t == &in->tensors[i]) return PC_TENSOR_UNCHECKED;
    return PC_TENSOR_PLAIN;
}

void pc_accounting_free(pc_input *in)
{
    if (in->acct) free(in->acct->list);
    free(in->acct);
    in->acct = NULL;
}

/* The embedding API's view of the accounting (packcheck.h). */
void pc_input_tensor_counts(const pc_input *in, size_t *checked, size_t *plain, size_t *unchecked)
{
    const pc_accounting *a = in ? in->acct : NULL;
    if (checked) *checked = a ? a->checked : 0;
    if (plain) *plain = a ? a->plain : 0;
    if (unchecked) *unchecked = a ? a->unchecked : 0;
}

bool pc_input_unchecked_at(const pc_input *in, size_t i, const char **tensor, const char **scheme,
                           const char **reason)
{
    const pc_accounting *a = in ? in->acct : NULL;
    if (!a || i >= a->unchecked) return false;
    const pc_unchecked *u = &a->list[i];
    if (tensor) *tensor = u->t->name;
    if (scheme) *scheme = u->why.scheme;
    if (reason) *reason = u->why.reason;
    return true;
}
