/* The readable summary on stdout. Per input one verdict line (verdict, format, tensor accounting,
 * time), then what a person has to act on: each failing and warning rule with tensor, byte offset
 * and message, and the tensors that were not checked. PC_SUMMARY_QUIET keeps the verdict line and
 * the failures; PC_SUMMARY_VERBOSE adds every evaluated rule (the full table). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define UNCHECKED_SHOWN 20 /* beyond this, one "... and N more" line; the reports list them all */

static void verdict_line(FILE *out, const cJSON *in)
{
    pc_sb b = {0};
    pc_sb_tensor_counts(&b, in);
    char *counts = pc_sb_take(&b);
    fprintf(out, "%s: %s (%s)", pc_json_str(in, "path"), pc_json_str(in, "verdict"), pc_json_str(in, "format"));
    if (counts && *counts) fprintf(out, ", tensors: %s", counts);
    double s = pc_json_num(in, "seconds", -1);
    if (s >= 0) fprintf(out, ", %.2f s", s);
    fputc('\n', out);
    free(counts);
}

static void result_line(FILE *out, const cJSON *r)
{
    const cJSON *off = cJSON_GetObjectItem(r, "offset");
    fprintf(out, "  %-8s %-4s", pc_json_str(r, "rule"), pc_json_str(r, "status"));
    if (*pc_json_str(r, "tensor")) fprintf(out, "  %s", pc_json_str(r, "tensor"));
    if (cJSON_IsNumber(off)) fprintf(out, " @%.0f", off->valuedouble);
    if (*pc_json_str(r, "message")) fprintf(out, ": %s", pc_json_str(r, "message"));
    fputc('\n', out);
}

static void unchecked_lines(FILE *out, const cJSON *in)
{
    const cJSON *u, *list = cJSON_GetObjectItem(in, "unchecked");
    int n = 0, total = cJSON_GetArraySize(list);
    cJSON_ArrayForEach(u, list) {
        if (n++ == UNCHECKED_SHOWN) { fprintf(out, "  ... and %d more unchecked tensors (see --report json)\n", total - UNCHECKED_SHOWN); break; }
        fprintf(out, "  unchecked %s (%s): %s: %s\n", pc_json_str(u, "tensor"), pc_json_str(u, "dtype"), pc_json_str(u, "scheme"),
                pc_json_str(u, "reason"));
    }
}

void pc_report_summary(FILE *out, const cJSON *doc, pc_summary_level level)
{
    const cJSON *in, *r;
    size_t pass = 0, unchecked = 0, reject = 0, error = 0;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        const char *v = pc_json_str(in, "verdict");
        pass += !strcmp(v, "pass");
        unchecked += !strcmp(v, "unchecked");
        reject += !strcmp(v, "reject");
        error += !strcmp(v, "error");
        verdict_line(out, in);
        if (*pc_json_str(in, "error")) fprintf(out, "  error: %s\n", pc_json_str(in, "error"));
        if (level != PC_SUMMARY_QUIET)
            cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "files")) /* sha256sum's format */
                if (*pc_json_str(r, "sha256")) fprintf(out, "  sha256 %s  %s\n", pc_json_str(r, "sha256"), pc_json_str(r, "path"));
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "results")) {
            const char *st = pc_json_str(r, "status");
            bool show = !strcmp(st, "fail") || (level != PC_SUMMARY_QUIET && !strcmp(st, "warn")) ||
                        (level == PC_SUMMARY_VERBOSE && strcmp(st, "skip"));
            if (show) result_line(out, r);
        }
        if (level != PC_SUMMARY_QUIET) unchecked_lines(out, in);
    }
    fprintf(out, "inputs: %zu pass, %zu unchecked, %zu reject, %zu error\n", pass, unchecked, reject, error);
}
