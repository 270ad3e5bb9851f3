/* The readable summary on stdout: per input, its verdict and every rule that did not skip. */
#include "report.h"
#include "text_escape.h"

#include <string.h>

void pc_report_summary(FILE *out, const cJSON *raw)
{
    cJSON *owned;
    const cJSON *doc = pc_text_clean_doc(raw, &owned); /* a terminal gets valid UTF-8 too */
    if (!doc) doc = raw;
    const cJSON *in, *r;
    size_t pass = 0, reject = 0, error = 0;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        const char *v = pc_json_str(in, "verdict");
        pass += !strcmp(v, "pass");
        reject += !strcmp(v, "reject");
        error += !strcmp(v, "error");
        fprintf(out, "%s: %s (%s)\n", pc_json_str(in, "path"), v, pc_json_str(in, "format"));
        if (*pc_json_str(in, "error")) fprintf(out, "  error: %s\n", pc_json_str(in, "error"));
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "files")) /* sha256sum's format */
            if (*pc_json_str(r, "sha256")) fprintf(out, "  sha256 %s  %s\n", pc_json_str(r, "sha256"), pc_json_str(r, "path"));
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "results")) {
            const char *st = pc_json_str(r, "status");
            if (!strcmp(st, "skip")) continue;
            const cJSON *off = cJSON_GetObjectItem(r, "offset");
            fprintf(out, "  %-8s %-4s", pc_json_str(r, "rule"), st);
            if (*pc_json_str(r, "tensor")) fprintf(out, "  %s", pc_json_str(r, "tensor"));
            if (cJSON_IsNumber(off)) fprintf(out, " @%.0f", off->valuedouble);
            if (*pc_json_str(r, "message")) fprintf(out, ": %s", pc_json_str(r, "message"));
            fputc('\n', out);
        }
    }
    fprintf(out, "inputs: %zu pass, %zu reject, %zu error\n", pass, reject, error);
    const cJSON *esc = cJSON_GetObjectItem(doc, "escaped_strings");
    if (cJSON_IsNumber(esc)) fprintf(out, "note: %.0f strings held invalid UTF-8; their bytes are shown as \\xNN\n", esc->valuedouble);
    cJSON_Delete(owned);
}
