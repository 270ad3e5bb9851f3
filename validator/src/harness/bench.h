/* packcheck bench (CONTRACT 6): every fast kernel against its oracle and against memcpy of the same
 * output bytes, alternated in one process after a warm-up; medians of per-sample figures and of
 * per-sample ratios (the machine is shared and noisy: only same-run ratios mean anything). */
#ifndef PC_BENCH_H
#define PC_BENCH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct pc_bench_opts {
    int samples;          /* alternated samples per contender (median taken); default 101 */
    double sample_sec;    /* target duration of one sample; default 0.002 s */
    int bursts;           /* a sample is its fastest of this many back-to-back bursts of
                           * sample_sec / bursts each (a burst the scheduler interrupted is
                           * dropped inside the sample); default 1 = one timed run per sample */
    double warmup_sec;    /* spin before the first sample (clock ramp-up); default 0.5 s */
    size_t out_bytes;     /* output bytes per call (cache regime); default 128 KiB = L2 */
    const char *only;     /* run only entries whose name contains this (NULL: all) */
    FILE *progress;       /* one line per entry as it finishes (NULL: silent) */
} pc_bench_opts;

void pc_bench_defaults(pc_bench_opts *o);
/* Run the benchmark. Returns the report ({"machine", "build", "kernels": [...], "sha256": {...}}),
 * or NULL when out of memory. *mismatch counts kernels whose output differed from the oracle
 * (those are reported with "error" and no figures: a fast wrong kernel is worthless). */
cJSON *pc_bench_run(const pc_bench_opts *o, int *mismatch);

#endif
