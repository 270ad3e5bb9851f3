/* HTML for certify documents: one self-contained page (no scripts, no external assets).
 * kind "certify": the verdict, a per-rule x per-case matrix coloured by outcome, the cases, and for
 * wrong outputs a picture of expected vs got (a scrambled pattern shows the bug at a glance).
 * kind "certify-matrix": the results table (reader x rule family), the kill matrix, and the case x
 * reader matrix pruned to one row per distinct behaviour. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static const char *k_style =
    /* Wide tables scroll inside the page instead of widening it: the page fits a narrow screen. */
    "<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em;"
    "display:block;max-width:100%;overflow-x:auto}p,h1,h2,h3{overflow-wrap:anywhere}"
    "td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px;vertical-align:top;white-space:nowrap}td.d{white-space:normal}th{background:#f0f0f0}"
    "th.v{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-weight:normal;max-height:22em}"
    "td.m{width:14px;height:14px;padding:0;text-align:center}"
    ".pass{background:#a5d6a7}.wrong-output{background:#ef5350;color:#fff}.accepted-invalid{background:#ff8a65}"
    ".rejected-valid{background:#ffb74d}.crash{background:#7b1fa2;color:#fff}.timeout{background:#5c6bc0;color:#fff}"
    ".tampered{background:#212121;color:#ff5252}.partial{background:#f9a825;color:#000}"
    ".xfail{background:repeating-linear-gradient(45deg,#fff59d,#fff59d 3px,#e0e0e0 3px,#e0e0e0 6px)}"
    ".stale{background:#000;color:#fff}.none{background:#fafafa}.old-corpus{background:#ffe0b2}"
    ".banner{font-size:20px;padding:.5em 1em;display:inline-block;border-radius:4px}"
    ".certified{background:#2e7d32;color:#fff}.not-certified{background:#c62828;color:#fff}"
    "figure{display:inline-block;margin:0 1.5em 1em 0}figure img{image-rendering:pixelated;border:1px solid #999}"
    ".pics{border-top:1px solid #ddd;padding-top:.5em;margin-bottom:1em}code{font-size:12px}.legend span{padding:1px 6px;margin-right:4px}"
    "</style>\n";

/* The class a case's cell gets: its outcome, or xfail / stale. */
static const char *cell_class(const cJSON *c)
{
    const char *st = pc_json_str(c, "status");
    if (!strcmp(st, "stale")) return "stale";
    if (!strcmp(st, "expected-fail")) return "xfail";
    return pc_json_str(c, "outcome");
}

static bool case_has_rule(const cJSON *c, const char *rule)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(c, "rules"))
        if (cJSON_IsString(x) && !strcmp(x->valuestring, rule)) return true;
    return !strcmp(pc_json_str(c, "reject_rule"), rule);
}

static void legend(pc_sb *b)
{
    static const char *const cls[] = {"pass", "wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout", "tampered", "xfail", "stale"};
    pc_sb_puts(b, "<p class=\"legend\">");
    for (size_t i = 0; i < sizeof cls / sizeof *cls; i++) pc_sb_printf(b, "<span class=\"%s\">%s</span>", cls[i], !strcmp(cls[i], "xfail") ? "expected failure" : cls[i]);
    pc_sb_puts(b, "</p>\n");
}

