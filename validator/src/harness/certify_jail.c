/* Reader folders, environment, output provenance and leftovers (certify_jail.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify_jail.h"

#include "../core/util.h"
#include "tree_remove.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static int reader_folder(const char *path, bool drop, uid_t uid, gid_t gid)
{
    if (mkdir(path, 0700)) return -1;
    return drop ? chown(path, uid, gid) : 0;
}

int pc_jail_make(pc_jail *j, const char *work, bool drop, uid_t uid, gid_t gid, char *why, size_t whylen)
{
    memset(j, 0, sizeof *j);
    j->dir = pc_asprintf("%s/c-XXXXXX", work);
    /* mkdtemp's name is random: another run's reader cannot guess it, and the work folder (0711)
     * cannot be listed. 0711: the reader user passes through to its own folders. */
    if (!j->dir || !mkdtemp(j->dir) || chmod(j->dir, 0711)) { snprintf(why, whylen, "cannot create a case folder under %s", work); return -1; }
    j->copy = pc_asprintf("%s/case", j->dir);
    j->out = pc_asprintf("%s/out", j->dir);
    j->tmp = pc_asprintf("%s/tmp", j->dir);
    j->home = pc_asprintf("%s/home", j->dir);
    if (!j->copy || !j->out || !j->tmp || !j->home) { snprintf(why, whylen, "out of memory"); return -1; }
    const char *const mine[] = {j->out, j->tmp, j->home};
    for (int i = 0; i < 3; i++)
        if (reader_folder(mine[i], drop, uid, gid)) { snprintf(why, whylen, "cannot create %s for the reader: %s", mine[i], strerror(errno)); return -1; }
    struct stat sb;
    if (lstat(j->out, &sb)) { snprintf(why, whylen, "%s: %s", j->out, strerror(errno)); return -1; }
    j->out_dev = sb.st_dev;
    j->out_ino = sb.st_ino;
    return 0;
}

void pc_jail_free(pc_jail *j)
{
    free(j->dir); free(j->copy); free(j->out); free(j->tmp); free(j->home);
    memset(j, 0, sizeof *j);
}

static int env_add(char ***env, size_t *n, char *kv)
{
    if (!kv) return -1;
    char **ne = realloc(*env, (*n + 2) * sizeof *ne);
    if (!ne) { free(kv); return -1; }
    *env = ne;
    ne[(*n)++] = kv;
    ne[*n] = NULL;
    return 0;
}

char **pc_jail_env(const pc_jail *j, const char *const *allow, int nallow)
{
    char **env = NULL;
    size_t n = 0;
    const char *path = getenv("PATH");
    int bad = env_add(&env, &n, pc_asprintf("PATH=%s", path && *path ? path : DEFAULT_PATH));
    bad |= env_add(&env, &n, pc_asprintf("HOME=%s", j->home));
    bad |= env_add(&env, &n, pc_asprintf("TMPDIR=%s", j->tmp));
    bad |= env_add(&env, &n, pc_strdup("LANG=C"));
    for (int i = 0; i < nallow && !bad; i++) {
        if (strchr(allow[i], '=')) { bad |= env_add(&env, &n, pc_strdup(allow[i])); continue; }
        const char *v = getenv(allow[i]);
        if (v) bad |= env_add(&env, &n, pc_asprintf("%s=%s", allow[i], v));
    }
    if (bad) { pc_jail_env_free(env); return NULL; }
    return env;
}

void pc_jail_env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++) free(env[i]);
    free(env);
}

int pc_jail_check_output(const pc_jail *j, const char *name, uid_t uid, char *why, size_t whylen)
{
    int dfd = open(j->out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat d, f;
    if (dfd < 0 || fstat(dfd, &d) || d.st_dev != j->out_dev || d.st_ino != j->out_ino) {
        if (dfd >= 0) close(dfd);
        snprintf(why, whylen, "its output folder was replaced or removed");
        return -1;
    }
    int rc = fstatat(dfd, name, &f, AT_SYMLINK_NOFOLLOW);
    close(dfd);
    if (rc) {
        if (errno == ENOENT) return 1;
        snprintf(why, whylen, "its output cannot be examined: %s", strerror(errno));
        return -1;
    }
    if (S_ISFIFO(f.st_mode)) snprintf(why, whylen, "the output is a FIFO, not a regular file");
    else if (S_ISLNK(f.st_mode)) snprintf(why, whylen, "the output is a symbolic link, not a file the reader wrote");
    else if (!S_ISREG(f.st_mode)) snprintf(why, whylen, "the output is not a regular file (a folder, socket or device)");
    else if (f.st_nlink != 1) snprintf(why, whylen, "its output has %lu hard links: a file made elsewhere, not written by the reader", (unsigned long)f.st_nlink);
    else if (f.st_uid != uid) snprintf(why, whylen, "its output belongs to uid %lu, not to the reader (uid %lu)", (unsigned long)f.st_uid, (unsigned long)uid);
    else return 0;
    return -1;
}

long pc_sweep_leftovers(const char *dir, uid_t uid, time_t since, FILE *log)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) { if (dfd >= 0) close(dfd); return 0; }
    long removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat sb;
        /* ctime cannot be set back by the owner: an entry changed since the run began. */
        if (fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) || sb.st_uid != uid || sb.st_ctime < since) continue;
        char *p = pc_asprintf("%s/%s", dir, e->d_name), why[512];
        if (p && pc_tree_remove(p, why, sizeof why) == 0) removed++;
        else if (p) fprintf(log, "certify: could not remove what a reader left: %s\n", why);
        free(p);
    }
    closedir(d);
    return removed;
}
