/* `packcheck corpus`: verify the SHA-256 pins, then hold every case to its expect.json: verdict,
 * rule, layout, exercised rules, and the logical view's hashes, with the fast path cross-checked
 * against the oracle on every module. */
#define _XOPEN_SOURCE 700
#include "corpus.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "equiv.h"
#include "logical.h"

#include <dirent.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT_MAX_BYTES (4u << 20)
#define MANIFEST_MAX_BYTES (64u << 20)

static int cmp_case(const void *a, const void *b) { return strcmp(((const pc_case *)a)->id, ((const pc_case *)b)->id); }

static bool safe_rel_path(const char *p)
{
    if (!*p || *p == '/') return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return false;
        s += n + (e != NULL);
    }
    return true;
}

static int add_case(pc_corpus *c, const char *family, const char *name, FILE *log)
{
    char *id = pc_asprintf("%s/%s", family, name);
    char *dir = pc_path_join(c->dir, id);
    char *ep = dir ? pc_path_join(dir, "expect.json") : NULL;
    if (!ep || !pc_file_exists(ep)) { free(id); free(dir); free(ep); return 0; }
    size_t len;
    char *text = pc_slurp(ep, EXPECT_MAX_BYTES, &len);
    cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    free(ep);
    if (!cJSON_IsObject(j)) {
        fprintf(log, "corpus: %s/expect.json is not a JSON object\n", id);
        cJSON_Delete(j);
        j = cJSON_CreateObject(); /* kept, so the case fails visibly */
    }
    pc_case *nc = realloc(c->cases, (c->ncases + 1) * sizeof *nc);
    if (!nc) { free(id); free(dir); cJSON_Delete(j); return -1; }
    c->cases = nc;
    /* A case reads only inside its own folder: an input that climbs out is refused (run_case says so). */
    const char *inp = pc_json_str(j, "input");
    bool unsafe = *inp && strcmp(inp, ".") && !safe_rel_path(inp);
    c->cases[c->ncases++] = (pc_case){id, dir, pc_path_join(dir, *inp && !unsafe ? inp : "."), j, unsafe};
    return 0;
}

int pc_corpus_load(const char *dir, pc_corpus *c, FILE *log)
{
    memset(c, 0, sizeof *c);
    c->dir = pc_strdup(dir);
    /* The manifest is read once: its digest and every later pin check use these bytes, so a
     * manifest rewritten on disk afterwards cannot vouch for itself. */
    char *mp = pc_path_join(dir, "MANIFEST.sha256");
    c->manifest = mp ? pc_slurp(mp, MANIFEST_MAX_BYTES, &c->manifest_len) : NULL;
    free(mp);
    if (!c->manifest) {
        fprintf(log, "corpus: %s has no readable MANIFEST.sha256\n", dir);
        return -1;
    }
    pc_sha256_hex(c->manifest, c->manifest_len, c->manifest_sha256);
    if (pc_corpus_read_version(dir, c->version)) fprintf(log, "corpus: %s/VERSION is not MAJOR.MINOR.PATCH; ignored\n", dir);
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *fe;
    while ((fe = readdir(d))) {
        if (fe->d_name[0] == '.') continue;
        char *fdir = pc_path_join(dir, fe->d_name);
        DIR *sd = fdir && pc_is_dir(fdir) ? opendir(fdir) : NULL;
        struct dirent *ce;
        while (sd && (ce = readdir(sd)))
            if (ce->d_name[0] != '.' && add_case(c, fe->d_name, ce->d_name, log)) break;
        if (sd) closedir(sd);
        free(fdir);
    }
    closedir(d);
    pc_sort(c->cases, c->ncases, sizeof *c->cases, cmp_case);
    return 0;
}

void pc_corpus_free(pc_corpus *c)
{
    for (size_t i = 0; i < c->ncases; i++) {
        free(c->cases[i].id);
        free(c->cases[i].dir);
        free(c->cases[i].input);
        cJSON_Delete(c->cases[i].expect);
    }
    free(c->cases);
    free(c->dir);
    free(c->manifest);
    memset(c, 0, sizeof *c);
}

/* ---- pins ---- */

