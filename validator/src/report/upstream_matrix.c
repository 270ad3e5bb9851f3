/* The public results matrix (reports/UPSTREAM.md, upstream.html; issue 16): for a certify-matrix
 * annotated by pc_certify_readers_annotate, one row per reader and version (language, mode, what it
 * claims), one column per rule family, cells "passed/exercised" with the expected-failure count, and
 * every non-passing cell linked to its cases, their causes and the reader's certificate. Families a
 * reader does not claim show as "-" (their counts stay in upstream.json). */
#include "report.h"

#include <string.h>

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

bool pc_upstream_annotated(const cJSON *doc)
{
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "readers"), 0);
    return r && cJSON_GetObjectItem(r, "mode");
}

static bool claims(const cJSON *r, const char *fam)
{
    const cJSON *c = cJSON_GetObjectItem(r, "claims"), *x;
    if (!cJSON_GetArraySize(c)) return true;
    cJSON_ArrayForEach(x, c)
        if (cJSON_IsString(x) && !strcmp(x->valuestring, fam)) return true;
    return false;
}

static void claims_text(pc_sb *b, const cJSON *r, bool xml)
{
    const cJSON *x;
    int k = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "claims")) {
        pc_sb_puts(b, k++ ? ", " : "");
        if (xml) pc_sb_xml(b, x->valuestring); else pc_sb_md(b, x->valuestring);
    }
}

/* "p/n", "p/n (x xfail)", "**p/n (u unexpected)**". */
static void cell_text(pc_sb *b, const cJSON *e, bool md)
{
    double n = num(e, "cases"), p = num(e, "pass"), xf = num(e, "expected_fail"), u = n - p - xf;
    if (md && u > 0) pc_sb_puts(b, "**");
    pc_sb_printf(b, "%.0f/%.0f", p, n);
    if (xf > 0) pc_sb_printf(b, " (%.0f xfail)", xf);
    if (u > 0) pc_sb_printf(b, " (%.0f unexpected)", u);
    if (md && u > 0) pc_sb_puts(b, "**");
}

/* Non-passing cases of one family grouped by (outcome, cause): [{outcome, cause, n, example, diagnosis}]. */
static cJSON *grouped(const cJSON *fam)
{
    cJSON *g = cJSON_CreateArray();
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(fam, "failing")) {
        cJSON *x, *hit = NULL;
        cJSON_ArrayForEach(x, g)
            if (!strcmp(pc_json_str(x, "outcome"), pc_json_str(c, "outcome")) && !strcmp(pc_json_str(x, "cause"), pc_json_str(c, "cause"))) hit = x;
        if (!hit) {
            hit = cJSON_CreateObject();
            cJSON_AddStringToObject(hit, "outcome", pc_json_str(c, "outcome"));
            cJSON_AddStringToObject(hit, "cause", pc_json_str(c, "cause"));
            cJSON_AddStringToObject(hit, "example", pc_json_str(c, "case"));
            cJSON_AddStringToObject(hit, "diagnosis", pc_json_str(c, "diagnosis"));
            cJSON_AddStringToObject(hit, "status", pc_json_str(c, "status"));
            cJSON_AddNumberToObject(hit, "n", 0);
            cJSON_AddItemToArray(g, hit);
        }
        cJSON_SetNumberValue(cJSON_GetObjectItem(hit, "n"), num(hit, "n") + 1);
    }
    return g;
}

/* reports/upstream/x.json -> upstream/x.html (the pages sit in reports/). */
static void cert_path(char *buf, size_t len, const cJSON *r, const char *ext)
{
    const char *p = pc_json_str(r, "certificate");
    if (!strncmp(p, "reports/", 8)) p += 8;
    size_t n = strlen(p);
    snprintf(buf, len, "%.*s%s", (int)(n > 5 && !strcmp(p + n - 5, ".json") ? n - 5 : n), p, ext);
}

static void cert_link(pc_sb *b, const cJSON *r, const char *ext)
{
    char buf[512];
    cert_path(buf, sizeof buf, r, ext);
    pc_sb_md(b, buf);
}

static void cert_html(pc_sb *b, const cJSON *r)
{
    char buf[512];
    cert_path(buf, sizeof buf, r, ".html");
    pc_sb_xml(b, buf);
}

