/* The readable summary on stdout. Per input one verdict line (verdict, format, tensor accounting,
 * time), then what a person has to act on: each failing and warning rule with its title, tensor,
 * byte offset and message (identical findings across modules once, with their count and first
 * instances: group.h), and the tensors that were not checked (less those of a module that failed:
 * its failure is the news, not that its other tensors went unchecked). PC_SUMMARY_QUIET keeps the
 * verdict line and the failures; PC_SUMMARY_VERBOSE adds every evaluated rule. One hint at the end
 * names `packcheck rules RULE`. */
#include "group.h"
#include "report.h"
#include "text_escape.h"

#include <stdlib.h>
#include <string.h>

#define UNCHECKED_SHOWN 20 /* beyond this, one "... and N more" line; the reports list them all */

typedef struct view { FILE *out; bool colour; pc_summary_level level; const char *hint_rule; } view;

static const char *sgr(const view *v, const char *status)
{
    if (!v->colour) return "";
    if (!strcmp(status, "fail") || !strcmp(status, "reject") || !strcmp(status, "error")) return "\033[1;31m";
    if (!strcmp(status, "warn") || !strcmp(status, "unchecked")) return "\033[33m";
    if (!strcmp(status, "pass")) return "\033[32m";
    return "";
}
static const char *reset(const view *v, const char *status) { return *sgr(v, status) ? "\033[0m" : ""; }

static void verdict_line(const view *v, const cJSON *in)
{
    pc_sb b = {0};
    pc_sb_tensor_counts(&b, in);
    char *counts = pc_sb_take(&b);
    const char *verdict = pc_json_str(in, "verdict");
    fprintf(v->out, "%s: %s%s%s", pc_json_str(in, "path"), sgr(v, verdict), verdict, reset(v, verdict));
    const char *fmt = pc_json_str(in, "format");
    if (!pc_input_unopened(in)) fprintf(v->out, " (%s)", fmt);
    if (counts && *counts) fprintf(v->out, ", tensors: %s", counts);
    double s = pc_json_num(in, "seconds", -1);
    if (s >= 0) fprintf(v->out, ", %.2f s", s);
    fputc('\n', v->out);
    free(counts);
}

static void title(const view *v, const char *rule)
{
    const pc_rule *r = pc_rule_find(rule);
    if (r && r->title && *r->title) fprintf(v->out, "  [%s]", r->title);
}

static void result_line(view *v, const cJSON *r)
{
    const cJSON *off = cJSON_GetObjectItem(r, "offset");
    const char *st = pc_json_str(r, "status");
    fprintf(v->out, "  %-8s %s%-4s%s", pc_json_str(r, "rule"), sgr(v, st), st, reset(v, st));
    if (*pc_json_str(r, "tensor")) fprintf(v->out, "  %s", pc_json_str(r, "tensor"));
    if (cJSON_IsNumber(off)) fprintf(v->out, " @%.0f", off->valuedouble);
    if (*pc_json_str(r, "message")) fprintf(v->out, ": %s", pc_json_str(r, "message"));
    title(v, pc_json_str(r, "rule"));
    fputc('\n', v->out);
}

/* "GPTQ-005 fail  x 28 modules: first <tensor> @off: <message>", then the next instances. */
static void group_lines(view *v, const pc_fgroup *g)
{
    const cJSON *r = g->inst[0], *off = cJSON_GetObjectItem(r, "offset");
    const char *st = pc_json_str(r, "status");
    fprintf(v->out, "  %-8s %s%-4s%s  x %zu ", pc_json_str(r, "rule"), sgr(v, st), st, reset(v, st), g->n);
    if (g->modules == g->n) fprintf(v->out, "modules");
    else if (g->modules > 1) fprintf(v->out, "tensors in %zu modules", g->modules);
    else fprintf(v->out, "times");
    fprintf(v->out, ", first %s", pc_json_str(r, "tensor"));
    if (cJSON_IsNumber(off)) fprintf(v->out, " @%.0f", off->valuedouble);
    if (*pc_json_str(r, "message")) fprintf(v->out, ": %s", pc_json_str(r, "message"));
    title(v, pc_json_str(r, "rule"));
    fputc('\n', v->out);
    fprintf(v->out, "           also");
    for (int k = 1; k < PC_GROUP_FIRST && g->inst[k]; k++) {
        off = cJSON_GetObjectItem(g->inst[k], "offset");
        fprintf(v->out, "%s %s", k > 1 ? "," : "", pc_json_str(g->inst[k], "tensor"));
        if (cJSON_IsNumber(off)) fprintf(v->out, " @%.0f", off->valuedouble);
    }
    if (g->n > PC_GROUP_FIRST) fprintf(v->out, " and %zu more (--report json lists each)", g->n - PC_GROUP_FIRST);
    fputc('\n', v->out);
}

