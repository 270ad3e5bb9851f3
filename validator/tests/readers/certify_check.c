/* certify_check REPORT.json BUG [CASE]: the mutant with bug BUG was killed, and killed the right way:
 * every case it did not pass is a wrong-output whose diagnosis names BUG (first or among "also");
 * with CASE, that case must be among the killers with BUG named first (exit 1 otherwise).
 * Prints "killed by N cases" or "survived"; exit 0 when killed and diagnosed, 1 when killed but
 * misdiagnosed (or failing otherwise), 3 when it survived, 2 on a bad report. */
#include "core/util.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int names(const cJSON *d, const char *bug)
{
    if (!d) return 0;
    if (!strcmp(str(d, "bug"), bug)) return 1;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(d, "also"))
        if (cJSON_IsString(x) && !strcmp(x->valuestring, bug)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) { fprintf(stderr, "usage: certify_check REPORT.json BUG [CASE]\n"); return 2; }
    const char *want_case = argc == 4 ? argv[3] : NULL;
    bool case_named = false;
    size_t len;
    char *t = pc_slurp(argv[1], 256u << 20, &len);
    cJSON *doc = t ? cJSON_ParseWithLength(t, len) : NULL;
    free(t);
    if (!doc) { fprintf(stderr, "certify_check: %s unreadable\n", argv[1]); return 2; }
    int killed = 0, bad = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *oc = str(c, "outcome");
        if (!strcmp(oc, "pass")) continue;
        killed++;
        const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
        if (want_case && !strcmp(str(c, "case"), want_case) && d && !strcmp(str(d, "bug"), argv[2])) case_named = true;
        if (strcmp(oc, "wrong-output") || !names(d, argv[2])) {
            printf("  %s: %s, diagnosis %s (expected %s): %s\n", str(c, "case"), oc, d ? str(d, "bug") : "none", argv[2], str(c, "detail"));
            bad++;
        }
    }
    cJSON_Delete(doc);
    if (!killed) { printf("survived\n"); return 3; }
    if (want_case && !case_named) { printf("%s not refused with diagnosis %s first\n", want_case, argv[2]); bad++; }
    else if (want_case) printf("%s refused, diagnosis %s; ", want_case, argv[2]);
    if (bad) printf("killed by %d cases, %d misdiagnosed\n", killed, bad);
    else printf("killed by %d cases, each diagnosed as %s\n", killed, argv[2]);
    return bad ? 1 : 0;
}
