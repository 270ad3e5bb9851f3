#ifndef PC_CLI_H
#define PC_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "packcheck.h"

int cmd_validate(int argc, char **argv);
int cmd_unpack(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_equiv(int argc, char **argv);

/* --report FMT:PATH, repeatable. */
#define CLI_MAX_REPORTS 16
typedef struct cli_reports { char *fmt[CLI_MAX_REPORTS], *path[CLI_MAX_REPORTS]; int n; } cli_reports;
int cli_report_add(cli_reports *r, const char *spec);      /* -1: usage error, printed */
int cli_reports_write(const cli_reports *r, const cJSON *doc); /* -1: a report could not be written */
void cli_reports_free(cli_reports *r);

/* Usage error: print to stderr with the command's usage line, return PC_EXIT_ERROR. */
int cli_usage(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_is_help(const char *a);
/* Value of an option that takes one: "--opt V" or "--opt=V". Advances *i. NULL when missing. */
const char *cli_value(int argc, char **argv, int *i, const char *opt);

/* The default corpus (corpus_path.c): PACKCHECK_CORPUS, the installed one beside the binary, or
 * (build tree only) the source fixtures/. NULL when none is found. */
const char *cli_default_corpus(void);
/* `given` when not NULL, else the default; NULL (after saying why on stderr) when there is none. */
const char *cli_corpus_or_complain(const char *given);
#endif
