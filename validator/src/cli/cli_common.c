#include "cli.h"

#include "../core/atomic_file.h"
#include "../core/out_path.h"
#include "../report/report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage(const char *usage, const char *fmt, ...)
{
    va_list ap;
    fputs("packcheck: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n", usage);
    return PC_EXIT_ERROR;
}

bool cli_is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

const char *cli_value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=') return argv[*i] + n + 1;
    if (strcmp(argv[*i], opt)) return NULL;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

int cli_report_add(cli_reports *r, const char *spec)
{
    if (r->n == CLI_MAX_REPORTS) { fprintf(stderr, "packcheck: at most %d --report options\n", CLI_MAX_REPORTS); return -1; }
    if (pc_report_parse_spec(spec, &r->fmt[r->n], &r->path[r->n])) {
        fprintf(stderr, "packcheck: --report wants FMT:PATH with FMT one of json, junit, md, html, sarif, jsonl (validate only); got \"%s\"\n", spec);
        return -1;
    }
    /* Checked now, before the work: a bad path must not be found only after a long run. */
    const char *why;
    if (pc_afile_check(r->path[r->n], &why)) {
        fprintf(stderr, "packcheck: --report %s: %s %s\n", spec, r->path[r->n], why);
        free(r->fmt[r->n]);
        free(r->path[r->n]);
        return -1;
    }
    r->n++;
    return 0;
}

int cli_reports_write(const cli_reports *r, const cJSON *doc)
{
    int rc = 0;
    for (int i = 0; i < r->n; i++) {
        if (pc_report_write(doc, r->fmt[i], r->path[i])) {
            fprintf(stderr, "packcheck: cannot write %s report to %s\n", r->fmt[i], r->path[i]);
            rc = -1;
        }
    }
    return rc;
}

int cli_out_check(const char *opt, const char *out, const char *const *inputs, size_t n)
{
    char why[1024];
    if (!pc_out_path_check(out, inputs, n, why, sizeof why)) return 0;
    fprintf(stderr, "packcheck: %s %s: refusing to write over or inside an input (%s)\n", opt, out, why);
    return -1;
}

int cli_reports_check_inputs(const cli_reports *r, const char *const *inputs, size_t n)
{
    for (int i = 0; i < r->n; i++)
        if (cli_out_check("--report", r->path[i], inputs, n)) return -1;
    return 0;
}

bool cli_reports_use_stdout(const cli_reports *r)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->path[i], "-")) return true;
    return false;
}

int cli_verdict_exit(const char *verdict, bool allow_unchecked)
{
    if (!strcmp(verdict, "error")) return PC_EXIT_ERROR;
    if (!strcmp(verdict, "reject")) return PC_EXIT_REJECT;
    if (!strcmp(verdict, "unchecked")) return allow_unchecked ? PC_EXIT_OK : PC_EXIT_UNCHECKED;
    return PC_EXIT_OK;
}

void cli_reports_free(cli_reports *r)
{
    for (int i = 0; i < r->n; i++) { free(r->fmt[i]); free(r->path[i]); }
    r->n = 0;
}
