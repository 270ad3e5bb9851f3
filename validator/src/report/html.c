/* HTML: one self-contained page (no scripts, no external assets). It opens with one verdict
 * banner per input (verdict, format, tensor accounting), then the failures and warnings, then
 * the tensors that were not checked; the full rule x input matrix, mostly pass and skip, is
 * folded away in a <details> element. */
#include "group.h"
#include "report.h"

#include <string.h>

static const char *k_style =
    "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}th{background:#eee}"
    ".pass{background:#c8e6c9}.fail{background:#ef9a9a}.warn{background:#ffe082}.skip{color:#aaa}"
    ".error{background:#b39ddb}.unchecked{background:#ffcc80}code{font-size:12px}"
    ".banner{padding:8px 12px;margin:6px 0;border-radius:4px;font-size:16px}"
    ".expected{background:#e3f2fd}.corpus{font-size:20px}</style>\n";

/* A corpus document states, per input, what was expected (cases[].expected): an input whose
 * verdict is the expected one is not a failure of anything, even when that verdict is reject. */
static const cJSON *corpus_case(const cJSON *doc, const cJSON *in)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
        if (!strcmp(pc_json_str(c, "case"), pc_json_str(in, "path"))) return c;
    return NULL;
}

static bool as_expected(const cJSON *doc, const cJSON *in)
{
    const cJSON *c = corpus_case(doc, in);
    return c && !strcmp(pc_json_str(c, "outcome"), "pass");
}

/* The corpus page leads with its verdict: "619 expected verdicts met" (or "N of M"). */
static void corpus_banner(pc_sb *b, const cJSON *doc)
{
    const cJSON *c;
    int met = 0, all = 0, rej = 0, unch = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        all++;
        if (strcmp(pc_json_str(c, "outcome"), "pass")) continue;
        met++;
        rej += !strcmp(pc_json_str(c, "expected"), "reject");
        unch += !strcmp(pc_json_str(c, "expected"), "unchecked");
    }
    pc_sb_printf(b, "<div class=\"banner corpus %s\" id=\"corpus-verdict\"><b>", met == all ? "pass" : "fail");
    if (met == all) pc_sb_printf(b, "%d expected verdicts met", met);
    else pc_sb_printf(b, "%d of %d expected verdicts met", met, all);
    pc_sb_printf(b, "</b> &mdash; %d accepted, %d rejected as expected, %d unchecked as expected", met - rej - unch, rej, unch);
    if (met != all) pc_sb_printf(b, "; %d not as expected (listed first below)", all - met);
    pc_sb_puts(b, "</div>\n");
}

static void banner(pc_sb *b, const cJSON *doc, const cJSON *in)
{
    const char *v = pc_json_str(in, "verdict");
    const cJSON *c = corpus_case(doc, in);
    if (c && !strcmp(pc_json_str(c, "outcome"), "pass")) {
        const char *said = !strcmp(v, "reject") ? "rejected as expected" : !strcmp(v, "unchecked") ? "unchecked as expected" : v;
        pc_sb_printf(b, "<div class=\"banner %s\" id=\"verdict\"><b>%s</b> ", !strcmp(v, "pass") ? "pass" : "expected", said);
    } else {
        const char *cls = !strcmp(v, "reject") ? "fail" : !strcmp(v, "error") ? "error" : v;
        pc_sb_printf(b, "<div class=\"banner %s\" id=\"verdict\"><b>%s</b> ", c ? "fail" : cls, v);
        if (c) pc_sb_printf(b, "(expected %s) ", pc_json_str(c, "expected"));
    }
    pc_sb_xml(b, pc_json_str(in, "path"));
    if (!pc_input_unopened(in)) pc_sb_printf(b, " (%s)", pc_json_str(in, "format"));
    if (cJSON_GetObjectItem(in, "tensors")) { pc_sb_puts(b, " &mdash; tensors: "); pc_sb_tensor_counts(b, in); }
    if (*pc_json_str(in, "error")) { pc_sb_puts(b, ": "); pc_sb_xml(b, pc_input_error_text(in)); }
    pc_sb_puts(b, "</div>\n");
}

/* Validate: one banner per input. Corpus: the corpus verdict, then the cases not as expected, then
 * every case's banner folded away. */
static void banners(pc_sb *b, const cJSON *doc, const cJSON *inputs)
{
    const cJSON *in;
    if (strcmp(pc_json_str(doc, "kind"), "corpus")) {
        cJSON_ArrayForEach(in, inputs) banner(b, doc, in);
        return;
    }
    corpus_banner(b, doc);
    cJSON_ArrayForEach(in, inputs) if (!as_expected(doc, in)) banner(b, doc, in);
    pc_sb_printf(b, "<details><summary>Every case's verdict (%d)</summary>\n", cJSON_GetArraySize(inputs));
    cJSON_ArrayForEach(in, inputs) if (as_expected(doc, in)) banner(b, doc, in);
    pc_sb_puts(b, "</details>\n");
}

