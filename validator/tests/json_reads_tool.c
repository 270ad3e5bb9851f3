/* pc_json_reads FILE...: for each file, one line "<verdict> FILE", where verdict is how packcheck reads
 * the JSON: "invalid" (cJSON refuses it, or bytes follow the value), otherwise the set of findings of
 * pc_json_ambiguities joined by '+' ("dup", "nul", "notpy"), or "ok". The JSON differential
 * (fuzz/json_differential.py) compares these with what Python's json.loads sees. */
#include "container/json_dups.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct seen { bool dup, nul, notpy; } seen;

static void on(void *ud, const pc_json_issue *is)
{
    seen *s = ud;
    if (is->kind == PC_JSON_DUP_KEY) s->dup = true;
    else if (is->kind == PC_JSON_NUL) s->nul = true;
    else s->notpy = true;
}

static const char *verdict(const char *text, size_t len, char *buf, size_t n)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    for (const char *q = end; j && q && q < text + len; q++)
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') { cJSON_Delete(j); j = NULL; }
    if (!j) return "invalid";
    cJSON_Delete(j);
    seen s = {0};
    if (pc_json_ambiguities((const uint8_t *)text, len, 64, on, &s) < 0) return "oom";
    snprintf(buf, n, "%s%s%s", s.dup ? "dup+" : "", s.nul ? "nul+" : "", s.notpy ? "notpy+" : "");
    if (!*buf) return "ok";
    buf[strlen(buf) - 1] = 0;
    return buf;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 2; }
        char *text = malloc(1 << 24);
        size_t len = text ? fread(text, 1, (1 << 24) - 1, f) : 0;
        fclose(f);
        if (!text) return 2;
        char buf[64];
        printf("%s %s\n", verdict(text, len, buf, sizeof buf), argv[i]);
        free(text);
    }
    return 0;
}
