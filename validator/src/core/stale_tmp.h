/* Temporaries a killed run left behind. atomic_file.c names each temporary
 * ".<target>.packcheck-tmp.<pid>.XXXXXX" beside its target; SIGKILL (or a power cut) gives no
 * chance to remove it, so a 500 MB partial view stays hidden in the folder. A later write into the
 * same folder, or `packcheck gc DIR`, removes every such file whose writer is gone: its pid is not
 * a live process here, it belongs to this user, and it has not changed for PC_STALE_TMP_AGE_S
 * (a writer on another machine sharing the folder, whose pid means nothing here, is still writing). */
#ifndef PC_STALE_TMP_H
#define PC_STALE_TMP_H

#include <stddef.h>

#define PC_TMP_TAG ".packcheck-tmp."
#define PC_STALE_TMP_AGE_S 600

/* Called for each removed file (its path and the pid that wrote it). */
typedef void (*pc_stale_fn)(void *ud, const char *path, long pid);

/* Remove the stale temporaries directly in `dir`. Returns how many were removed, -1 when dir
 * cannot be read. */
long pc_stale_tmp_sweep(const char *dir, pc_stale_fn on_removed, void *ud);

#endif