void pc_upstream_md(pc_sb *b, const cJSON *doc)
{
    const cJSON *fams = cJSON_GetObjectItem(doc, "families"), *f, *r;
    pc_sb_printf(b, "# packcheck certify: readers compared\n\nCorpus MANIFEST.sha256 digest `%s`, packcheck %s. One row per reader and version;\n"
                    "each family cell is cases passed / cases exercising a rule of that family, with the count of listed\n"
                    "expected failures (each with its cause below); **bold** = unexpected failures; `-` = a family the reader\n"
                    "does not claim. `container-only` readers verify files but decode no quantization: their verdicts are\n"
                    "compared, no logical view is asked for. `corpus` = the first 8 hex digits of the MANIFEST.sha256 digest\n"
                    "the reader was certified against (rows differ when a reader was not re-certified after the corpus changed).\n"
                    "`depth` = where the answer comes from (`helper`: a dequantisation function; `loader`: the parameters its\n"
                    "loading code built; `compute`: its own matmul on an identity input); `precision` = the dtype it answered in\n"
                    "(bf16/f16 answers are compared with the logical view rounded once to that dtype, ties to even).\n\n"
                    "| reader | version | language | mode | depth | precision | claims | corpus | verdict | pass |",
                 pc_json_str(doc, "manifest_sha256"), pc_json_str(doc, "packcheck_version"));
    cJSON_ArrayForEach(f, fams) pc_sb_printf(b, " %s |", f->valuestring);
    pc_sb_puts(b, "\n|---|---|---|---|---|---|---|---|---|---|");
    cJSON_ArrayForEach(f, fams) pc_sb_puts(b, "---|");
    pc_sb_puts(b, "\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        const cJSON *cnt = cJSON_GetObjectItem(r, "counts");
        pc_sb_puts(b, "| [");
        pc_sb_md(b, pc_json_str(r, "name"));
        pc_sb_puts(b, "](");
        cert_link(b, r, ".md");
        pc_sb_puts(b, ") | ");
        pc_sb_md(b, pc_json_str(r, "version"));
        pc_sb_puts(b, " | ");
        pc_sb_md(b, pc_json_str(r, "language"));
        pc_sb_printf(b, " | %s | %s | %s%s%s | ", pc_json_str(r, "mode"), pc_json_str(r, "depth"), pc_json_str(r, "precision"),
                     *pc_json_str(r, "tolerance") ? ", " : "", pc_json_str(r, "tolerance"));
        claims_text(b, r, false);
        pc_sb_printf(b, " | `%.8s`%s | %s%s | %.0f/%.0f |", pc_json_str(r, "manifest_sha256"), cJSON_IsTrue(cJSON_GetObjectItem(r, "stale")) ? " **stale**" : "",
                     cJSON_IsTrue(cJSON_GetObjectItem(r, "certified")) ? "certified" : "**not certified**",
                     cJSON_IsTrue(cJSON_GetObjectItem(r, "stale")) ? " (stale)" : "", num(cnt, "pass"), num(cnt, "run"));
        cJSON_ArrayForEach(f, fams) {
            const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring);
            pc_sb_puts(b, " ");
            if (!claims(r, f->valuestring)) pc_sb_puts(b, "-");
            else if (e) cell_text(b, e, true);
            pc_sb_puts(b, " |");
        }
        pc_sb_puts(b, "\n");
    }
    pc_sb_puts(b, "\n## Non-passing cases in the claimed families, by cause\n\n| reader | family | outcome | cases | cause | example case | diagnosis |\n|---|---|---|---|---|---|---|\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        cJSON_ArrayForEach(f, fams) {
            if (!claims(r, f->valuestring)) continue;
            cJSON *g = grouped(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring)), *x;
            cJSON_ArrayForEach(x, g) {
                pc_sb_puts(b, "| ");
                pc_sb_md(b, pc_json_str(r, "name"));
                pc_sb_printf(b, " | %s | %s%s | %.0f | ", f->valuestring, pc_json_str(x, "outcome"),
                             strcmp(pc_json_str(x, "status"), "expected-fail") ? " (**unexpected**)" : "", num(x, "n"));
                pc_sb_md(b, pc_json_str(x, "cause"));
                pc_sb_puts(b, " | ");
                pc_sb_md(b, pc_json_str(x, "example"));
                pc_sb_puts(b, " | ");
                pc_sb_md(b, pc_json_str(x, "diagnosis"));
                pc_sb_puts(b, " |\n");
            }
            cJSON_Delete(g);
        }
    }
    pc_sb_puts(b, "\nReader-wrong findings, ready to file upstream: `reports/findings/`. Certificates (every case, its outcome,\n"
                  "detail and diagnosis): the reader links above.\n");
}


