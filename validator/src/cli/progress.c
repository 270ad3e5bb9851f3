/* Progress on stderr for long runs: a thread that, from 2 s into the run (PACKCHECK_PROGRESS_AFTER
 * seconds overrides), prints the checkpoint bytes the streaming pass has read and the rate once a
 * second. On a terminal the line is rewritten in place and erased at the end; elsewhere (--progress
 * into a CI log) one line every 5 s and a last one at the end. Silent by default when stderr is not
 * a terminal, and always with --no-progress. */
#include "cli.h"

#include "../core/progress.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool running, stop, tty;
    double after;
    const char *what;
    uint64_t total;
} g_p = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void line(double t0, uint64_t base)
{
    double el = now_s() - t0, mib = (double)(pc_progress_bytes() - base) / (1024.0 * 1024.0);
    if (g_p.total)
        fprintf(stderr, "%s%s: %.0f / %.0f MiB read (%.0f%%), %.1f s, %.0f MiB/s%s", g_p.tty ? "\r" : "", g_p.what, mib,
                (double)g_p.total / (1024.0 * 1024.0), 100.0 * mib * 1024.0 * 1024.0 / (double)g_p.total, el,
                el > 0 ? mib / el : 0.0, g_p.tty ? "\033[K" : "\n");
    else
        fprintf(stderr, "%s%s: %.0f MiB read, %.1f s, %.0f MiB/s%s", g_p.tty ? "\r" : "", g_p.what, mib, el,
                el > 0 ? mib / el : 0.0, g_p.tty ? "\033[K" : "\n");
    fflush(stderr);
}

static void *run(void *arg)
{
    (void)arg;
    double t0 = now_s(), next = t0 + g_p.after;
    uint64_t base = pc_progress_bytes();
    bool printed = false;
    pthread_mutex_lock(&g_p.mu);
    while (!g_p.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&g_p.cv, &g_p.mu, &until);
        if (g_p.stop || now_s() < next) continue;
        line(t0, base);
        printed = true;
        next = now_s() + (g_p.tty ? 1.0 : 5.0);
    }
    pthread_mutex_unlock(&g_p.mu);
    if (printed && g_p.tty) { fputs("\r\033[K", stderr); fflush(stderr); }
    else if (!g_p.tty && now_s() >= t0 + g_p.after) line(t0, base); /* the log's last word: the total */
    return NULL;
}

void cli_progress_start(int mode, const char *what, uint64_t total_bytes)
{
    g_p.tty = isatty(fileno(stderr)) == 1;
    if (mode == 0 ? !g_p.tty : mode < 0) return; /* 0 auto, 1 --progress, -1 --no-progress */
    const char *after = getenv("PACKCHECK_PROGRESS_AFTER");
    char *end = NULL;
    g_p.after = after && *after ? strtod(after, &end) : 2.0;
    if (!(g_p.after >= 0 && g_p.after < 1e6) || (end && *end)) g_p.after = 2.0;
    g_p.what = what;
    g_p.total = total_bytes;
    g_p.stop = false;
    g_p.running = pthread_create(&g_p.tid, NULL, run, NULL) == 0;
}

void cli_progress_stop(void)
{
    if (!g_p.running) return;
    pthread_mutex_lock(&g_p.mu);
    g_p.stop = true;
    pthread_cond_signal(&g_p.cv);
    pthread_mutex_unlock(&g_p.mu);
    pthread_join(g_p.tid, NULL);
    g_p.running = false;
}

uint64_t cli_paths_bytes(char *const *paths, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st)) continue;
        if (S_ISREG(st.st_mode)) { total += (uint64_t)st.st_size; continue; }
        DIR *d = S_ISDIR(st.st_mode) ? opendir(paths[i]) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char p[4096];
            if (e->d_name[0] == '.' || snprintf(p, sizeof p, "%s/%s", paths[i], e->d_name) >= (int)sizeof p) continue;
            if (!stat(p, &st) && S_ISREG(st.st_mode)) total += (uint64_t)st.st_size;
        }
        if (d) closedir(d);
    }
    return total;
}