static void problem(cJSON *list, FILE *log, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(cJSON *list, FILE *log, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (log) fprintf(log, "corpus: %s\n", buf);
    cJSON_AddItemToArray(list, cJSON_CreateString(buf));
}


/* nftw has no user pointer: the walk's state lives here for the duration of one call. */
static struct { const char *root; cJSON *listed; cJSON *problems; FILE *log; int count; } g_walk;

static int walk_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type != FTW_F) return 0;
    const char *rel = path + strlen(g_walk.root);
    while (*rel == '/') rel++;
    if (!strcmp(rel, "MANIFEST.sha256")) return 0;
    if (!cJSON_GetObjectItemCaseSensitive(g_walk.listed, rel)) {
        problem(g_walk.problems, g_walk.log, "%s: not pinned in MANIFEST.sha256", rel);
        g_walk.count++;
    }
    return 0;
}

int pc_corpus_verify_pins(const pc_corpus *c, cJSON *problems, FILE *log)
{
    int count = 0;
    char *mp = pc_path_join(c->dir, "MANIFEST.sha256"), now[65];
    if (!mp || pc_sha256_file_hex(mp, now)) { problem(problems, log, "MANIFEST.sha256 unreadable"); count++; }
    else if (strcmp(now, c->manifest_sha256)) { problem(problems, log, "MANIFEST.sha256: sha256 %s, was %s when the corpus was loaded (re-pinned)", now, c->manifest_sha256); count++; }
    free(mp);
    char *text = c->manifest ? pc_strndup(c->manifest, c->manifest_len) : NULL;
    if (!text) { problem(problems, log, "MANIFEST.sha256 unreadable"); return count + 1; }
    cJSON *listed = cJSON_CreateObject();
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *sep = strstr(line, "  ");
        if (!sep || sep - line != 64) { problem(problems, log, "MANIFEST.sha256: malformed line \"%.80s\"", line); count++; continue; }
        *sep = 0;
        const char *rel = sep + 2;
        if (!safe_rel_path(rel)) { problem(problems, log, "MANIFEST.sha256: unsafe path \"%s\"", rel); count++; continue; }
        cJSON_AddItemToObject(listed, rel, cJSON_CreateTrue());
        char *p = pc_path_join(c->dir, rel), hex[65];
        if (!p || pc_sha256_file_hex(p, hex)) { problem(problems, log, "%s: pinned but missing", rel); count++; }
        else if (strcmp(hex, line)) { problem(problems, log, "%s: sha256 %s, pinned %s", rel, hex, line); count++; }
        free(p);
    }
    free(text);
    g_walk.root = c->dir;
    g_walk.listed = listed;
    g_walk.problems = problems;
    g_walk.log = log;
    g_walk.count = 0;
    nftw(c->dir, walk_file, 16, FTW_PHYS);
    count += g_walk.count;
    cJSON_Delete(listed);
    return count;
}

/* ---- cases ---- */

static void check_module(const pc_input *in, const cJSON *want, cJSON *probs, pc_ctx *cx)
{
    const char *name = want->string;
    long mi = pc_module_find(in, name);
    if (mi < 0) { problem(probs, NULL, "module %s: not found", name); return; }
    const pc_module *m = &in->modules[mi];
    const cJSON *shape = cJSON_GetObjectItem(want, "shape"), *bits = cJSON_GetObjectItem(want, "bits");
    if (shape) {
        bool same = cJSON_GetArraySize(shape) == m->ndim;
        for (int d = 0; same && d < m->ndim; d++) same = cJSON_GetArrayItem(shape, d)->valuedouble == (double)m->shape[d];
        if (!same) problem(probs, NULL, "module %s: shape differs from expect.json", name);
    }
    if (cJSON_IsNumber(bits) && bits->valueint != (int)m->bits) problem(probs, NULL, "module %s: %u bits, expected %d", name, m->bits, bits->valueint);
    uint8_t *rc, *fc;
    float *rw, *fw;
    if (pc_logical_decode(in, m, PC_IMPL_REF, &rc, &rw, cx)) { problem(probs, NULL, "module %s: oracle decode failed", name); return; }
    if (pc_logical_decode(in, m, PC_IMPL_FAST, &fc, &fw, cx)) { problem(probs, NULL, "module %s: fast decode failed", name); free(rc); free(rw); return; }
    size_t n = (size_t)m->numel;
    for (size_t i = 0; i < n; i++)
        if (rc[i] != fc[i]) { problem(probs, NULL, "module %s: fast codes differ from the oracle at element %zu", name, i); break; }
    if (memcmp(rw, fw, n * sizeof *rw)) problem(probs, NULL, "module %s: fast weights differ from the oracle", name);
    char hex[65];
    const char *want_codes = pc_json_str(want, "codes_sha256"), *want_w = pc_json_str(want, "weight_f32_sha256");
    pc_sha256_hex(rc, n, hex);
    if (*want_codes && strcmp(hex, want_codes)) problem(probs, NULL, "module %s: codes sha256 %s, expected %s", name, hex, want_codes);
    pc_sha256_hex(rw, n * sizeof *rw, hex);
    if (*want_w && strcmp(hex, want_w)) problem(probs, NULL, "module %s: weight sha256 %s, expected %s", name, hex, want_w);
    free(rc); free(rw); free(fc); free(fw);
}

