/* Running readers (CONTRACT 5): one process per case under /bin/sh -c, each in its own process
 * group, at most `jobs` at a time, its stdout and stderr read through a pipe (scanned for
 * sanitizer reports as they stream, only the tail kept: a reader cannot fill the disk or hide a
 * report behind megabytes of output). A reader past its deadline has its whole group killed, and
 * so does a reader that exits leaving children behind; certify is a child subreaper, so what a
 * reader detached (setsid, double fork) comes back to it and is killed too, before the next reader
 * starts (reaper.h). An interrupted packcheck kills everything before it leaves. Resource limits
 * per reader: no core files, a file-size and an address-space cap (options); as root the reader runs
 * as an unprivileged user, so it can neither signal certify nor touch its files; it is confined to
 * its own folders (confine.h) and sees only the environment certify gives it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runner.h"

#include "../core/util.h"
#include "reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define POLL_MS 5

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child_fail(int fd, const char *what)
{
    char buf[300];
    int n = snprintf(buf, sizeof buf, "packcheck certify: cannot start the reader: %s: %s\n", what, strerror(errno));
    if (n > 0 && write(fd, buf, (size_t)n) < 0) _exit(126);
    _exit(126);
}

static void drop_privileges(const pc_run_opts *o)
{
    if (setgroups(0, NULL) || setgid(o->gid) || setuid(o->uid)) child_fail(1, "dropping to the reader user");
    if (setuid(0) == 0 && o->uid != 0) child_fail(1, "root could be regained"); /* belt and braces */
    if (o->home) setenv("HOME", o->home, 1);
}

static void set_limit(int res, unsigned long long v)
{
    struct rlimit rl = {v, v};
    setrlimit(res, &rl);
}

/* Mount namespace (as root), Landlock rules (opened as root: every path reachable), the drop to the
 * reader user, then the sandbox closes: nothing after it can widen it. */
static void confine(const pc_run *r, const pc_run_opts *o)
{
    const char *what = "";
    int rs = -1;
    if (o->confine && r->jail && (pc_confine_enter(o->confine, r->jail, &what) || pc_confine_prepare(o->confine, r->jail, &rs, &what)))
        child_fail(1, what);
    if (o->drop) drop_privileges(o);
    if (pc_confine_enforce(rs, &what)) child_fail(1, what);
}

static void child_exec(const pc_run *r, int wfd, const pc_run_opts *o)
{
    setpgid(0, 0);
    int nul = open("/dev/null", O_RDONLY);
    if (nul < 0) _exit(126);
    dup2(nul, 0);
    dup2(wfd, 1);
    dup2(wfd, 2);
    if (nul > 2) close(nul);
    if (wfd > 2) close(wfd);
    if (r->cwd && chdir(r->cwd)) child_fail(1, r->cwd);
    set_limit(RLIMIT_CORE, 0);
    if (o->fsize_mb) set_limit(RLIMIT_FSIZE, (unsigned long long)o->fsize_mb << 20);
    if (o->mem_mb) set_limit(RLIMIT_AS, (unsigned long long)o->mem_mb << 20);
    confine(r, o);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* after the uid change, which clears it */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    char *argv[] = {"sh", "-c", r->cmd, NULL};
    if (r->env) execve("/bin/sh", argv, r->env);
    else execv("/bin/sh", argv);
    _exit(127);
}

static void start_one(pc_run *r, const pc_run_opts *o)
{
    int pfd[2];
    r->started = true;
    r->out_fd = -1;
    r->start = now_s();
    r->deadline = r->start + o->timeout_s;
    /* Close-on-exec: no other reader inherits this pipe (its EOF would never come). */
    if (pipe2(pfd, O_CLOEXEC)) { r->spawn_failed = r->done = true; return; }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); r->spawn_failed = r->done = true; return; }
    if (pid == 0) child_exec(r, pfd[1], o);
    close(pfd[1]);
    fcntl(pfd[0], F_SETFL, O_NONBLOCK);
    setpgid(pid, pid); /* also in the parent, so the group exists before any kill */
    r->pid = pid;
    r->out_fd = pfd[0];
}

/* Read what is there (all of it when draining: every writer is dead by then). */
static void read_output(pc_run *r, bool drain)
{
    char buf[READ_CHUNK];
    while (r->out_fd >= 0) {
        ssize_t k = read(r->out_fd, buf, sizeof buf);
        if (k > 0) { pc_logscan_feed(&r->log, buf, (size_t)k); if (!drain) return; continue; }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN && !drain) return;
        close(r->out_fd); /* EOF, or nothing more from a dead group */
        r->out_fd = -1;
    }
}

