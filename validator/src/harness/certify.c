/* `packcheck certify` (CONTRACT 5), the run. One process per case, in its own process group, at most
 * `jobs` at a time; a reader past its deadline has its whole group killed, and so does a reader
 * that exits leaving children behind. Exit 0 + logical view = accepted, exit 1 = refused, anything
 * else = crash. What the reader wrote is read with our own container reader, compared with the
 * corpus's pinned hashes and our reference view, and every wrong output is diagnosed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify_internal.h"
#include "certify_line.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "corpus.h"
#include "diagnose.h"
#include "expect_fail.h"
#include "bounded.h"
#include "case_copy.h"
#include "certify_jail.h"
#include "tree_remove.h"
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

/* Reports name the reader's output "{output}", not the temporary path it had (stable reports). */
static char *replace_all(const char *s, const char *what, const char *with)
{
    pc_sb b = {0};
    size_t n = strlen(what);
    for (const char *p = s; *p;) {
        if (n && !strncmp(p, what, n)) { pc_sb_puts(&b, with); p += n; }
        else { char one[2] = {*p++, 0}; pc_sb_puts(&b, one); }
    }
    return pc_sb_take(&b);
}

/* A case's expectations hold under one profile when expect.json names it ("profile"), else under both.
 * Under compat, a case with a "<id>-compat" twin defers to it, and a reject by a rule compat does
 * not enforce is not a reject there. NULL = run it. */
static const char *profile_skip(const pc_corpus *c, const pc_case *k, const char *profile)
{
    const char *cp = pc_json_str(k->expect, "profile");
    if (*cp && strcmp(cp, profile)) return !strcmp(cp, "compat") ? "a compat-profile case" : "a strict-profile case";
    if (!*cp && !strcmp(profile, "compat")) { /* a "<id>-compat" twin carries this input's compat expectation */
        char *twin = pc_asprintf("%s-compat", k->id);
        bool has = false;
        for (size_t i = 0; twin && i < c->ncases && !has; i++) has = !strcmp(c->cases[i].id, twin);
        free(twin);
        if (has) return "its -compat twin carries the compat expectation";
    }
    if (!strcmp(profile, "compat") && !*pc_json_str(k->expect, "profile") && !strcmp(pc_json_str(k->expect, "verdict"), "reject")) {
        const pc_rule *r = pc_rule_find(pc_json_str(k->expect, "reject_rule"));
        pc_severity sv = r ? pc_rule_severity(r, PC_PROFILE_COMPAT) : PC_SEV_MUST;
        if (sv != PC_SEV_MUST && sv != PC_SEV_LIMIT) return "its reject rule is not enforced under compat";
    }
    return NULL;
}

static bool selected(const pc_certify_opts *o, const char *id)
{
    if (!o->nonly) return true;
    for (int i = 0; i < o->nonly; i++)
        if (o->only_exact[i] ? !strcmp(id, o->only[i]) : strstr(id, o->only[i]) != NULL) return true;
    return false;
}

/* Everything one certify run holds. */
typedef struct certify_run {
    const pc_certify_opts *o;
    FILE *log;
    pc_corpus c;
    pc_xf_list xf;
    pc_run *runs;        /* per case; cmd NULL when the case is not run */
    char **outs;         /* per case: where the reader writes its view */
    pc_case_copy *copies;/* per case: the reader's private copy of the case */
    pc_jail *jails;      /* per case: its folders (confine.h) */
    pc_confine conf;     /* what readers may see */
    uid_t reader_uid;    /* who the readers run as */
    time_t started;      /* when the readers began (leftovers are what changed since) */
    char **copy_inputs;  /* per case: {input} inside the copy */
    char **tampered;     /* per case: what the reader changed in its copy, or NULL */
    cJSON *corpus_changed; /* pin problems found after the readers ran */
    char *work;
    bool keep_work;      /* --workdir: the fresh subfolder is kept for inspection */
    pc_run_opts ro;
    const char *reader_user;
    cJSON *skipped;
} certify_run;

typedef struct tally { int outcomes[O_COUNT], xfail, stale, fail, run, pictures; cJSON *valid; } tally;

