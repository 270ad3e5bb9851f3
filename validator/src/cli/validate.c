/* packcheck validate INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... */
#include "cli.h"

#include "../report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *USAGE = "packcheck validate INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... "
                           "[--hash] [--allow-unchecked] [-v | --quiet] [--jsonl]\n"
                           "                          " CLI_CONV_USAGE;

static const char *HELP =
    "Validate checkpoints (a .safetensors file, a .gguf file, or a checkpoint folder).\n"
    "Every tensor is accounted for: checked (decoded and checked by a format module), plain (an\n"
    "unquantized tensor no scheme claims) or unchecked (quantized, not decoded by this version).\n"
    "Exit 0 when every MUST rule holds and every quantized tensor was checked (warnings allowed),\n"
    "1 when a MUST rule fails, 2 when an input could not be read, 3 when nothing failed but a\n"
    "quantized tensor was not checked (--allow-unchecked makes that 0). --profile compat relaxes\n"
    "the rules where the official readers accept more than the spec text (see `packcheck rules`).\n"
    "Output: one line per input (verdict, format, tensor counts, time), then each failing and\n"
    "warning rule and each unchecked tensor; -v prints every evaluated rule, --quiet only the\n"
    "verdict lines and failures. --report FMT:- writes that report to stdout (the summary then\n"
    "goes to stderr).\n"
    "Data is read in bounded windows, one pass per file, shards in parallel (one thread per\n"
    "core; PACKCHECK_THREADS=N overrides). --hash adds each file's SHA-256 (OpenSSL EVP) to the\n"
    "reports, computed in the same pass.\n"
    "--jsonl writes one JSON record per input to stdout (= --report jsonl:-; the summary goes to\n"
    "stderr): the unit packcheck.scale.validate_many merges.\n\n" CLI_CONV_HELP;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct opts {
    const char *config;
    pc_profile profile;
    cli_reports reps;
    bool hash, allow_unchecked;
    pc_summary_level level;
    char **inputs;
    int ninputs;
    cli_conv conv;               /* --select/--ignore/--warnings-as-errors/--color/--progress (conventions.c) */
} opts;

/* 0: parsed; PC_EXIT_OK after --help; PC_EXIT_ERROR (printed) on a usage error. */
static int parse(int argc, char **argv, opts *o)
{
    const char *v;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) { printf("usage: %s\n\n%s", USAGE, HELP); return -1; }
        int cv = cli_conv_option(argc, argv, &i, &o->conv);
        if (cv < 0) return cli_usage(USAGE, "bad %s", argv[i]);
        if (cv) continue;
        else if ((v = cli_value(argc, argv, &i, "--config"))) o->config = v;
        else if ((v = cli_value(argc, argv, &i, "--profile"))) {
            if (!strcmp(v, "strict")) o->profile = PC_PROFILE_STRICT;
            else if (!strcmp(v, "compat")) o->profile = PC_PROFILE_COMPAT;
            else return cli_usage(USAGE, "--profile wants strict or compat, got \"%s\"", v);
        } else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&o->reps, v)) return cli_usage(USAGE, "bad --report");
        } else if (!strcmp(argv[i], "--hash")) o->hash = true;
        else if (!strcmp(argv[i], "--allow-unchecked")) o->allow_unchecked = true;
        else if (!strcmp(argv[i], "--jsonl")) { if (cli_report_add(&o->reps, "jsonl:-")) return cli_usage(USAGE, "bad --jsonl"); }
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) o->level = PC_SUMMARY_QUIET;
        else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) o->level = PC_SUMMARY_VERBOSE;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
        else o->inputs[o->ninputs++] = argv[i];
    }
    if (!o->ninputs) return cli_usage(USAGE, "no INPUT given");
    return 0;
}

static int run(opts *o)
{
    int n = o->ninputs, rc = PC_EXIT_ERROR;
    pc_result *res = calloc((size_t)n, sizeof *res);
    pc_ctx *cxs = calloc((size_t)n, sizeof *cxs);
    pc_input **ins = calloc((size_t)n, sizeof *ins);
    if (!res || !cxs || !ins) goto out;
    cli_progress_start(o->conv.progress, "validate", o->hash ? cli_paths_bytes(o->inputs, n) : 0);
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        if (pc_ctx_init(&cxs[i], o->profile)) cxs[i].oom = true;
        else if ((ins[i] = pc_input_open(o->inputs[i], o->config, &cxs[i]))) {
            ins[i]->hash_files = o->hash;
            pc_validate(ins[i], &cxs[i]);
            cli_conv_apply(&o->conv, &cxs[i]);
        } else cxs[i].oom = true;
        res[i] = (pc_result){o->inputs[i], ins[i], &cxs[i], now_s() - t0};
    }
    cli_progress_stop();
    cJSON *doc = pc_report_json(res, (size_t)n, o->profile);
    if (!doc) goto out;
    FILE *sum = cli_reports_use_stdout(&o->reps) ? stderr : stdout;
    pc_report_summary_colour(sum, doc, o->level, cli_colour(sum));
    if (cli_github_actions()) cli_github_annotations(cli_reports_use_stdout(&o->reps) ? stderr : stdout, doc);
    int wrote = cli_reports_write(&o->reps, doc);
    rc = PC_EXIT_OK;
    for (int i = 0; i < n; i++) {
        const char *verdict = pc_result_verdict(&res[i]);
        int e = cli_verdict_exit(verdict, o->allow_unchecked);
        /* the summary already says why (its "error:" line); only what it cannot say goes to stderr */
        if (e == PC_EXIT_ERROR && !cxs[i].io_error) fprintf(stderr, "packcheck: %s: out of memory\n", o->inputs[i]);
        /* the worst input decides: error > reject > unchecked > pass */
        if (e == PC_EXIT_ERROR || (e == PC_EXIT_REJECT && rc != PC_EXIT_ERROR) || (e == PC_EXIT_UNCHECKED && rc == PC_EXIT_OK)) rc = e;
    }
    if (wrote) rc = PC_EXIT_ERROR;
    cJSON_Delete(doc);
out:
    for (int i = 0; ins && cxs && i < n; i++) { pc_input_free(ins[i]); pc_ctx_free(&cxs[i]); }
    free(res); free(cxs); free(ins);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    opts o = {.profile = PC_PROFILE_STRICT, .level = PC_SUMMARY_DEFAULT, .inputs = calloc((size_t)argc, sizeof(char *))};
    if (!o.inputs) return PC_EXIT_ERROR;
    int rc = parse(argc, argv, &o);
    if (rc == -1) rc = PC_EXIT_OK;
    else if (rc == 0) rc = run(&o);
    cli_reports_free(&o.reps);
    cli_conv_free(&o.conv);
    free(o.inputs);
    return rc;
}
