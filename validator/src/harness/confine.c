/* Confinement of a reader (confine.h). Landlock is used through its system calls (no library);
 * each right is requested only when the kernel's ABI knows it, so an older kernel confines with what
 * it has instead of refusing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine.h"

#include "../core/util.h"
#include "../report/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* The kernel's Landlock interface (include/uapi/linux/landlock.h), spelled here so that the build
 * does not depend on how new the installed kernel headers are. */
struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_ABI1_ALL ((1ull << 13) - 1) /* EXECUTE .. MAKE_SYM */
#define LL_FS_REFER (1ull << 13)          /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)       /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)      /* ABI 5 */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ull << 1)               /* ABI 6 */

#define LL_READ_TREE (LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_EXECUTE)
#define LL_READ_ONE_FILE (LL_FS_READ_FILE | LL_FS_EXECUTE)

/* What every program may read and run: the system's own folders. The corpus must not be under one. */
static const char *const k_system_read[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys"};
/* Devices a program opens for reading and writing (a shell's `>/dev/null`). */
static const char *const k_devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"};

int pc_landlock_abi(void)
{
    long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
}

const char *pc_isolation_name(pc_isolation m)
{
    return m == PC_ISO_LANDLOCK ? "landlock" : m == PC_ISO_NAMESPACE ? "namespace" : m == PC_ISO_NONE ? "none" : "auto";
}

int pc_isolation_parse(const char *s, pc_isolation *m)
{
    static const pc_isolation all[] = {PC_ISO_AUTO, PC_ISO_LANDLOCK, PC_ISO_NAMESPACE, PC_ISO_NONE};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (!strcmp(s, pc_isolation_name(all[i]))) { *m = all[i]; return 0; }
    return -1;
}

/* Is p the folder d or below it? (both real paths) */
static bool under(const char *p, const char *d)
{
    size_t n = strlen(d);
    if (n == 1 && d[0] == '/') return true;
    return !strncmp(p, d, n) && (p[n] == 0 || p[n] == '/');
}

static int add_read(pc_confine *c, const char *real)
{
    for (size_t i = 0; i < c->nread; i++)
        if (!strcmp(c->read[i], real)) return 0;
    char **nr = realloc(c->read, (c->nread + 1) * sizeof *nr);
    if (!nr) return -1;
    c->read = nr;
    if (!(c->read[c->nread] = pc_strdup(real))) return -1;
    c->nread++;
    return 0;
}

/* A word of the template naming a program or a file (a script, a build's binary): its path as
 * written (bare names looked up on PATH as the shell would), or NULL when it names no regular file. */
static char *file_named(const char *word)
{
    if (!*word || strchr(word, '{')) return NULL;
    char *cand = NULL;
    if (strchr(word, '/')) cand = pc_strdup(word);
    else {
        const char *path = getenv("PATH");
        for (const char *p = path ? path : ""; *p && !cand;) {
            size_t n = strcspn(p, ":");
            char *t = pc_asprintf("%.*s/%s", (int)n, p, word);
            if (t && access(t, X_OK) == 0) cand = t; else free(t);
            p += n + (p[n] == ':');
        }
    }
    struct stat sb;
    if (cand && (stat(cand, &sb) || !S_ISREG(sb.st_mode))) { free(cand); cand = NULL; }
    return cand;
}

/* Everything under `dir` but the corpus: each entry of dir that is not on the way to the corpus, and
 * the same one level down along that way (Landlock only allows: a venv that holds the installed
 * corpus, share/packcheck/fixtures, stays usable as the reader's runtime, its answers not). */
static int add_read_around(pc_confine *c, const char *dir, unsigned depth)
{
    DIR *d = depth < 64 ? opendir(dir) : NULL;
    if (!d) return 0;
    int rc = 0;
    size_t n = 0;
    for (struct dirent *e; !rc && (e = readdir(d)) && n < 4096; n++) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *child = pc_asprintf("%s/%s", dir, e->d_name);
        if (!child) { rc = -1; break; }
        if (under(child, c->corpus)) ; /* the corpus itself */
        else if (under(c->corpus, child)) rc = add_read_around(c, child, depth + 1);
        else rc = add_read(c, child);
        free(child);
    }
    closedir(d);
    return rc;
}

/* Readable unless it lies in the corpus; a folder holding the corpus is readable around it. */
static int add_read_apart(pc_confine *c, const char *path)
{
    char *real = realpath(path, NULL);
    int rc = 0;
    if (real && !under(real, c->corpus)) rc = under(c->corpus, real) ? add_read_around(c, real, 0) : add_read(c, real);
    free(real);
    return rc;
}

