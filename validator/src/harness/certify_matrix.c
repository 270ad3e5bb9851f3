/* Cross-reader matrix: several certify reports (one per reader) combined into one document, the
 * source of the public results table (one row per reader, one column per rule family), the kill
 * matrix of the self-test mutants, and the pruned case x reader matrix (cases with identical
 * outcomes across every reader grouped into one row). */
#include "certify.h"

#include "../core/util.h"
#include "../report/report.h"

#include <stdlib.h>
#include <string.h>

#define REPORT_MAX_BYTES (256u << 20)

static cJSON *load_report(const char *path, FILE *log)
{
    size_t len;
    char *t = pc_slurp(path, REPORT_MAX_BYTES, &len);
    cJSON *j = t ? cJSON_ParseWithLength(t, len) : NULL;
    free(t);
    if (!cJSON_IsObject(j) || strcmp(pc_json_str(j, "kind"), "certify")) {
        fprintf(log, "certify: %s is not a certify JSON report\n", path);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* Short cell text: the outcome, marked when it was an expected failure or stale. */
static const char *cell(const cJSON *c)
{
    if (!c) return "not run";
    const char *st = pc_json_str(c, "status");
    if (!strcmp(st, "stale")) return "stale";
    return pc_json_str(c, "outcome");
}

static const cJSON *find_case(const cJSON *rep, const char *id)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(rep, "cases"))
        if (!strcmp(pc_json_str(c, "case"), id)) return c;
    return NULL;
}

static void add_unique(cJSON *arr, const char *s)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
        if (!strcmp(x->valuestring, s)) return;
    cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static cJSON *sorted_strings(const cJSON *arr)
{
    int n = cJSON_GetArraySize(arr), i = 0;
    char **v = calloc((size_t)(n ? n : 1), sizeof *v);
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) v[i++] = x->valuestring;
    pc_sort(v, (size_t)n, sizeof *v, cmp_str);
    cJSON *o = cJSON_CreateArray();
    for (i = 0; i < n; i++) cJSON_AddItemToArray(o, cJSON_CreateString(v[i]));
    free(v);
    return o;
}

/* The reader's failures grouped by cause: the expected-failure reason when the case is listed,
 * else the diagnosis, else the outcome. [{cause, outcome, cases, example}] in first-seen order. */
static cJSON *causes(const cJSON *rep)
{
    cJSON *out = cJSON_CreateArray(), *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(rep, "cases")) {
        const char *oc = pc_json_str(c, "outcome");
        if (!strcmp(oc, "pass")) continue;
        const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
        const char *why = *pc_json_str(c, "expected_failure") ? pc_json_str(c, "expected_failure") : d ? pc_json_str(d, "title") : oc;
        cJSON *g = NULL, *x;
        cJSON_ArrayForEach(x, out)
            if (!strcmp(pc_json_str(x, "cause"), why) && !strcmp(pc_json_str(x, "outcome"), oc)) g = x;
        if (!g) {
            g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "cause", why);
            cJSON_AddStringToObject(g, "outcome", oc);
            cJSON_AddNumberToObject(g, "cases", 0);
            cJSON_AddStringToObject(g, "example", pc_json_str(c, "case"));
            cJSON_AddItemToArray(out, g);
        }
        cJSON *n = cJSON_GetObjectItem(g, "cases");
        cJSON_SetNumberValue(n, n->valuedouble + 1);
    }
    return out;
}

