/* The public results matrix (issue 16): a certify-matrix document annotated with what each reader
 * is (version, language, the families it claims, decode or container-only mode) and where its
 * certificate is (path + sha256), every family cell with its non-passing cases and their causes;
 * and the check that a committed matrix still agrees with the committed certificates (digests,
 * counts), without running any reader. Kept apart from certify.c / certify_matrix.c on purpose:
 * it only reads and decorates their documents. */
#include "certify.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "expect_fail.h"

#include <stdlib.h>
#include <string.h>

#define META_MAX_BYTES (1u << 20)
#define CERT_MAX_BYTES (256u << 20)

static cJSON *load_json(const char *path, size_t limit, FILE *log)
{
    size_t len;
    char *t = pc_slurp(path, limit, &len);
    cJSON *j = t ? cJSON_ParseWithLength(t, len) : NULL;
    free(t);
    if (!j) fprintf(log, "certify: %s: unreadable or not JSON\n", path);
    return j;
}

static const cJSON *meta_for(const cJSON *meta, const char *report)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(meta, "readers"))
        if (!strcmp(pc_json_str(m, "certificate"), report)) return m;
    return NULL;
}

static bool case_in_family(const cJSON *c, const char *fam)
{
    size_t n = strlen(fam);
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "rules"))
        if (cJSON_IsString(r) && !strncmp(r->valuestring, fam, n) && r->valuestring[n] == '-') return true;
    const char *rr = pc_json_str(c, "reject_rule");
    if (!strncmp(rr, fam, n) && rr[n] == '-') return true;
    return !strcmp(pc_json_str(c, "reject_family"), fam);
}

/* The cause of a non-passing case: its expected-failure reason, else its diagnosis, else its detail. */
static const char *case_cause(const cJSON *c)
{
    if (*pc_json_str(c, "expected_failure")) return pc_json_str(c, "expected_failure");
    const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
    if (d && *pc_json_str(d, "title")) return pc_json_str(d, "title");
    return pc_json_str(c, "detail");
}

/* families[F].failing: [{case, outcome, status, cause, diagnosis}] from the certificate's cases. */
static void family_failures(cJSON *row, const cJSON *cert)
{
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(row, "families")) {
        cJSON *list = cJSON_AddArrayToObject(f, "failing");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(cert, "cases")) {
            if (!strcmp(pc_json_str(c, "outcome"), "pass") || !case_in_family(c, f->string)) continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "case", pc_json_str(c, "case"));
            cJSON_AddStringToObject(e, "outcome", pc_json_str(c, "outcome"));
            cJSON_AddStringToObject(e, "status", pc_json_str(c, "status"));
            cJSON_AddStringToObject(e, "cause", case_cause(c));
            const cJSON *d = cJSON_GetObjectItem(c, "diagnosis");
            if (d) cJSON_AddStringToObject(e, "diagnosis", pc_json_str(d, "bug"));
            cJSON_AddItemToArray(list, e);
        }
    }
}

static void annotate_row(cJSON *row, const cJSON *m, const cJSON *cert)
{
    const char *path = pc_json_str(row, "report");
    char hex[65] = "";
    if (pc_sha256_file_hex(path, hex)) snprintf(hex, sizeof hex, "unavailable");
    cJSON_AddStringToObject(row, "version", m ? pc_json_str(m, "version") : "");
    cJSON_AddStringToObject(row, "language", m ? pc_json_str(m, "language") : "");
    const cJSON *cl = m ? cJSON_GetObjectItem(m, "claims") : NULL;
    cJSON_AddItemToObject(row, "claims", cJSON_IsArray(cl) ? cJSON_Duplicate(cl, 1) : cJSON_CreateArray());
    bool co = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(cert, "options"), "container_only"));
    cJSON_AddStringToObject(row, "mode", co ? "container-only" : "decode");
    /* Where the answer comes from and the dtype it was given in (CONTRACT 5): part of every cell. */
    const cJSON *opts = cJSON_GetObjectItem(cert, "options");
    cJSON_AddStringToObject(row, "depth", *pc_json_str(opts, "depth") ? pc_json_str(opts, "depth") : "helper");
    cJSON_AddStringToObject(row, "precision", co ? "none" : *pc_json_str(cert, "precision") ? pc_json_str(cert, "precision") : "f32");
    if (*pc_json_str(opts, "tolerance") && strcmp(pc_json_str(opts, "tolerance"), "exact")) cJSON_AddStringToObject(row, "tolerance", pc_json_str(opts, "tolerance"));
    if (m && *pc_json_str(m, "findings")) cJSON_AddStringToObject(row, "findings", pc_json_str(m, "findings"));
    cJSON_AddStringToObject(row, "certificate", path);
    cJSON_AddStringToObject(row, "certificate_sha256", hex);
    family_failures(row, cert);
}

