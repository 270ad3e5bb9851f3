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

static void case_cases(pc_sb *b, const cJSON *doc)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *outcome = pc_json_str(c, "outcome");
        pc_sb_puts(b, "    <testcase classname=\"");
        pc_sb_xml(b, pc_json_str(doc, "kind"));
        pc_sb_puts(b, "\" name=\"");
        pc_sb_xml(b, pc_json_str(c, "case"));
        pc_sb_puts(b, "\">");
        if (strcmp(outcome, "pass") && strcmp(outcome, "expected-fail")) {
            pc_sb_puts(b, "<failure message=\"");
            pc_sb_xml(b, outcome);
            pc_sb_puts(b, ": ");
            pc_sb_xml(b, pc_json_str(c, "detail"));
            pc_sb_puts(b, "\"/>");
        }
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
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) rule_cases(&b, in);
    case_cases(&b, doc);
    pc_sb_puts(&b, "  </testsuite>\n</testsuites>");
    return pc_sb_take(&b);
}
