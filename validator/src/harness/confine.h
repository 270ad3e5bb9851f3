/* What a reader under `packcheck certify` can see (CONTRACT 5): its own case copy (read), its output
 * folder, a private TMPDIR and HOME (read/write), and the system paths a program needs (read,
 * execute). Never the corpus, never another case's or another run's folders.
 *   landlock   (Linux >= 5.13, any user): the kernel refuses every other path; the reader also
 *              cannot signal or ptrace anything outside its sandbox (which hides certify's
 *              environment), nor leave files in /tmp or /dev/shm (not writable to it).
 *   namespace  (root, no Landlock): a private mount namespace: the corpus is covered by an empty
 *              read-only tmpfs, the run's work folder by a tmpfs holding only this case's folder,
 *              /dev/shm by a private tmpfs freed with the reader.
 *   none       nothing beyond the reader user's file permissions: said in the report and on the log.
 * Readers get a scrubbed environment (confine_env.c) whatever the mode. */
#ifndef PC_CONFINE_H
#define PC_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum pc_isolation { PC_ISO_AUTO, PC_ISO_LANDLOCK, PC_ISO_NAMESPACE, PC_ISO_NONE } pc_isolation;

typedef struct pc_confine {
    pc_isolation mode;  /* resolved: never AUTO */
    int landlock_abi;   /* the kernel's Landlock ABI, 0 = none */
    bool private_ns;    /* root may give each reader a mount namespace and a hidepid /proc (probed) */
    char **read;        /* read+execute: system paths, the reader's own files, --reader-path */
    size_t nread;
    char *corpus;       /* real path of the corpus folder */
    char *work;         /* real path of the run's work folder */
} pc_confine;

/* One reader's places (all under the run's work folder, made by certify). */
typedef struct pc_jail {
    char *dir;          /* the case folder: copy/, out/, tmp/, home/ below it */
    char *copy, *out, *tmp, *home;
    dev_t out_dev;      /* out/ as made: what the reader's output must still be inside */
    ino_t out_ino;
} pc_jail;

/* The kernel's Landlock ABI version, 0 when it has none. */
int pc_landlock_abi(void);
const char *pc_isolation_name(pc_isolation m);
int pc_isolation_parse(const char *s, pc_isolation *m);

/* Resolve the mode (AUTO: landlock, else namespace as root, else none) and the read-only paths:
 * the system folders, each file the reader template names (and its folder, unless that folder
 * holds the corpus), each --reader-path. Refuses (-1, why) a wanted mode the system cannot give and
 * a corpus a reader could read through one of those paths. */
int pc_confine_setup(pc_confine *c, pc_isolation want, const char *tmpl, const char *corpus, const char *work,
                     const char *const *extra, int nextra, char *why, size_t whylen);
void pc_confine_free(pc_confine *c);

/* In the reader's child, in this order: enter (as root, before the privilege drop; namespace mode),
 * prepare (returns a Landlock ruleset descriptor, or -1 with none needed), then after the drop
 * enforce. Each returns -1 with *what naming the step that failed. */
int pc_confine_enter(const pc_confine *c, const pc_jail *j, const char **what);
int pc_confine_prepare(const pc_confine *c, const pc_jail *j, int *ruleset, const char **what);
int pc_confine_enforce(int ruleset, const char **what);

#endif
