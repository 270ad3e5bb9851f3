/* Inside `packcheck certify`: the pieces certify.c (the run) puts together. certify_command.c builds
 * the reader's command line, certify_judge.c judges what a reader wrote, certify_rollup.c counts
 * outcomes per rule and family, certify_result.c holds a case's typed result and is the one place it
 * becomes JSON. */
#ifndef PC_CERTIFY_INTERNAL_H
#define PC_CERTIFY_INTERNAL_H

#include "../report/report.h"
#include "packcheck_internal.h"
#include "certify.h"
#include "corpus.h"
#include "runner.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

/* tampered: the reader changed its copy of the case (never an expected failure). */
enum { O_PASS, O_WRONG, O_ACCEPTED_INVALID, O_REJECTED_VALID, O_CRASH, O_TIMEOUT, O_TAMPERED, O_COUNT };
extern const char *const pc_certify_outcome_names[O_COUNT];

/* certify_command.c: the report's "reader" object. */
cJSON *pc_certify_reader_json(const pc_certify_opts *o);

/* certify_judge.c. The outcome of a reader's exit (its verdict against the case's), or -1 when it
 * accepted a case whose output must now be judged. */
int pc_certify_classify(const pc_case *k, const pc_run *r, pc_profile prof, pc_sb *detail);
/* Judge the output at out_path against the case: the outcome; first_diff, diagnosis, picture,
 * precision and max_ulp go into c, the words into detail. basis: the tolerance and zero-sign rule
 * (its precision is set per module from the output's dtype). */
int pc_certify_check_output(const pc_case *k, const char *out_path, const pc_weight_compare *basis, bool want_picture, cJSON *c, pc_sb *detail);
/* A case made to show a bug pattern (its picture is always wanted). */
bool pc_certify_is_patterned(const pc_case *k);

/* certify_rollup.c: count one case's outcome under each rule and rule family it exercises. */
void pc_certify_rollup_case(cJSON *rules, cJSON *fams, const pc_case *k, int outcome, const char *status);
/* {"CT-001": {...}} -> [{"rule": "CT-001", ...}] sorted by key (fresh). */
cJSON *pc_certify_sorted_array(cJSON *map, const char *keyname);

/* certify_result.c: one case's result, typed until it is written. */
typedef struct pc_case_result {
    int outcome;                /* O_* */
    const char *status;         /* ok, expected-fail, fail, stale */
    bool timed_out;
    int exit_code;              /* -1 when the reader did not exit by itself */
    int signal;                 /* the signal that ended it, 0 = none */
    double seconds;
    int detached_killed;        /* detached descendants killed after it ended */
    char *detail;               /* the output's path written "{output}" */
    char *log_tail;             /* what it printed last (failures only), or NULL */
    char *expected_failure;     /* the expected-failure list's reason when listed, or NULL */
    cJSON *judged;              /* first_diff, diagnosis, picture: what the bounded judge answered
                                   (they cross a process boundary as JSON), or NULL */
} pc_case_result;

cJSON *pc_case_result_json(const pc_case_result *r, const pc_case *k);
void pc_case_result_free(pc_case_result *r);

#endif
