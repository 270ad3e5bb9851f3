/* Markdown: a per-rule table per input (skipped rules left out), and a case table. */
#include "report.h"

#include <string.h>

static void input_md(pc_sb *b, const cJSON *in)
{
    pc_sb_puts(b, "## `");
    pc_sb_md(b, pc_json_str(in, "path"));
    pc_sb_printf(b, "`\n\nformat `%s`, verdict **%s**", pc_json_str(in, "format"), pc_json_str(in, "verdict"));
    if (*pc_json_str(in, "error")) { pc_sb_puts(b, ": "); pc_sb_md(b, pc_json_str(in, "error")); }
    if (cJSON_GetObjectItem(in, "tensors")) { pc_sb_puts(b, "; tensors: "); pc_sb_tensor_counts(b, in); }
    const cJSON *r, *u = cJSON_GetObjectItem(in, "unchecked");
    if (cJSON_GetArraySize(u)) {
        pc_sb_puts(b, "\n\n**Not checked** (quantized tensors packcheck did not decode):\n\n| tensor | dtype | scheme | reason |\n|---|---|---|---|\n");
        cJSON_ArrayForEach(r, u) {
            pc_sb_puts(b, "| ");
            pc_sb_md(b, pc_json_str(r, "tensor"));
            pc_sb_printf(b, " | %s | ", pc_json_str(r, "dtype"));
            pc_sb_md(b, pc_json_str(r, "scheme"));
            pc_sb_puts(b, " | ");
            pc_sb_md(b, pc_json_str(r, "reason"));
            pc_sb_puts(b, " |\n");
        }
    }
    pc_sb_puts(b, "\n\n| rule | status | tensor | offset | message |\n|---|---|---|---|---|\n");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "results")) {
        if (!strcmp(pc_json_str(r, "status"), "skip")) continue;
        const cJSON *off = cJSON_GetObjectItem(r, "offset");
        pc_sb_printf(b, "| %s | %s | ", pc_json_str(r, "rule"), pc_json_str(r, "status"));
        pc_sb_md(b, pc_json_str(r, "tensor"));
        if (cJSON_IsNumber(off)) pc_sb_printf(b, " | %.0f | ", off->valuedouble);
        else pc_sb_puts(b, " |  | ");
        pc_sb_md(b, pc_json_str(r, "message"));
        pc_sb_puts(b, " |\n");
    }
    pc_sb_puts(b, "\n");
}

char *pc_report_markdown(const cJSON *doc)
{
    if (!strncmp(pc_json_str(doc, "kind"), "certify", 7)) return pc_report_markdown_certify(doc);
    pc_sb b = {0};
    pc_sb_printf(&b, "# packcheck %s report (version %s)\n\n", pc_json_str(doc, "kind"), pc_json_str(doc, "packcheck_version"));
    const cJSON *c, *in;
    if (cJSON_GetObjectItem(doc, "cases")) {
        pc_sb_puts(&b, "| case | outcome | detail |\n|---|---|---|\n");
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
            pc_sb_puts(&b, "| ");
            pc_sb_md(&b, pc_json_str(c, "case"));
            pc_sb_printf(&b, " | %s | ", pc_json_str(c, "outcome"));
            pc_sb_md(&b, pc_json_str(c, "detail"));
            pc_sb_puts(&b, " |\n");
        }
        pc_sb_puts(&b, "\n");
    }
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) input_md(&b, in);
    return pc_sb_take(&b);
}
