/* Tree removal by descriptor (tree_remove.h). One folder descriptor is held at a time: the walk
 * descends into the first subfolder it finds, climbs back with "..", and re-reads the parent, so
 * depth costs heap for the names, never descriptors or PATH_MAX. Every process that could move
 * things under root (the readers) is dead when this runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tree_remove.h"

#include "../core/util.h"
#include "../report/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct walk {
    char **names;       /* the folders below root we are in */
    size_t depth, cap;
    struct stat *stuck; /* folders that could not be emptied: not entered again */
    size_t nstuck, capstuck;
    long failed;
    const char *root;
    char *why;
    size_t whylen;
} walk;

static void note_failure(walk *w, const char *leaf, int err)
{
    if (w->failed++ || !w->whylen) return;
    pc_sb b = {0};
    pc_sb_puts(&b, w->root);
    for (size_t i = 0; i < w->depth; i++) { pc_sb_puts(&b, "/"); pc_sb_puts(&b, w->names[i]); }
    if (leaf) { pc_sb_puts(&b, "/"); pc_sb_puts(&b, leaf); }
    char *p = pc_sb_take(&b);
    snprintf(w->why, w->whylen, "%s: %s", p ? p : "(path)", strerror(err));
    free(p);
}

static bool is_stuck(const walk *w, const struct stat *sb)
{
    for (size_t i = 0; i < w->nstuck; i++)
        if (w->stuck[i].st_dev == sb->st_dev && w->stuck[i].st_ino == sb->st_ino) return true;
    return false;
}

static void mark_stuck(walk *w, int fd)
{
    struct stat sb;
    if (fstat(fd, &sb)) return;
    if (w->nstuck == w->capstuck) {
        size_t nc = w->capstuck ? w->capstuck * 2 : 16;
        struct stat *ns = realloc(w->stuck, nc * sizeof *ns);
        if (!ns) return;
        w->stuck = ns;
        w->capstuck = nc;
    }
    w->stuck[w->nstuck++] = sb;
}

static int push(walk *w, const char *name)
{
    if (w->depth == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        char **nn = realloc(w->names, nc * sizeof *nn);
        if (!nn) return -1;
        w->names = nn;
        w->cap = nc;
    }
    if (!(w->names[w->depth] = pc_strdup(name))) return -1;
    w->depth++;
    return 0;
}

/* A subfolder opened for the walk (made enterable first when a reader closed it), or -1. */
static int open_sub(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && !fchmodat(dfd, name, 0700, 0)) fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

/* Empty what can be emptied in cur; returns a subfolder to descend into (its name pushed), or -1. */
static int sweep_folder(walk *w, int cur)
{
    fchmod(cur, 0700); /* a folder of a copy is 0555, a reader's may be 000: we need to unlink in it */
    int dfd = dup(cur);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) { if (dfd >= 0) close(dfd); note_failure(w, NULL, errno); return -1; }
    int sub = -1;
    struct dirent *e;
    while (sub < 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat sb;
        if (fstatat(cur, e->d_name, &sb, AT_SYMLINK_NOFOLLOW)) continue;
        if (!S_ISDIR(sb.st_mode)) {
            if (unlinkat(cur, e->d_name, 0) && errno != ENOENT) note_failure(w, e->d_name, errno);
            continue;
        }
        if (is_stuck(w, &sb) || !unlinkat(cur, e->d_name, AT_REMOVEDIR)) continue;
        sub = open_sub(cur, e->d_name);
        if (sub < 0) { note_failure(w, e->d_name, errno); continue; }
        if (push(w, e->d_name)) { close(sub); sub = -1; note_failure(w, e->d_name, ENOMEM); break; }
    }
    closedir(d);
    return sub;
}

long pc_tree_remove(const char *root, char *why, size_t whylen)
{
    walk w = {.root = root, .why = why, .whylen = whylen};
    if (whylen) why[0] = 0;
    int cur = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cur < 0 && errno == EACCES && !chmod(root, 0700)) cur = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cur < 0) {
        if (errno == ENOENT) return 0;
        if ((errno == ENOTDIR || errno == ELOOP) && !unlink(root)) return 0;
        note_failure(&w, NULL, errno);
        return w.failed;
    }
    for (;;) {
        int sub = sweep_folder(&w, cur);
        if (sub >= 0) { close(cur); cur = sub; continue; }
        if (!w.depth) break;
        int parent = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0) { note_failure(&w, NULL, errno); break; }
        char *name = w.names[--w.depth];
        if (unlinkat(parent, name, AT_REMOVEDIR)) { mark_stuck(&w, cur); note_failure(&w, name, errno); }
        free(name);
        close(cur);
        cur = parent;
    }
    close(cur);
    if (rmdir(root) && errno != ENOENT && !w.failed) note_failure(&w, NULL, errno);
    while (w.depth) free(w.names[--w.depth]);
    free(w.names);
    free(w.stuck);
    return w.failed;
}
