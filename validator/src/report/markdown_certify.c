/* Markdown for certify documents: the verdict and provenance, families and rules rolled up, the
 * cases that did not pass; for a certify-matrix the public results table (one row per reader, one
 * column per rule family) and the kill matrix. */
#include "report.h"

#include <string.h>

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void family_cell(pc_sb *b, const cJSON *e)
{
    if (!e) { pc_sb_puts(b, " | "); return; }
    double n = num(e, "cases"), p = num(e, "pass"), xf = num(e, "expected_fail");
    pc_sb_printf(b, " %s%.0f/%.0f%s |", p == n ? "" : p + xf == n ? "" : "**", p, n, p == n ? "" : p + xf == n ? "*" : "**");
}

static void certify_md(pc_sb *b, const cJSON *doc)
{
    const cJSON *rd = cJSON_GetObjectItem(doc, "reader"), *co = cJSON_GetObjectItem(doc, "corpus"), *x;
    pc_sb_puts(b, "# packcheck certify: ");
    pc_sb_md(b, pc_json_str(rd, "name"));
    bool ok = cJSON_IsTrue(cJSON_GetObjectItem(doc, "certified")), partial = !ok && !strcmp(pc_json_str(doc, "verdict"), "partial");
    pc_sb_printf(b, "\n\n**%s**\n\n", ok ? "CERTIFIED" : partial ? "PARTIAL (--only: not a certificate)" : "NOT CERTIFIED");
    if (*pc_json_str(doc, "verdict_reason")) { pc_sb_md(b, pc_json_str(doc, "verdict_reason")); pc_sb_puts(b, "\n\n"); }
    pc_sb_puts(b, "| | |\n|---|---|\n| reader command | `");
    pc_sb_md(b, pc_json_str(rd, "command"));
    pc_sb_puts(b, "` |\n| executable | `");
    pc_sb_md(b, pc_json_str(rd, "executable"));
    pc_sb_printf(b, "` sha256 `%s` |\n", pc_json_str(rd, "executable_sha256"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(rd, "files")) {
        pc_sb_puts(b, "| reader file | `");
        pc_sb_md(b, pc_json_str(x, "path"));
        pc_sb_printf(b, "` sha256 `%s` |\n", pc_json_str(x, "sha256"));
    }
    pc_sb_printf(b, "| corpus | MANIFEST.sha256 digest `%s` (%.0f cases) |\n| packcheck | %s |\n\n", pc_json_str(co, "manifest_sha256"), num(co, "cases"),
                 pc_json_str(doc, "packcheck_version"));
    pc_sb_puts(b, "| outcome | cases |\n|---|---|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "counts")) pc_sb_printf(b, "| %s | %.0f |\n", x->string, x->valuedouble);
    if (cJSON_GetArraySize(cJSON_GetObjectItem(doc, "valid_by_family"))) {
        pc_sb_puts(b, "\n## Valid cases passed per corpus family\n\n| family | passed | valid cases |\n|---|---|---|\n");
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "valid_by_family")) {
            pc_sb_puts(b, "| ");
            pc_sb_md(b, x->string);
            pc_sb_printf(b, " | %.0f | %.0f |\n", num(x, "passed"), num(x, "valid"));
        }
    }
    pc_sb_puts(b, "\n## Rule families\n\n| family | cases | pass | expected failures | unexpected |\n|---|---|---|---|---|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "families"))
        pc_sb_printf(b, "| %s | %.0f | %.0f | %.0f | %.0f |\n", pc_json_str(x, "family"), num(x, "cases"), num(x, "pass"), num(x, "expected_fail"), num(x, "fail"));
    pc_sb_puts(b, "\n## Rules\n\n| rule | title | cases | pass | expected failures | unexpected | failing cases |\n|---|---|---|---|---|---|---|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "rules")) {
        pc_sb_printf(b, "| %s | ", pc_json_str(x, "rule"));
        pc_sb_md(b, pc_json_str(x, "title"));
        pc_sb_printf(b, " | %.0f | %.0f | %.0f | %.0f | ", num(x, "cases"), num(x, "pass"), num(x, "expected_fail"), num(x, "fail"));
        const cJSON *f;
        int k = 0;
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(x, "failing")) {
            if (k++ == 8) { pc_sb_puts(b, " ..."); break; }
            pc_sb_puts(b, k > 1 ? ", " : "");
            pc_sb_md(b, f->valuestring);
        }
        pc_sb_puts(b, " |\n");
    }
    pc_sb_puts(b, "\n## Cases that did not pass\n\n| case | expected | outcome | status | detail | diagnosis |\n|---|---|---|---|---|---|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "cases")) {
        if (!strcmp(pc_json_str(x, "outcome"), "pass") && !strcmp(pc_json_str(x, "status"), "ok")) continue;
        const cJSON *d = cJSON_GetObjectItem(x, "diagnosis");
        pc_sb_puts(b, "| ");
        pc_sb_md(b, pc_json_str(x, "case"));
        pc_sb_printf(b, " | %s | %s | %s | ", pc_json_str(x, "expected"), pc_json_str(x, "outcome"), pc_json_str(x, "status"));
        pc_sb_md(b, pc_json_str(x, "detail"));
        if (*pc_json_str(x, "expected_failure")) { pc_sb_puts(b, " (expected: "); pc_sb_md(b, pc_json_str(x, "expected_failure")); pc_sb_puts(b, ")"); }
        pc_sb_puts(b, " | ");
        if (d) pc_sb_md(b, pc_json_str(d, "bug"));
        pc_sb_puts(b, " |\n");
    }
}