static void unchecked(pc_sb *b, const cJSON *inputs)
{
    const cJSON *in, *u;
    size_t n = 0;
    size_t quiet = 0;
    cJSON_ArrayForEach(in, inputs) cJSON_ArrayForEach(u, cJSON_GetObjectItem(in, "unchecked")) {
        if (pc_of_failed_module(in, pc_json_str(u, "tensor"))) quiet++;
        else n++;
    }
    if (quiet) pc_sb_printf(b, "<p id=\"unchecked-of-failed\">%zu unchecked tensor%s of modules that failed a rule above not listed (fix the failure first; the JSON report lists them).</p>\n", quiet, quiet == 1 ? "" : "s");
    if (!n) return;
    pc_sb_printf(b, "<h2>Not checked (%zu)</h2>\n<table id=\"unchecked\"><tr><th>input</th><th>tensor</th><th>dtype</th><th>scheme</th><th>reason</th></tr>\n", n);
    cJSON_ArrayForEach(in, inputs) {
        cJSON_ArrayForEach(u, cJSON_GetObjectItem(in, "unchecked")) {
            if (pc_of_failed_module(in, pc_json_str(u, "tensor"))) continue;
            pc_sb_puts(b, "<tr class=\"unchecked\"><td>");
            pc_sb_xml(b, pc_json_str(in, "path"));
            pc_sb_puts(b, "</td><td><code>");
            pc_sb_xml(b, pc_json_str(u, "tensor"));
            pc_sb_puts(b, "</code></td><td>");
            pc_sb_xml(b, pc_json_str(u, "dtype"));
            pc_sb_puts(b, "</td><td>");
            pc_sb_xml(b, pc_json_str(u, "scheme"));
            pc_sb_puts(b, "</td><td>");
            pc_sb_xml(b, pc_json_str(u, "reason"));
            pc_sb_puts(b, "</td></tr>\n");
        }
    }
    pc_sb_puts(b, "</table>\n");
}

static void matrix(pc_sb *b, const cJSON *inputs)
{
    const cJSON *first = cJSON_GetArrayItem(inputs, 0), *in, *r;
    if (!first) return;
    pc_sb_puts(b, "<details><summary>All rules x inputs (passing and skipped rules included)</summary>\n<table id=\"matrix\"><tr><th>rule</th>");
    cJSON_ArrayForEach(in, inputs) {
        pc_sb_puts(b, "<th>");
        pc_sb_xml(b, pc_json_str(in, "path"));
        pc_sb_printf(b, "<br>%s</th>", pc_json_str(in, "verdict"));
    }
    pc_sb_puts(b, "</tr>\n");
    /* Results list every catalogue rule in catalogue order; walk the first input's rules. */
    const char *prev = "";
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(first, "results")) {
        const char *id = pc_json_str(r, "rule");
        if (!strcmp(id, prev)) continue;
        prev = id;
        pc_sb_printf(b, "<tr><td>%s</td>", id);
        cJSON_ArrayForEach(in, inputs) {
            const char *worst = "skip";
            const cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItem(in, "results")) {
                if (strcmp(pc_json_str(x, "rule"), id)) continue;
                const char *s = pc_json_str(x, "status");
                if (!strcmp(s, "fail") || (!strcmp(s, "warn") && strcmp(worst, "fail")) || !strcmp(worst, "skip")) worst = s;
            }
            pc_sb_printf(b, "<td class=\"%s\">%s</td>", worst, worst);
        }
        pc_sb_puts(b, "</tr>\n");
    }
    pc_sb_puts(b, "</table></details>\n");
}

static bool failing(const cJSON *r, void *arg)
{
    (void)arg;
    const char *s = pc_json_str(r, "status");
    return !strcmp(s, "fail") || !strcmp(s, "warn");
}