void pc_upstream_html(pc_sb *b, const cJSON *doc)
{
    const cJSON *r, *f, *fams = cJSON_GetObjectItem(doc, "families");
    pc_sb_puts(b, "<h2>Results</h2>\n<p>cases passed / cases exercising the family (expected failures counted, each with its cause "
                  "below); &ldquo;&ndash;&rdquo; = not claimed; a container-only reader's verdicts are compared, no view asked for</p>\n"
                  "<table id=\"results\"><tr><th>reader</th><th>version</th><th>language</th><th>mode</th><th>depth</th><th>precision</th><th>claims</th><th>corpus</th><th>verdict</th><th>pass</th>");
    cJSON_ArrayForEach(f, fams) pc_sb_printf(b, "<th>%s</th>", f->valuestring);
    pc_sb_puts(b, "</tr>\n");
    int ri = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        const cJSON *cnt = cJSON_GetObjectItem(r, "counts");
        bool ok = cJSON_IsTrue(cJSON_GetObjectItem(r, "certified"));
        pc_sb_puts(b, "<tr><td><a href=\"");
        cert_html(b, r);
        pc_sb_puts(b, "\">");
        pc_sb_xml(b, pc_json_str(r, "name"));
        pc_sb_puts(b, "</a></td><td>");
        pc_sb_xml(b, pc_json_str(r, "version"));
        pc_sb_puts(b, "</td><td>");
        pc_sb_xml(b, pc_json_str(r, "language"));
        pc_sb_printf(b, "</td><td class=\"mode\">%s</td><td>%s</td><td>%s%s", pc_json_str(r, "mode"), pc_json_str(r, "depth"), pc_json_str(r, "precision"),
                     *pc_json_str(r, "tolerance") ? ", " : "");
        pc_sb_xml(b, pc_json_str(r, "tolerance"));
        pc_sb_puts(b, "</td><td>");
        claims_text(b, r, true);
        bool stale = cJSON_IsTrue(cJSON_GetObjectItem(r, "stale"));
        pc_sb_printf(b, "</td><td class=\"%s\"><code>%.8s</code>%s</td><td class=\"%s\">%s%s</td><td>%.0f/%.0f</td>", stale ? "old-corpus" : "",
                     pc_json_str(r, "manifest_sha256"), stale ? "<br><b>stale</b>" : "", ok ? "pass" : "wrong-output", ok ? "certified" : "not certified",
                     stale ? " (stale: an older corpus)" : "", num(cnt, "pass"), num(cnt, "run"));
        cJSON_ArrayForEach(f, fams) {
            const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring);
            if (!e || !claims(r, f->valuestring)) { pc_sb_puts(b, "<td class=\"none\">&ndash;</td>"); continue; }
            double n = num(e, "cases"), p = num(e, "pass"), xf = num(e, "expected_fail");
            pc_sb_printf(b, "<td class=\"fam %s\">", p == n ? "pass" : p + xf == n ? "xfail" : "wrong-output");
            if (p != n) pc_sb_printf(b, "<a href=\"#fail-%d-%s\">", ri, f->valuestring);
            cell_text(b, e, false);
            pc_sb_puts(b, p != n ? "</a></td>" : "</td>");
        }
        pc_sb_puts(b, "</tr>\n");
        ri++;
    }
    pc_sb_puts(b, "</table>\n<h2>Non-passing cases in the claimed families</h2>\n<div id=\"failing\">\n");
    ri = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        cJSON_ArrayForEach(f, fams) {
            const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring), *c;
            if (!e || !claims(r, f->valuestring) || !cJSON_GetArraySize(cJSON_GetObjectItem(e, "failing"))) continue;
            pc_sb_printf(b, "<h3 id=\"fail-%d-%s\">", ri, f->valuestring);
            pc_sb_xml(b, pc_json_str(r, "name"));
            pc_sb_printf(b, ": %s</h3>\n<table class=\"failing\"><tr><th>case</th><th>outcome</th><th>cause</th><th>diagnosis</th></tr>\n", f->valuestring);
            cJSON_ArrayForEach(c, cJSON_GetObjectItem(e, "failing")) {
                pc_sb_puts(b, "<tr><td><a href=\"");
                cert_html(b, r);
                pc_sb_puts(b, "#case-");
                pc_sb_xml(b, pc_json_str(c, "case"));
                pc_sb_puts(b, "\"><code>");
                pc_sb_xml(b, pc_json_str(c, "case"));
                pc_sb_printf(b, "</code></a></td><td class=\"%s\">%s%s</td><td class=\"d\">", pc_json_str(c, "outcome"), pc_json_str(c, "outcome"),
                             strcmp(pc_json_str(c, "status"), "expected-fail") ? " (unexpected)" : "");
                pc_sb_xml(b, pc_json_str(c, "cause"));
                pc_sb_puts(b, "</td><td>");
                pc_sb_xml(b, pc_json_str(c, "diagnosis"));
                pc_sb_puts(b, "</td></tr>\n");
            }
            pc_sb_puts(b, "</table>\n");
        }
        ri++;
    }
    pc_sb_puts(b, "</div>\n");
}

/* Certificates made against another corpus than the current one (the matrix's "current_manifest_sha256",
 * each reader's "stale"): said once above the table, and in each row. */
void pc_upstream_stale_note(pc_sb *b, const cJSON *doc)
{
    const cJSON *r;
    int stale = 0, all = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) { all++; stale += cJSON_IsTrue(cJSON_GetObjectItem(r, "stale")); }
    const char *cur = pc_json_str(doc, "current_manifest_sha256");
    if (!*cur) return;
    if (!stale) { pc_sb_printf(b, "<p id=\"stale\">Every certificate is on the current corpus <code>%.8s</code>.</p>\n", cur); return; }
    pc_sb_printf(b, "<p id=\"stale\" class=\"old-corpus\"><b>%d of %d certificates are stale</b>: made against an older corpus than the "
                    "current one (<code>%.8s</code>); their counts describe that corpus, not this one. Rerun "
                    "generators/certify_upstream.sh to recertify.</p>\n", stale, all, cur);
}
