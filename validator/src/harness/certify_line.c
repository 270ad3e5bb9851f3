/* certify_line.h. The reader's last line is cleaned for a terminal (control bytes shown as '?',
 * 200 bytes at most): it is text from the program under test. */
#include "certify_line.h"

#include "../core/util.h"
#include "../report/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool g_colour;

void pc_certify_line_colour(bool on) { g_colour = on; }

static const char *sgr(const char *label)
{
    if (!g_colour) return "";
    if (!strcmp(label, "pass")) return "\033[32m";
    if (!strcmp(label, "xfail")) return "\033[33m";
    return "\033[1;31m";
}

char *pc_case_breach(const pc_case *k, pc_profile prof)
{
    const char *rule = pc_json_str(k->expect, "reject_rule");
    pc_ctx cx;
    if (!*rule || pc_ctx_init(&cx, prof)) return NULL;
    pc_input *in = pc_input_open(k->input, NULL, &cx);
    if (in) pc_validate(in, &cx);
    char *out = NULL;
    for (size_t i = 0; i < cx.nfindings && !out; i++) {
        const pc_finding *f = &cx.findings[i];
        if (strcmp(f->rule->id, rule)) continue;
        pc_sb b = {0};
        pc_sb_puts(&b, *f->tensor ? f->tensor : "the input");
        if (f->offset >= 0) pc_sb_printf(&b, " @%lld", (long long)f->offset);
        pc_sb_printf(&b, ": %s", f->message);
        out = pc_sb_take(&b);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    return out;
}

/* The last non-empty line of the reader's output, cleaned; "" when there is none. */
static void last_line(const char *tail, char *out, size_t cap)
{
    const char *end = tail + strlen(tail);
    while (end > tail && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
    const char *start = end;
    while (start > tail && start[-1] != '\n') start--;
    size_t n = 0;
    for (const char *p = start; p < end && n + 1 < cap; p++) out[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    out[n] = 0;
}

/* What to do about exit 126 (found, could not run) and 127 (not found) under /bin/sh. */
static const char *exit_advice(int code)
{
    bool root = geteuid() == 0;
    if (code == 126)
        return root ? "the shell found the reader but could not run it; as root certify runs readers as nobody, who cannot "
                      "enter a 0700 home: keep the reader, its interpreter and its venv outside it (e.g. /opt or /srv), "
                      "or pass --reader-user USER"
                    : "the shell found the reader but could not run it: make it executable (chmod +x) or name its interpreter "
                      "in --reader";
    if (code == 127)
        return root ? "the shell did not find the reader or its interpreter; as root certify runs readers as nobody "
                      "with HOME=/: use absolute paths outside a 0700 home, or pass --reader-user USER"
                    : "the shell did not find the reader or its interpreter: use an absolute path in --reader";
    return NULL;
}

void pc_certify_line(FILE *log, const pc_case *k, cJSON *cj, const char *label, pc_profile prof)
{
    const char *oc = pc_json_str(cj, "outcome");
    bool pass = !strcmp(oc, "pass");
    fprintf(log, "%s%-16s%s %s", sgr(label), label, g_colour ? "\033[0m" : "", k->id);
    if (!pass) fprintf(log, ": %s", pc_json_str(cj, "detail"));
    const cJSON *dg = cJSON_GetObjectItem(cj, "diagnosis");
    if (dg && *pc_json_str(dg, "bug")) {
        fprintf(log, "; diagnosis: %s", pc_json_str(dg, "bug"));
        if (*pc_json_str(dg, "title")) fprintf(log, " (%s)", pc_json_str(dg, "title"));
    }
    if (!strcmp(oc, "accepted-invalid")) {
        char *br = pc_case_breach(k, prof);
        if (br) {
            fprintf(log, "; the input breaks it at %s", br);
            cJSON_AddStringToObject(cj, "breach", br);
        }
        free(br);
    }
    const cJSON *ex = cJSON_GetObjectItem(cj, "exit");
    const char *advice = cJSON_IsNumber(ex) && !strcmp(oc, "crash") ? exit_advice((int)ex->valuedouble) : NULL;
    char said[201];
    last_line(pc_json_str(cj, "log_tail"), said, sizeof said);
    if (!pass && *said) fprintf(log, "; reader's last line: \"%s\"", said);
    if (advice) fprintf(log, "; what to do: %s", advice);
    fputc('\n', log);
}
