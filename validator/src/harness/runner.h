/* Running reader processes for `packcheck certify`: process groups, timeouts, parallelism, the
 * output stream, descendants, and (as root) an unprivileged user. */
#ifndef PC_RUNNER_H
#define PC_RUNNER_H

#include "confine.h"
#include "logscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct pc_run {
    char *cmd;            /* the shell line; NULL = not run */
    char *cwd;            /* working directory of the reader (its private folder), or NULL */
    const char *label;    /* for progress lines (the case id) */
    const pc_jail *jail;  /* its folders (confine.h), or NULL */
    char **env;           /* its whole environment (NULL-terminated), or NULL for certify's own */
    bool started, done, timed_out, spawn_failed;
    int status;           /* waitpid status */
    pid_t pid;            /* = its process group */
    int out_fd;           /* read end of its stdout+stderr pipe (-1: closed) */
    int strays;           /* detached descendants killed after it ended */
    double start, deadline, secs;
    pc_logscan log;       /* sanitizer marks in everything it printed, and the tail */
} pc_run;

typedef struct pc_run_opts {
    int jobs;             /* readers at once */
    double timeout_s;     /* wall clock per reader */
    unsigned long mem_mb; /* RLIMIT_AS per reader, 0 = none */
    unsigned long fsize_mb; /* RLIMIT_FSIZE per reader, 0 = none */
    const pc_confine *confine; /* what the reader may see, or NULL */
    bool drop;            /* run readers as uid/gid (certify runs as root) */
    uid_t uid;
    gid_t gid;
    const char *home;     /* HOME for the dropped reader */
    FILE *progress;       /* one line per finished reader, or NULL */
} pc_run_opts;

/* Run every entry with a cmd, `jobs` at a time. When one ends (or is killed at its deadline) its
 * process group is killed and every detached descendant is killed and reaped before the next one
 * starts. Returns 0, or the signal that interrupted the run (every reader and descendant killed by
 * then); -1 when certify cannot become a child subreaper. */
int pc_run_all(pc_run *runs, size_t n, const pc_run_opts *o);

/* The last bytes a reader printed (fresh string). */
char *pc_run_log_tail(const pc_run *r);

#endif
