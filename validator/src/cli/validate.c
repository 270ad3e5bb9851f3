/* packcheck validate INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... */
#include "cli.h"

#include "../core/file.h"
#include "../core/remote.h"
#include "../report/report.h"
#include "../validate/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *USAGE = "packcheck validate [OPTIONS] [--] INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... "
                           "[--hash] [--allow-unchecked] [-v | --quiet] [--jsonl]\n"
                           "                          [--tier header|sample|full] [--sample-blocks N] [--seed S] [--cache FILE]\n"
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
    "stderr): the unit packcheck.scale.validate_many merges.\n"
    "INPUT may be a URL: https://HOST/PATH/model.safetensors (or .gguf), a folder as a base URL\n"
    "ending in '/' (its model.safetensors.index.json, else model.safetensors, and its configs), or\n"
    "hf://ORG/REPO[@REVISION][/FILE] (the Hub's resolve URLs; HF_ENDPOINT overrides the endpoint).\n"
    "Remote files are read with HTTP range requests: only the bytes the rules need.\n"
    "--tier header reads container headers and configs only (no tensor data: the format and data\n"
    "rules are not evaluated, and the verdict is at best `unchecked`); --tier sample adds, per data\n"
    "scan, its first and last block and --sample-blocks N (default 4) more drawn with --seed S\n"
    "(default 0); --tier full (the default) reads everything the rules need. The JSON report states\n"
    "per input `tier`, `bytes_fetched` and `requests`.\n"
    "--cache FILE keeps verdicts in an SQLite file (created when absent), keyed by each file's ETag\n"
    "(remote) or identity (local), size, the configs and index, packcheck version, rule catalogue,\n"
    "tier and options: an unchanged input is answered from it without reading tensor data (its\n"
    "report entry says \"cached\": true). A run that failed to read is never stored.\n"

    "--   ends the options: every later argument is an INPUT, even one that starts with '-'.\n\n" CLI_CONV_HELP;

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
    int tier;
    unsigned sample_blocks;
    uint64_t seed;
    const char *cache;
    pc_summary_level level;
    char **inputs;
    int ninputs;
    cli_conv conv;               /* --select/--ignore/--warnings-as-errors/--color/--progress (conventions.c) */
} opts;

/* 0: parsed; PC_EXIT_OK after --help; PC_EXIT_ERROR (printed) on a usage error. */
static int parse(int argc, char **argv, opts *o)
{
    const char *v;
    bool paths_only = false; /* after "--": every argument is an INPUT, even one starting with '-' */
    for (int i = 1; i < argc; i++) {
        if (paths_only) { o->inputs[o->ninputs++] = argv[i]; continue; }
        if (!strcmp(argv[i], "--")) { paths_only = true; continue; }
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
        } else if ((v = cli_value(argc, argv, &i, "--tier"))) {
            if (!strcmp(v, "full")) o->tier = PC_TIER_FULL;
            else if (!strcmp(v, "header")) o->tier = PC_TIER_HEADER;
            else if (!strcmp(v, "sample")) o->tier = PC_TIER_SAMPLE;
            else return cli_usage(USAGE, "--tier wants header, sample or full, got \"%s\"", v);
        } else if ((v = cli_value(argc, argv, &i, "--sample-blocks"))) {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*end || !*v || n > 254) return cli_usage(USAGE, "--sample-blocks wants 0..254, got \"%s\"", v);
            o->sample_blocks = (unsigned)n;
        } else if ((v = cli_value(argc, argv, &i, "--seed"))) {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            if (*end || !*v || *v == '-') return cli_usage(USAGE, "--seed wants a non-negative integer, got \"%s\"", v);
            o->seed = n;
        } else if ((v = cli_value(argc, argv, &i, "--cache"))) o->cache = v;
        else if (!strcmp(argv[i], "--hash")) o->hash = true;
        else if (!strcmp(argv[i], "--allow-unchecked")) o->allow_unchecked = true;
        else if (!strcmp(argv[i], "--jsonl")) { if (cli_report_add(&o->reps, "jsonl:-")) return cli_usage(USAGE, "bad --jsonl"); }
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) o->level = PC_SUMMARY_QUIET;
        else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) o->level = PC_SUMMARY_VERBOSE;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
        else o->inputs[o->ninputs++] = argv[i];
    }
    if (!o->ninputs) return cli_usage(USAGE, "no INPUT given");
    if (o->hash && o->tier != PC_TIER_FULL) return cli_usage(USAGE, "--hash reads every byte: it needs --tier full");
    /* No report over an input or into a checkpoint folder (the inputs plus --config). */
    o->inputs[o->ninputs] = (char *)o->config;
    if (cli_reports_check_inputs(&o->reps, (const char *const *)o->inputs, (size_t)o->ninputs + 1)) return PC_EXIT_ERROR;
    return 0;
}