int pc_certify_readers_annotate(cJSON *matrix, const char *meta_path, FILE *log)
{
    cJSON *meta = meta_path ? load_json(meta_path, META_MAX_BYTES, log) : NULL;
    if (meta_path && !meta) return -1;
    cJSON *row;
    int rc = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(matrix, "readers")) {
        cJSON *cert = load_json(pc_json_str(row, "report"), CERT_MAX_BYTES, log);
        if (!cert) { rc = -1; break; }
        const cJSON *m = meta_for(meta, pc_json_str(row, "report"));
        if (meta && !m) fprintf(log, "certify: %s: no entry in %s (version, language, claims left empty)\n", pc_json_str(row, "report"), meta_path);
        annotate_row(row, m, cert);
        cJSON_Delete(cert);
    }
    cJSON_Delete(meta);
    return rc;
}

/* ---- the committed matrix against the committed certificates ---- */

static int same_number(const cJSON *a, const cJSON *b, const char *k)
{
    const cJSON *x = cJSON_GetObjectItem(a, k), *y = cJSON_GetObjectItem(b, k);
    return cJSON_IsNumber(x) && cJSON_IsNumber(y) && x->valuedouble == y->valuedouble;
}

static int check_row(const cJSON *row, FILE *log)
{
    const char *path = pc_json_str(row, "certificate"), *name = pc_json_str(row, "name");
    char hex[65];
    if (!*path || pc_sha256_file_hex(path, hex)) { fprintf(log, "matrix: %s: certificate %s unreadable\n", name, path); return 1; }
    if (strcmp(hex, pc_json_str(row, "certificate_sha256"))) {
        fprintf(log, "matrix: %s: %s has sha256 %s, the matrix was built from %s: regenerate the matrix\n", name, path, hex,
                pc_json_str(row, "certificate_sha256"));
        return 1;
    }
    cJSON *cert = load_json(path, CERT_MAX_BYTES, log);
    if (!cert) return 1;
    int bad = 0;
    if (strcmp(pc_json_str(cert, "manifest_sha256"), pc_json_str(row, "manifest_sha256"))) { fprintf(log, "matrix: %s: certificate corpus digest differs from the row's\n", name); bad++; }
    if (cJSON_IsTrue(cJSON_GetObjectItem(cert, "certified")) != cJSON_IsTrue(cJSON_GetObjectItem(row, "certified"))) { fprintf(log, "matrix: %s: verdict differs\n", name); bad++; }
    static const char *const keys[] = {"pass", "expected-fail", "unexpected", "stale", "run"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!same_number(cJSON_GetObjectItem(cert, "counts"), cJSON_GetObjectItem(row, "counts"), keys[i])) { fprintf(log, "matrix: %s: count %s differs\n", name, keys[i]); bad++; }
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cert, "families")) {
        const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(row, "families"), pc_json_str(f, "family"));
        if (!e || !same_number(f, e, "cases") || !same_number(f, e, "pass") || !same_number(f, e, "expected_fail")) {
            fprintf(log, "matrix: %s: family %s differs from its certificate\n", name, pc_json_str(f, "family"));
            bad++;
        }
    }
    bool co = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(cert, "options"), "container_only"));
    if (strcmp(pc_json_str(row, "mode"), co ? "container-only" : "decode")) { fprintf(log, "matrix: %s: mode differs\n", name); bad++; }
    cJSON_Delete(cert);
    return bad;
}

int pc_certify_matrix_check(const char *matrix_path, FILE *log)
{
    cJSON *m = load_json(matrix_path, CERT_MAX_BYTES, log);
    if (!m || strcmp(pc_json_str(m, "kind"), "certify-matrix")) { cJSON_Delete(m); fprintf(log, "matrix: %s is not a certify-matrix\n", matrix_path); return -1; }
    int bad = 0, n = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(m, "readers")) {
        n++;
        bad += check_row(row, log);
    }
    fprintf(log, "matrix: %s: %d readers, %d disagreements with their certificates\n", matrix_path, n, bad);
    cJSON_Delete(m);
    return bad ? 1 : 0;
}

/* ---- re-judging a saved report against its (rewritten) expected-failure list ---- */

/* One more case with STATUS in the rollup entry of ARR whose KEY is NAME (once per case: SEEN). */
static void roll_count(cJSON *arr, const char *key, const char *name, const char *status, cJSON *seen)
{
    if (!*name || cJSON_GetObjectItemCaseSensitive(seen, name)) return;
    cJSON_AddTrueToObject(seen, name);
    cJSON *f;
    cJSON_ArrayForEach(f, arr) {
        if (strcmp(pc_json_str(f, key), name)) continue;
        const char *k = !strcmp(status, "ok") ? "pass" : !strcmp(status, "expected-fail") ? "expected_fail" : "fail";
        cJSON *v = cJSON_GetObjectItem(f, k);
        if (v) cJSON_SetNumberValue(v, v->valuedouble + 1);
    }
}

