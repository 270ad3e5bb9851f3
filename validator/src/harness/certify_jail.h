/* One reader's folders and environment under `packcheck certify`, and what is checked after it
 * ran: where its output came from, what it left in the shared temporary folders. */
#ifndef PC_CERTIFY_JAIL_H
#define PC_CERTIFY_JAIL_H

#include "confine.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* A fresh, unguessable folder under work (mkdtemp) holding out/, tmp/ and home/, handed to the
 * reader user when drop is set; copy/ is named, not made (case_copy.h makes it). -1 with why. */
int pc_jail_make(pc_jail *j, const char *work, bool drop, uid_t uid, gid_t gid, char *why, size_t whylen);
void pc_jail_free(pc_jail *j);

/* The reader's whole environment: PATH (certify's), HOME and TMPDIR (its own folders), LANG=C, and
 * each allowed NAME (certify's value) or NAME=VALUE. NULL when out of memory. */
char **pc_jail_env(const pc_jail *j, const char *const *allow, int nallow);
void pc_jail_env_free(char **env);

/* The output `name` in out/: 0 when it is a regular file with one link, owned by uid, inside the
 * out/ folder certify made (not moved, not replaced); 1 when absent; -1 (why) otherwise. */
int pc_jail_check_output(const pc_jail *j, const char *name, uid_t uid, char *why, size_t whylen);

/* Remove what uid created directly under dir (/tmp, /dev/shm) since `since`: the files a reader
 * that could write there left behind. Returns how many entries were removed; the first one that
 * could not be is printed to log. */
long pc_sweep_leftovers(const char *dir, uid_t uid, time_t since, FILE *log);

#endif
