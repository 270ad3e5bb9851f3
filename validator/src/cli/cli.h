#ifndef PC_CLI_H
#define PC_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "packcheck_internal.h"

int cmd_validate(int argc, char **argv);
int cmd_unpack(int argc, char **argv);
int cmd_read(int argc, char **argv);   /* unpack under certify's reader protocol (read.c) */
int cmd_rules(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_equiv(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_formats(int argc, char **argv);

/* --report FMT:PATH, repeatable. */
#define CLI_MAX_REPORTS 16
typedef struct cli_reports { char *fmt[CLI_MAX_REPORTS], *path[CLI_MAX_REPORTS]; int n; } cli_reports;
int cli_report_add(cli_reports *r, const char *spec);      /* -1: usage error, printed */
int cli_reports_write(const cli_reports *r, const cJSON *doc); /* -1: a report could not be written */
void cli_reports_free(cli_reports *r);
bool cli_reports_use_stdout(const cli_reports *r);           /* a --report FMT:- is given */
/* An output path that is an input, a file an input reads, or inside an input folder (core/out_path.h):
 * -1 after saying so on stderr (the caller exits 2 before any work), else 0. */
int cli_out_check(const char *opt, const char *out, const char *const *inputs, size_t n);
int cli_reports_check_inputs(const cli_reports *r, const char *const *inputs, size_t n);
/* The exit code of a validated input's verdict ("pass", "unchecked", "reject", "error"). */
int cli_verdict_exit(const char *verdict, bool allow_unchecked);

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

/* Shared checking options (conventions.c): --select/--ignore RULE|FAMILY[,...], --warnings-as-errors,
 * --color WHEN, --progress/--no-progress. */
typedef struct cli_conv {
    char **select, **ignore;
    size_t nselect, nignore;
    bool warnings_as_errors;
    int progress;            /* 0 auto (stderr a terminal), 1 on, -1 off */
} cli_conv;
/* 1: argv[*i] was one of these options (consumed), 0: not one, -1: usage error (printed). */
int cli_conv_option(int argc, char **argv, int *i, cli_conv *c);
bool cli_conv_keeps(const cli_conv *c, const pc_rule *r);
/* Drop findings of rules left out (they become skip), promote warnings with --warnings-as-errors. */
void cli_conv_apply(const cli_conv *c, pc_ctx *cx);
void cli_conv_free(cli_conv *c);
#define CLI_CONV_USAGE "[--select RULE,...] [--ignore RULE,...] [--warnings-as-errors] [--color auto|always|never] [--[no-]progress]"
#define CLI_CONV_HELP                                                                                      \
    "--select RULE,...    only these rules (IDs such as ST-009, or families such as GGUF); repeatable\n"   \
    "--ignore RULE,...    leave these rules out (they report skip); repeatable\n"                           \
    "--warnings-as-errors a SHOULD rule that fails rejects the input (exit 1)\n"                          \
    "--color WHEN         auto (default: a terminal, and NO_COLOR unset), always, never\n"                \
    "--progress           bytes read and rate on stderr every few seconds (default: on a terminal, after 2 s)\n" \
    "With GITHUB_ACTIONS=true every failed or warned rule is also printed as a workflow annotation.\n"

/* `packcheck rules ID...` (rules_one.c). */
int cli_rules_show(char *const *ids, int n, const char *corpus);

/* Colour (colour.c): on a terminal only, never with NO_COLOR set or TERM=dumb, unless --color says. */
int cli_colour_set(const char *when);       /* "auto", "always", "never"; -1 otherwise */
bool cli_colour(FILE *f);
const char *cli_sgr(FILE *f, const char *what); /* "error", "warn", "ok", "bold", "reset": an SGR sequence or "" */

/* GitHub Actions workflow annotations (annotate.c). */
bool cli_github_actions(void);              /* GITHUB_ACTIONS=true */
void cli_github_annotations(FILE *out, const cJSON *doc);

/* Progress on stderr (progress.c): mode 0 auto, 1 on, -1 off; total_bytes 0 when unknown. */
void cli_progress_start(int mode, const char *what, uint64_t total_bytes);
void cli_progress_stop(void);
/* Bytes of the files the inputs name (a folder: the files directly in it), for a percentage. */
uint64_t cli_paths_bytes(char *const *paths, int n);
#endif
