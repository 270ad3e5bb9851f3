/* The JSON report (CONTRACT 2): the one document every other writer renders. */
#include "packcheck_internal.h"
#include "report.h"

#include "../core/remote.h"

#include <stdlib.h>
#include <string.h>

void pc_sb_tensor_counts(pc_sb *b, const cJSON *input)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(input, "tensors");
    if (!t) return;
    pc_sb_printf(b, "%.0f checked, %.0f plain, %.0f unchecked", pc_json_num(t, "checked", 0), pc_json_num(t, "plain", 0),
                 pc_json_num(t, "unchecked", 0));
}

const char *pc_result_verdict(const pc_result *r)
{
    const cJSON *v = r->in && r->in->cached ? cJSON_GetObjectItemCaseSensitive(r->in->cached, "verdict") : NULL;
    return cJSON_IsString(v) ? v->valuestring : pc_verdict(r->in, r->cx);
}

/* A cached entry, with this run's path, time and cost. */
static cJSON *cached_entry(const pc_result *r)
{
    cJSON *o = cJSON_CreateObject(), *stored = cJSON_Duplicate(r->in->cached, 1);
    if (!o || !stored) { cJSON_Delete(o); cJSON_Delete(stored); return NULL; }
    cJSON_AddStringToObject(o, "path", r->path); /* first, as in a fresh entry */
    while (stored->child) {
        cJSON *item = cJSON_DetachItemViaPointer(stored, stored->child);
        if (strcmp(item->string, "path")) cJSON_AddItemToObject(o, item->string, item);
        else cJSON_Delete(item);
    }
    cJSON_Delete(stored);
    if (r->seconds >= 0) cJSON_AddNumberToObject(o, "seconds", r->seconds);
    cJSON_AddBoolToObject(o, "remote", r->in->remote);
    cJSON_AddNumberToObject(o, "bytes_fetched", (double)r->in->bytes_fetched);
    cJSON_AddNumberToObject(o, "requests", (double)r->in->requests);
    cJSON_AddBoolToObject(o, "cached", true);
    return o;
}

static const char *tensor_type_name(const pc_tensor *t)
{
    if (t->dtype != PC_DT_GGML) return pc_dtype_name(t->dtype);
    const char *n = pc_ggml_type_name(t->ggml_type);
    return n ? n : "GGML";
}

/* "tensors": {checked, plain, unchecked} and "unchecked": [{tensor, dtype, scheme, reason}]. */
static void add_accounting(cJSON *o, const pc_input *in)
{
    const pc_accounting *a = in ? in->acct : NULL;
    if (!a) return;
    cJSON *c = cJSON_AddObjectToObject(o, "tensors");
    cJSON_AddNumberToObject(c, "checked", (double)a->checked);
    cJSON_AddNumberToObject(c, "plain", (double)a->plain);
    cJSON_AddNumberToObject(c, "unchecked", (double)a->unchecked);
    cJSON *list = cJSON_AddArrayToObject(o, "unchecked");
    for (size_t i = 0; i < a->unchecked; i++) {
        const pc_unchecked *u = &a->list[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "tensor", u->t->name);
        cJSON_AddStringToObject(j, "dtype", tensor_type_name(u->t));
        cJSON_AddStringToObject(j, "scheme", u->why.scheme);
        cJSON_AddStringToObject(j, "reason", u->why.reason);
        cJSON_AddItemToArray(list, j);
    }
}

/* `severity` is the rule's severity under the profile the input was checked with (a compat run
 * reports ST-022 as SHOULD, matching its `warn`). */
static cJSON *result_entry(const pc_rule *r, pc_profile prof, pc_status st, const char *tensor, int64_t offset, const char *msg)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "rule", r->id);
    cJSON_AddStringToObject(e, "status", pc_status_name(st));
    cJSON_AddStringToObject(e, "severity", pc_severity_name(pc_rule_severity(r, prof)));
    cJSON_AddStringToObject(e, "tensor", tensor);
    if (offset >= 0) cJSON_AddNumberToObject(e, "offset", (double)offset);
    cJSON_AddStringToObject(e, "message", msg);
    return e;
}