static void certify_run_free(certify_run *st)
{
    for (size_t i = 0; st->runs && i < st->c.ncases; i++) {
        free(st->runs[i].cmd); free(st->runs[i].cwd); free(st->outs[i]);
        free(st->copy_inputs[i]); free(st->tampered[i]);
        pc_case_copy_free(&st->copies[i]);
        pc_jail_free(&st->jails[i]);
        pc_jail_env_free(st->runs[i].env);
    }
    free(st->runs); free(st->outs); free(st->copies); free(st->copy_inputs); free(st->tampered); free(st->jails);
    char why[600];
    if (st->work && st->keep_work) fprintf(st->log, "certify: the readers' folders are kept in %s\n", st->work);
    else if (st->work) {
        long left = pc_tree_remove(st->work, why, sizeof why);
        if (left) fprintf(st->log, "certify: could not remove %ld entr%s of the work folder %s; first: %s\n", left, left == 1 ? "y" : "ies", st->work, why);
    }
    free(st->work);
    pc_confine_free(&st->conf);
    cJSON_Delete(st->skipped);
    cJSON_Delete(st->corpus_changed);
    pc_xf_free(&st->xf);
    pc_corpus_free(&st->c);
}

/* As root, readers run as an unprivileged user (default nobody): a reader can then neither signal
 * certify nor write the corpus or the reports. "--reader-user root" keeps root, knowingly. */
static int reader_identity(certify_run *st)
{
    const char *want = st->o->reader_user;
    if (geteuid() != 0) {
        if (want && strcmp(want, "-")) {
            struct passwd *pw = getpwnam(want);
            if (!pw || pw->pw_uid != geteuid()) { fprintf(st->log, "certify: --reader-user %s needs root (certify runs as uid %d)\n", want, (int)geteuid()); return -1; }
        }
        st->reader_user = "";
        st->reader_uid = geteuid();
        return 0;
    }
    if (!want) want = "nobody";
    struct passwd *pw = getpwnam(want);
    if (!pw) { fprintf(st->log, "certify: no user %s for the readers (--reader-user USER)\n", want); return -1; }
    st->reader_user = want;
    st->reader_uid = pw->pw_uid;
    if (pw->pw_uid == 0) { fprintf(st->log, "certify: readers run as root (--reader-user %s): a reader can kill or stop certify and rewrite its files\n", want); return 0; }
    st->ro.drop = true;
    st->ro.uid = pw->pw_uid;
    st->ro.gid = pw->pw_gid;
    return 0;
}

/* The corpus: loaded, only folders and regular files (nothing that blocks a read), pins holding,
 * and the digest --corpus-digest names. */
static int corpus_ready(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    char why[600];
    if (pc_corpus_load(o->corpus, &st->c, st->log)) return -1;
    if (pc_tree_regular_only(o->corpus, why, sizeof why)) { fprintf(st->log, "certify: %s: %s; refusing to certify against it\n", o->corpus, why); return -1; }
    cJSON *pins = cJSON_CreateArray();
    int bad = pc_corpus_verify_pins(&st->c, pins, st->log);
    cJSON_Delete(pins);
    if (bad) { fprintf(st->log, "certify: %s: the corpus does not match its MANIFEST.sha256; refusing to certify against it\n", o->corpus); return -1; }
    if (o->corpus_digest && strcasecmp(o->corpus_digest, st->c.manifest_sha256)) {
        fprintf(st->log, "certify: %s: MANIFEST.sha256 digest %s, --corpus-digest wants %s; refusing to certify against another corpus\n", o->corpus, st->c.manifest_sha256, o->corpus_digest);
        return -1;
    }
    return 0;
}

/* A fresh folder of certify's own (mkdtemp: unguessable), inside --workdir or $TMPDIR: a folder
 * certify did not create is never changed. 0711: readers pass through to their own folders and
 * cannot list the others. */
static int make_workdir(certify_run *st)
{
    const char *tmp = getenv("TMPDIR"), *base = st->o->workdir ? st->o->workdir : tmp && *tmp ? tmp : "/tmp";
    char *w = pc_asprintf("%s/packcheck-certify-XXXXXX", base);
    if (!w || !mkdtemp(w) || chmod(w, 0711)) { fprintf(st->log, "certify: cannot create a work folder in %s: %s\n", base, strerror(errno)); free(w); return -1; }
    st->work = realpath(w, NULL); /* the reader's paths are real paths: the namespace mode binds them */
    if (!st->work) { rmdir(w); free(w); return -1; }
    free(w);
    st->keep_work = st->o->workdir != NULL;
    return 0;
}

/* What readers may see (confine.h), stated on the log. */
static int confine_ready(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    char why[900] = "";
    if (pc_confine_setup(&st->conf, o->isolation, o->reader, o->corpus, st->work, o->reader_paths, o->nreader_paths, why, sizeof why)) {
        fprintf(st->log, "certify: cannot confine the readers: %s; refusing\n", why);
        return -1;
    }
    if (st->conf.mode == PC_ISO_NONE)
        fprintf(st->log, "certify: readers are NOT confined (%s): they can read the corpus's answers if their user can\n",
                o->isolation == PC_ISO_NONE ? "--isolation none" : "no Landlock, and no mount namespace for them");
    return 0;
}