static void check_verdict(const pc_case *k, const pc_result *r, cJSON *probs)
{
    const cJSON *e = k->expect;
    const char *want = pc_json_str(e, "verdict"), *got = pc_result_verdict(r);
    const char *rule = pc_json_str(e, "reject_rule"), *fam = pc_json_str(e, "reject_family");
    if (!strcmp(want, "either")) {
        if (!strcmp(got, "error")) problem(probs, NULL, "verdict error (%s), expected pass or reject", r->cx->io_message);
        return;
    }
    if (strcmp(want, "pass") && strcmp(want, "reject") && strcmp(want, "unchecked")) {
        problem(probs, NULL, "expect.json: bad verdict \"%s\"", want);
        return;
    }
    if (strcmp(want, got)) {
        const char *why = "";
        for (size_t i = 0; i < r->cx->nfindings && !*why; i++)
            if (r->cx->findings[i].status == PC_STATUS_FAIL) why = r->cx->findings[i].rule->id;
        problem(probs, NULL, "verdict %s%s%s%s, expected %s", got, *why ? " by " : "", why,
                r->cx->io_error ? r->cx->io_message : "", want);
        return;
    }
    if (strcmp(want, "reject")) return;
    if (*rule) {
        const pc_rule *pr = pc_rule_find(rule);
        if (!pr) problem(probs, NULL, "expect.json: reject_rule %s is not in the catalogue", rule);
        else if (pc_rule_status(r->cx, pr) != PC_STATUS_FAIL) problem(probs, NULL, "rejected, but not by %s", rule);
    } else if (*fam) {
        if (!pc_family_failed(r->cx, fam)) problem(probs, NULL, "rejected, but by no rule of family %s", fam);
    } else {
        problem(probs, NULL, "expect.json: a reject case names neither reject_rule nor reject_family");
    }
}

/* expect.json's equiv "diagnosis" maps a module to the bug equiv must name for it (equiv_rows.h);
 * when the map is given, every other module must get none ({} asserts that nothing is diagnosed).
 * Cases without it are not asserted (their generators predate the diagnosis). */
static void check_diagnoses(const cJSON *doc, const cJSON *want, cJSON *probs)
{
    if (!want) return;
    if (!cJSON_IsObject(want)) { problem(probs, NULL, "expect.json: equiv diagnosis is not an object"); return; }
    const cJSON *m, *w;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "modules")) {
        const char *name = pc_json_str(m, "module"), *got = pc_json_str(cJSON_GetObjectItem(m, "diagnosis"), "bug");
        const cJSON *x = want ? cJSON_GetObjectItem(want, name) : NULL;
        const char *exp = cJSON_IsString(x) ? x->valuestring : "";
        if (strcmp(got, exp)) problem(probs, NULL, "%s: equiv diagnosis %s, expected %s", name, *got ? got : "none", *exp ? exp : "none");
    }
    cJSON_ArrayForEach(w, want) {
        bool seen = false;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "modules")) seen |= !strcmp(pc_json_str(m, "module"), w->string);
        if (!seen) problem(probs, NULL, "expect.json: equiv diagnosis names %s, a module equiv did not compare", w->string);
    }
}

