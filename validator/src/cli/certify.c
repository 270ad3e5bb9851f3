/* packcheck certify --reader 'CMD {input} {output}' [--corpus DIR] [--expect-fail FILE [--update-expect]]
 *                   [--timeout S] [--tolerance T] [--depth D] [--jobs N] [--only SUBSTR]... [--name NAME] [--report FMT:PATH]...
 * packcheck certify --combine REPORT.json... [--report FMT:PATH]... */
#include "cli.h"

#include "../harness/certify.h"
#include "../harness/certify_line.h"
#include "../harness/corpus.h"
#include "../core/util.h"
#include "../report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *USAGE =
    "packcheck certify --reader 'CMD {input} {output}' [--corpus DIR] [--profile strict|compat] [--expect-fail FILE [--update-expect]]\n"
    "                         [--timeout S] [--tolerance T] [--depth D] [--jobs N] [--mem-limit MB] [--only SUBSTR]... [--case ID]... [--name NAME]\n"
    "                         [--workdir DIR] [--corpus-digest HEX] [--reader-user USER] [--eval-timeout S] [--report FMT:PATH]...\n"
    "                         [--container-only] [--layout L,...] [--format gguf|safetensors]\n"
    "                         [--isolation auto|landlock|namespace|none] [--reader-path DIR]... [--reader-env NAME[=VALUE]]...\n"
    "                         [--fsize-limit MB]\n"
    "       packcheck certify --combine REPORT.json... [--readers META.json] [--report FMT:PATH]...\n"
    "       packcheck certify --check-matrix MATRIX.json\n"
    "       packcheck certify --render REPORT.json [--expect-fail FILE] [--report FMT:PATH]...";

/* ASan and TSan reserve terabytes of shadow address space: under an address-space cap this build's
 * own readers (the self-test runs packcheck itself as a reader) could not start. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PC_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PC_SANITIZER_BUILD 1
#endif
#endif
static unsigned long default_mem_mb(void)
{
#ifdef PC_SANITIZER_BUILD
    return 0;
#else
    return PC_CERTIFY_MEM_LIMIT_MB;
#endif
}

/* certify's command line names the corpus: once the options are copied, the arguments are blanked,
 * so /proc/<certify>/cmdline tells a reader nothing (its environment is not readable to a reader:
 * another user, or outside its Landlock domain). */
static char **hide_arguments(int argc, char **argv)
{
    char **copy = calloc((size_t)argc + 1, sizeof *copy);
    if (!copy) return NULL;
    for (int i = 0; i < argc; i++)
        if (!(copy[i] = pc_strdup(argv[i]))) { while (i--) free(copy[i]); free(copy); return NULL; }
    for (int i = 1; i < argc; i++) memset(argv[i], 0, strlen(argv[i]));
    return copy;
}

