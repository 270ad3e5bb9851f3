/* Every file packcheck writes (the logical view of unpack, every --report) goes through here: a
 * temporary file created in the target's folder (O_EXCL, so never an existing path), fsync, then
 * rename over the target on success. A failed or interrupted write leaves the target as it was and
 * no temporary behind (SIGINT/SIGTERM/SIGHUP remove it). Nothing is ever unlinked or truncated
 * that this module did not create. */
#ifndef PC_ATOMIC_FILE_H
#define PC_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pc_afile {
    char *path;   /* the target */
    char *tmp;    /* the temporary beside it */
    int fd;
    int slot;     /* index in the signal handler's table */
    bool failed;  /* a write failed: commit refuses */
} pc_afile;

/* Can path be written? Its folder exists and is writable, and path is absent or a regular file
 * (never a directory, link, device or FIFO: those are refused, not replaced). 0, or -1 with *why. */
int pc_afile_check(const char *path, const char **why);
/* true when path (existing) is the same file as other: an --out naming an input. */
bool pc_afile_same(const char *path, const char *other);
bool pc_afile_same_fd(const char *path, int fd);

int pc_afile_open(pc_afile *a, const char *path);              /* 0, or -1 (errno set) */
int pc_afile_write(pc_afile *a, const void *p, size_t n);      /* 0, or -1 */
/* n bytes to fd at offset off (the file position is left alone); 0, or -1. Takes the fd, not the
 * pc_afile, so a writer thread may call it while another thread owns the pc_afile: on a failure the
 * caller aborts instead of committing. */
int pc_afile_pwrite(int fd, const void *p, size_t n, unsigned long long off);
int pc_afile_commit(pc_afile *a);                               /* fsync + rename; 0 or -1 (then aborted) */
void pc_afile_abort(pc_afile *a);                               /* remove the temporary */
/* Whole text to path atomically. */
int pc_afile_put(const char *path, const void *p, size_t n);

#endif