/* An equivalence case (CONTRACT 7): expect.json's "equiv" names two sub-folders and the verdict
 * `packcheck equiv` must reach on them, with the rule of the first difference when they differ,
 * and the diagnosis of each module (check_diagnoses). */
static cJSON *check_equiv(const pc_case *k, const cJSON *eq, pc_profile prof, cJSON *probs)
{
    const char *want = pc_json_str(eq, "verdict");
    const char *a = pc_json_str(eq, "source"), *b = pc_json_str(eq, "target");
    const char *rule = pc_json_str(eq, "rule"), *tol_s = pc_json_str(eq, "tolerance");
    pc_tolerance tol = {PC_TOL_EXACT, 0, false};
    if (*tol_s && pc_tolerance_parse(tol_s, &tol)) { problem(probs, NULL, "expect.json: equiv tolerance \"%s\" is malformed", tol_s); return NULL; }
    if (strcmp(want, "equal") && strcmp(want, "differ")) { problem(probs, NULL, "expect.json: equiv verdict \"%s\" is not equal or differ", want); return NULL; }
    if (!*a || !*b) { problem(probs, NULL, "expect.json: equiv names no source and target folders"); return NULL; }
    char *src = pc_path_join(k->dir, a), *dst = pc_path_join(k->dir, b);
    int verdict = PC_EQUIV_ERROR;
    cJSON *doc = src && dst ? pc_equiv_run(src, dst, &tol, prof, &verdict) : NULL;
    const char *got = pc_json_str(doc, "verdict"), *got_rule = pc_json_str(doc, "rule");
    if (!doc) problem(probs, NULL, "equiv: out of memory");
    else if (strcmp(got, want)) problem(probs, NULL, "equiv %s (%s%s%s), expected %s", got, *got_rule ? got_rule : "", *got_rule ? ": " : "",
                                        pc_json_str(cJSON_GetObjectItem(doc, "first_difference"), "message"), want);
    else if (*rule && strcmp(rule, got_rule)) problem(probs, NULL, "equiv differs by %s (%s), expected %s", got_rule,
                                                     pc_json_str(cJSON_GetObjectItem(doc, "first_difference"), "message"), rule);
    if (doc) check_diagnoses(doc, cJSON_GetObjectItem(eq, "diagnosis"), probs);
    /* The pair's own results (the last entry of its inputs) feed the corpus's per-rule rollup. */
    cJSON *ins = cJSON_GetObjectItem(doc, "inputs");
    cJSON *pair = ins ? cJSON_DetachItemFromArray(ins, cJSON_GetArraySize(ins) - 1) : NULL;
    cJSON *res = pair ? cJSON_DetachItemFromObject(pair, "results") : NULL;
    cJSON_Delete(pair);
    cJSON_Delete(doc);
    free(src);
    free(dst);
    return res;
}

/* Replace the case input's skipped entries (EQ-*, a pair contract's rules such as CT-005) by the pair's. */
static void merge_pair_results(cJSON *input, cJSON *pair_results)
{
    cJSON *res = cJSON_GetObjectItem(input, "results"), *x;
    cJSON_ArrayForEach(x, pair_results) {
        const char *id = pc_json_str(x, "rule");
        const pc_rule *r = pc_rule_find(id);
        if (!r || (strcmp(r->family, "EQ") && !strcmp(pc_json_str(x, "status"), "skip"))) continue;
        for (int i = cJSON_GetArraySize(res) - 1; i >= 0; i--) {
            cJSON *y = cJSON_GetArrayItem(res, i);
            if (!strcmp(pc_json_str(y, "rule"), id) && !strcmp(pc_json_str(y, "status"), "skip")) cJSON_DeleteItemFromArray(res, i);
        }
        cJSON_AddItemToArray(res, cJSON_Duplicate(x, true));
    }
}

/* The tensor accounting of an accepted case (pass or unchecked) against expect.json's "tensors":
 * the generator states it from what it wrote, independently of the C classification. */
