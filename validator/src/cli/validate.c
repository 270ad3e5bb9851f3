/* packcheck validate INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... */
#include "cli.h"

#include "../report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE = "packcheck validate INPUT... [--config FILE] [--profile strict|compat] [--report FMT:PATH]... [--hash] [--quiet]\n"
                            "                          " CLI_CONV_USAGE;

int cmd_validate(int argc, char **argv)
{
    const char *config = NULL, *v;
    pc_profile profile = PC_PROFILE_STRICT;
    cli_reports reps = {0};
    cli_conv conv = {0};
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0, rc = PC_EXIT_ERROR;
    bool quiet = false, hash = false;
    if (!inputs) return PC_EXIT_ERROR;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\nValidate checkpoints (a .safetensors file, a .gguf file, or a checkpoint folder).\n"
                   "Exit 0 when every MUST rule holds (warnings allowed), 1 when one fails, 2 when an input\n"
                   "could not be read. --profile compat relaxes the rules where the official readers accept\n"
                   "more than the spec text (see `packcheck rules`).\n"
                   "Data is read in bounded windows, one pass per file, shards in parallel (one thread per\n"
                   "core; PACKCHECK_THREADS=N overrides). --hash adds each file's SHA-256 (OpenSSL EVP) to the\n"
                   "reports, computed in the same pass.\n\n" CLI_CONV_HELP, USAGE);
            rc = PC_EXIT_OK;
            goto out;
        }
        int cv = cli_conv_option(argc, argv, &i, &conv);
        if (cv < 0) { rc = cli_usage(USAGE, "bad %s", argv[i]); goto out; }
        if (cv) {
            continue;
        } else if ((v = cli_value(argc, argv, &i, "--config"))) {
            config = v;
        } else if ((v = cli_value(argc, argv, &i, "--profile"))) {
            if (!strcmp(v, "strict")) profile = PC_PROFILE_STRICT;
            else if (!strcmp(v, "compat")) profile = PC_PROFILE_COMPAT;
            else { rc = cli_usage(USAGE, "--profile wants strict or compat, got \"%s\"", v); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&reps, v)) { rc = cli_usage(USAGE, "bad --report"); goto out; }
        } else if (!strcmp(argv[i], "--hash")) {
            hash = true;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
            goto out;
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (!ninputs) { rc = cli_usage(USAGE, "no INPUT given"); goto out; }

    pc_result *res = calloc((size_t)ninputs, sizeof *res);
    pc_ctx *cxs = calloc((size_t)ninputs, sizeof *cxs);
    pc_input **ins = calloc((size_t)ninputs, sizeof *ins);
    if (!res || !cxs || !ins) { free(res); free(cxs); free(ins); goto out; }
    cli_progress_start(conv.progress, "validate", hash ? cli_paths_bytes(inputs, ninputs) : 0);
    for (int i = 0; i < ninputs; i++) {
        if (pc_ctx_init(&cxs[i], profile)) { cxs[i].oom = true; continue; }
        ins[i] = pc_input_open(inputs[i], config, &cxs[i]);
        if (ins[i]) {
            ins[i]->hash_files = hash;
            pc_validate(ins[i], &cxs[i]);
            cli_conv_apply(&conv, &cxs[i]);
        }
        else cxs[i].oom = true;
        res[i] = (pc_result){inputs[i], ins[i], &cxs[i]};
    }
    cli_progress_stop();
    cJSON *doc = pc_report_json(res, (size_t)ninputs, profile);
    if (!quiet) pc_report_summary(stdout, doc);
    if (cli_github_actions()) cli_github_annotations(stdout, doc);
    int wrote = cli_reports_write(&reps, doc);
    rc = PC_EXIT_OK;
    for (int i = 0; i < ninputs; i++) {
        const char *verdict = pc_result_verdict(&res[i]);
        if (!strcmp(verdict, "error")) {
            fprintf(stderr, "packcheck: %s: %s\n", inputs[i], cxs[i].io_error ? cxs[i].io_message : "out of memory");
            rc = PC_EXIT_ERROR;
        } else if (!strcmp(verdict, "reject") && rc == PC_EXIT_OK) {
            rc = PC_EXIT_REJECT;
        }
    }
    if (wrote) rc = PC_EXIT_ERROR;
    cJSON_Delete(doc);
    for (int i = 0; i < ninputs; i++) { pc_input_free(ins[i]); pc_ctx_free(&cxs[i]); }
    free(res); free(cxs); free(ins);
out:
    cli_reports_free(&reps);
    cli_conv_free(&conv);
    free(inputs);
    return rc;
}