/* One row: a finding, or a group of identical ones (group.h) with its count and first instances. */
static void finding_row(pc_sb *b, const cJSON *doc, const cJSON *in, const pc_fgroup *g)
{
    const cJSON *r = g->inst[0], *off = cJSON_GetObjectItem(r, "offset");
    const char *s = pc_json_str(r, "status");
    const pc_rule *rule = pc_rule_find(pc_json_str(r, "rule"));
    bool grouped = g->n >= PC_GROUP_MIN;
    /* a corpus case rejected as it should be: its findings are the expected ones, not failures */
    const char *cls = as_expected(doc, in) ? "expected" : s;
    pc_sb_puts(b, "<tr><td>");
    pc_sb_xml(b, pc_json_str(in, "path"));
    pc_sb_printf(b, "</td><td>%s</td><td class=\"%s\">%s</td><td class=\"title\">", pc_json_str(r, "rule"), cls, s);
    pc_sb_xml(b, rule && rule->title ? rule->title : "");
    pc_sb_puts(b, "</td><td>");
    if (grouped) pc_sb_printf(b, "<b class=\"group\">x %zu %s</b>, first ", g->n, g->modules == g->n ? "modules" : "tensors");
    pc_sb_puts(b, "<code>");
    pc_sb_xml(b, pc_json_str(r, "tensor"));
    pc_sb_puts(b, "</code>");
    for (int k = 1; grouped && k < PC_GROUP_FIRST && g->inst[k]; k++) {
        pc_sb_puts(b, k == 1 ? "; then <code>" : ", <code>");
        pc_sb_xml(b, pc_json_str(g->inst[k], "tensor"));
        pc_sb_puts(b, "</code>");
    }
    if (grouped && g->n > PC_GROUP_FIRST) pc_sb_printf(b, " and %zu more", g->n - PC_GROUP_FIRST);
    pc_sb_puts(b, "</td><td>");
    if (cJSON_IsNumber(off)) pc_sb_printf(b, "%.0f", off->valuedouble);
    pc_sb_puts(b, "</td><td>");
    pc_sb_xml(b, pc_json_str(r, "message"));
    pc_sb_puts(b, "</td></tr>\n");
}

static void findings(pc_sb *b, const cJSON *doc, const cJSON *inputs)
{
    const cJSON *in;
    bool corpus = !strcmp(pc_json_str(doc, "kind"), "corpus");
    pc_sb_printf(b, "<h2>%s</h2>\n<table id=\"findings\"><tr><th>input</th><th>rule</th><th>status</th><th>rule title</th><th>tensor</th><th>offset</th><th>message</th></tr>\n",
                 corpus ? "Findings (a case rejected as expected shows its expected findings, not failures)" : "Failures and warnings");
    cJSON_ArrayForEach(in, inputs) {
        pc_fgroup *g = NULL;
        size_t ng = pc_findings_group(cJSON_GetObjectItem(in, "results"), failing, NULL, &g);
        if (ng == (size_t)-1) { b->oom = true; continue; }
        for (size_t i = 0; i < ng; i++) {
            if (g[i].n >= PC_GROUP_MIN) { finding_row(b, doc, in, &g[i]); continue; }
            for (size_t k = 0; k < g[i].n; k++) {
                pc_fgroup one = {.inst = {g[i].all[k]}, .n = 1, .modules = 1};
                finding_row(b, doc, in, &one);
            }
        }
        pc_findings_group_free(g, ng);
    }
    pc_sb_puts(b, "</table>\n");
}

static void cases(pc_sb *b, const cJSON *doc)
{
    const cJSON *cs = cJSON_GetObjectItem(doc, "cases"), *c;
    if (!cs) return;
    pc_sb_puts(b, "<h2>Cases</h2>\n<table id=\"cases\"><tr><th>case</th><th>outcome</th><th>detail</th></tr>\n");
    cJSON_ArrayForEach(c, cs) {
        const char *o = pc_json_str(c, "outcome");
        pc_sb_puts(b, "<tr><td>");
        pc_sb_xml(b, pc_json_str(c, "case"));
        pc_sb_printf(b, "</td><td class=\"%s\">", !strcmp(o, "pass") || !strcmp(o, "expected-fail") ? "pass" : "fail");
        pc_sb_xml(b, o);
        pc_sb_puts(b, "</td><td>");
        pc_sb_xml(b, pc_json_str(c, "detail"));
        pc_sb_puts(b, "</td></tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

char *pc_report_html(const cJSON *doc)
{
    if (!strncmp(pc_json_str(doc, "kind"), "certify", 7)) return pc_report_html_certify(doc);
    pc_sb b = {0};
    pc_sb_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>packcheck report</title>\n");
    pc_sb_puts(&b, k_style);
    pc_sb_printf(&b, "</head><body>\n<h1>packcheck %s report</h1>\n<p>version %s</p>\n", pc_json_str(doc, "kind"),
                 pc_json_str(doc, "packcheck_version"));
    const cJSON *inputs = cJSON_GetObjectItem(doc, "inputs");
    banners(&b, doc, inputs);
    cases(&b, doc);
    findings(&b, doc, inputs);
    unchecked(&b, inputs);
    matrix(&b, inputs);
    pc_sb_puts(&b, "</body></html>");
    return pc_sb_take(&b);
}