/* The file, its folder, and when that folder is a bin/ the installation above it (a venv's
 * site-packages, an interpreter's library): once for the path as written, once for its target. */
static int add_program(pc_confine *c, const char *path)
{
    int rc = add_read_apart(c, path);
    char *dir = pc_strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash && slash != dir) {
        *slash = 0;
        rc |= add_read_apart(c, dir);
        char *up = strrchr(dir, '/');
        if (up && !strcmp(up + 1, "bin") && up != dir) { *up = 0; rc |= add_read_apart(c, dir); }
    }
    free(dir);
    return rc;
}

/* Each file the template names, readable and executable, with its folder (a script's siblings) and
 * installation, none of them holding the corpus. */
static int add_template_files(pc_confine *c, const char *tmpl)
{
    char *t = pc_strdup(tmpl);
    if (!t) return -1;
    for (char *p = t; *p; p++)
        if (*p == '\'' || *p == '"') *p = ' '; /* quotes only group words here */
    int rc = 0;
    for (char *save = NULL, *w = strtok_r(t, " \t\n;|&()<>=", &save); w && !rc; w = strtok_r(NULL, " \t\n;|&()<>=", &save)) {
        char *named = file_named(w);
        if (!named) continue;
        char *real = realpath(named, NULL);
        rc = add_program(c, named) | (real ? add_program(c, real) : 0);
        free(real);
        free(named);
    }
    free(t);
    return rc;
}

/* Can a reader get a mount namespace of its own with a hidepid /proc? Tried in a child (its
 * namespace dies with it): root in a container without CAP_SYS_ADMIN cannot. */