/* What besides the files decides a cached verdict: the profile and the rule selection. */
static char *cache_options(const opts *o)
{
    size_t cap = 64;
    for (size_t i = 0; i < o->conv.nselect; i++) cap += strlen(o->conv.select[i]) + 1;
    for (size_t i = 0; i < o->conv.nignore; i++) cap += strlen(o->conv.ignore[i]) + 1;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t n = (size_t)snprintf(s, cap, "profile=%d;werror=%d;select=", (int)o->profile, o->conv.warnings_as_errors);
    for (size_t i = 0; i < o->conv.nselect; i++) n += (size_t)snprintf(s + n, cap - n, "%s,", o->conv.select[i]);
    n += (size_t)snprintf(s + n, cap - n, ";ignore=");
    for (size_t i = 0; i < o->conv.nignore; i++) n += (size_t)snprintf(s + n, cap - n, "%s,", o->conv.ignore[i]);
    return s;
}

static int run(opts *o)
{
    int n = o->ninputs, rc = PC_EXIT_ERROR;
    pc_result *res = calloc((size_t)n, sizeof *res);
    pc_ctx *cxs = calloc((size_t)n, sizeof *cxs);
    pc_input **ins = calloc((size_t)n, sizeof *ins);
    char **keys = calloc((size_t)n, sizeof *keys);
    char *copts = o->cache ? cache_options(o) : NULL;
    pc_cache *cache = NULL;
    if (!res || !cxs || !ins || !keys || (o->cache && !copts)) goto out;
    if (o->cache) {
        const char *why;
        if (!(cache = pc_cache_open(o->cache, &why))) { fprintf(stderr, "packcheck: --cache %s: %s\n", o->cache, why); goto out; }
    }
    cli_progress_start(o->conv.progress, "validate", o->hash ? cli_paths_bytes(o->inputs, n) : 0);
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        uint64_t b0, r0, b1, r1, l0 = pc_file_local_bytes();
        pc_remote_stats(&b0, &r0);
        pc_remote_failure_reset();
        if (pc_ctx_init(&cxs[i], o->profile)) cxs[i].oom = true;
        else if ((ins[i] = pc_input_open(o->inputs[i], o->config, &cxs[i]))) {
            ins[i]->hash_files = o->hash;
            ins[i]->tier = o->tier;
            ins[i]->sample_blocks = o->sample_blocks;
            ins[i]->sample_seed = o->seed;
            if (cache && (keys[i] = pc_cache_key(ins[i], &cxs[i], copts))) ins[i]->cached = pc_cache_get(cache, keys[i]);
            if (!ins[i]->cached) {
                pc_validate(ins[i], &cxs[i]);
                cli_conv_apply(&o->conv, &cxs[i]);
            }
        } else cxs[i].oom = true;
        pc_remote_stats(&b1, &r1);
        if (ins[i]) {
            ins[i]->bytes_fetched = (b1 - b0) + (pc_file_local_bytes() - l0);
            ins[i]->requests = r1 - r0;
        }
        res[i] = (pc_result){o->inputs[i], ins[i], &cxs[i], now_s() - t0};
        /* Only a run that read everything it asked for is stored: never a failed read's verdict. */
        if (cache && keys[i] && ins[i] && !ins[i]->cached && !cxs[i].io_error && !cxs[i].oom) {
            cJSON *entry = pc_report_input_json(&res[i]);
            if (!entry || pc_cache_put(cache, keys[i], ins[i], entry)) fprintf(stderr, "packcheck: --cache %s: could not store %s\n", o->cache, o->inputs[i]);
            cJSON_Delete(entry);
        }
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
    for (int i = 0; keys && i < n; i++) free(keys[i]);
    pc_cache_close(cache);
    free(copts); free(keys);
    free(res); free(cxs); free(ins);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    opts o = {.profile = PC_PROFILE_STRICT, .sample_blocks = 4, .level = PC_SUMMARY_DEFAULT, .inputs = calloc((size_t)argc, sizeof(char *))};
    if (!o.inputs) return PC_EXIT_ERROR;
    int rc = parse(argc, argv, &o);
    if (rc == -1) rc = PC_EXIT_OK;
    else if (rc == 0) rc = run(&o);
    cli_reports_free(&o.reps);
    cli_conv_free(&o.conv);
    free(o.inputs);
    return rc;
}