static cJSON *reader_row(const cJSON *rep, const char *path)
{
    const cJSON *rd = cJSON_GetObjectItem(rep, "reader"), *f;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "name", pc_json_str(rd, "name"));
    cJSON_AddStringToObject(r, "command", pc_json_str(rd, "command"));
    cJSON_AddStringToObject(r, "executable_sha256", pc_json_str(rd, "executable_sha256"));
    cJSON_AddStringToObject(r, "report", path);
    cJSON_AddStringToObject(r, "manifest_sha256", pc_json_str(rep, "manifest_sha256"));
    cJSON_AddBoolToObject(r, "certified", cJSON_IsTrue(cJSON_GetObjectItem(rep, "certified")));
    cJSON_AddItemToObject(r, "counts", cJSON_Duplicate(cJSON_GetObjectItem(rep, "counts"), 1));
    cJSON *fam = cJSON_AddObjectToObject(r, "families");
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, "families")) {
        cJSON *e = cJSON_AddObjectToObject(fam, pc_json_str(f, "family"));
        cJSON_AddNumberToObject(e, "cases", cJSON_GetObjectItem(f, "cases")->valuedouble);
        cJSON_AddNumberToObject(e, "pass", cJSON_GetObjectItem(f, "pass")->valuedouble);
        cJSON_AddNumberToObject(e, "expected_fail", cJSON_GetObjectItem(f, "expected_fail")->valuedouble);
        cJSON_AddNumberToObject(e, "fail", cJSON_GetObjectItem(f, "fail")->valuedouble);
    }
    /* Which cases tell this reader apart from a conforming one, and what diagnosis said. */
    cJSON *killed = cJSON_AddArrayToObject(r, "killed_by"), *bugs = cJSON_CreateArray(), *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(rep, "cases")) {
        if (!strcmp(pc_json_str(c, "outcome"), "pass")) continue;
        cJSON_AddItemToArray(killed, cJSON_CreateString(pc_json_str(c, "case")));
        const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
        if (d) add_unique(bugs, pc_json_str(d, "bug"));
    }
    cJSON_AddItemToObject(r, "diagnosed", bugs);
    cJSON_AddItemToObject(r, "causes", causes(rep));
    return r;
}

cJSON *pc_certify_combine(const char *const *paths, int n, FILE *log)
{
    cJSON **reps = calloc((size_t)(n ? n : 1), sizeof *reps);
    if (!reps) return NULL;
    cJSON *doc = NULL;
    for (int i = 0; i < n; i++)
        if (!(reps[i] = load_report(paths[i], log))) goto out;
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "certify-matrix");
    const char *digest = n ? pc_json_str(reps[0], "manifest_sha256") : "";
    for (int i = 1; i < n; i++)
        if (strcmp(digest, pc_json_str(reps[i], "manifest_sha256"))) digest = "mixed";
    cJSON_AddStringToObject(doc, "manifest_sha256", digest);
    cJSON *readers = cJSON_AddArrayToObject(doc, "readers"), *fams = cJSON_CreateArray(), *ids = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(readers, reader_row(reps[i], paths[i]));
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(reps[i], "families")) add_unique(fams, pc_json_str(x, "family"));
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(reps[i], "cases")) add_unique(ids, pc_json_str(x, "case"));
    }
    cJSON_AddItemToObject(doc, "families", sorted_strings(fams));
    cJSON *sorted_ids = sorted_strings(ids);
    cJSON_Delete(fams);
    cJSON_Delete(ids);
    /* One row per case; then rows with the same outcome vector grouped (the pruned view). */
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases"), *groups = cJSON_AddArrayToObject(doc, "groups"), *id;
    cJSON_ArrayForEach(id, sorted_ids) {
        cJSON *row = cJSON_CreateObject(), *outs = cJSON_CreateArray();
        cJSON_AddStringToObject(row, "case", id->valuestring);
        pc_sb key = {0};
        for (int i = 0; i < n; i++) {
            const cJSON *c = find_case(reps[i], id->valuestring);
            if (c && !cJSON_GetObjectItem(row, "expected")) cJSON_AddStringToObject(row, "expected", pc_json_str(c, "expected"));
            const cJSON *d = c ? cJSON_GetObjectItem(c, "diagnosis") : NULL;
            char buf[200];
            snprintf(buf, sizeof buf, "%s%s%s", cell(c), d ? ": " : "", d ? pc_json_str(d, "bug") : "");
            cJSON_AddItemToArray(outs, cJSON_CreateString(buf));
            pc_sb_puts(&key, buf);
            pc_sb_puts(&key, "|");
        }
        cJSON_AddItemToObject(row, "outcomes", outs);
        cJSON_AddItemToArray(cases, row);
        char *k = pc_sb_take(&key);
        cJSON *g = NULL, *x;
        cJSON_ArrayForEach(x, groups)
            if (!strcmp(pc_json_str(x, "key"), k ? k : "")) g = x;
        if (!g) {
            g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "key", k ? k : "");
            cJSON_AddItemToObject(g, "outcomes", cJSON_Duplicate(outs, 1));
            cJSON_AddArrayToObject(g, "cases");
            cJSON_AddItemToArray(groups, g);
        }
        cJSON_AddItemToArray(cJSON_GetObjectItem(g, "cases"), cJSON_CreateString(id->valuestring));
        free(k);
    }
    cJSON_Delete(sorted_ids);
    cJSON_AddArrayToObject(doc, "inputs");
out:
    for (int i = 0; i < n; i++) cJSON_Delete(reps[i]);
    free(reps);
    return doc;
}