/* Case i's private folder (certify_jail.h): case/ (the copy, read-only), out/, tmp/, home/. */
static int case_folder(certify_run *st, size_t i)
{
    const pc_case *k = &st->c.cases[i];
    pc_jail *j = &st->jails[i];
    char why[600];
    if (pc_jail_make(j, st->work, st->ro.drop, st->ro.uid, st->ro.gid, why, sizeof why)) { fprintf(st->log, "certify: %s\n", why); return -1; }
    if (pc_case_copy_make(k->dir, j->copy, "expect.json", &st->copies[i], why, sizeof why)) { fprintf(st->log, "certify: %s: %s\n", k->id, why); return -1; }
    const char *rel = k->input + strlen(k->dir); /* k->input is k->dir joined with expect.input */
    st->copy_inputs[i] = pc_asprintf("%s%s", j->copy, rel);
    st->outs[i] = pc_asprintf("%s/view.safetensors", j->out);
    /* The reader keeps certify's working directory: templates name scripts relative to it. */
    st->runs[i].label = k->id;
    st->runs[i].jail = j;
    st->runs[i].env = pc_jail_env(j, st->o->reader_env, st->o->nreader_env);
    if (!st->copy_inputs[i] || !st->outs[i] || !st->runs[i].env) return -1;
    st->runs[i].cmd = pc_certify_command(st->o->reader, st->copy_inputs[i], st->outs[i], st->o->profile);
    return st->runs[i].cmd ? 0 : -1;
}

/* A case outside the reader's declared scope (--layout, --format): listed as `unsupported`, never run. */
static bool out_of_scope(certify_run *st, const pc_case *k)
{
    if (!pc_scope_declared(&st->o->scope)) return false;
    pc_case_scope cs;
    char why[96];
    pc_case_scope_of(k, &cs);
    if (!pc_scope_excludes(&st->o->scope, &cs, why, sizeof why)) return false;
    cJSON *sk = cJSON_CreateObject();
    cJSON_AddStringToObject(sk, "case", k->id);
    cJSON_AddStringToObject(sk, "outcome", "unsupported");
    cJSON_AddStringToObject(sk, "reason", why);
    cJSON_AddItemToArray(st->skipped, sk);
    return true;
}

/* Corpus (pins must hold), expected failures, work directory, one private case folder and command
 * line per selected case. */
static int prepare(certify_run *st)
{
    const pc_certify_opts *o = st->o;
    if (corpus_ready(st) || reader_identity(st)) return -1;
    if (o->expect_fail && pc_xf_load(o->expect_fail, &st->xf, o->update_expect, st->log)) return -1;
    if (make_workdir(st) || confine_ready(st)) return -1;
    size_t n = st->c.ncases ? st->c.ncases : 1;
    st->jails = calloc(n, sizeof *st->jails);
    st->runs = calloc(n, sizeof *st->runs);
    st->outs = calloc(n, sizeof *st->outs);
    st->copies = calloc(n, sizeof *st->copies);
    st->copy_inputs = calloc(n, sizeof *st->copy_inputs);
    st->tampered = calloc(n, sizeof *st->tampered);
    st->skipped = cJSON_CreateArray();
    if (!st->runs || !st->outs || !st->copies || !st->jails || !st->copy_inputs || !st->tampered || !st->skipped) return -1;
    for (size_t i = 0; i < st->c.ncases; i++) {
        const pc_case *k = &st->c.cases[i];
        if (!selected(o, k->id)) continue;
        if (out_of_scope(st, k)) continue;
        const char *why = profile_skip(&st->c, k, o->profile ? o->profile : "strict");
        if (why) {
            cJSON *sk = cJSON_CreateObject();
            cJSON_AddStringToObject(sk, "case", k->id);
            cJSON_AddStringToObject(sk, "reason", why);
            cJSON_AddItemToArray(st->skipped, sk);
            continue;
        }
        if (case_folder(st, i)) return -1;
    }
    return 0;
}

/* A reader that could write the shared temporary folders (not under Landlock) and ran as a user of
 * its own (not certify's): what that user made there during the run is removed. */