/* The families and rules a case rolls up into: every rule (and its family), the reject rule, the
 * reject family. */
static void case_rollup(cJSON *fams, cJSON *rules, const cJSON *c, const char *status)
{
    cJSON *seen = cJSON_CreateObject(), *rseen = cJSON_CreateObject();
    const cJSON *r;
    char fam[32];
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "rules")) {
        if (!cJSON_IsString(r)) continue;
        snprintf(fam, sizeof fam, "%.*s", (int)strcspn(r->valuestring, "-"), r->valuestring);
        roll_count(fams, "family", fam, status, seen);
        roll_count(rules, "rule", r->valuestring, status, rseen);
    }
    const char *rr = pc_json_str(c, "reject_rule");
    snprintf(fam, sizeof fam, "%.*s", (int)strcspn(rr, "-"), rr);
    roll_count(fams, "family", fam, status, seen);
    roll_count(rules, "rule", rr, status, rseen);
    roll_count(fams, "family", pc_json_str(c, "reject_family"), status, seen);
    cJSON_Delete(seen);
    cJSON_Delete(rseen);
}

static void set_str(cJSON *o, const char *k, const char *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddStringToObject(o, k, v);
}

static void set_num(cJSON *o, const char *k, double v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddNumberToObject(o, k, v);
}

/* Each case's status from LIST, as a run with --expect-fail LIST would have judged it; counts,
 * family rollups and the verdict follow. For the report of an --update-expect run, whose statuses
 * predate the list it wrote. 0 ok, -1 the list is unreadable. */
int pc_certify_rejudge(cJSON *doc, const char *list, FILE *log)
{
    pc_xf_list xf;
    if (pc_xf_load(list, &xf, false, log)) return -1;
    int xfail = 0, fail = 0, stale = 0, valid_passed = 0;
    cJSON *fams = cJSON_GetObjectItem(doc, "families"), *rules = cJSON_GetObjectItem(doc, "rules"), *f, *c;
    cJSON_ArrayForEach(f, fams) { set_num(f, "pass", 0); set_num(f, "expected_fail", 0); set_num(f, "fail", 0); }
    cJSON_ArrayForEach(f, rules) { set_num(f, "pass", 0); set_num(f, "expected_fail", 0); set_num(f, "fail", 0); }
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *oc = pc_json_str(c, "outcome");
        pc_xf_entry *e = pc_xf_find(&xf, pc_json_str(c, "case"));
        const char *st = "ok";
        if (e) {
            e->seen = true;
            set_str(c, "expected_failure", e->reason ? e->reason : "");
            st = !strcmp(oc, "pass") ? "stale" : e->outcome && strcmp(e->outcome, oc) ? "fail" : "expected-fail";
        } else if (strcmp(oc, "pass")) st = "fail";
        set_str(c, "status", st);
        valid_passed += !strcmp(oc, "pass") && !strcmp(pc_json_str(c, "expected"), "pass");
        xfail += !strcmp(st, "expected-fail");
        fail += !strcmp(st, "fail");
        stale += !strcmp(st, "stale");
        case_rollup(fams, rules, c, st);
    }
    for (size_t i = 0; i < xf.n; i++) stale += !xf.e[i].seen;
    cJSON *cnt = cJSON_GetObjectItem(doc, "counts");
    set_num(cnt, "expected-fail", xfail);
    set_num(cnt, "unexpected", fail);
    set_num(cnt, "stale", stale);
    /* As a run judges (CONTRACT 5): a full run, nothing unexpected or stale, a valid case passed. */
    bool partial = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "options"), "partial"));
    bool tampered = cJSON_GetObjectItem(cnt, "tampered") && cJSON_GetObjectItem(cnt, "tampered")->valuedouble > 0;
    bool ok = !fail && !stale && !tampered && !partial && valid_passed > 0;
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "certified");
    cJSON_AddBoolToObject(doc, "certified", ok);
    set_str(doc, "verdict", ok ? "certified" : partial && !fail && !stale ? "partial" : "not certified");
    set_str(doc, "verdict_reason", ok ? "re-judged against its expected-failure list" : fail ? "unexpected failures" : stale ? "stale expected failures"
                                   : tampered ? "a reader changed its copy of a case" : partial ? "a partial run (--only)" : "no valid case passed");
    pc_xf_free(&xf);
    fprintf(log, "certify: re-judged against %s: %d expected failures, %d unexpected, %d stale: %s\n", list, xfail, fail, stale,
            ok ? "CERTIFIED" : "NOT CERTIFIED");
    return 0;
}
