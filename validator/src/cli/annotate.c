/* GitHub Actions annotations: with GITHUB_ACTIONS=true, validate prints one workflow command per
 * failed or warned rule on stdout (`::error file=...,title=...::message`), which the runner turns
 * into annotations on the run and the pull request. Values are escaped as the runner's command
 * parser expects (data: % CR LF; properties also : and ,). At most CLI_ANNOTATIONS_MAX are
 * printed (the runner shows only the first few per step anyway); a notice counts the rest. */
#include "cli.h"

#include "../report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_ANNOTATIONS_MAX 50

static void put_escaped(FILE *out, const char *s, bool property)
{
    for (; *s; s++) {
        if (*s == '%') fputs("%25", out);
        else if (*s == '\r') fputs("%0D", out);
        else if (*s == '\n') fputs("%0A", out);
        else if (property && *s == ':') fputs("%3A", out);
        else if (property && *s == ',') fputs("%2C", out);
        else fputc(*s, out);
    }
}

bool cli_github_actions(void)
{
    const char *v = getenv("GITHUB_ACTIONS");
    return v && !strcmp(v, "true");
}

void cli_github_annotations(FILE *out, const cJSON *doc)
{
    int shown = 0, more = 0;
    const cJSON *in, *res;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        if (!strcmp(pc_json_str(in, "verdict"), "error")) {
            fputs("::error file=", out);
            put_escaped(out, pc_json_str(in, "path"), true);
            fputs(",title=", out);
            put_escaped(out, "packcheck: unreadable input", true);
            fputs("::", out);
            put_escaped(out, pc_json_str(in, "error"), false);
            fputc('\n', out);
            continue;
        }
        cJSON_ArrayForEach(res, cJSON_GetObjectItem(in, "results")) {
            const char *st = pc_json_str(res, "status");
            bool fail = !strcmp(st, "fail");
            if (!fail && strcmp(st, "warn")) continue;
            if (shown == CLI_ANNOTATIONS_MAX) { more++; continue; }
            shown++;
            const pc_rule *r = pc_rule_find(pc_json_str(res, "rule"));
            fprintf(out, "::%s file=", fail ? "error" : "warning");
            put_escaped(out, pc_json_str(in, "path"), true);
            fputs(",title=", out);
            put_escaped(out, pc_json_str(res, "rule"), true);
            if (r) { fputc(' ', out); put_escaped(out, r->title, true); }
            fputs("::", out);
            const char *tensor = pc_json_str(res, "tensor");
            if (*tensor) { put_escaped(out, tensor, false); fputs(": ", out); }
            put_escaped(out, pc_json_str(res, "message"), false);
            const cJSON *off = cJSON_GetObjectItem(res, "offset");
            if (cJSON_IsNumber(off)) fprintf(out, " (byte %.0f)", off->valuedouble);
            fputc('\n', out);
        }
    }
    if (more) fprintf(out, "::notice title=packcheck::%d more findings not annotated (see the report)\n", more);
}
