/* packcheck corpus [DIR] [--report FMT:PATH]... */
#include "cli.h"

#include "../harness/corpus.h"
#include "../report/report.h"

#include <stdio.h>
#include <stdlib.h>

static const char *USAGE = "packcheck corpus [DIR] [--report FMT:PATH]...";

#ifndef PC_DEFAULT_CORPUS
#define PC_DEFAULT_CORPUS "fixtures"
#endif

int cmd_corpus(int argc, char **argv)
{
    const char *dir = NULL, *v;
    cli_reports reps = {0};
    int rc = PC_EXIT_ERROR;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\nRun a corpus (DIR/<family>/<case>/expect.json + DIR/MANIFEST.sha256; default: the bundled\n"
                   "fixtures/): verify every pin, every case's verdict, rule and logical-view hashes, and the fast\n"
                   "unpackers against the oracle. Exit 0 only if all hold.\n", USAGE);
            rc = PC_EXIT_OK;
            goto out;
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
    cJSON *doc = pc_corpus_run(dir ? dir : PC_DEFAULT_CORPUS, stdout, &failed);
    if (!doc) { fprintf(stderr, "packcheck: %s is not a corpus\n", dir ? dir : PC_DEFAULT_CORPUS); goto out; }
    int passed = (int)cJSON_GetObjectItem(doc, "cases_passed")->valuedouble;
    pc_corpus_print_rollup(doc, stdout);
    printf("corpus: %d passed, %d failed\n", passed, failed);
    rc = cli_reports_write(&reps, doc) ? PC_EXIT_ERROR : failed ? PC_EXIT_REJECT : PC_EXIT_OK;
    cJSON_Delete(doc);
out:
    cli_reports_free(&reps);
    return rc;
}