static void help(void)
{
    printf("usage: %s\n\n"
           "Certify a third-party reader against a corpus (default: the bundled fixtures/). For every case the\n"
           "reader command runs under /bin/sh -c with {input} and {output} replaced by shell-quoted paths, in its\n"
           "own process group, two at a time. Exit 0 after writing the logical view (M.codes U8 and/or M.weight\n"
           "F32 / BF16 / F16, CONTRACT section 3) = accepted; exit 1 = refused; any other exit, a signal, or running past\n"
           "--timeout (default 10 s; the whole process group is killed) = crash or timeout.\n\n"
           "Outcomes per case: pass, wrong-output (first differing index and the bug class it matches),\n"
           "accepted-invalid, rejected-valid, crash, timeout. Codes are compared exactly, weights bit-exactly at\n"
           "the reader's precision: a BF16 or F16 M.weight against the logical view rounded once to that dtype\n"
           "(to nearest, ties to even).\n\n"
           "--tolerance T        exact (default), ulp:N, abs:X or rel:X: the stated bound for an activation-quantized\n"
           "                     compute path (--ulp N is ulp:N); the report carries it and the largest ULP distance\n"
           "--depth D            helper (default), loader or compute: where the reader's answer comes from (a\n"
           "                     dequantisation helper, its loader's parameters, its own matmul on an identity\n"
           "                     input); at compute depth -0.0 and +0.0 are the same answer\n"
           "--expect-fail FILE   lines \"<case-id> [<outcome>] [# reason]\": listed failures are expected; a listed\n"
           "                     case that passes (or is not in the corpus) is stale and fails the run\n"
           "--update-expect      rewrite FILE from this run (refused with --only: a partial run)\n"
           "--only SUBSTR        run only cases whose id contains SUBSTR (repeatable)\n"
           "--case ID            run the case ID (exactly; repeatable, combines with --only)\n"
           "--profile P          whose expectations apply (default strict): cases marked with the other profile are\n"
           "                     skipped, and under compat so are rejects by a rule compat does not enforce;\n"
           "                     {profile} in the template becomes strict or compat\n"
           "--corpus-digest HEX  refuse (exit 2) a corpus whose MANIFEST.sha256 has another sha256 (pin it in CI)\n"
           "--reader-user USER   as root, run readers as USER (default nobody; root keeps root): a reader can then\n"
           "                     neither signal certify nor write the corpus or the reports\n"
           "--eval-timeout S     bound on judging one case's output (default 60)\n"
           "--isolation MODE     what confines a reader to its own case copy, output folder, private TMPDIR/HOME\n"
           "                     and the system folders (README, certify): landlock (Linux >= 5.13), namespace\n"
           "                     (root), none; auto (default) takes the first the system offers\n"
           "--reader-path DIR    more read-only places for the reader (its runtime, a venv); repeatable. The files\n"
           "                     the template names and their folders are readable already\n"
           "--reader-env NAME    pass certify's NAME (or NAME=VALUE) to readers; repeatable. Readers get only PATH,\n"
           "                     HOME and TMPDIR (their own folders), LANG=C and these\n"
           "--mem-limit MB       address-space limit per reader (default %lu%s; 0 = none)\n"
           "--fsize-limit MB     largest file a reader may write (default %lu; 0 = none)\n"
           "--workdir DIR        make the readers' folders in a fresh subfolder of DIR and keep it (default: one\n"
           "                     in $TMPDIR, removed); DIR itself is never changed\n"
           "--combine R.json...  merge certify JSON reports of several readers into one matrix (results table,\n"
           "                     kill matrix, pruned case x reader matrix)\n"
           "--render R.json      write the other report formats of a saved certify JSON report; with\n"
           "                     --expect-fail FILE, statuses and verdict re-judged against FILE first (the\n"
           "                     report of an --update-expect run, whose list it wrote afterwards)\n"
           "--container-only     the reader verifies containers but decodes no quantization: its verdicts are\n"
           "                     compared, no logical view is asked for (an accepted valid case passes)\n"
           "--layout L,...       the reader's declared scope: layouts it reads (expect.json's layout, or a GGUF\n"
           "                     block type in lower case: q8_0, q4_k, iq4_nl, ...; repeatable); --format gguf or\n"
           "                     safetensors: containers it reads. Cases outside are `unsupported`, listed as\n"
           "                     coverage (neither pass nor failure); a case of mixed layouts needs them all\n"
           "--readers META.json  with --combine: each reader's version, language, claimed families (the public\n"
           "                     matrix, reports/UPSTREAM.md)\n"
           "--check-matrix M     is a committed matrix consistent with the certificates it names (digests,\n"
           "                     counts)? runs no reader\n\n"
           "Each reader gets a private read-only copy of its case (never the corpus folder, never expect.json);\n"
           "a copy it changed is the outcome tampered, which fails the run. Progress goes to stderr.\n\n"
           "Exit 0 certified (or a clean --only run: verdict PARTIAL, not a certificate), 1 not certified,\n"
           "2 harness error (usage, corpus pins broken, unreadable files, no case run).\n",
           USAGE, default_mem_mb(), default_mem_mb() ? "" : ": a sanitizer build, whose readers reserve terabytes of address space",
           PC_CERTIFY_FSIZE_LIMIT_MB);
}

/* The public matrix names the corpus this binary carries ("current_manifest_sha256") and marks each
 * certificate made against another one stale: its counts describe that corpus, not this one. */