static void sweep_leftovers(certify_run *st)
{
    if (st->conf.mode == PC_ISO_LANDLOCK || !st->ro.drop) return;
    long n = pc_sweep_leftovers("/tmp", st->reader_uid, st->started, st->log) + pc_sweep_leftovers("/dev/shm", st->reader_uid, st->started, st->log);
    if (n) fprintf(st->log, "certify: removed %ld entr%s the readers left in /tmp and /dev/shm\n", n, n == 1 ? "y" : "ies");
}

/* After the readers: every private copy byte for byte, and the corpus itself (a reader running as
 * certify's user could have found it). */
static void check_integrity(certify_run *st)
{
    char why[600];
    for (size_t i = 0; i < st->c.ncases; i++) {
        if (!st->runs[i].cmd) continue;
        int v = pc_case_copy_verify(&st->copies[i], why, sizeof why);
        if (v) st->tampered[i] = pc_strdup(v < 0 ? "could not verify the copy (out of memory)" : why);
    }
    st->corpus_changed = cJSON_CreateArray();
    if (pc_tree_regular_only(st->o->corpus, why, sizeof why)) cJSON_AddItemToArray(st->corpus_changed, cJSON_CreateString(why));
    else pc_corpus_verify_pins(&st->c, st->corpus_changed, st->log);
}

static cJSON *doc_header(const certify_run *st)
{
    const pc_certify_opts *o = st->o;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddStringToObject(doc, "kind", "certify");
    cJSON_AddItemToObject(doc, "reader", pc_certify_reader_json(o));
    cJSON *corp = cJSON_AddObjectToObject(doc, "corpus");
    cJSON_AddStringToObject(corp, "path", o->corpus);
    cJSON_AddStringToObject(corp, "manifest_sha256", st->c.manifest_sha256);
    cJSON_AddStringToObject(corp, "version", st->c.version);
    cJSON_AddNumberToObject(corp, "cases", (double)st->c.ncases);
    cJSON_AddStringToObject(doc, "manifest_sha256", st->c.manifest_sha256);
    cJSON_AddStringToObject(doc, "corpus_version", st->c.version);
    cJSON *opts = cJSON_AddObjectToObject(doc, "options");
    cJSON_AddNumberToObject(opts, "timeout_s", o->timeout_s);
    cJSON_AddStringToObject(opts, "depth", pc_depth_name(o->depth));
    cJSON_AddStringToObject(opts, "tolerance", pc_tolerance_str(&o->tolerance));
    cJSON_AddStringToObject(opts, "precision_rule", "weights answered in bf16/f16 are compared with the logical view rounded once to that dtype (round to nearest, ties to even)");
    cJSON_AddBoolToObject(opts, "zero_sign_compared", o->depth != PC_DEPTH_COMPUTE);
    cJSON_AddNumberToObject(opts, "jobs", o->jobs);
    cJSON_AddStringToObject(opts, "profile", o->profile ? o->profile : "strict");
    cJSON_AddBoolToObject(opts, "partial", o->nonly > 0);
    cJSON_AddBoolToObject(opts, "container_only", o->container_only);
    cJSON_AddStringToObject(opts, "reader_user", *st->reader_user ? st->reader_user : "(certify's own)");
    cJSON *iso = cJSON_AddObjectToObject(opts, "isolation");
    cJSON_AddStringToObject(iso, "mode", pc_isolation_name(st->conf.mode));
    cJSON_AddNumberToObject(iso, "landlock_abi", st->conf.landlock_abi);
    cJSON_AddBoolToObject(iso, "private_proc", st->conf.private_ns); /* certify's command line and other readers hidden */
    cJSON_AddNumberToObject(iso, "mem_limit_mb", (double)o->mem_limit_mb);
    cJSON_AddNumberToObject(iso, "fsize_limit_mb", (double)o->fsize_limit_mb);
    cJSON *env = cJSON_AddArrayToObject(iso, "reader_env");
    const char *const fixed[] = {"PATH", "HOME", "TMPDIR", "LANG"};
    for (int i = 0; i < 4; i++) cJSON_AddItemToArray(env, cJSON_CreateString(fixed[i]));
    for (int i = 0; i < o->nreader_env; i++) { /* names only: a value may be a secret */
        char *name = pc_strndup(o->reader_env[i], strcspn(o->reader_env[i], "="));
        cJSON_AddItemToArray(env, cJSON_CreateString(name ? name : ""));
        free(name);
    }
    if (o->expect_fail) cJSON_AddStringToObject(opts, "expect_fail", o->expect_fail);
    return doc;
}

/* Hold an outcome to the expected-failure list: ok, expected-fail, fail or stale. A tampered case
 * fails whatever the list says. */
