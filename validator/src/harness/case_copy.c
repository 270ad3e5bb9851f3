/* Private, verified copies of corpus cases (case_copy.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "case_copy.h"

#include "../core/sha256.h"
#include "../core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 16      /* a case folder is shallow (equiv pairs: one level of sub-folders) */
#define MAX_ENTRIES 4096  /* per case */
#define IO_CHUNK (1u << 20)

static void say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISLNK(m) ? "a symlink" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a folder" : "not a regular file";
}

/* Open a regular file for reading: never follows a symlink, never blocks on a FIFO. */
static int open_regular(const char *path, struct stat *st, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat ls;
        if (errno == ELOOP && lstat(path, &ls) == 0) say(why, whylen, "%s is %s", path, kind_of(ls.st_mode));
        else say(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
        say(why, whylen, "%s is %s", path, kind_of(st->st_mode));
        close(fd);
        return -1;
    }
    return fd;
}

/* Hash fd to its end, writing a copy to out_fd when >= 0. */
static int hash_fd(int fd, int out_fd, char hex[65])
{
    pc_sha256 h;
    char *buf = malloc(IO_CHUNK);
    if (!buf || pc_sha256_init(&h)) { free(buf); return -1; }
    int rc = 0;
    for (;;) {
        ssize_t k = read(fd, buf, IO_CHUNK);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) { rc = -1; break; }
        if (k == 0) break;
        pc_sha256_update(&h, buf, (size_t)k);
        for (ssize_t off = 0; out_fd >= 0 && off < k;) {
            ssize_t w = write(out_fd, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) { rc = -1; break; }
            off += w;
        }
        if (rc) break;
    }
    pc_sha256_final_hex(&h, hex);
    free(buf);
    return rc;
}

int pc_hash_regular(const char *path, char hex[65], char *why, size_t whylen)
{
    struct stat st;
    int fd = open_regular(path, &st, why, whylen);
    if (fd < 0) return -1;
    int rc = hash_fd(fd, -1, hex);
    close(fd);
    if (rc) say(why, whylen, "%s: read error", path);
    return rc;
}

static int add_entry(pc_case_copy *cc, const char *rel, bool dir, const char *hex)
{
    if (cc->n >= MAX_ENTRIES) return -1;
    pc_copy_entry *ne = realloc(cc->e, (cc->n + 1) * sizeof *ne);
    if (!ne) return -1;
    cc->e = ne;
    pc_copy_entry *e = &cc->e[cc->n];
    e->rel = pc_strdup(rel);
    e->dir = dir;
    snprintf(e->sha256, sizeof e->sha256, "%s", hex ? hex : "");
    if (!e->rel) return -1;
    cc->n++;
    return 0;
}

static int copy_file(const char *from, const char *to, char hex[65], char *why, size_t whylen)
{
    struct stat st;
    int in = open_regular(from, &st, why, whylen);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = out < 0 ? -1 : hash_fd(in, out, hex);
    if (out >= 0 && (fchmod(out, 0444) || close(out))) rc = -1;
    close(in);
    if (rc) say(why, whylen, "cannot copy %s to %s: %s", from, to, strerror(errno));
    return rc;
}

static int copy_tree(pc_case_copy *cc, const char *src, const char *dst, const char *rel, const char *skip, int depth, char *why, size_t whylen)
{
    if (depth > MAX_DEPTH) { say(why, whylen, "%s: folders nested deeper than %d", src, MAX_DEPTH); return -1; }
    if (mkdir(dst, 0700)) { say(why, whylen, "cannot create %s: %s", dst, strerror(errno)); return -1; }
    DIR *d = opendir(src);
    if (!d) { say(why, whylen, "%s: %s", src, strerror(errno)); return -1; }
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (depth == 0 && skip && !strcmp(de->d_name, skip)) continue;
        char *s = pc_path_join(src, de->d_name), *t = pc_path_join(dst, de->d_name);
        char *r = *rel ? pc_asprintf("%s/%s", rel, de->d_name) : pc_strdup(de->d_name);
        struct stat st;
        char hex[65];
        if (!s || !t || !r) rc = -1;
        else if (lstat(s, &st)) { say(why, whylen, "%s: %s", s, strerror(errno)); rc = -1; }
        else if (S_ISDIR(st.st_mode)) rc = add_entry(cc, r, true, NULL) || copy_tree(cc, s, t, r, skip, depth + 1, why, whylen);
        else rc = copy_file(s, t, hex, why, whylen) || add_entry(cc, r, false, hex);
        free(s); free(t); free(r);
    }
    closedir(d);
    if (!rc && chmod(dst, 0555)) rc = -1;
    return rc;
}