static bool namespace_works(void)
{
    if (geteuid() != 0) return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        bool ok = !unshare(CLONE_NEWNS) && !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
                  !mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible");
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static pc_isolation resolve_mode(pc_isolation want, int abi, bool ns, char *why, size_t whylen)
{
    if (want == PC_ISO_AUTO) return abi ? PC_ISO_LANDLOCK : ns ? PC_ISO_NAMESPACE : PC_ISO_NONE;
    if (want == PC_ISO_LANDLOCK && !abi) { snprintf(why, whylen, "--isolation landlock: this kernel has no Landlock"); return PC_ISO_AUTO; }
    if (want == PC_ISO_NAMESPACE && !ns) {
        snprintf(why, whylen, "--isolation namespace needs root allowed to make a mount namespace and a hidepid /proc (Linux 5.8+)");
        return PC_ISO_AUTO;
    }
    return want;
}

int pc_confine_setup(pc_confine *c, pc_isolation want, const char *tmpl, const char *corpus, const char *work,
                     const char *const *extra, int nextra, char *why, size_t whylen)
{
    memset(c, 0, sizeof *c);
    c->landlock_abi = pc_landlock_abi();
    c->private_ns = want != PC_ISO_NONE && namespace_works();
    c->mode = resolve_mode(want, c->landlock_abi, c->private_ns, why, whylen);
    if (c->mode == PC_ISO_AUTO) return -1;
    c->corpus = realpath(corpus, NULL);
    c->work = realpath(work, NULL);
    if (!c->corpus || !c->work) { snprintf(why, whylen, "cannot resolve %s", c->corpus ? work : corpus); return -1; }
    if (c->mode != PC_ISO_LANDLOCK) return 0;
    for (size_t i = 0; i < sizeof k_system_read / sizeof *k_system_read; i++) {
        char *real = realpath(k_system_read[i], NULL);
        if (real && add_read(c, real)) { free(real); return -1; }
        free(real);
    }
    if (add_template_files(c, tmpl)) { snprintf(why, whylen, "out of memory"); return -1; }
    for (int i = 0; i < nextra; i++) {
        char *real = realpath(extra[i], NULL);
        if (!real) { snprintf(why, whylen, "--reader-path %s: %s", extra[i], strerror(errno)); return -1; }
        int rc = add_read(c, real);
        free(real);
        if (rc) { snprintf(why, whylen, "out of memory"); return -1; }
    }
    for (size_t i = 0; i < c->nread; i++)
        if (under(c->corpus, c->read[i]) || under(c->read[i], c->corpus)) {
            snprintf(why, whylen, "the corpus %s and %s, which readers may read, overlap: a reader could read the answers", c->corpus, c->read[i]);
            return -1;
        }
    return 0;
}

void pc_confine_free(pc_confine *c)
{
    for (size_t i = 0; i < c->nread; i++) free(c->read[i]);
    free(c->read);
    free(c->corpus);
    free(c->work);
    memset(c, 0, sizeof *c);
}

/* ---- namespace mode (root, in the reader's child before it drops privileges) ---- */

/* As root, in the reader's own mount namespace: a /proc that shows only what the reader may ptrace
 * (hidepid=invisible: not certify, not its parents, not another sandbox's readers), and in
 * namespace mode the covers described in confine.h. */
static int private_proc(void)
{
    /* "invisible" is spelled only by kernels (5.8+) where each proc mount has its own options: an
     * older kernel refuses it instead of changing the host's /proc. */
    return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible");
}

static int cover_work(const pc_confine *c, const pc_jail *j)
{
    /* Opened inside the new namespace (a descriptor from the old one cannot be bound here), before
     * the tmpfs covers it. */
    int jfd = open(j->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (jfd < 0) return -1;
    const unsigned long quiet = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    const char *leaf = strrchr(j->dir, '/');
    char *back = pc_asprintf("%s%s", c->work, leaf ? leaf : "/case");
    char src[64];
    snprintf(src, sizeof src, "/proc/self/fd/%d", jfd);
    int rc = back && !mount("pc-work", c->work, "tmpfs", quiet, "size=4k,mode=0711") && !mkdir(back, 0711) &&
             !mount(src, back, NULL, MS_BIND | MS_REC, NULL) ? 0 : -1;
    free(back);
    close(jfd);
    return rc;
}

int pc_confine_enter(const pc_confine *c, const pc_jail *j, const char **what)
{
    if (c->mode == PC_ISO_NONE || !c->private_ns) return 0;
    const unsigned long quiet = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    if (unshare(CLONE_NEWNS)) return *what = "unshare(CLONE_NEWNS)", -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return *what = "making the mount namespace private", -1;
    if (cover_work(c, j)) return *what = "covering the work folder", -1; /* before /proc: binds through /proc/self/fd */
    if (private_proc()) return *what = "mounting a /proc with hidepid=invisible", -1;
    if (c->mode != PC_ISO_NAMESPACE) return 0;
    if (mount("pc-hidden", c->corpus, "tmpfs", MS_RDONLY | quiet, "size=4k,mode=0555")) return *what = "covering the corpus", -1;
    if (mount("pc-shm", "/dev/shm", "tmpfs", quiet, "size=256m,mode=1777")) return *what = "a private /dev/shm", -1;
    return 0;
}

/* ---- landlock mode ---- */

static uint64_t handled_fs(int abi)
{
    uint64_t h = LL_FS_ABI1_ALL;
    if (abi >= 2) h |= LL_FS_REFER;
    if (abi >= 3) h |= LL_FS_TRUNCATE;
    if (abi >= 5) h |= LL_FS_IOCTL_DEV;
    return h;
}

/* Allow `access` beneath path (a file gets only the file rights of it). Absent paths are skipped. */
static int allow(int rs, const char *path, uint64_t access, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat sb;
    int rc = fstat(fd, &sb);
    if (!rc) {
        uint64_t file_rights = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
        if (!S_ISDIR(sb.st_mode)) access &= file_rights;
        struct ll_path_beneath pb = {access & handled, fd};
        rc = syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0) ? -1 : 0;
    }
    close(fd);
    return rc;
}

int pc_confine_prepare(const pc_confine *c, const pc_jail *j, int *ruleset, const char **what)
{
    *ruleset = -1;
    if (c->mode != PC_ISO_LANDLOCK) return 0;
    uint64_t h = handled_fs(c->landlock_abi);
    struct ll_ruleset_attr attr = {.handled_access_fs = h};
    size_t size = 8; /* ABI 1-3: handled_access_fs only; 4-5 add net; 6 adds scopes */
    if (c->landlock_abi >= 6) { attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL; size = sizeof attr; }
    int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0) return *what = "landlock_create_ruleset", -1;
    bool ok = true;
    for (size_t i = 0; i < c->nread && ok; i++) ok = !allow(rs, c->read[i], LL_READ_TREE, h);
    for (size_t i = 0; i < sizeof k_devices / sizeof *k_devices && ok; i++)
        ok = !allow(rs, k_devices[i], LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV, h);
    ok = ok && !allow(rs, j->copy, LL_FS_READ_FILE | LL_FS_READ_DIR, h);
    ok = ok && !allow(rs, j->out, h, h) && !allow(rs, j->tmp, h, h) && !allow(rs, j->home, h, h);
    if (!ok) { close(rs); return *what = "landlock_add_rule", -1; }
    *ruleset = rs;
    return 0;
}

int pc_confine_enforce(int ruleset, const char **what)
{
    if (ruleset < 0) return 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return *what = "PR_SET_NO_NEW_PRIVS", -1;
    if (syscall(__NR_landlock_restrict_self, ruleset, 0)) return *what = "landlock_restrict_self", -1;
    close(ruleset);
    return 0;
}
