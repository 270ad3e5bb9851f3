/* Running reader processes for `packcheck certify`: process groups, timeouts, parallelism. */
#ifndef PC_RUNNER_H
#define PC_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct pc_run {
    char *cmd;            /* the shell line; NULL = not run */
    char *log;            /* stdout and stderr go here */
    bool started, done, timed_out, spawn_failed;
    int status;           /* waitpid status */
    pid_t pid;            /* = its process group */
    double start, deadline, secs;
} pc_run;

/* Run every entry with a cmd, `jobs` at a time, each limited to timeout_s of wall clock (and
 * mem_mb MiB of address space when non-zero). Returns 0, or the signal that interrupted the run
 * (every reader's group killed by then). */
int pc_run_all(pc_run *runs, size_t n, int jobs, double timeout_s, unsigned long mem_mb);

/* The last few hundred bytes a reader printed (fresh string). */
char *pc_run_log_tail(const char *path);

#endif
