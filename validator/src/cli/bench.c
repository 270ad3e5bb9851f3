/* packcheck bench [--json] [--samples N] [--sample-ms MS] [--size BYTES] [--only NAME] */
#include "cli.h"

#include "../harness/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE = "packcheck bench [--json] [--samples N] [--sample-ms MS] [--size BYTES] [--only NAME] [--warmup-ms MS] [--bursts K]";

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    pc_bench_opts o;
    pc_bench_defaults(&o);
    bool json = false;
    const char *v;
    double x;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\n"
                   "Time every optimised unpacker against its reference oracle and against memcpy of the same\n"
                   "output bytes, alternated in one run after a warm-up; print medians and same-run ratios.\n"
                   "Each fast kernel is checked against the oracle first (exit 1 if one differs).\n"
                   "  --json          one JSON object: machine, build, kernels[] {name, fast_gbps, ref_gbps,\n"
                   "                  memcpy_gbps, fast_vs_memcpy, fast_vs_ref, ...; where the format declares a\n"
                   "                  physical bound: bound_gbps, bound_vs_memcpy, fast_vs_bound}, sha256 {gbps, ...}\n"
                   "  --samples N     alternated samples per contender (default 41)\n"
                   "  --sample-ms MS  length of one sample (default 10)\n"
                   "  --bursts K      a sample is the fastest of K bursts of MS/K each (default 8)\n"
                   "  --size BYTES    output bytes per call (default 131072: L2-resident)\n"
                   "  --only NAME     entries whose name contains NAME (e.g. ct-dense, sha256)\n"
                   "  --warmup-ms MS  spin before timing so the clock ramps up (default 500)\n"
                   "Figures are for people to read: nothing asserts a time.\n", USAGE);
            return PC_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if ((v = cli_value(argc, argv, &i, "--samples"))) {
            if (parse_num(v, 1, 1001, &x)) return cli_usage(USAGE, "--samples wants 1..1001");
            o.samples = (int)x;
        } else if ((v = cli_value(argc, argv, &i, "--sample-ms"))) {
            if (parse_num(v, 0.01, 60000, &x)) return cli_usage(USAGE, "--sample-ms wants a positive number");
            o.sample_sec = x / 1000;
        } else if ((v = cli_value(argc, argv, &i, "--bursts"))) {
            if (parse_num(v, 1, 1000, &x)) return cli_usage(USAGE, "--bursts wants 1..1000");
            o.bursts = (int)x;
        } else if ((v = cli_value(argc, argv, &i, "--size"))) {
            if (parse_num(v, 64, 1 << 30, &x)) return cli_usage(USAGE, "--size wants 64..1073741824 bytes");
            o.out_bytes = (size_t)x;
        } else if ((v = cli_value(argc, argv, &i, "--warmup-ms"))) {
            if (parse_num(v, 0, 60000, &x)) return cli_usage(USAGE, "--warmup-ms wants 0..60000");
            o.warmup_sec = x / 1000;
        } else if ((v = cli_value(argc, argv, &i, "--only"))) {
            o.only = v;
        } else {
            return cli_usage(USAGE, "unknown option \"%s\"", argv[i]);
        }
    }
    o.progress = json ? NULL : stdout;
    int mismatch = 0;
    cJSON *doc = pc_bench_run(&o, &mismatch);
    if (!doc) { fprintf(stderr, "packcheck: out of memory\n"); return PC_EXIT_ERROR; }
    if (json) {
        char *s = cJSON_Print(doc);
        if (!s) { cJSON_Delete(doc); fprintf(stderr, "packcheck: out of memory\n"); return PC_EXIT_ERROR; }
        puts(s);
        free(s);
    } else {
        cJSON *b = cJSON_GetObjectItem(doc, "build");
        printf("kernels: %s; %s\n", cJSON_GetObjectItem(b, "kernels")->valuestring, cJSON_GetObjectItem(b, "compiler")->valuestring);
    }
    cJSON_Delete(doc);
    if (mismatch) fprintf(stderr, "packcheck: %d fast kernel(s) differ from the oracle\n", mismatch);
    return mismatch ? PC_EXIT_REJECT : PC_EXIT_OK;
}