static bool shown(const cJSON *r, void *arg)
{
    const view *v = arg;
    const char *st = pc_json_str(r, "status");
    return !strcmp(st, "fail") || (v->level != PC_SUMMARY_QUIET && !strcmp(st, "warn")) ||
           (v->level == PC_SUMMARY_VERBOSE && strcmp(st, "skip"));
}

static void result_lines(view *v, const cJSON *in)
{
    const cJSON *results = cJSON_GetObjectItem(in, "results"), *r;
    pc_fgroup *g = NULL;
    size_t ng = pc_findings_group(results, shown, v, &g);
    if (ng == (size_t)-1) { /* out of memory: one line each, as before grouping */
        cJSON_ArrayForEach(r, results) if (shown(r, v)) result_line(v, r);
        return;
    }
    for (size_t i = 0; i < ng; i++) {
        const char *st = pc_json_str(g[i].inst[0], "status");
        if (!v->hint_rule && (!strcmp(st, "fail") || !strcmp(st, "warn"))) v->hint_rule = pc_json_str(g[i].inst[0], "rule");
        if (g[i].n >= PC_GROUP_MIN && strcmp(st, "pass")) { group_lines(v, &g[i]); continue; }
        /* below the threshold (or passes under -v): every instance, in report order */
        for (size_t k = 0; k < g[i].n; k++) result_line(v, g[i].all[k]);
    }
    pc_findings_group_free(g, ng);
}

static void unchecked_lines(const view *v, const cJSON *in)
{
    const cJSON *u, *list = cJSON_GetObjectItem(in, "unchecked");
    int n = 0, quiet = 0;
    cJSON_ArrayForEach(u, list) {
        if (pc_of_failed_module(in, pc_json_str(u, "tensor"))) { quiet++; continue; }
        if (n++ == UNCHECKED_SHOWN) continue;
        fprintf(v->out, "  %sunchecked%s %s (%s): %s: %s\n", sgr(v, "unchecked"), reset(v, "unchecked"), pc_json_str(u, "tensor"),
                pc_json_str(u, "dtype"), pc_json_str(u, "scheme"), pc_json_str(u, "reason"));
    }
    if (n > UNCHECKED_SHOWN) fprintf(v->out, "  ... and %d more unchecked tensors (see --report json)\n", n - UNCHECKED_SHOWN);
    if (quiet) fprintf(v->out, "  (%d unchecked tensor%s of modules that failed above not listed: fix the failure first; --report json lists them)\n",
                       quiet, quiet == 1 ? "" : "s");
}

void pc_report_summary_colour(FILE *out, const cJSON *raw, pc_summary_level level, bool colour)
{
    cJSON *owned;
    const cJSON *doc = pc_text_clean_doc(raw, &owned); /* a terminal gets valid UTF-8 too */
    if (!doc) doc = raw;
    const cJSON *in, *r;
    view v = {out, colour, level, NULL};
    size_t pass = 0, unchecked = 0, reject = 0, error = 0;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        const char *verdict = pc_json_str(in, "verdict");
        pass += !strcmp(verdict, "pass");
        unchecked += !strcmp(verdict, "unchecked");
        reject += !strcmp(verdict, "reject");
        error += !strcmp(verdict, "error");
        verdict_line(&v, in);
        if (*pc_json_str(in, "error")) fprintf(out, "  error: %s\n", pc_input_error_text(in));
        if (level != PC_SUMMARY_QUIET)
            cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "files")) /* sha256sum's format */
                if (*pc_json_str(r, "sha256")) fprintf(out, "  sha256 %s  %s\n", pc_json_str(r, "sha256"), pc_json_str(r, "path"));
        result_lines(&v, in);
        if (level != PC_SUMMARY_QUIET) unchecked_lines(&v, in);
    }
    if (v.hint_rule && level != PC_SUMMARY_QUIET)
        fprintf(out, "hint: `packcheck rules %s` explains a rule in full (what it checks, its source, its fixtures)\n", v.hint_rule);
    fprintf(out, "inputs: %zu pass, %zu unchecked, %zu reject, %zu error\n", pass, unchecked, reject, error);
    const cJSON *esc = cJSON_GetObjectItem(doc, "escaped_strings");
    if (cJSON_IsNumber(esc)) fprintf(out, "note: %.0f strings held invalid UTF-8; their bytes are shown as \\xNN\n", esc->valuedouble);
    cJSON_Delete(owned);
}

void pc_report_summary(FILE *out, const cJSON *doc, pc_summary_level level)
{
    pc_report_summary_colour(out, doc, level, false);
}