static void check_accounting(const pc_case *k, const pc_input *in, cJSON *probs)
{
    const cJSON *want = cJSON_GetObjectItem(k->expect, "tensors");
    if (!cJSON_IsObject(want)) { problem(probs, NULL, "expect.json: an accepted case states its tensor accounting (\"tensors\")"); return; }
    const pc_accounting *a = in->acct;
    size_t got[3] = {a ? a->checked : 0, a ? a->plain : 0, a ? a->unchecked : 0};
    static const char *const k_class[3] = {"checked", "plain", "unchecked"};
    for (int i = 0; i < 3; i++) {
        double w = pc_json_num(want, k_class[i], -1);
        if (w != (double)got[i]) problem(probs, NULL, "%zu tensors %s, expected %.0f", got[i], k_class[i], w);
    }
}

static void run_case(const pc_case *k, cJSON *cases, cJSON *inputs, int *failed)
{
    const cJSON *e = k->expect;
    pc_profile prof = !strcmp(pc_json_str(e, "profile"), "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    pc_ctx cx;
    cJSON *probs = cJSON_CreateArray();
    if (pc_ctx_init(&cx, prof)) { cJSON_Delete(probs); (*failed)++; return; }
    pc_input *in = pc_input_open(k->input, NULL, &cx);
    if (in) pc_validate(in, &cx);
    pc_result r = {k->id, in, &cx, -1};
    if (k->input_unsafe) problem(probs, NULL, "expect.json: input \"%s\" leaves the case folder", pc_json_str(e, "input"));
    check_verdict(k, &r, probs);
    const char *layout = pc_json_str(e, "layout");
    if (in && *layout && strcmp(layout, pc_input_format(in)))
        problem(probs, NULL, "layout %s, expected %s", pc_input_format(in), layout);
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "rules")) {
        const pc_rule *pr = cJSON_IsString(x) ? pc_rule_find(x->valuestring) : NULL;
        if (!pr) problem(probs, NULL, "expect.json: rule %s is not in the catalogue", cJSON_IsString(x) ? x->valuestring : "?");
        else if (pc_rule_status(&cx, pr) == PC_STATUS_SKIP) problem(probs, NULL, "rule %s was not evaluated", pr->id);
    }
    const cJSON *mods = cJSON_GetObjectItem(e, "modules");
    const char *got = pc_result_verdict(&r);
    if (in && (!strcmp(got, "pass") || !strcmp(got, "unchecked"))) {
        if (strcmp(pc_json_str(e, "verdict"), "either")) check_accounting(k, in, probs);
        cJSON_ArrayForEach(x, mods) check_module(in, x, probs, &cx);
        for (size_t i = 0; i < in->nmodules; i++)
            if (!cJSON_GetObjectItemCaseSensitive(mods, in->modules[i].prefix))
                problem(probs, NULL, "module %s is decodable but not pinned in expect.json", in->modules[i].prefix);
    }
    const cJSON *eq = cJSON_GetObjectItem(e, "equiv");
    cJSON *pair_results = cJSON_IsObject(eq) ? check_equiv(k, eq, prof, probs) : NULL;
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "case", k->id);
    cJSON_AddStringToObject(c, "expected", pc_json_str(e, "verdict"));
    cJSON_AddStringToObject(c, "got", pc_result_verdict(&r));
    int np = cJSON_GetArraySize(probs);
    cJSON_AddStringToObject(c, "outcome", np ? "fail" : "pass");
    pc_sb detail = {0};
    for (int i = 0; i < np; i++) {
        if (i) pc_sb_puts(&detail, "; ");
        pc_sb_puts(&detail, cJSON_GetArrayItem(probs, i)->valuestring);
    }
    char *d = pc_sb_take(&detail);
    cJSON_AddStringToObject(c, "detail", d ? d : "");
    free(d);
    cJSON_AddItemToArray(cases, c);
    cJSON *ij = pc_report_input_json(&r);
    if (pair_results) merge_pair_results(ij, pair_results);
    cJSON_Delete(pair_results);
    cJSON_AddItemToArray(inputs, ij);
    if (np) (*failed)++;
    cJSON_Delete(probs);
    pc_input_free(in);
    pc_ctx_free(&cx);
}

