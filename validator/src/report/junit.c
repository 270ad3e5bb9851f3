/* JUnit XML: one testcase per input x rule (failures carry the message), and one per corpus or
 * certification case when the document has "cases". */
#include "report.h"

#include <string.h>

static void rule_cases(pc_sb *b, const cJSON *input)
{
    const char *path = pc_json_str(input, "path");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(input, "results")) {
        const char *st = pc_json_str(r, "status");
        pc_sb_puts(b, "    <testcase classname=\"");
        pc_sb_xml(b, path);
        pc_sb_puts(b, "\" name=\"");
        pc_sb_xml(b, pc_json_str(r, "rule"));
        if (*pc_json_str(r, "tensor")) { pc_sb_puts(b, " "); pc_sb_xml(b, pc_json_str(r, "tensor")); }
        pc_sb_puts(b, "\">");
        if (!strcmp(st, "fail")) {
            pc_sb_puts(b, "<failure message=\"");
            pc_sb_xml(b, pc_json_str(r, "message"));
            pc_sb_puts(b, "\"/>");
        } else if (!strcmp(st, "skip")) {
            pc_sb_puts(b, "<skipped/>");
        } else if (!strcmp(st, "warn")) {
            pc_sb_puts(b, "<system-out>warning: ");
            pc_sb_xml(b, pc_json_str(r, "message"));
            pc_sb_puts(b, "</system-out>");
        }
        pc_sb_puts(b, "</testcase>\n");
    }
}

/* An unchecked tensor is a skipped testcase with its reason: never a pass. */
static void unchecked_cases(pc_sb *b, const cJSON *input)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, cJSON_GetObjectItem(input, "unchecked")) {
        pc_sb_puts(b, "    <testcase classname=\"");
        pc_sb_xml(b, pc_json_str(input, "path"));
        pc_sb_puts(b, "\" name=\"unchecked ");
        pc_sb_xml(b, pc_json_str(u, "tensor"));
        pc_sb_puts(b, "\"><skipped message=\"unchecked: ");
        pc_sb_xml(b, pc_json_str(u, "scheme"));
        pc_sb_puts(b, ": ");
        pc_sb_xml(b, pc_json_str(u, "reason"));
        pc_sb_puts(b, "\"/></testcase>\n");
    }
}

static void case_cases(pc_sb *b, const cJSON *doc)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *outcome = pc_json_str(c, "outcome");
        /* certify cases carry a status: ok, expected-fail, fail, stale (a listed case that passes) */
        const char *status = pc_json_str(c, "status");
        bool failed = *status ? !strcmp(status, "fail") || !strcmp(status, "stale") : strcmp(outcome, "pass") && strcmp(outcome, "expected-fail");
        const cJSON *sec = cJSON_GetObjectItem(c, "seconds");
        pc_sb_puts(b, "    <testcase classname=\"");
        pc_sb_xml(b, pc_json_str(doc, "kind"));
        pc_sb_puts(b, "\" name=\"");
        pc_sb_xml(b, pc_json_str(c, "case"));
        if (cJSON_IsNumber(sec)) pc_sb_printf(b, "\" time=\"%.3f", sec->valuedouble);
        pc_sb_puts(b, "\">");
        if (failed) {
            pc_sb_puts(b, "<failure type=\"");
            pc_sb_xml(b, !strcmp(status, "stale") ? "stale-expected-failure" : outcome);
            pc_sb_puts(b, "\" message=\"");
            pc_sb_xml(b, outcome);
            pc_sb_puts(b, ": ");
            pc_sb_xml(b, pc_json_str(c, "detail"));
            pc_sb_puts(b, "\"/>");
        } else if (!strcmp(status, "expected-fail")) {
            pc_sb_puts(b, "<system-out>expected failure (");
            pc_sb_xml(b, outcome);
            pc_sb_puts(b, "): ");
            pc_sb_xml(b, pc_json_str(c, "expected_failure"));
            pc_sb_puts(b, "</system-out>");
        }
        pc_sb_puts(b, "</testcase>\n");
    }
}

/* A cross-reader matrix: one testcase per reader, failed when it is not certified. */
static void reader_cases(pc_sb *b, const cJSON *doc)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers")) {
        pc_sb_puts(b, "    <testcase classname=\"certify\" name=\"");
        pc_sb_xml(b, pc_json_str(r, "name"));
        pc_sb_puts(b, "\">");
        if (!cJSON_IsTrue(cJSON_GetObjectItem(r, "certified"))) pc_sb_printf(b, "<failure message=\"not certified: %d cases tell it apart\"/>", cJSON_GetArraySize(cJSON_GetObjectItem(r, "killed_by")));
        pc_sb_puts(b, "</testcase>\n");
    }
}

char *pc_report_junit(const cJSON *doc)
{
    pc_sb b = {0};
    pc_sb_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"packcheck ");
    pc_sb_xml(&b, pc_json_str(doc, "kind"));
    pc_sb_puts(&b, "\">\n");
    const cJSON *in;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        rule_cases(&b, in);
        unchecked_cases(&b, in);
    }
    if (!strcmp(pc_json_str(doc, "kind"), "certify-matrix")) reader_cases(&b, doc);
    else case_cases(&b, doc);
    pc_sb_puts(&b, "  </testsuite>\n</testsuites>");
    return pc_sb_take(&b);
}