static void matrix_md(pc_sb *b, const cJSON *doc)
{
    const cJSON *fams = cJSON_GetObjectItem(doc, "families"), *f, *r, *x;
    pc_sb_printf(b, "# packcheck certify: readers compared\n\nCorpus MANIFEST.sha256 digest `%s`, packcheck %s. Each family cell is\n"
                    "cases passed / cases exercising a rule of that family; `*` = the rest are listed expected failures,\n"
                    "**bold** = unexpected failures.\n\n| reader | verdict | pass |",
                 pc_json_str(doc, "manifest_sha256"), pc_json_str(doc, "packcheck_version"));
    cJSON_ArrayForEach(f, fams) pc_sb_printf(b, " %s |", f->valuestring);
    pc_sb_puts(b, "\n|---|---|---|");
    cJSON_ArrayForEach(f, fams) pc_sb_puts(b, "---|");
    pc_sb_puts(b, "\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        const cJSON *cnt = cJSON_GetObjectItem(r, "counts");
        pc_sb_puts(b, "| ");
        pc_sb_md(b, pc_json_str(r, "name"));
        pc_sb_printf(b, " | %s | %.0f/%.0f |", cJSON_IsTrue(cJSON_GetObjectItem(r, "certified")) ? "certified" : "**not certified**", num(cnt, "pass"), num(cnt, "run"));
        cJSON_ArrayForEach(f, fams) family_cell(b, cJSON_GetObjectItem(cJSON_GetObjectItem(r, "families"), f->valuestring));
        pc_sb_puts(b, "\n");
    }
    pc_sb_puts(b, "\n## Failures by cause\n\n| reader | outcome | cases | cause | example case |\n|---|---|---|---|---|\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "causes")) {
            pc_sb_puts(b, "| ");
            pc_sb_md(b, pc_json_str(r, "name"));
            pc_sb_printf(b, " | %s | %.0f | ", pc_json_str(x, "outcome"), num(x, "cases"));
            pc_sb_md(b, pc_json_str(x, "cause"));
            pc_sb_puts(b, " | ");
            pc_sb_md(b, pc_json_str(x, "example"));
            pc_sb_puts(b, " |\n");
        }
    }
    pc_sb_puts(b, "\n## Kill matrix\n\n| reader | cases that tell it apart | diagnosed as |\n|---|---|---|\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        pc_sb_puts(b, "| ");
        pc_sb_md(b, pc_json_str(r, "name"));
        pc_sb_printf(b, " | %d", cJSON_GetArraySize(cJSON_GetObjectItem(r, "killed_by")));
        int k = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "killed_by")) {
            if (k++ == 10) { pc_sb_puts(b, " ..."); break; }
            pc_sb_puts(b, k > 1 ? ", " : ": ");
            pc_sb_md(b, x->valuestring);
        }
        pc_sb_puts(b, " | ");
        k = 0;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "diagnosed")) { pc_sb_puts(b, k++ ? ", " : ""); pc_sb_md(b, x->valuestring); }
        pc_sb_puts(b, " |\n");
    }
}

char *pc_report_markdown_certify(const cJSON *doc)
{
    pc_sb b = {0};
    if (!strcmp(pc_json_str(doc, "kind"), "certify-matrix")) matrix_md(&b, doc);
    else certify_md(&b, doc);
    return pc_sb_take(&b);
}