/* The leaders still running: what a sweep must spare. */
static size_t running_pids(const pc_run *runs, size_t n, pid_t *keep)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].started && !runs[i].done) keep[k++] = runs[i].pid;
    return k;
}

static void finish_one(pc_run *runs, size_t n, pc_run *r, bool timed_out, pid_t *keep, const pc_run_opts *o, size_t *finished, size_t total)
{
    int st;
    kill(-r->pid, SIGKILL); /* whatever it left running in its group */
    waitpid(r->pid, &st, 0);
    r->status = st;
    r->timed_out = timed_out;
    r->done = true;
    r->secs = now_s() - r->start;
    r->strays = pc_reaper_sweep(keep, running_pids(runs, n, keep));
    read_output(r, true);
    (*finished)++;
    if (o->progress) {
        char how[64];
        if (timed_out) snprintf(how, sizeof how, "timeout");
        else if (WIFSIGNALED(st)) snprintf(how, sizeof how, "signal %d", WTERMSIG(st));
        else snprintf(how, sizeof how, "exit %d", WEXITSTATUS(st));
        fprintf(o->progress, "certify: [%zu/%zu] %s: %s, %.2f s%s\n", *finished, total, r->label ? r->label : "?", how, r->secs,
                r->strays ? ", detached processes killed" : "");
        fflush(o->progress);
    }
}

/* Poll the running readers: reap finished ones, kill groups past their deadline. */
static int poll_running(pc_run *runs, size_t n, pid_t *keep, const pc_run_opts *o, size_t *finished, size_t total)
{
    int running = 0;
    for (size_t i = 0; i < n; i++) {
        pc_run *r = &runs[i];
        if (!r->started || r->done) continue;
        read_output(r, false);
        siginfo_t si;
        si.si_pid = 0;
        /* Peek without reaping: while the leader is an unreaped zombie its pid (= the group id)
         * cannot be reused, so killing the group cannot hit a stranger. */
        bool exited = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == r->pid;
        if (exited || now_s() > r->deadline) finish_one(runs, n, r, !exited, keep, o, finished, total);
        else running++;
    }
    return running;
}

/* Wait for output or POLL_MS, whichever comes first. */
static void wait_a_little(const pc_run *runs, size_t n)
{
    struct pollfd pf[64];
    nfds_t k = 0;
    for (size_t i = 0; i < n && k < 64; i++)
        if (runs[i].started && !runs[i].done && runs[i].out_fd >= 0) pf[k++] = (struct pollfd){runs[i].out_fd, POLLIN, 0};
    if (k) poll(pf, k, POLL_MS);
    else { struct timespec ts = {0, POLL_MS * 1000 * 1000}; nanosleep(&ts, NULL); }
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

int pc_run_all(pc_run *runs, size_t n, const pc_run_opts *o)
{
    if (pc_reaper_enable()) return -1;
    int jobs = o->jobs < 1 ? 2 : o->jobs > 64 ? 64 : o->jobs;
    pid_t *keep = calloc((size_t)jobs + 1, sizeof *keep);
    if (!keep) return -1;
    size_t next = 0, finished = 0, total = 0;
    for (size_t i = 0; i < n; i++) { runs[i].out_fd = -1; total += runs[i].cmd != NULL; }
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, &old[i]);
    g_interrupted = 0;
    for (;;) {
        if (g_interrupted) break;
        int running = poll_running(runs, n, keep, o, &finished, total);
        while (running < jobs && next < n) {
            if (runs[next].cmd) { start_one(&runs[next], o); running++; }
            next++;
        }
        if (!running && next >= n) break;
        wait_a_little(runs, n);
    }
    int sig = g_interrupted;
    if (sig) kill_running(runs, n);
    pc_reaper_sweep(NULL, 0); /* nothing a reader started outlives the reader phase */
    for (size_t i = 0; i < n; i++)
        if (runs[i].out_fd >= 0) { close(runs[i].out_fd); runs[i].out_fd = -1; }
    for (int i = 0; i < 3; i++) sigaction(sigs[i], &old[i], NULL);
    free(keep);
    return sig;
}

char *pc_run_log_tail(const pc_run *r)
{
    char *t = pc_logscan_tail(&r->log);
    return t ? t : pc_strdup("");
}