int pc_case_copy_make(const char *src, const char *dst, const char *skip, pc_case_copy *cc, char *why, size_t whylen)
{
    memset(cc, 0, sizeof *cc);
    cc->root = pc_strdup(dst);
    if (!cc->root) return -1;
    *why = 0;
    int rc = copy_tree(cc, src, dst, "", skip, 0, why, whylen);
    if (rc && !*why) say(why, whylen, "cannot copy %s (out of memory or too many files)", src);
    return rc;
}

/* ---- after the reader ---- */

typedef struct verify_walk { const pc_case_copy *cc; bool *seen; char *why; size_t whylen; int changed; } verify_walk;

static const pc_copy_entry *find_entry(const pc_case_copy *cc, const char *rel, size_t *idx)
{
    for (size_t i = 0; i < cc->n; i++)
        if (!strcmp(cc->e[i].rel, rel)) { *idx = i; return &cc->e[i]; }
    return NULL;
}

static int verify_tree(verify_walk *w, const char *dir, const char *rel, int depth)
{
    if (depth > MAX_DEPTH) { say(w->why, w->whylen, "%s: nested deeper than the copy was", rel); w->changed = 1; return 0; }
    DIR *d = opendir(dir);
    if (!d) { say(w->why, w->whylen, "%s: unreadable now", *rel ? rel : "the case folder"); w->changed = 1; return 0; }
    struct dirent *de;
    int rc = 0;
    while (!rc && !w->changed && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *p = pc_path_join(dir, de->d_name);
        char *r = *rel ? pc_asprintf("%s/%s", rel, de->d_name) : pc_strdup(de->d_name);
        size_t idx;
        const pc_copy_entry *e = r ? find_entry(w->cc, r, &idx) : NULL;
        struct stat st;
        char hex[65], why[300];
        if (!p || !r) rc = -1;
        else if (!e) { say(w->why, w->whylen, "%s was added", r); w->changed = 1; }
        else if (lstat(p, &st)) { say(w->why, w->whylen, "%s: %s", r, strerror(errno)); w->changed = 1; }
        else if (e->dir != S_ISDIR(st.st_mode)) { say(w->why, w->whylen, "%s is %s now", r, kind_of(st.st_mode)); w->changed = 1; }
        else if (e->dir) { w->seen[idx] = true; rc = verify_tree(w, p, r, depth + 1); }
        else if (pc_hash_regular(p, hex, why, sizeof why)) { say(w->why, w->whylen, "%s is %s now", r, S_ISREG(st.st_mode) ? "unreadable" : kind_of(st.st_mode)); w->changed = 1; }
        else if (strcmp(hex, e->sha256)) { say(w->why, w->whylen, "%s was modified (sha256 %.16s..., copied as %.16s...)", r, hex, e->sha256); w->changed = 1; }
        else w->seen[idx] = true;
        free(p); free(r);
    }
    closedir(d);
    return rc;
}

int pc_case_copy_verify(const pc_case_copy *cc, char *why, size_t whylen)
{
    verify_walk w = {cc, calloc(cc->n + 1, sizeof(bool)), why, whylen, 0};
    if (!w.seen) return -1;
    *why = 0;
    struct stat st;
    int rc = 0;
    if (lstat(cc->root, &st) || !S_ISDIR(st.st_mode)) { say(why, whylen, "the case folder was removed or replaced"); w.changed = 1; }
    else rc = verify_tree(&w, cc->root, "", 0);
    for (size_t i = 0; !rc && !w.changed && i < cc->n; i++)
        if (!w.seen[i]) { say(why, whylen, "%s was removed", cc->e[i].rel); w.changed = 1; }
    free(w.seen);
    return rc ? -1 : w.changed;
}

void pc_case_copy_free(pc_case_copy *cc)
{
    for (size_t i = 0; i < cc->n; i++) free(cc->e[i].rel);
    free(cc->e);
    free(cc->root);
    memset(cc, 0, sizeof *cc);
}

/* ---- whole trees ---- */

static char *g_nonreg; /* nftw has no user pointer */

static int check_entry(const char *p, const struct stat *st, int type, struct FTW *f)
{
    (void)f;
    if (type == FTW_D || type == FTW_DP || (type == FTW_F && S_ISREG(st->st_mode))) return 0;
    g_nonreg = pc_asprintf("%s is %s", p, type == FTW_SL || type == FTW_SLN ? "a symlink" : type == FTW_F ? kind_of(st->st_mode) : "unreadable");
    return 1;
}

int pc_tree_regular_only(const char *dir, char *why, size_t whylen)
{
    g_nonreg = NULL;
    int rc = nftw(dir, check_entry, 16, FTW_PHYS);
    if (rc == 0) return 0;
    say(why, whylen, "%s", g_nonreg ? g_nonreg : "cannot walk the corpus");
    free(g_nonreg);
    g_nonreg = NULL;
    return -1;
}
