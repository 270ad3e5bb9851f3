#include "stale_tmp.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The writer's pid from ".<target>.packcheck-tmp.<pid>.XXXXXX", or 0 when the name is not ours. */
static long tmp_pid(const char *name)
{
    if (name[0] != '.') return 0;
    const char *tag = strstr(name, PC_TMP_TAG);
    if (!tag) return 0;
    const char *p = tag + strlen(PC_TMP_TAG);
    long pid = 0;
    size_t nd = 0;
    for (; p[nd] >= '0' && p[nd] <= '9' && nd < 10; nd++) pid = pid * 10 + (p[nd] - '0');
    if (!nd || p[nd] != '.' || strlen(p + nd + 1) != 6) return 0;
    return pid;
}

static bool writer_gone(long pid)
{
    if (pid <= 0 || pid == (long)getpid()) return false;
    return kill((pid_t)pid, 0) == -1 && errno == ESRCH;
}

long pc_stale_tmp_sweep(const char *dir, pc_stale_fn on_removed, void *ud)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    long removed = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid = tmp_pid(de->d_name);
        if (!pid) continue;
        char *p = pc_path_join(dir, de->d_name);
        struct stat st;
        if (p && lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            now - st.st_mtime >= PC_STALE_TMP_AGE_S && writer_gone(pid) && unlink(p) == 0) {
            removed++;
            if (on_removed) on_removed(ud, p, pid);
        }
        free(p);
    }
    closedir(d);
    return removed;
}
