/* Bounded reads: every read names its offset and length and is refused past the end of file. */
#include "file.h"
#include "remote.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t g_local_bytes; /* read from local files by pc_file_read (validate's bytes_fetched) */

uint64_t pc_file_local_bytes(void) { return __atomic_load_n(&g_local_bytes, __ATOMIC_RELAXED); }

static const char *kind_of(mode_t m)
{
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISLNK(m)) return "a dangling symbolic link";
    return "not a file";
}

const char *pc_path_kind(const char *path)
{
    if (pc_is_url(path)) return "a regular file"; /* a URL is opened, and refused then if it is not there */
    struct stat st;
    if (stat(path, &st) == 0 || lstat(path, &st) == 0) return kind_of(st.st_mode);
    return NULL;
}

int pc_open_regular(const char *path, const char **why)
{
    static const char *const k_not_regular[] = {"not a regular file (a directory)", "not a regular file (a FIFO)",
                                               "not a regular file (a socket)", "not a regular file (a device)",
                                               "not a regular file"};
    *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) { *why = strerror(errno); return -1; }
    struct stat st;
    if (fstat(fd, &st) != 0) { *why = strerror(errno); close(fd); return -1; }
    if (!S_ISREG(st.st_mode)) {
        *why = S_ISDIR(st.st_mode) ? k_not_regular[0] : S_ISFIFO(st.st_mode) ? k_not_regular[1]
             : S_ISSOCK(st.st_mode) ? k_not_regular[2] : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? k_not_regular[3]
             : k_not_regular[4];
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) { *why = strerror(errno); close(fd); return -1; }
    return fd;
}

int pc_file_open(pc_file *f, const char *path)
{
    const char *why;
    return pc_file_open_why(f, path, &why);
}

int pc_file_open_why(pc_file *f, const char *path, const char **why)
{
    f->path = pc_strdup(path);
    f->fd = -1;
    f->size = 0;
    f->remote = NULL;
    *why = "out of memory";
    if (!f->path) return -1;
    if (pc_is_url(path)) {
        f->remote = pc_remote_open(path, &f->size, why);
        return f->remote ? 0 : -1;
    }
    int fd = pc_open_regular(path, why);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); return -1; }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return 0;
}

void pc_file_close(pc_file *f)
{
    if (f->fd >= 0) close(f->fd);
    pc_remote_close(f->remote);
    f->remote = NULL;
    free(f->path);
    f->path = NULL;
    f->fd = -1;
}

int pc_file_read(const pc_file *f, uint64_t off, void *buf, size_t len)
{
    if (off > f->size || len > f->size - off) return -1;
    if (f->remote) return pc_remote_read(f->remote, off, buf, len);
    __atomic_add_fetch(&g_local_bytes, len, __ATOMIC_RELAXED);
    uint8_t *p = buf;
    while (len) {
        ssize_t got = pread(f->fd, p, len, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        off += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}
