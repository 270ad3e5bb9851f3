/* A function run in a child with a deadline (bounded.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bounded.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ANSWER_MAX (64u << 20) /* a case's answer is a few KiB (pictures included) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void child(pc_bounded_fn fn, void *arg, int wfd)
{
    cJSON *doc = fn(arg);
    char *t = doc ? cJSON_PrintUnformatted(doc) : NULL;
    size_t n = t ? strlen(t) : 0;
    for (size_t off = 0; off < n;) {
        ssize_t k = write(wfd, t + off, n - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) _exit(3);
        off += (size_t)k;
    }
    _exit(t ? 0 : 3); /* no atexit handlers, no stdio flush: the parent's buffers are not ours */
}

/* Collect the child's answer until EOF or the deadline. 0 = EOF, 1 = deadline, -1 = too big/oom. */
static int collect(int fd, double deadline, char **buf, size_t *len)
{
    size_t cap = 0;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) return 1;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        if (*len + 65536 + 1 > cap) {
            if (cap >= ANSWER_MAX) return -1;
            size_t nc = cap ? cap * 2 : 65536 * 2;
            char *nb = realloc(*buf, nc);
            if (!nb) return -1;
            *buf = nb;
            cap = nc;
        }
        ssize_t k = read(fd, *buf + *len, 65536);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return 0;
        *len += (size_t)k;
    }
}

cJSON *pc_run_bounded(pc_bounded_fn fn, void *arg, double timeout_s, char *why, size_t whylen)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) { snprintf(why, whylen, "no pipe: %s", strerror(errno)); return NULL; }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { close(pfd[0]); close(pfd[1]); snprintf(why, whylen, "fork failed: %s", strerror(errno)); return NULL; }
    if (pid == 0) { close(pfd[0]); child(fn, arg, pfd[1]); }
    close(pfd[1]);
    char *buf = NULL;
    size_t len = 0;
    int c = collect(pfd[0], now_s() + timeout_s, &buf, &len);
    close(pfd[0]);
    if (c) kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    cJSON *doc = NULL;
    if (c == 1) snprintf(why, whylen, "did not finish within %.0f s", timeout_s);
    else if (c < 0) snprintf(why, whylen, "answered more than %u MiB", ANSWER_MAX >> 20);
    else if (WIFSIGNALED(st)) snprintf(why, whylen, "died of signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (!WIFEXITED(st) || WEXITSTATUS(st)) snprintf(why, whylen, "failed (exit %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    else if (!(doc = cJSON_ParseWithLength(buf ? buf : "", len))) snprintf(why, whylen, "answered no JSON");
    free(buf);
    return doc;
}
