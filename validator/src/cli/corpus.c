/* packcheck corpus [DIR] [--report FMT:PATH]... */
#include "cli.h"

#include "../harness/case_scope.h"
#include "../harness/corpus.h"
#include "../report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE = "packcheck corpus [--report FMT:PATH]... [--] [DIR]\n       packcheck corpus --version [DIR]\n"
                           "       packcheck corpus --list [DIR] [--layout L,...] [--format gguf|safetensors]";

/* --list: one line per case, "id<TAB>verdict<TAB>format<TAB>layouts" (layouts comma-separated: a
 * GGUF case's block types, lower case), restricted to a declared scope as certify's. */
static int print_list(const char *dir, const pc_scope *sc)
{
    pc_corpus c;
    if (pc_corpus_load(dir, &c, stderr)) { pc_corpus_free(&c); fprintf(stderr, "packcheck: %s is not a corpus\n", dir); return PC_EXIT_ERROR; }
    char why[96];
    for (size_t i = 0; i < c.ncases; i++) {
        pc_case_scope cs;
        pc_case_scope_of(&c.cases[i], &cs);
        if (pc_scope_excludes(sc, &cs, why, sizeof why)) continue;
        printf("%s\t%s\t%s\t%s\n", c.cases[i].id, pc_json_str(c.cases[i].expect, "verdict"), cs.format, cs.layouts);
    }
    pc_corpus_free(&c);
    return PC_EXIT_OK;
}

/* --version: which corpus this is, without running it (pins are checked by a run). */
static int print_version(const char *dir)
{
    pc_corpus c;
    if (pc_corpus_load(dir, &c, stderr)) { pc_corpus_free(&c); fprintf(stderr, "packcheck: %s is not a corpus\n", dir); return PC_EXIT_ERROR; }
    printf("corpus-version: %s\nmanifest-sha256: %s\ncases: %zu\npath: %s\n", *c.version ? c.version : "unversioned",
           c.manifest_sha256, c.ncases, dir);
    pc_corpus_free(&c);
    return PC_EXIT_OK;
}

int cmd_corpus(int argc, char **argv)
{
    const char *dir = NULL, *v;
    cli_reports reps = {0};
    int rc = PC_EXIT_ERROR;
    bool version = false, list = false, paths_only = false; /* after "--": DIR, even one starting with '-' */
    pc_scope sc = {0};
    for (int i = 1; i < argc; i++) {
        if (!paths_only && !strcmp(argv[i], "--")) { paths_only = true; continue; }
        if (paths_only) {
            if (dir) { rc = cli_usage(USAGE, "one DIR only"); goto out; }
            dir = argv[i];
            continue;
        }
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\nRun a corpus (DIR/<family>/<case>/expect.json + DIR/MANIFEST.sha256; default: the bundled\n"
                   "fixtures/): verify every pin, every case's verdict, rule and logical-view hashes, and the fast\n"
                   "unpackers against the oracle. Exit 0 only if all hold.\n"
                   "--version prints the corpus version (DIR/VERSION, see fixtures/CHANGELOG.md), the SHA-256 of\n"
                   "its MANIFEST.sha256, the case count and the path. The default corpus is PACKCHECK_CORPUS, else\n"
                   "the one installed beside the binary (../share/packcheck/fixtures).\n"
                   "--list prints each case: id, expected verdict, container format, layouts (a GGUF case's\n"
                   "block types in lower case); --layout/--format keep the cases of a reader's declared scope,\n"
                   "as `packcheck certify --layout/--format` runs them.\n", USAGE);
            rc = PC_EXIT_OK;
            goto out;
        } else if (!strcmp(argv[i], "--version")) {
            version = true;
        } else if (!strcmp(argv[i], "--list")) {
            list = true;
        } else if ((v = cli_value(argc, argv, &i, "--layout"))) {
            if (pc_scope_add(sc.layouts, &sc.nlayouts, (char *)v)) { rc = cli_usage(USAGE, "too many layouts"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--format"))) {
            if (pc_scope_add(sc.formats, &sc.nformats, (char *)v)) { rc = cli_usage(USAGE, "too many formats"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&reps, v)) { rc = cli_usage(USAGE, "bad --report"); goto out; }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage(USAGE, "unknown option \"%s\"", argv[i]);
            goto out;
        } else if (dir) {
            rc = cli_usage(USAGE, "one DIR only");
            goto out;
        } else {
            dir = argv[i];
        }
    }
    int failed = 0;
    if (!(dir = cli_corpus_or_complain(dir))) goto out;
    if (cli_reports_check_inputs(&reps, &dir, 1)) goto out; /* a report inside the corpus changes it */
    if (version) { rc = print_version(dir); goto out; }
    if (list) { rc = print_list(dir, &sc); goto out; }
    cJSON *doc = pc_corpus_run(dir, stdout, &failed);
    if (!doc) { fprintf(stderr, "packcheck: %s is not a corpus\n", dir); goto out; }
    int passed = (int)cJSON_GetObjectItem(doc, "cases_passed")->valuedouble;
    pc_corpus_print_rollup(doc, stdout);
    const char *col = cli_sgr(stdout, failed ? "error" : "ok");
    printf("corpus: %s%d passed, %d failed%s\n", col, passed, failed, *col ? cli_sgr(stdout, "reset") : "");
    rc = cli_reports_write(&reps, doc) ? PC_EXIT_ERROR : failed ? PC_EXIT_REJECT : PC_EXIT_OK;
    cJSON_Delete(doc);
out:
    cli_reports_free(&reps);
    return rc;
}