static void mark_stale(cJSON *doc)
{
    const char *dir = cli_default_corpus();
    pc_corpus c;
    if (!dir || pc_corpus_load(dir, &c, stderr)) { if (dir) pc_corpus_free(&c); return; }
    cJSON_AddStringToObject(doc, "current_manifest_sha256", c.manifest_sha256);
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "readers"))
        cJSON_AddBoolToObject(r, "stale", strcmp(pc_json_str(r, "manifest_sha256"), c.manifest_sha256) != 0);
    pc_corpus_free(&c);
}

static int combine(int argc, char **argv, int i, bool render, cli_reports *given)
{
    const char **paths = calloc((size_t)argc, sizeof *paths);
    cli_reports reps = *given; /* --report options seen before --combine / --render */
    memset(given, 0, sizeof *given);
    int n = 0, rc = PC_EXIT_ERROR;
    const char *v, *meta = NULL, *xf = NULL;
    if (!paths) return rc;
    for (; i < argc; i++) {
        if (!render && (v = cli_value(argc, argv, &i, "--readers"))) meta = v;
        else if (render && (v = cli_value(argc, argv, &i, "--expect-fail"))) xf = v;
        else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&reps, v)) { rc = cli_usage(USAGE, "bad --report"); goto out; }
        } else if (argv[i][0] == '-') {
            rc = cli_usage(USAGE, "unknown option \"%s\" with --combine", argv[i]);
            goto out;
        } else {
            paths[n++] = argv[i];
        }
    }
    if (!n || (render && n != 1)) { rc = cli_usage(USAGE, render ? "--render takes one certify JSON report" : "--combine needs at least one certify JSON report"); goto out; }
    cJSON *doc = NULL;
    if (render) {
        size_t len;
        char *t = pc_slurp(paths[0], 256u << 20, &len);
        doc = t ? cJSON_ParseWithLength(t, len) : NULL;
        free(t);
        if (!doc || strncmp(pc_json_str(doc, "kind"), "certify", 7)) { fprintf(stderr, "packcheck: %s is not a certify JSON report\n", paths[0]); cJSON_Delete(doc); goto out; }
        if (xf && (strcmp(pc_json_str(doc, "kind"), "certify") || pc_certify_rejudge(doc, xf, stderr))) { cJSON_Delete(doc); goto out; }
    } else {
        doc = pc_certify_combine(paths, n, stderr);
        if (doc && meta && pc_certify_readers_annotate(doc, meta, stderr)) { cJSON_Delete(doc); doc = NULL; }
        if (doc && meta) mark_stale(doc);
    }
    if (!doc) goto out;
    rc = cli_reports_write(&reps, doc) ? PC_EXIT_ERROR : PC_EXIT_OK;
    if (!reps.n) { char *t = pc_report_markdown(doc); if (t) { puts(t); free(t); } }
    cJSON_Delete(doc);
out:
    free(paths);
    cli_reports_free(&reps);
    return rc;
}

/* Reports are found writable before the readers run, not after. */
static int reports_writable(const cli_reports *r)
{
    for (int i = 0; i < r->n; i++) {
        if (!strcmp(r->path[i], "-")) continue; /* stdout */
        char *dir = pc_dirname(r->path[i]);
        bool ok = dir && access(dir, W_OK | X_OK) == 0;
        free(dir);
        if (!ok) { fprintf(stderr, "packcheck: cannot write the %s report %s: its folder is not writable\n", r->fmt[i], r->path[i]); return -1; }
    }
    return 0;
}

static int parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double d = strtod(s, &end);
    if (end == s || *end || !(d >= lo && d <= hi)) return -1;
    *out = d;
    return 0;
}

static int certify_main(int argc, char **argv);

int cmd_certify(int argc, char **argv)
{
    char **args = hide_arguments(argc, argv);
    if (!args) return PC_EXIT_ERROR;
    int rc = certify_main(argc, args);
    for (int i = 0; i < argc; i++) free(args[i]);
    free(args);
    return rc;
}

