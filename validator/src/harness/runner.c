/* Running readers (CONTRACT 5): one process per case under /bin/sh -c, each in its own process
 * group, at most `jobs` at a time. A reader past its deadline has its whole group killed, and so
 * does a reader that exits leaving children behind; an interrupted packcheck kills every group
 * before it leaves. Resource limits per reader: no core files, output files up to 8 GiB, and an
 * optional address-space cap. */
#define _XOPEN_SOURCE 700
#include "runner.h"

#include "../core/util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUTPUT_FSIZE_LIMIT (8ull << 30) /* RLIMIT_FSIZE of a reader: a runaway writer is a crash */
#define LOG_TAIL 600

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child_exec(const pc_run *r, unsigned long mem_mb)
{
    setpgid(0, 0);
    int nul = open("/dev/null", O_RDONLY);
    int lg = open(r->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (nul < 0 || lg < 0) _exit(126);
    dup2(nul, 0);
    dup2(lg, 1);
    dup2(lg, 2);
    if (nul > 2) close(nul);
    if (lg > 2) close(lg);
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    rl.rlim_cur = rl.rlim_max = OUTPUT_FSIZE_LIMIT;
    setrlimit(RLIMIT_FSIZE, &rl);
    if (mem_mb) { rl.rlim_cur = rl.rlim_max = (rlim_t)mem_mb << 20; setrlimit(RLIMIT_AS, &rl); }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    execl("/bin/sh", "sh", "-c", r->cmd, (char *)NULL);
    _exit(127);
}

static void start_one(pc_run *r, double timeout_s, unsigned long mem_mb)
{
    r->started = true;
    r->start = now_s();
    r->deadline = r->start + timeout_s;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { r->spawn_failed = true; r->done = true; return; }
    if (pid == 0) child_exec(r, mem_mb);
    setpgid(pid, pid); /* also in the parent, so the group exists before any kill */
    r->pid = pid;
}

/* Poll the running readers: reap finished ones, kill groups past their deadline. */
static int poll_running(pc_run *runs, size_t n)
{
    int running = 0;
    double t = now_s();
    for (size_t i = 0; i < n; i++) {
        pc_run *r = &runs[i];
        if (!r->started || r->done) continue;
        int st;
        siginfo_t si;
        si.si_pid = 0;
        /* Peek without reaping: while the leader is an unreaped zombie its pid (= the group id)
         * cannot be reused, so killing the group cannot hit a stranger. */
        if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == r->pid) {
            kill(-r->pid, SIGKILL); /* whatever it left running in its group */
            waitpid(r->pid, &st, 0);
            r->status = st;
            r->done = true;
            r->secs = t - r->start;
        } else if (t > r->deadline) {
            kill(-r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
            r->status = st;
            r->timed_out = true;
            r->done = true;
            r->secs = t - r->start;
        } else {
            running++;
        }
    }
    return running;
}

/* Interrupted (SIGINT/SIGTERM/SIGHUP): the readers run in their own process groups, out of reach of
 * the terminal's signal, so they are killed here before packcheck leaves. */
static volatile sig_atomic_t g_interrupted;
static void on_signal(int sig) { g_interrupted = sig; }

static void kill_running(pc_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pc_run *r = &runs[i];
        if (!r->started || r->done) continue;
        kill(-r->pid, SIGKILL);
        waitpid(r->pid, &r->status, 0);
        r->done = true;
    }
}

int pc_run_all(pc_run *runs, size_t n, int jobs, double timeout_s, unsigned long mem_mb)
{
    size_t next = 0;
    if (jobs < 1) jobs = 2;
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, &old[i]);
    g_interrupted = 0;
    for (;;) {
        if (g_interrupted) break;
        int running = poll_running(runs, n);
        while (running < jobs && next < n) {
            if (runs[next].cmd) { start_one(&runs[next], timeout_s, mem_mb); running++; }
            next++;
        }
        if (!running && next >= n) break;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    int sig = g_interrupted;
    if (sig) kill_running(runs, n);
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    return sig;
}

char *pc_run_log_tail(const char *path)
{
    size_t len;
    char *t = pc_slurp(path, 64u << 20, &len);
    if (!t) return pc_strdup("");
    const char *s = len > LOG_TAIL ? t + len - LOG_TAIL : t;
    char *r = pc_strdup(s);
    free(t);
    return r;
}