/* Per-rule rollup over every case: how often each rule passed, failed or warned. */
static cJSON *rule_rollup(const cJSON *inputs)
{
    cJSON *rules = cJSON_CreateArray();
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *r = pc_rule_at(i);
        int n[4] = {0, 0, 0, 0}; /* indexed by pc_status */
        const cJSON *in, *x;
        cJSON_ArrayForEach(in, inputs) {
            pc_status worst = PC_STATUS_SKIP;
            cJSON_ArrayForEach(x, cJSON_GetObjectItem(in, "results")) {
                if (strcmp(pc_json_str(x, "rule"), r->id)) continue;
                const char *st = pc_json_str(x, "status");
                pc_status s = !strcmp(st, "fail") ? PC_STATUS_FAIL : !strcmp(st, "warn") ? PC_STATUS_WARN
                            : !strcmp(st, "pass") ? PC_STATUS_PASS : PC_STATUS_SKIP;
                if (s == PC_STATUS_FAIL || (s == PC_STATUS_WARN && worst != PC_STATUS_FAIL) || worst == PC_STATUS_SKIP) worst = s;
            }
            n[worst]++;
        }
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "rule", r->id);
        cJSON_AddStringToObject(e, "severity", pc_severity_name(r->severity));
        cJSON_AddNumberToObject(e, "pass", n[PC_STATUS_PASS]);
        cJSON_AddNumberToObject(e, "fail", n[PC_STATUS_FAIL]);
        cJSON_AddNumberToObject(e, "warn", n[PC_STATUS_WARN]);
        cJSON_AddNumberToObject(e, "skip", n[PC_STATUS_SKIP]);
        cJSON_AddStringToObject(e, "title", r->title);
        cJSON_AddItemToArray(rules, e);
    }
    return rules;
}

void pc_corpus_print_rollup(const cJSON *doc, FILE *out)
{
    const cJSON *e;
    fprintf(out, "\nper rule (cases where the rule passed / failed / warned / did not apply):\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "rules")) {
        fprintf(out, "  %-9s %-6s pass %4d  fail %4d  warn %4d  skip %4d  %s\n", pc_json_str(e, "rule"), pc_json_str(e, "severity"),
                cJSON_GetObjectItem(e, "pass")->valueint, cJSON_GetObjectItem(e, "fail")->valueint,
                cJSON_GetObjectItem(e, "warn")->valueint, cJSON_GetObjectItem(e, "skip")->valueint, pc_json_str(e, "title"));
    }
}

cJSON *pc_corpus_run(const char *dir, FILE *log, int *failed)
{
    pc_corpus c;
    *failed = 0;
    if (pc_corpus_load(dir, &c, log)) { pc_corpus_free(&c); return NULL; }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "corpus");
    cJSON_AddStringToObject(doc, "corpus", dir);
    cJSON_AddStringToObject(doc, "manifest_sha256", c.manifest_sha256);
    cJSON_AddStringToObject(doc, "corpus_version", c.version);
    cJSON *pins = cJSON_AddArrayToObject(doc, "pin_problems");
    *failed += pc_corpus_verify_pins(&c, pins, log);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    cJSON *inputs = cJSON_AddArrayToObject(doc, "inputs");
    for (size_t i = 0; i < c.ncases; i++) {
        int before = *failed;
        run_case(&c.cases[i], cases, inputs, failed);
        cJSON *last = cJSON_GetArrayItem(cases, cJSON_GetArraySize(cases) - 1);
        fprintf(log, "%-4s %s%s%s\n", *failed == before ? "ok" : "FAIL", c.cases[i].id, *failed == before ? "" : ": ",
                *failed == before ? "" : pc_json_str(last, "detail"));
    }
    size_t npass = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cases) npass += !strcmp(pc_json_str(x, "outcome"), "pass");
    cJSON_AddItemToObject(doc, "rules", rule_rollup(inputs));
    cJSON_AddNumberToObject(doc, "cases_passed", (double)npass);
    cJSON_AddNumberToObject(doc, "cases_failed", (double)(c.ncases - npass));
    pc_corpus_free(&c);
    return doc;
}