static const char *judge(certify_run *st, const pc_case *k, int oc, pc_case_result *res, pc_sb *detail, tally *t)
{
    pc_xf_entry *xe = pc_xf_find(&st->xf, k->id);
    if (xe) xe->seen = true;
    if (!xe || oc == O_TAMPERED) {
        if (oc == O_PASS) return "ok";
        t->fail++;
        return "fail";
    }
    res->expected_failure = pc_strdup(xe->reason ? xe->reason : "");
    if (oc == O_PASS) {
        t->stale++;
        pc_sb_puts(detail, detail->n ? "; " : "");
        pc_sb_puts(detail, "listed as an expected failure but passes: remove it from the list");
        return "stale";
    }
    if (xe->outcome && strcmp(xe->outcome, pc_certify_outcome_names[oc])) {
        t->fail++;
        pc_sb_printf(detail, "; listed as expected %s, got %s", xe->outcome, pc_certify_outcome_names[oc]);
        return "fail";
    }
    t->xfail++;
    return "expected-fail";
}

/* Valid (verdict pass) cases run and passed, per corpus family (the case id's first part). */
static void count_valid(tally *t, const pc_case *k, int oc)
{
    if (strcmp(pc_json_str(k->expect, "verdict"), "pass")) return;
    const char *slash = strchr(k->id, '/');
    char *fam = pc_strndup(k->id, slash ? (size_t)(slash - k->id) : strlen(k->id));
    cJSON *e = fam ? cJSON_GetObjectItemCaseSensitive(t->valid, fam) : NULL;
    if (fam && !e) { e = cJSON_AddObjectToObject(t->valid, fam); cJSON_AddNumberToObject(e, "valid", 0); cJSON_AddNumberToObject(e, "passed", 0); }
    free(fam);
    if (!e) return;
    cJSON *v = cJSON_GetObjectItem(e, "valid"), *p = cJSON_GetObjectItem(e, "passed");
    cJSON_SetNumberValue(v, v->valuedouble + 1);
    if (oc == O_PASS) cJSON_SetNumberValue(p, p->valuedouble + 1);
}

/* What the reader wrote, judged in a bounded child (bounded.h). */
typedef struct eval_arg { const pc_case *k; const char *out; pc_weight_compare basis; bool want_picture; } eval_arg;

static cJSON *eval_child(void *p)
{
    const eval_arg *a = p;
    cJSON *ans = cJSON_CreateObject(), *extra = cJSON_CreateObject();
    pc_sb detail = {0};
    int oc = pc_certify_check_output(a->k, a->out, &a->basis, a->want_picture, extra, &detail);
    char *d = pc_sb_take(&detail);
    cJSON_AddNumberToObject(ans, "outcome", oc);
    cJSON_AddStringToObject(ans, "detail", d ? d : "");
    cJSON_AddItemToObject(ans, "extra", extra);
    free(d);
    return ans;
}

static int evaluate_output(certify_run *st, size_t i, bool want_pic, cJSON *cj, pc_sb *detail)
{
    pc_case kc = st->c.cases[i]; /* the reference view comes from the verified private copy */
    kc.input = st->copy_inputs[i];
    kc.dir = st->copies[i].root;
    eval_arg a = {&kc, st->outs[i], {PC_ROUND_F32, st->o->tolerance, st->o->depth == PC_DEPTH_COMPUTE}, want_pic};
    char why[200];
    cJSON *ans = pc_run_bounded(eval_child, &a, st->o->eval_timeout_s > 0 ? st->o->eval_timeout_s : 60, why, sizeof why);
    if (!ans) { pc_sb_printf(detail, "packcheck's evaluation of the output %s", why); return O_WRONG; }
    int oc = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(ans, "outcome"));
    if (oc < 0 || oc >= O_COUNT) oc = O_WRONG;
    pc_sb_puts(detail, pc_json_str(ans, "detail"));
    cJSON *extra = cJSON_GetObjectItem(ans, "extra"), *x;
    while (extra && (x = extra->child)) {
        cJSON_DetachItemViaPointer(extra, x);
        cJSON_AddItemToObject(cj, x->string, x);
    }
    cJSON_Delete(ans);
    return oc;
}