static void header(pc_sb *b, const cJSON *doc)
{
    const cJSON *rd = cJSON_GetObjectItem(doc, "reader"), *co = cJSON_GetObjectItem(doc, "corpus"), *cnt = cJSON_GetObjectItem(doc, "counts"), *f;
    bool ok = cJSON_IsTrue(cJSON_GetObjectItem(doc, "certified"));
    pc_sb_puts(b, "<h1>packcheck certify: ");
    pc_sb_xml(b, pc_json_str(rd, "name"));
    bool partial = !ok && !strcmp(pc_json_str(doc, "verdict"), "partial"); /* --only: not a certificate */
    pc_sb_printf(b, "</h1>\n<p><span id=\"verdict\" class=\"banner %s\">%s</span></p>\n", ok ? "certified" : partial ? "partial" : "not-certified",
                 ok ? "CERTIFIED" : partial ? "PARTIAL (not a certificate)" : "NOT CERTIFIED");
    const cJSON *sc = cJSON_GetObjectItem(doc, "scope"), *sx;
    if (sc) { /* a declared scope: the cases outside it are coverage, not failures */
        double all = pc_json_num(sc, "cases", 0), un = pc_json_num(sc, "unsupported", 0);
        pc_sb_printf(b, "<p id=\"scope\">Declared scope:");
        cJSON_ArrayForEach(sx, cJSON_GetObjectItem(sc, "formats")) { pc_sb_puts(b, " format "); pc_sb_xml(b, sx->valuestring); }
        cJSON_ArrayForEach(sx, cJSON_GetObjectItem(sc, "layouts")) { pc_sb_puts(b, " layout "); pc_sb_xml(b, sx->valuestring); }
        pc_sb_printf(b, ". Coverage: %.0f of %.0f cases in scope; %.0f <span class=\"unsupported\">unsupported</span> (neither pass nor failure).</p>\n",
                     all - un, all, un);
    }
    if (*pc_json_str(doc, "verdict_reason")) { pc_sb_puts(b, "<p id=\"verdict-reason\">"); pc_sb_xml(b, pc_json_str(doc, "verdict_reason")); pc_sb_puts(b, "</p>\n"); }
    pc_sb_puts(b, "<table id=\"provenance\"><tr><th>reader command</th><td><code>");
    pc_sb_xml(b, pc_json_str(rd, "command"));
    pc_sb_puts(b, "</code></td></tr>\n<tr><th>executable</th><td><code>");
    pc_sb_xml(b, pc_json_str(rd, "executable"));
    pc_sb_puts(b, "</code><br>sha256 <code>");
    pc_sb_xml(b, pc_json_str(rd, "executable_sha256"));
    pc_sb_puts(b, "</code></td></tr>\n");
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(rd, "files")) {
        pc_sb_puts(b, "<tr><th>reader file</th><td><code>");
        pc_sb_xml(b, pc_json_str(f, "path"));
        pc_sb_puts(b, "</code><br>sha256 <code>");
        pc_sb_xml(b, pc_json_str(f, "sha256"));
        pc_sb_puts(b, "</code></td></tr>\n");
    }
    pc_sb_puts(b, "<tr><th>corpus</th><td><code>");
    pc_sb_xml(b, pc_json_str(co, "path"));
    pc_sb_puts(b, "</code><br>MANIFEST.sha256 digest <code>");
    pc_sb_xml(b, pc_json_str(co, "manifest_sha256"));
    pc_sb_printf(b, "</code></td></tr>\n<tr><th>packcheck</th><td>%s</td></tr></table>\n", pc_json_str(doc, "packcheck_version"));
    pc_sb_puts(b, "<table id=\"counts\"><tr>");
    const cJSON *x;
    cJSON_ArrayForEach(x, cnt) pc_sb_printf(b, "<th>%s</th>", x->string);
    pc_sb_puts(b, "</tr><tr>");
    cJSON_ArrayForEach(x, cnt) pc_sb_printf(b, "<td>%.0f</td>", x->valuedouble);
    pc_sb_puts(b, "</tr></table>\n");
}

