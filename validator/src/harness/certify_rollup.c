/* Outcomes counted per rule and per rule family (certify_internal.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify_internal.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "corpus.h"
#include "diagnose.h"
#include "expect_fail.h"
#include "bounded.h"
#include "case_copy.h"
#include "logical.h"
#include "runner.h"

#include <pwd.h>
#include <strings.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static void rollup_add(cJSON *map, const char *key, const char *family, int outcome, const char *status, const char *id)
{
    cJSON *e = cJSON_GetObjectItemCaseSensitive(map, key);
    if (!e) {
        e = cJSON_AddObjectToObject(map, key);
        if (family) cJSON_AddStringToObject(e, "family", family);
        cJSON_AddNumberToObject(e, "cases", 0);
        cJSON_AddNumberToObject(e, "pass", 0);
        cJSON_AddNumberToObject(e, "expected_fail", 0);
        cJSON_AddNumberToObject(e, "fail", 0);
        cJSON_AddObjectToObject(e, "outcomes");
        cJSON_AddArrayToObject(e, "failing");
    }
    cJSON *o = cJSON_GetObjectItem(e, "outcomes"), *x = cJSON_GetObjectItem(o, pc_certify_outcome_names[outcome]);
    if (x) cJSON_SetNumberValue(x, x->valuedouble + 1);
    else cJSON_AddNumberToObject(o, pc_certify_outcome_names[outcome], 1);
    const char *field = !strcmp(status, "ok") ? "pass" : !strcmp(status, "expected-fail") ? "expected_fail" : "fail";
    cJSON *f = cJSON_GetObjectItem(e, field), *n = cJSON_GetObjectItem(e, "cases");
    cJSON_SetNumberValue(f, f->valuedouble + 1);
    cJSON_SetNumberValue(n, n->valuedouble + 1);
    if (outcome != O_PASS) cJSON_AddItemToArray(cJSON_GetObjectItem(e, "failing"), cJSON_CreateString(id));
}

static char *family_of(const char *rule)
{
    const char *dash = strchr(rule, '-');
    return pc_strndup(rule, dash ? (size_t)(dash - rule) : strlen(rule));
}

void pc_certify_rollup_case(cJSON *rules, cJSON *fams, const pc_case *k, int outcome, const char *status)
{
    cJSON *seen = cJSON_CreateObject(), *fseen = cJSON_CreateObject();
    const cJSON *x;
    const char *rr = pc_json_str(k->expect, "reject_rule"), *rf = pc_json_str(k->expect, "reject_family");
    cJSON *all = cJSON_Duplicate(cJSON_GetObjectItem(k->expect, "rules"), 1);
    if (!cJSON_IsArray(all)) { cJSON_Delete(all); all = cJSON_CreateArray(); }
    if (*rr) cJSON_AddItemToArray(all, cJSON_CreateString(rr));
    cJSON_ArrayForEach(x, all) {
        if (!cJSON_IsString(x) || cJSON_GetObjectItemCaseSensitive(seen, x->valuestring)) continue;
        cJSON_AddTrueToObject(seen, x->valuestring);
        char *fam = family_of(x->valuestring);
        rollup_add(rules, x->valuestring, fam, outcome, status, k->id);
        cJSON *re = cJSON_GetObjectItemCaseSensitive(rules, x->valuestring);
        const pc_rule *pr = pc_rule_find(x->valuestring);
        if (!cJSON_GetObjectItem(re, "title")) cJSON_AddStringToObject(re, "title", pr ? pr->title : "(not in the catalogue)");
        if (fam && !cJSON_GetObjectItemCaseSensitive(fseen, fam)) { cJSON_AddTrueToObject(fseen, fam); rollup_add(fams, fam, NULL, outcome, status, k->id); }
        free(fam);
    }
    if (*rf && !cJSON_GetObjectItemCaseSensitive(fseen, rf)) rollup_add(fams, rf, NULL, outcome, status, k->id);
    cJSON_Delete(all);
    cJSON_Delete(seen);
    cJSON_Delete(fseen);
}

/* {"CT-001": {...}} -> [{"rule": "CT-001", ...}] sorted by key. */
static int cmp_json_key(const void *a, const void *b) { return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string); }
cJSON *pc_certify_sorted_array(cJSON *map, const char *keyname)
{
    int n = cJSON_GetArraySize(map);
    cJSON **v = calloc((size_t)(n ? n : 1), sizeof *v), *x, *arr = cJSON_CreateArray();
    int i = 0;
    cJSON_ArrayForEach(x, map) v[i++] = x;
    pc_sort(v, (size_t)n, sizeof *v, cmp_json_key);
    for (i = 0; i < n; i++) {
        cJSON *e = cJSON_Duplicate(v[i], 1);
        cJSON_AddItemToObject(e, keyname, cJSON_CreateString(v[i]->string));
        cJSON_AddItemToArray(arr, e);
    }
    free(v);
    return arr;
}