static int outcome_of(certify_run *st, size_t i, bool want_pic, cJSON *cj, pc_sb *detail)
{
    if (st->tampered[i]) {
        pc_sb_printf(detail, "the reader changed its copy of the case: %s (a reader may only read its input and write {output})", st->tampered[i]);
        return O_TAMPERED;
    }
    pc_profile prof = st->o->profile && !strcmp(st->o->profile, "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    int oc = pc_certify_classify(&st->c.cases[i], &st->runs[i], prof, detail);
    if (oc < 0 && st->o->container_only) return O_PASS; /* accepted a valid input: a container reader's verdict is all it gives */
    char why[300];
    if (oc < 0 && pc_jail_check_output(&st->jails[i], "view.safetensors", st->reader_uid, why, sizeof why) < 0) {
        pc_sb_printf(detail, "accepted, but %s", why);
        return O_WRONG;
    }
    return oc >= 0 ? oc : evaluate_output(st, i, want_pic, cj, detail);
}

/* One case: its typed result, counted, rolled up, printed, then written as JSON once. */
static cJSON *evaluate_case(certify_run *st, size_t i, tally *t, cJSON *rules, cJSON *fams)
{
    const pc_case *k = &st->c.cases[i];
    const pc_run *r = &st->runs[i];
    pc_case_result res = {.exit_code = -1, .judged = cJSON_CreateObject()}; /* first_diff, diagnosis, picture */
    pc_sb detail = {0};
    bool want_pic = pc_certify_is_patterned(k) || t->pictures < 3;
    int oc = outcome_of(st, i, want_pic, res.judged, &detail);
    t->pictures += cJSON_GetObjectItem(res.judged, "picture") != NULL;
    t->outcomes[oc]++;
    t->run++;
    count_valid(t, k, oc);
    res.outcome = oc;
    res.timed_out = r->timed_out;
    if (!r->timed_out && WIFSIGNALED(r->status)) res.signal = WTERMSIG(r->status);
    else if (!r->timed_out && WIFEXITED(r->status)) res.exit_code = WEXITSTATUS(r->status);
    res.seconds = r->secs;
    res.detached_killed = r->strays;
    res.status = judge(st, k, oc, &res, &detail, t);
    char *d = pc_sb_take(&detail);
    res.detail = d ? replace_all(d, st->outs[i], "{output}") : NULL;
    free(d);
    if (oc != O_PASS) res.log_tail = pc_run_log_tail(r);
    pc_certify_rollup_case(rules, fams, k, oc, res.status);
    cJSON *cj = pc_case_result_json(&res, k);
    const char *label = !strcmp(res.status, "stale") ? "STALE" : !strcmp(res.status, "expected-fail") ? "xfail"
                                                                                                    : pc_certify_outcome_names[oc];
    pc_profile prof = st->o->profile && !strcmp(st->o->profile, "compat") ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT;
    if (cj) pc_certify_line(st->log, k, cj, label, prof);
    pc_case_result_free(&res);
    return cj;
}

/* Counts, rollups, the expected-failure summary; entries naming no case are stale too. */
static void doc_summary(certify_run *st, cJSON *doc, cJSON *rules, cJSON *fams, tally *t)
{
    cJSON *unknown = cJSON_CreateArray();
    for (size_t i = 0; i < st->xf.n; i++) {
        bool exists = false;
        for (size_t j = 0; j < st->c.ncases && !exists; j++) exists = !strcmp(st->c.cases[j].id, st->xf.e[i].id);
        if (exists) continue;
        cJSON_AddItemToArray(unknown, cJSON_CreateString(st->xf.e[i].id));
        t->stale++;
        fprintf(st->log, "STALE            %s: listed as an expected failure but no such case in the corpus\n", st->xf.e[i].id);
    }
    cJSON_AddItemToObject(doc, "rules", pc_certify_sorted_array(rules, "rule"));
    cJSON_AddItemToObject(doc, "families", pc_certify_sorted_array(fams, "family"));
    cJSON *cnt = cJSON_AddObjectToObject(doc, "counts");
    for (int i = 0; i < O_COUNT; i++) cJSON_AddNumberToObject(cnt, pc_certify_outcome_names[i], t->outcomes[i]);
    cJSON_AddNumberToObject(cnt, "expected-fail", t->xfail);
    cJSON_AddNumberToObject(cnt, "stale", t->stale);
    cJSON_AddNumberToObject(cnt, "unexpected", t->fail);
    cJSON_AddNumberToObject(cnt, "run", t->run);
    cJSON_AddNumberToObject(cnt, "skipped", cJSON_GetArraySize(st->skipped));
    cJSON_AddItemToObject(doc, "skipped", st->skipped);
    st->skipped = NULL;
    cJSON *xj = cJSON_AddObjectToObject(doc, "expect_fail");
    cJSON_AddStringToObject(xj, "path", st->o->expect_fail ? st->o->expect_fail : "");
    cJSON_AddNumberToObject(xj, "entries", (double)st->xf.n);
    cJSON_AddItemToObject(xj, "unknown_cases", unknown);
    cJSON_AddItemToObject(doc, "valid_by_family", cJSON_Duplicate(t->valid, 1));
    cJSON_AddItemToObject(doc, "corpus_changed", cJSON_Duplicate(st->corpus_changed, 1));
}

/* "ct 40/40, gguf 0/12, ..." */
static void print_valid(FILE *log, const cJSON *valid)
{
    const cJSON *f;
    fprintf(log, "certify: valid cases passed per family:");
    int k = 0;
    cJSON_ArrayForEach(f, valid) fprintf(log, "%s %s %.0f/%.0f", k++ ? "," : "", f->string, cJSON_GetNumberValue(cJSON_GetObjectItem(f, "passed")), cJSON_GetNumberValue(cJSON_GetObjectItem(f, "valid")));
    fprintf(log, "%s\n", k ? "" : " none run");
}

static int valid_passed(const cJSON *valid)
{
    const cJSON *f;
    int n = 0;
    cJSON_ArrayForEach(f, valid) n += (int)cJSON_GetNumberValue(cJSON_GetObjectItem(f, "passed"));
    return n;
}

/* A declared scope: what it claims and how much of the corpus that covers (unsupported cases are
 * coverage, not failures). */
static void scope_coverage(certify_run *st, cJSON *doc)
{
    const pc_scope *sc = &st->o->scope;
    if (!pc_scope_declared(sc)) return;
    int unsupported = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "skipped")) unsupported += !strcmp(pc_json_str(x, "outcome"), "unsupported");
    cJSON *j = cJSON_AddObjectToObject(doc, "scope");
    cJSON *ls = cJSON_AddArrayToObject(j, "layouts"), *fs = cJSON_AddArrayToObject(j, "formats");
    for (int i = 0; i < sc->nlayouts; i++) cJSON_AddItemToArray(ls, cJSON_CreateString(sc->layouts[i]));
    for (int i = 0; i < sc->nformats; i++) cJSON_AddItemToArray(fs, cJSON_CreateString(sc->formats[i]));
    cJSON_AddNumberToObject(j, "unsupported", unsupported);
    cJSON_AddNumberToObject(j, "cases", (double)st->c.ncases);
    fprintf(st->log, "certify: declared scope (--layout/--format): %zu of %zu cases in scope, %d unsupported (coverage, neither pass nor failure)\n",
            st->c.ncases - (size_t)unsupported, st->c.ncases, unsupported);
}