cJSON *pc_report_input_json(const pc_result *r)
{
    if (r->in && r->in->cached) return cached_entry(r);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "format", r->in ? pc_input_format(r->in) : "safetensors");
    cJSON_AddStringToObject(o, "verdict", pc_result_verdict(r));
    if (r->seconds >= 0) cJSON_AddNumberToObject(o, "seconds", r->seconds);
    if (r->in) { /* what the run cost (validate --tier; remote inputs are read with range requests) */
        static const char *const tiers[] = {"full", "header", "sample"};
        cJSON_AddStringToObject(o, "tier", tiers[r->in->tier >= 0 && r->in->tier <= 2 ? r->in->tier : 0]);
        if (r->in->tier == PC_TIER_SAMPLE) {
            cJSON *smp = cJSON_AddObjectToObject(o, "sample");
            cJSON_AddNumberToObject(smp, "blocks", r->in->sample_blocks);
            cJSON_AddNumberToObject(smp, "seed", (double)r->in->sample_seed);
        }
        cJSON_AddBoolToObject(o, "remote", r->in->remote);
        cJSON_AddNumberToObject(o, "bytes_fetched", (double)r->in->bytes_fetched);
        cJSON_AddNumberToObject(o, "requests", (double)r->in->requests);
    }
    if (r->cx->io_error) cJSON_AddStringToObject(o, "error", r->cx->io_message);
    else if (r->cx->oom) cJSON_AddStringToObject(o, "error", "out of memory");
    if (r->in && (r->in->hash_files || r->in->remote)) { /* --hash: per-file SHA-256, for certificates and manifests;
                                                          * a remote file: its ETag (the Hub's is the content's SHA-256) */
        cJSON *files = cJSON_AddArrayToObject(o, "files");
        for (size_t i = 0; i < r->in->nfiles; i++) {
            const pc_file *f = &r->in->files[i];
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "path", f->path);
            cJSON_AddNumberToObject(j, "bytes", (double)f->size);
            if (f->sha256[0]) cJSON_AddStringToObject(j, "sha256", f->sha256);
            if (f->remote) cJSON_AddStringToObject(j, "etag", pc_remote_etag(f->remote));
            cJSON_AddItemToArray(files, j);
        }
    }
    add_accounting(o, r->in);
    cJSON *mods = cJSON_AddArrayToObject(o, "modules");
    for (size_t i = 0; r->in && i < r->in->nmodules; i++) {
        const pc_module *m = &r->in->modules[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "module", m->prefix);
        cJSON_AddStringToObject(j, "layout", m->layout);
        cJSON_AddNumberToObject(j, "bits", m->bits);
        cJSON *shape = cJSON_AddArrayToObject(j, "shape");
        for (int d = 0; d < m->ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)m->shape[d]));
        cJSON_AddItemToArray(mods, j);
    }
    cJSON *res = cJSON_AddArrayToObject(o, "results");
    /* Every catalogue rule appears: its findings, or one pass/skip line. */
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *rule = pc_rule_at(i);
        bool any = false;
        for (size_t k = 0; k < r->cx->nfindings; k++) {
            const pc_finding *f = &r->cx->findings[k];
            if (f->rule != rule) continue;
            cJSON_AddItemToArray(res, result_entry(rule, r->cx->profile, f->status, f->tensor, f->offset, f->message));
            any = true;
        }
        pc_status st = pc_rule_status(r->cx, rule);
        /* A rule a lower tier could not reach is said so: skipped, never passed. */
        const char *why = st == PC_STATUS_SKIP && r->in && r->in->tier == PC_TIER_HEADER ? "not evaluated at --tier header (no tensor data read)" : "";
        if (!any) cJSON_AddItemToArray(res, result_entry(rule, r->cx->profile, st, "", -1, why));
    }
    return o;
}

cJSON *pc_report_json(const pc_result *r, size_t n, pc_profile profile)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "validate");
    cJSON_AddStringToObject(doc, "profile", profile == PC_PROFILE_COMPAT ? "compat" : "strict");
    cJSON *inputs = cJSON_AddArrayToObject(doc, "inputs");
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(inputs, pc_report_input_json(&r[i]));
    return doc;
}

bool pc_input_unopened(const cJSON *input)
{
    return !strcmp(pc_json_str(input, "verdict"), "error") && !cJSON_GetObjectItem(input, "tensors");
}

const char *pc_input_error_text(const cJSON *input)
{
    const char *e = pc_json_str(input, "error"), *p = pc_json_str(input, "path");
    size_t n = strlen(p);
    return n && !strncmp(e, p, n) && !strncmp(e + n, ": ", 2) ? e + n + 2 : e;
}
