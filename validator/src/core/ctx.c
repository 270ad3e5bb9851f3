/* Findings for one input: which rules were evaluated and which broke, where. */
#include "packcheck_internal.h"
#include "remote.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hostile file can break one rule in every tensor; keep the report bounded. */
#define PC_MAX_FINDINGS 10000

int pc_ctx_init(pc_ctx *cx, pc_profile p)
{
    memset(cx, 0, sizeof *cx);
    cx->profile = p;
    cx->evaluated = calloc(pc_rule_count() + 1, 1);
    return cx->evaluated ? 0 : -1;
}

void pc_ctx_free(pc_ctx *cx)
{
    for (size_t i = 0; i < cx->nfindings; i++) {
        free(cx->findings[i].tensor);
        free(cx->findings[i].message);
    }
    free(cx->findings);
    free(cx->evaluated);
    memset(cx, 0, sizeof *cx);
}

static const pc_rule *rule_or_die(const char *id)
{
    const pc_rule *r = pc_rule_find(id);
    if (!r) {
        fprintf(stderr, "packcheck: internal error: rule %s is not in rules/rules.json\n", id);
        abort();
    }
    return r;
}

void pc_eval(pc_ctx *cx, const char *rule_id) { cx->evaluated[rule_or_die(rule_id)->index] |= 1; }

void pc_eval_withdraw(pc_ctx *cx, const char *rule_id)
{
    unsigned char *e = &cx->evaluated[rule_or_die(rule_id)->index];
    if (!(*e & 2)) *e = 0; /* a rule with a finding keeps it */
}

void pc_report(pc_ctx *cx, const char *rule_id, const char *tensor, int64_t offset, const char *fmt, ...)
{
    const pc_rule *r = rule_or_die(rule_id);
    cx->evaluated[r->index] |= 1;
    pc_severity sev = pc_rule_severity(r, cx->profile);
    if (sev == PC_SEV_OFF) return;
    pc_status st = sev == PC_SEV_SHOULD ? PC_STATUS_WARN : PC_STATUS_FAIL;
    /* Past the cap, keep only the first finding of each rule so no rule's verdict is lost. Bit 1 of
     * evaluated[] says "has a finding": a per-report scan of 10,000 findings would make a header with
     * a million broken entries quadratic. */
    if (cx->nfindings >= PC_MAX_FINDINGS && (cx->evaluated[r->index] & 2)) return;
    if (cx->nfindings == cx->cap) {
        size_t nc = cx->cap ? cx->cap * 2 : 16;
        pc_finding *nf = realloc(cx->findings, nc * sizeof *nf);
        if (!nf) { cx->oom = true; return; }
        cx->findings = nf;
        cx->cap = nc;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pc_finding *f = &cx->findings[cx->nfindings];
    f->rule = r;
    f->status = st;
    f->offset = offset;
    f->tensor = pc_strdup(tensor ? tensor : "");
    f->message = pc_strdup(msg);
    if (!f->tensor || !f->message) { free(f->tensor); free(f->message); cx->oom = true; return; }
    cx->nfindings++;
    cx->evaluated[r->index] |= 2;
}

void pc_io_error(pc_ctx *cx, const char *fmt, ...)
{
    if (cx->io_error) return; /* keep the first cause */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->io_message, sizeof cx->io_message, fmt, ap);
    va_end(ap);
    /* A failed HTTP read: say which URL and what went wrong, when the message does not already. */
    const char *remote = pc_remote_failure();
    size_t n = strlen(cx->io_message);
    if (remote[0] && !strstr(cx->io_message, pc_remote_failure_what()) && n + 4 < sizeof cx->io_message)
        snprintf(cx->io_message + n, sizeof cx->io_message - n, " (%s)", remote);
    cx->io_error = true;
}

bool pc_rejected(const pc_ctx *cx)
{
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_FAIL) return true;
    return false;
}

bool pc_family_failed(const pc_ctx *cx, const char *family)
{
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_FAIL && !strcmp(cx->findings[i].rule->family, family)) return true;
    return false;
}

pc_status pc_rule_status(const pc_ctx *cx, const pc_rule *r)
{
    pc_status s = cx->evaluated[r->index] ? PC_STATUS_PASS : PC_STATUS_SKIP;
    for (size_t i = 0; i < cx->nfindings; i++) {
        if (cx->findings[i].rule != r) continue;
        if (cx->findings[i].status == PC_STATUS_FAIL) return PC_STATUS_FAIL;
        s = PC_STATUS_WARN;
    }
    return s;
}

/* The embedding API's heap ctx and accessors (packcheck.h). */
pc_ctx *pc_ctx_new(pc_profile p)
{
    pc_ctx *cx = malloc(sizeof *cx);
    if (cx && pc_ctx_init(cx, p)) { free(cx); return NULL; }
    return cx;
}

void pc_ctx_delete(pc_ctx *cx)
{
    if (!cx) return;
    pc_ctx_free(cx);
    free(cx);
}

size_t pc_ctx_finding_count(const pc_ctx *cx) { return cx->nfindings; }
const pc_finding *pc_ctx_finding(const pc_ctx *cx, size_t i) { return i < cx->nfindings ? &cx->findings[i] : NULL; }
const char *pc_ctx_io_error(const pc_ctx *cx) { return cx->io_error ? cx->io_message : cx->oom ? "out of memory" : NULL; }
const pc_rule *pc_finding_rule(const pc_finding *f) { return f->rule; }
pc_status pc_finding_status(const pc_finding *f) { return f->status; }
const char *pc_finding_tensor(const pc_finding *f) { return f->tensor ? f->tensor : ""; }
int64_t pc_finding_offset(const pc_finding *f) { return f->offset; }
const char *pc_finding_message(const pc_finding *f) { return f->message ? f->message : ""; }