/* The verdict: certified only for a full run with nothing unexpected, nothing tampered, the corpus
 * intact, at least one valid case read, and no failure absorbed by --update-expect in this run. */
static int verdict(certify_run *st, cJSON *doc, tally *t, int absorbed)
{
    const pc_certify_opts *o = st->o;
    const char *why = NULL;
    int changed = cJSON_GetArraySize(st->corpus_changed);
    if (changed) why = "the corpus changed while the readers ran";
    else if (t->outcomes[O_TAMPERED]) why = "a reader changed its copy of a case";
    else if (absorbed) why = "failures were absorbed into the rewritten expected-failure list: rerun with it to certify";
    else if (t->fail || t->stale) why = NULL;
    else if (!valid_passed(t->valid)) why = "no valid case passed: a reader that reads nothing is not certified";
    bool clean = !why && !t->fail && !t->stale;
    bool partial = o->nonly > 0;
    bool certified = clean && !partial;
    const char *v = certified ? "certified" : clean ? "partial" : "not certified";
    cJSON_AddBoolToObject(doc, "certified", certified);
    cJSON_AddStringToObject(doc, "verdict", v);
    if (why) cJSON_AddStringToObject(doc, "verdict_reason", why);
    print_valid(st->log, t->valid);
    scope_coverage(st, doc);
    if (why) fprintf(st->log, "certify: %s\n", why);
    fprintf(st->log, "certify: %s: %d run, %d pass, %d expected failures, %d unexpected failures, %d stale expected failures%s; corpus MANIFEST.sha256 %s\n",
            certified ? (pc_scope_declared(&o->scope) ? "CERTIFIED for its declared scope" : "CERTIFIED") : clean ? "PARTIAL (--only: not a certificate)" : "NOT CERTIFIED", t->run, t->outcomes[O_PASS], t->xfail, t->fail, t->stale,
            t->outcomes[O_TAMPERED] ? ", tampered" : "", st->c.manifest_sha256);
    return clean ? PC_EXIT_OK : PC_EXIT_REJECT;
}