static int certify_main(int argc, char **argv)
{
    pc_certify_opts o = {.corpus = NULL, .timeout_s = 10, .jobs = 2, .log = stdout, .progress = stderr, .eval_timeout_s = 60,
                         .mem_limit_mb = default_mem_mb(), .fsize_limit_mb = PC_CERTIFY_FSIZE_LIMIT_MB};
    cli_reports reps = {0};
    int rc = PC_EXIT_ERROR;
    const char *v;
    double d;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { help(); rc = PC_EXIT_OK; goto out; }
        if ((v = cli_value(argc, argv, &i, "--check-matrix"))) {
            int c = pc_certify_matrix_check(v, stderr);
            rc = c == 0 ? PC_EXIT_OK : c > 0 ? PC_EXIT_REJECT : PC_EXIT_ERROR;
            goto out;
        }
        if (!strcmp(argv[i], "--combine") || !strcmp(argv[i], "--render")) { rc = combine(argc, argv, i + 1, argv[i][2] == 'r', &reps); goto out; }
        if ((v = cli_value(argc, argv, &i, "--reader"))) o.reader = v;
        else if ((v = cli_value(argc, argv, &i, "--corpus"))) o.corpus = v;
        else if ((v = cli_value(argc, argv, &i, "--expect-fail"))) o.expect_fail = v;
        else if ((v = cli_value(argc, argv, &i, "--name"))) o.name = v;
        else if ((v = cli_value(argc, argv, &i, "--profile"))) {
            if (strcmp(v, "strict") && strcmp(v, "compat")) { rc = cli_usage(USAGE, "--profile wants strict or compat"); goto out; }
            o.profile = v;
        }
        else if ((v = cli_value(argc, argv, &i, "--workdir"))) o.workdir = v;
        else if ((v = cli_value(argc, argv, &i, "--corpus-digest"))) {
            if (strlen(v) != 64 || strspn(v, "0123456789abcdefABCDEF") != 64) { rc = cli_usage(USAGE, "--corpus-digest wants 64 hex digits (sha256 of MANIFEST.sha256)"); goto out; }
            o.corpus_digest = v;
        } else if ((v = cli_value(argc, argv, &i, "--reader-user"))) o.reader_user = v;
        else if ((v = cli_value(argc, argv, &i, "--eval-timeout"))) {
            if (parse_number(v, 0.1, 86400, &d)) { rc = cli_usage(USAGE, "--eval-timeout wants seconds (0.1..86400)"); goto out; }
            o.eval_timeout_s = d;
        }
        else if (!strcmp(argv[i], "--update-expect")) o.update_expect = true;
        else if (!strcmp(argv[i], "--container-only")) o.container_only = true;
        else if ((v = cli_value(argc, argv, &i, "--timeout"))) {
            if (parse_number(v, 0.001, 86400, &d)) { rc = cli_usage(USAGE, "--timeout wants seconds (0.001..86400)"); goto out; }
            o.timeout_s = d;
        } else if ((v = cli_value(argc, argv, &i, "--ulp"))) {
            if (parse_number(v, 0, 1 << 24, &d) || d != (unsigned)d) { rc = cli_usage(USAGE, "--ulp wants a whole number"); goto out; }
            o.tolerance = (pc_tolerance){PC_TOL_ULP, d, true};
        } else if ((v = cli_value(argc, argv, &i, "--tolerance"))) {
            if (pc_tolerance_parse(v, &o.tolerance)) { rc = cli_usage(USAGE, "--tolerance wants exact, ulp:N, abs:X or rel:X"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--depth"))) {
            if (pc_depth_parse(v, &o.depth)) { rc = cli_usage(USAGE, "--depth wants helper, loader or compute"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--jobs"))) {
            if (parse_number(v, 1, 64, &d) || d != (int)d) { rc = cli_usage(USAGE, "--jobs wants 1..64"); goto out; }
            o.jobs = (int)d;
        } else if ((v = cli_value(argc, argv, &i, "--mem-limit"))) {
            if (parse_number(v, 0, 1 << 22, &d) || (d && d < 16)) { rc = cli_usage(USAGE, "--mem-limit wants MiB (0 or 16..4194304)"); goto out; }
            o.mem_limit_mb = (unsigned long)d;
        } else if ((v = cli_value(argc, argv, &i, "--fsize-limit"))) {
            if (parse_number(v, 0, 1 << 30, &d)) { rc = cli_usage(USAGE, "--fsize-limit wants MiB (0..1073741824)"); goto out; }
            o.fsize_limit_mb = (unsigned long)d;
        } else if ((v = cli_value(argc, argv, &i, "--isolation"))) {
            if (pc_isolation_parse(v, &o.isolation)) { rc = cli_usage(USAGE, "--isolation wants auto, landlock, namespace or none"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--reader-path"))) {
            if (o.nreader_paths == PC_CERTIFY_MAX_LIST) { rc = cli_usage(USAGE, "at most %d --reader-path", PC_CERTIFY_MAX_LIST); goto out; }
            o.reader_paths[o.nreader_paths++] = v;
        } else if ((v = cli_value(argc, argv, &i, "--reader-env"))) {
            if (o.nreader_env == PC_CERTIFY_MAX_LIST || !*v || *v == '=') { rc = cli_usage(USAGE, "--reader-env wants NAME or NAME=VALUE (at most %d)", PC_CERTIFY_MAX_LIST); goto out; }
            o.reader_env[o.nreader_env++] = v;
        } else if ((v = cli_value(argc, argv, &i, "--only"))) {
            if (o.nonly == PC_CERTIFY_MAX_ONLY) { rc = cli_usage(USAGE, "at most %d --only", PC_CERTIFY_MAX_ONLY); goto out; }
            o.only[o.nonly++] = v;
        } else if ((v = cli_value(argc, argv, &i, "--case"))) {
            if (o.nonly == PC_CERTIFY_MAX_ONLY) { rc = cli_usage(USAGE, "at most %d --only/--case", PC_CERTIFY_MAX_ONLY); goto out; }
            o.only_exact[o.nonly] = true;
            o.only[o.nonly++] = v;
        } else if ((v = cli_value(argc, argv, &i, "--layout"))) {
            if (pc_scope_add(o.scope.layouts, &o.scope.nlayouts, (char *)v)) { rc = cli_usage(USAGE, "at most %d layouts", PC_SCOPE_MAX); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--format"))) {
            if (pc_scope_add(o.scope.formats, &o.scope.nformats, (char *)v)) { rc = cli_usage(USAGE, "at most %d formats", PC_SCOPE_MAX); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&reps, v)) { rc = cli_usage(USAGE, "bad --report"); goto out; }
        } else {
            rc = cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
            goto out;
        }
    }
    if (!o.reader) { rc = cli_usage(USAGE, "--reader is required"); goto out; }
    if (!strstr(o.reader, "{input}") || !strstr(o.reader, "{output}")) { rc = cli_usage(USAGE, "the reader template needs both {input} and {output}"); goto out; }
    if (o.update_expect && !o.expect_fail) { rc = cli_usage(USAGE, "--update-expect needs --expect-fail FILE"); goto out; }
    if (o.update_expect && o.nonly) { rc = cli_usage(USAGE, "--update-expect refuses a partial run (--only): the list is rewritten from every case"); goto out; }
    if (!(o.corpus = cli_corpus_or_complain(o.corpus))) goto out;
    if (reports_writable(&reps)) { rc = PC_EXIT_ERROR; goto out; }
    const char *cert_inputs[2] = {o.corpus, o.expect_fail}; /* no report over or inside them (issue 30) */
    if (cli_reports_check_inputs(&reps, cert_inputs, 2)) { rc = PC_EXIT_ERROR; goto out; }
    if (cli_reports_use_stdout(&reps)) o.log = stderr; /* stdout carries the report */
    int code;
    pc_certify_line_colour(cli_colour(o.log));
    cJSON *doc = pc_certify_run(&o, &code);
    if (!doc) { rc = PC_EXIT_ERROR; goto out; }
    /* Every reader and everything it started is dead by now (harness/reaper.h). */
    rc = cli_reports_write(&reps, doc) ? PC_EXIT_ERROR : code; /* core/atomic_file.c: whole or not at all */
    cJSON_Delete(doc);
out:
    cli_reports_free(&reps);
    return rc;
}