static void rule_matrix(pc_sb *b, const cJSON *doc)
{
    const cJSON *cases = cJSON_GetObjectItem(doc, "cases"), *c, *r;
    pc_sb_puts(b, "<h2>Rules x cases</h2>\n");
    legend(b);
    pc_sb_puts(b, "<table id=\"matrix\"><tr><th>rule</th><th>passed</th>");
    cJSON_ArrayForEach(c, cases) {
        pc_sb_puts(b, "<th class=\"v\">");
        pc_sb_xml(b, pc_json_str(c, "case"));
        pc_sb_puts(b, "</th>");
    }
    pc_sb_puts(b, "</tr>\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "rules")) {
        const char *id = pc_json_str(r, "rule");
        double n = cJSON_GetObjectItem(r, "cases")->valuedouble, p = cJSON_GetObjectItem(r, "pass")->valuedouble;
        double xf = cJSON_GetObjectItem(r, "expected_fail")->valuedouble;
        pc_sb_printf(b, "<tr><td title=\"");
        pc_sb_xml(b, pc_json_str(r, "title"));
        pc_sb_printf(b, "\">%s</td><td class=\"%s\">%.0f/%.0f%s</td>", id, p == n ? "pass" : p + xf == n ? "xfail" : "wrong-output", p, n, xf ? "*" : "");
        cJSON_ArrayForEach(c, cases) {
            if (!case_has_rule(c, id)) { pc_sb_puts(b, "<td class=\"m none\"></td>"); continue; }
            pc_sb_printf(b, "<td class=\"m %s\" title=\"", cell_class(c));
            pc_sb_xml(b, pc_json_str(c, "case"));
            pc_sb_printf(b, ": %s\"></td>", pc_json_str(c, "outcome"));
        }
        pc_sb_puts(b, "</tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

static void case_table(pc_sb *b, const cJSON *doc)
{
    const cJSON *c;
    pc_sb_puts(b, "<h2>Cases</h2>\n<table id=\"cases\"><tr><th>case</th><th>expected</th><th>outcome</th><th>exit</th><th>s</th><th>detail</th><th>diagnosis</th></tr>\n");
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const cJSON *d = cJSON_GetObjectItem(c, "diagnosis"), *ex = cJSON_GetObjectItem(c, "exit"), *sig = cJSON_GetObjectItem(c, "signal");
        pc_sb_puts(b, "<tr id=\"case-");
        pc_sb_xml(b, pc_json_str(c, "case"));
        pc_sb_puts(b, "\"><td><code>");
        pc_sb_xml(b, pc_json_str(c, "case"));
        pc_sb_printf(b, "</code></td><td>%s</td><td class=\"%s\">%s%s</td><td>", pc_json_str(c, "expected"), cell_class(c), pc_json_str(c, "outcome"),
                     !strcmp(pc_json_str(c, "status"), "expected-fail") ? " (expected)" : !strcmp(pc_json_str(c, "status"), "stale") ? " (stale)" : "");
        if (cJSON_IsNumber(ex)) pc_sb_printf(b, "%.0f", ex->valuedouble);
        else if (cJSON_IsNumber(sig)) pc_sb_printf(b, "signal %.0f", sig->valuedouble);
        else pc_sb_xml(b, pc_json_str(c, "exit"));
        pc_sb_printf(b, "</td><td>%.2f</td><td class=\"d\">", cJSON_GetObjectItem(c, "seconds") ? cJSON_GetObjectItem(c, "seconds")->valuedouble : 0);
        pc_sb_puts(b, "");
        pc_sb_xml(b, pc_json_str(c, "detail"));
        if (*pc_json_str(c, "expected_failure")) { pc_sb_puts(b, "<br><i>expected failure: "); pc_sb_xml(b, pc_json_str(c, "expected_failure")); pc_sb_puts(b, "</i>"); }
        pc_sb_puts(b, "</td><td>");
        if (d) { pc_sb_puts(b, "<b>"); pc_sb_xml(b, pc_json_str(d, "bug")); pc_sb_puts(b, "</b>: "); pc_sb_xml(b, pc_json_str(d, "title")); }
        pc_sb_puts(b, "</td></tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

static void pictures(pc_sb *b, const cJSON *doc)
{
    const cJSON *c;
    bool any = false;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const cJSON *p = cJSON_GetObjectItem(c, "picture");
        if (!p) continue;
        size_t ne = 0, ng = 0;
        uint8_t *ex = pc_base64_decode(pc_json_str(p, "expected"), &ne), *got = pc_base64_decode(pc_json_str(p, "got"), &ng);
        unsigned rows = (unsigned)cJSON_GetObjectItem(p, "rows")->valuedouble, cols = (unsigned)cJSON_GetObjectItem(p, "cols")->valuedouble;
        unsigned levels = (unsigned)cJSON_GetObjectItem(p, "levels")->valuedouble;
        if (ex && got && ne == ng && ne == (size_t)rows * cols && rows && cols) {
            if (!any) pc_sb_puts(b, "<h2>Expected vs got</h2>\n<div id=\"pictures\">\n");
            any = true;
            unsigned scale = cols <= 16 && rows <= 16 ? 12 : cols <= 32 && rows <= 32 ? 8 : 5;
            const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
            pc_sb_puts(b, "<div class=\"pics\"><p><code>");
            pc_sb_xml(b, pc_json_str(c, "case"));
            pc_sb_puts(b, "</code> module <code>");
            pc_sb_xml(b, pc_json_str(p, "module"));
            pc_sb_printf(b, "</code>: %s, top-left %ux%u", pc_json_str(p, "kind"), rows, cols);
            if (d) { pc_sb_puts(b, " &mdash; looks like <b>"); pc_sb_xml(b, pc_json_str(d, "title")); pc_sb_puts(b, "</b>"); }
            pc_sb_puts(b, "</p>\n");
            const char *lab[3] = {"expected", "got", "differs"};
            for (int k = 0; k < 3; k++) {
                pc_sb_printf(b, "<figure><img class=\"pic\" width=\"%u\" height=\"%u\" alt=\"%s\" src=\"", cols * scale, rows * scale, lab[k]);
                pc_sb_bmp_uri(b, k == 1 ? got : ex, k == 2 ? got : NULL, rows, cols, levels, k == 2);
                pc_sb_printf(b, "\"><figcaption>%s</figcaption></figure>", lab[k]);
            }
            pc_sb_puts(b, "</div>\n");
        }
        free(ex);
        free(got);
    }
    if (any) pc_sb_puts(b, "</div>\n");
}

static void family_table(pc_sb *b, const cJSON *doc)
{
    const cJSON *f;
    pc_sb_puts(b, "<h2>Rule families</h2>\n<table id=\"families\"><tr><th>family</th><th>cases</th><th>pass</th><th>expected failures</th><th>unexpected</th></tr>\n");
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "families"))
        pc_sb_printf(b, "<tr><td>%s</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td></tr>\n", pc_json_str(f, "family"),
                     cJSON_GetObjectItem(f, "cases")->valuedouble, cJSON_GetObjectItem(f, "pass")->valuedouble,
                     cJSON_GetObjectItem(f, "expected_fail")->valuedouble, cJSON_GetObjectItem(f, "fail")->valuedouble);
    pc_sb_puts(b, "</table>\n");
}

/* ---- certify-matrix ---- */

static void results_table(pc_sb *b, const cJSON *doc)
{
    const cJSON *r, *f, *fams = cJSON_GetObjectItem(doc, "families");
    pc_sb_puts(b, "<h2>Results</h2>\n<p>cases passed / cases of the family (expected failures marked *)</p>\n<table id=\"results\"><tr><th>reader</th><th>verdict</th><th>pass</th>");
    cJSON_ArrayForEach(f, fams) pc_sb_printf(b, "<th>%s</th>", f->valuestring);
    pc_sb_puts(b, "</tr>\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        const cJSON *cnt = cJSON_GetObjectItem(r, "counts");
        bool ok = cJSON_IsTrue(cJSON_GetObjectItem(r, "certified"));
        pc_sb_puts(b, "<tr><td>");
        pc_sb_xml(b, pc_json_str(r, "name"));
        pc_sb_printf(b, "</td><td class=\"%s\">%s</td><td>%.0f/%.0f</td>", ok ? "pass" : "wrong-output", ok ? "certified" : "not certified",
                     cJSON_GetObjectItem(cnt, "pass") ? cJSON_GetObjectItem(cnt, "pass")->valuedouble : 0,
                     cJSON_GetObjectItem(cnt, "run") ? cJSON_GetObjectItem(cnt, "run")->valuedouble : 0);
        cJSON_ArrayForEach(f, fams) {
            const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring);
            if (!e) { pc_sb_puts(b, "<td class=\"none\"></td>"); continue; }
            double n = cJSON_GetObjectItem(e, "cases")->valuedouble, p = cJSON_GetObjectItem(e, "pass")->valuedouble, xf = cJSON_GetObjectItem(e, "expected_fail")->valuedouble;
            pc_sb_printf(b, "<td class=\"%s\">%.0f/%.0f%s</td>", p == n ? "pass" : p + xf == n ? "xfail" : "wrong-output", p, n, xf ? "*" : "");
        }
        pc_sb_puts(b, "</tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

static void cause_table(pc_sb *b, const cJSON *doc)
{
    const cJSON *r, *x;
    pc_sb_puts(b, "<h2>Failures by cause</h2>\n<table id=\"causes\"><tr><th>reader</th><th>outcome</th><th>cases</th><th>cause</th><th>example case</th></tr>\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "causes")) {
            pc_sb_puts(b, "<tr><td>");
            pc_sb_xml(b, pc_json_str(r, "name"));
            pc_sb_printf(b, "</td><td class=\"%s\">%s</td><td>%.0f</td><td class=\"d\">", pc_json_str(x, "outcome"), pc_json_str(x, "outcome"),
                         cJSON_GetObjectItem(x, "cases")->valuedouble);
            pc_sb_xml(b, pc_json_str(x, "cause"));
            pc_sb_puts(b, "</td><td><code>");
            pc_sb_xml(b, pc_json_str(x, "example"));
            pc_sb_puts(b, "</code></td></tr>\n");
        }
    }
    pc_sb_puts(b, "</table>\n");
}

static void kill_matrix(pc_sb *b, const cJSON *doc)
{
    const cJSON *r, *x;
    pc_sb_puts(b, "<h2>Kill matrix</h2>\n<table id=\"kills\"><tr><th>reader</th><th>killed by (cases)</th><th>diagnosed as</th></tr>\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItem(r, "killed_by"));
        pc_sb_puts(b, "<tr><td>");
        pc_sb_xml(b, pc_json_str(r, "name"));
        pc_sb_printf(b, "</td><td class=\"%s\">%d", n ? "wrong-output" : "pass", n);
        int shown = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "killed_by")) {
            if (shown++ == 12) { pc_sb_puts(b, " &hellip;"); break; }
            pc_sb_puts(b, shown == 1 ? ": " : ", ");
            pc_sb_xml(b, x->valuestring);
        }
        pc_sb_puts(b, "</td><td>");
        shown = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "diagnosed")) { if (shown++) pc_sb_puts(b, ", "); pc_sb_xml(b, x->valuestring); }
        pc_sb_puts(b, "</td></tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

static void pruned_matrix(pc_sb *b, const cJSON *doc)
{
    const cJSON *g, *r, *o;
    pc_sb_puts(b, "<h2>Cases x readers (rows with identical behaviour grouped)</h2>\n");
    legend(b);
    pc_sb_puts(b, "<table id=\"matrix\"><tr><th>cases</th>");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) { pc_sb_puts(b, "<th class=\"v\">"); pc_sb_xml(b, pc_json_str(r, "name")); pc_sb_puts(b, "</th>"); }
    pc_sb_puts(b, "</tr>\n");
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(doc, "groups")) {
        const cJSON *cs = cJSON_GetObjectItem(g, "cases"), *x;
        int n = cJSON_GetArraySize(cs), shown = 0;
        pc_sb_printf(b, "<tr><td>%d case%s: ", n, n == 1 ? "" : "s");
        cJSON_ArrayForEach(x, cs) {
            if (shown++ == 6) { pc_sb_puts(b, " &hellip;"); break; }
            if (shown > 1) pc_sb_puts(b, ", ");
            pc_sb_puts(b, "<code>");
            pc_sb_xml(b, x->valuestring);
            pc_sb_puts(b, "</code>");
        }
        pc_sb_puts(b, "</td>");
        cJSON_ArrayForEach(o, cJSON_GetObjectItem(g, "outcomes")) {
            char cls[64];
            snprintf(cls, sizeof cls, "%s", o->valuestring);
            char *colon = strchr(cls, ':');
            if (colon) *colon = 0;
            pc_sb_printf(b, "<td class=\"m %s\" title=\"", cls);
            pc_sb_xml(b, o->valuestring);
            pc_sb_puts(b, "\"></td>");
        }
        pc_sb_puts(b, "</tr>\n");
    }
    pc_sb_puts(b, "</table>\n");
}

char *pc_report_html_certify(const cJSON *doc)
{
    pc_sb b = {0};
    bool matrix = !strcmp(pc_json_str(doc, "kind"), "certify-matrix");
    pc_sb_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>packcheck certify</title>\n");
    pc_sb_puts(&b, k_style);
    pc_sb_puts(&b, "</head><body>\n");
    if (matrix) {
        pc_sb_printf(&b, "<h1>packcheck certify: readers compared</h1>\n<p>corpus MANIFEST.sha256 digest <code>%s</code>, packcheck %s</p>\n",
                     pc_json_str(doc, "manifest_sha256"), pc_json_str(doc, "packcheck_version"));
        pc_upstream_stale_note(&b, doc);
        if (pc_upstream_annotated(doc)) pc_upstream_html(&b, doc);
        else results_table(&b, doc);
        cause_table(&b, doc);
        kill_matrix(&b, doc);
        pruned_matrix(&b, doc);
    } else {
        header(&b, doc);
        rule_matrix(&b, doc);
        family_table(&b, doc);
        pictures(&b, doc);
        case_table(&b, doc);
    }
    pc_sb_puts(&b, "</body></html>");
    return pc_sb_take(&b);
}
