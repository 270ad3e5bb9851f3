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
bool cli_reports_use_stdout(const cli_reports *r);           /* a --report FMT:- is given */
/* The exit code of a validated input's verdict ("pass", "unchecked", "reject", "error"). */
int cli_verdict_exit(const char *verdict, bool allow_unchecked);

/* Usage error: print to stderr with the command's usage line, return PC_EXIT_ERROR. */
int cli_usage(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_is_help(const char *a);
/* Value of an option that takes one: "--opt V" or "--opt=V". Advances *i. NULL when missing. */
const char *cli_value(int argc, char **argv, int *i, const char *opt);
#endif
