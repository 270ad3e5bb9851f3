/* `packcheck certify` (CONTRACT 5): run a third-party reader over every case of a corpus, read what
 * it wrote with our own container reader, compare it with the corpus's logical view, diagnose. */
#ifndef PC_CERTIFY_H
#define PC_CERTIFY_H

#include "case_scope.h"
#include "compare.h"
#include "confine.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#define PC_CERTIFY_MAX_ONLY 32
#define PC_CERTIFY_MAX_LIST 32                /* --reader-path, --reader-env */
#define PC_CERTIFY_MEM_LIMIT_MB 8192ul        /* default RLIMIT_AS per reader */
#define PC_CERTIFY_FSIZE_LIMIT_MB 8192ul      /* default RLIMIT_FSIZE per reader */

typedef struct pc_certify_opts {
    const char *reader;         /* "CMD {input} {output}": run under /bin/sh -c, paths shell-quoted;
                                   {profile} (optional) becomes strict or compat */
    const char *profile;        /* "strict" (default) or "compat": which cases' expectations apply */
    const char *name;           /* label for reports (default: the command) */
    const char *corpus;         /* DIR */
    const char *expect_fail;    /* FILE or NULL */
    bool update_expect;         /* rewrite expect_fail from this (full) run */
    double timeout_s;           /* per case, wall clock (default 10) */
    pc_tolerance tolerance;     /* weights may differ by this much (default exact; compare.h) */
    pc_depth depth;             /* what the reader's answer comes from; compute depth ignores the sign of zero */
    int jobs;                   /* readers run at once (default 2: the machine's cores) */
    unsigned long mem_limit_mb; /* RLIMIT_AS per reader, 0 = none */
    unsigned long fsize_limit_mb; /* RLIMIT_FSIZE per reader, 0 = none */
    pc_isolation isolation;     /* confine.h (default auto) */
    const char *reader_paths[PC_CERTIFY_MAX_LIST]; /* more read-only places for the reader (its runtime) */
    int nreader_paths;
    const char *reader_env[PC_CERTIFY_MAX_LIST];   /* NAME or NAME=VALUE passed to readers */
    int nreader_env;
    const char *only[PC_CERTIFY_MAX_ONLY]; /* case-id substrings: a partial run */
    int nonly;
    bool only_exact[PC_CERTIFY_MAX_ONLY];  /* only[i] names one case id exactly (--case) */
    const char *workdir;        /* a fresh subfolder is made there and kept (default: one in $TMPDIR, removed) */
    bool container_only;        /* the reader verifies files but decodes no quantization: its verdicts
                                   are compared, no logical view is asked for (CONTRACT 5) */
    FILE *log;                  /* per-case lines and the verdict */
    FILE *progress;             /* one line per reader as it finishes (stderr), or NULL */
    const char *corpus_digest;  /* MANIFEST.sha256 digest the corpus must have, or NULL */
    const char *reader_user;    /* as root: run readers as this user (default nobody; "root" keeps root) */
    double eval_timeout_s;      /* bound on judging one case's output (default 60) */
    pc_scope scope;             /* --layout / --format: what the reader claims (case_scope.h); cases
                                   outside it are `unsupported`, shown as coverage */
} pc_certify_opts;

/* Returns the report document (kind "certify"), or NULL on a harness error (message on log).
 * *exit_code: 0 certified, 1 not certified, 2 harness error. */
cJSON *pc_certify_run(const pc_certify_opts *o, int *exit_code);

/* Combine several certify reports (one per reader) into one cross-reader document (kind
 * "certify-matrix"): per reader the outcome of every case, rule-family rollups, and for readers
 * expected to fail (self-test mutants) which cases kill them. NULL when a file is unusable. */
cJSON *pc_certify_combine(const char *const *paths, int n, FILE *log);

/* certify_readers.c: annotate a certify-matrix with each reader's version, language, claims, mode and
 * certificate digest (META: {"readers": [{"certificate": REPORT-PATH, "version", "language",
 * "claims": [FAMILY...], "findings"}]}, may be NULL), and each family cell with its non-passing cases.
 * 0 ok, -1 an unreadable file. */
int pc_certify_readers_annotate(cJSON *matrix, const char *meta_path, FILE *log);
/* Is a committed matrix consistent with the committed certificates it names (sha256, corpus digest,
 * verdict, counts, families)? Runs no reader. 0 consistent, 1 not, -1 unreadable. */
int pc_certify_matrix_check(const char *matrix_path, FILE *log);
/* Re-judge a saved certify report against an expected-failure list (the report of an --update-expect
 * run predates the list it wrote): statuses, counts, family rollups, verdict. 0 ok, -1 bad list. */
int pc_certify_rejudge(cJSON *doc, const char *list, FILE *log);

/* The shell-quoted command line for one case (exposed for tests). Caller frees. */
char *pc_certify_command(const char *tmpl, const char *input, const char *output, const char *profile);

#endif