/* --update-expect: the list is rewritten from this run; what it absorbs is counted, not forgiven. */
static int update_list(certify_run *st, cJSON *cases, tally *t, int *absorbed)
{
    const pc_certify_opts *o = st->o;
    char corpus_line[128];
    snprintf(corpus_line, sizeof corpus_line, "%s (MANIFEST sha256 %s)", *st->c.version ? st->c.version : "unversioned", st->c.manifest_sha256);
    if (pc_xf_write(o->expect_fail, &st->xf, cases, o->name ? o->name : o->reader, corpus_line)) { fprintf(st->log, "certify: cannot write %s\n", o->expect_fail); return -1; }
    *absorbed = t->fail + t->stale;
    fprintf(st->log, "certify: rewrote %s from this run (%d unexpected or stale failure%s absorbed)\n", o->expect_fail, *absorbed, *absorbed == 1 ? "" : "s");
    t->fail = t->stale = 0;
    return 0;
}

/* The precision(s) the reader answered in over all cases ("f32", "bf16", "bf16+f32", ...); absent
 * when it wrote no weights (container-only, or codes only). */
static void doc_precision(cJSON *doc, const cJSON *cases)
{
    static const char *const names[] = {"bf16", "f16", "f32"};
    bool seen[3] = {false, false, false};
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *p = pc_json_str(c, "precision");
        for (int i = 0; i < 3; i++) seen[i] |= strstr(p, names[i]) != NULL;
    }
    char buf[32] = "";
    for (int i = 0; i < 3; i++)
        if (seen[i]) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", *buf ? "+" : "", names[i]);
    if (*buf) cJSON_AddStringToObject(doc, "precision", buf);
}

static cJSON *evaluate_all(certify_run *st, tally *t, int *exit_code)
{
    cJSON *doc = doc_header(st);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    cJSON *rules = cJSON_CreateObject(), *fams = cJSON_CreateObject();
    for (size_t i = 0; i < st->c.ncases; i++) {
        if (!st->runs[i].cmd) continue;
        cJSON_AddItemToArray(cases, evaluate_case(st, i, t, rules, fams));
    }
    doc_summary(st, doc, rules, fams, t);
    doc_precision(doc, cases);
    cJSON_Delete(rules);
    cJSON_Delete(fams);
    int absorbed = 0;
    if (st->o->update_expect && update_list(st, cases, t, &absorbed)) { cJSON_Delete(doc); return NULL; }
    *exit_code = verdict(st, doc, t, absorbed);
    cJSON_AddArrayToObject(doc, "inputs");
    return doc;
}

cJSON *pc_certify_run(const pc_certify_opts *o, int *exit_code)
{
    certify_run st = {.o = o, .log = o->log ? o->log : stderr};
    cJSON *doc = NULL;
    tally t = {0};
    *exit_code = PC_EXIT_ERROR;
    if (prepare(&st)) goto out;
    size_t nrun = 0;
    for (size_t i = 0; i < st.c.ncases; i++) nrun += st.runs[i].cmd != NULL;
    if (!nrun) { fprintf(st.log, "certify: no case to run (%s); nothing was certified\n", o->nonly ? "--only matches none" : "the corpus has none for this profile"); goto out; }
    fprintf(st.log, "certify: %zu cases (%zu to run), reader: %s, corpus MANIFEST.sha256 %s\n", st.c.ncases, nrun, o->reader, st.c.manifest_sha256);
    st.ro = (pc_run_opts){.jobs = o->jobs, .timeout_s = o->timeout_s, .mem_mb = o->mem_limit_mb, .fsize_mb = o->fsize_limit_mb, .drop = st.ro.drop,
                          .uid = st.ro.uid, .gid = st.ro.gid, .confine = &st.conf, .progress = o->progress};
    st.started = time(NULL) - 1;
    int sig = pc_run_all(st.runs, st.c.ncases, &st.ro);
    sweep_leftovers(&st);
    if (sig < 0) { fprintf(st.log, "certify: cannot become a child subreaper: a reader's detached processes could outlive it; refusing\n"); goto out; }
    if (sig) {
        fprintf(st.log, "certify: interrupted by signal %d; every reader's process group was killed\n", sig);
        goto out;
    }
    check_integrity(&st);
    t.valid = cJSON_CreateObject();
    doc = evaluate_all(&st, &t, exit_code);
out:
    cJSON_Delete(t.valid);
    certify_run_free(&st);
    return doc;
}
