/* Child subreaper and the sweep of detached descendants (reaper.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "reaper.h"

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SWEEP_ROUNDS 4096 /* a fork bomb re-parenting faster than we kill still ends */

int pc_reaper_enable(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ? -1 : 0;
}

/* The parent pid field of /proc/PID/stat (after the last ')': the command name may hold any byte). */
static pid_t ppid_of(const char *pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    long pp;
    if (!rp || sscanf(rp + 1, " %*c %ld", &pp) != 1) return -1;
    return (pid_t)pp;
}

static bool kept(pid_t p, const pid_t *keep, size_t nkeep)
{
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] == p) return true;
    return false;
}

/* Fast path: /proc/self/task/TID/children (CONFIG_PROC_CHILDREN). 0 = none found, -1 = no such file. */
static pid_t stray_from_children_files(const pid_t *keep, size_t nkeep)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    pid_t found = 0;
    bool any_file = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        any_file = true;
        long p;
        while (!found && fscanf(f, "%ld", &p) == 1)
            if (!kept((pid_t)p, keep, nkeep)) found = (pid_t)p;
        fclose(f);
    }
    closedir(d);
    return found || any_file ? found : -1;
}

/* One child of ours not in keep[], or 0. Without CONFIG_PROC_CHILDREN: /proc/PID/stat of every
 * process (a process table of a few thousand entries is read in milliseconds). */
static pid_t one_stray(const pid_t *keep, size_t nkeep)
{
    pid_t fast = stray_from_children_files(keep, nkeep);
    if (fast >= 0) return fast;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    pid_t me = getpid(), found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        if (ppid_of(e->d_name) != me) continue;
        pid_t p = (pid_t)atol(e->d_name);
        if (!kept(p, keep, nkeep)) found = p;
    }
    closedir(d);
    return found;
}

int pc_reaper_sweep(const pid_t *keep, size_t nkeep)
{
    int killed = 0;
    for (int round = 0; round < SWEEP_ROUNDS; round++) {
        pid_t p = one_stray(keep, nkeep);
        if (!p) break;
        /* p is our child: until we reap it, its pid cannot be reused, so the kill cannot miss. */
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
        killed++;
    }
    return killed;
}
