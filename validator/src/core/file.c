/* Bounded reads: every read names its offset and length and is refused past the end of file. */
#include "file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int pc_file_open(pc_file *f, const char *path)
{
    f->path = pc_strdup(path);
    f->fd = -1;
    f->size = 0;
    if (!f->path) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return -1; }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return 0;
}

void pc_file_close(pc_file *f)
{
    if (f->fd >= 0) close(f->fd);
    free(f->path);
    f->path = NULL;
    f->fd = -1;
}

int pc_file_read(const pc_file *f, uint64_t off, void *buf, size_t len)
{
    if (off > f->size || len > f->size - off) return -1;
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
