/* Atomic writes (atomic_file.h): mkstemp in the target folder, fsync, rename, fsync the folder. */
#include "atomic_file.h"

#include "stale_tmp.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries alive now, for the signal handler (which may only call unlink, async-signal-safe). */
enum { MAX_LIVE = 32 };
static char *volatile g_live[MAX_LIVE];
static struct sigaction g_old[3];
static const int g_sigs[3] = {SIGINT, SIGTERM, SIGHUP};
static bool g_installed;

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (g_live[i]) unlink(g_live[i]);
    /* Then whatever was there before: the previous handler, or die of the signal as usual. */
    for (int i = 0; i < 3; i++) {
        if (g_sigs[i] != sig) continue;
        if (g_old[i].sa_handler != SIG_DFL && g_old[i].sa_handler != SIG_IGN && !(g_old[i].sa_flags & SA_SIGINFO)) {
            g_old[i].sa_handler(sig);
            return;
        }
        if (g_old[i].sa_handler == SIG_IGN) return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    if (g_installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaction(g_sigs[i], &sa, &g_old[i]);
    g_installed = true;
}

static int live_add(char *tmp)
{
    install();
    for (int i = 0; i < MAX_LIVE; i++)
        if (!g_live[i]) { g_live[i] = tmp; return i; }
    return -1; /* more than 32 at once: still correct, only not cleaned on a signal */
}

static void live_drop(int slot)
{
    if (slot >= 0) g_live[slot] = NULL;
}

int pc_afile_check(const char *path, const char **why)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        *why = S_ISLNK(st.st_mode) ? "is a symbolic link: refusing to replace it" : S_ISDIR(st.st_mode) ? "is a directory"
                                                                                      : "exists and is not a regular file: refusing to replace it";
        return -1;
    }
    char *dir = pc_dirname(path);
    int ok = dir && pc_is_dir(dir) && access(dir, W_OK | X_OK) == 0;
    free(dir);
    if (!ok) { *why = "its folder does not exist or is not writable"; return -1; }
    *why = NULL;
    return 0;
}

bool pc_afile_same(const char *path, const char *other)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(other, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool pc_afile_same_fd(const char *path, int fd)
{
    struct stat a, b;
    return stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int pc_afile_open(pc_afile *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->slot = -1;
    char *dir = pc_dirname(path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    a->path = pc_strdup(path);
    /* The writer's pid in the name: a later run finds what a killed one left (stale_tmp.h). */
    if (dir) pc_stale_tmp_sweep(dir, NULL, NULL);
    a->tmp = dir ? pc_asprintf("%s/.%s" PC_TMP_TAG "%ld.XXXXXX", dir, base, (long)getpid()) : NULL;
    free(dir);
    if (!a->path || !a->tmp) { pc_afile_abort(a); errno = ENOMEM; return -1; }
    a->fd = mkstemp(a->tmp); /* O_CREAT | O_EXCL: never an existing file */
    if (a->fd < 0) { free(a->tmp); a->tmp = NULL; pc_afile_abort(a); return -1; }
    a->slot = live_add(a->tmp);
    /* mkstemp makes 0600; a report or view is an ordinary file: 0666 less the umask. */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(a->fd, 0666 & ~um)) { pc_afile_abort(a); return -1; }
    return 0;
}

int pc_afile_write(pc_afile *a, const void *p, size_t n)
{
    const char *c = p;
    while (n && !a->failed) {
        ssize_t k = write(a->fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { a->failed = true; break; }
        c += k;
        n -= (size_t)k;
    }
    return a->failed ? -1 : 0;
}

int pc_afile_pwrite(int fd, const void *p, size_t n, unsigned long long off)
{
    const char *c = p;
    while (n) {
        if (off > (unsigned long long)INT64_MAX - n) return -1;
        ssize_t k = pwrite(fd, c, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
        off += (unsigned long long)k;
    }
    return 0;
}

static void fsync_dir(const char *path)
{
    char *dir = pc_dirname(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) { fsync(fd); close(fd); }
    free(dir);
}

int pc_afile_commit(pc_afile *a)
{
    const char *why;
    /* The target is checked again: it may have become a link or a device since the start. */
    int rc = a->failed || fsync(a->fd) || close(a->fd) ? -1 : 0;
    a->fd = -1;
    if (!rc && pc_afile_check(a->path, &why)) rc = -1;
    if (!rc && rename(a->tmp, a->path)) rc = -1;
    if (rc) { pc_afile_abort(a); return -1; }
    live_drop(a->slot);
    fsync_dir(a->path);
    free(a->tmp);
    free(a->path);
    memset(a, 0, sizeof *a);
    a->fd = -1;
    return 0;
}

void pc_afile_abort(pc_afile *a)
{
    if (a->fd >= 0) close(a->fd);
    if (a->tmp) unlink(a->tmp);
    live_drop(a->slot);
    free(a->tmp);
    free(a->path);
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->slot = -1;
}

int pc_afile_put(const char *path, const void *p, size_t n)
{
    pc_afile a;
    if (pc_afile_open(&a, path)) return -1;
    if (pc_afile_write(&a, p, n)) { pc_afile_abort(&a); return -1; }
    return pc_afile_commit(&a);
}
