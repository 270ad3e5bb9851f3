/* The verdict cache (validate --cache FILE): one input's report entry, keyed by what decides it, in
 * SQLite, so a second run over unchanged files reads only their headers (remote: the one request
 * that opens each file and gives its ETag) and no tensor data. Built without SQLite, --cache is a
 * usage error saying so. */
#ifndef PC_VALIDATE_CACHE_H
#define PC_VALIDATE_CACHE_H

#include "packcheck_internal.h"

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct pc_cache pc_cache;

bool pc_cache_available(void);
/* NULL with *why (static text or sqlite's) when the file cannot be opened or created. */
pc_cache *pc_cache_open(const char *path, const char **why);
void pc_cache_close(pc_cache *c);

/* The key of an opened input: SHA-256 over each container's identity (a remote file's ETag and
 * size: the Hub's ETag of an LFS file is its content digest; a local file's st_dev, st_ino, size and
 * change times) and the configs and index as read, the packcheck version, the rule catalogue's
 * digest, the tier (with the sample size and seed) and `options` (profile, rule selection).
 * NULL when the input cannot be keyed: unreadable, or a remote file without an ETag. */
char *pc_cache_key(const pc_input *in, const pc_ctx *cx, const char *options);
/* The entry stored under key (caller deletes), or NULL. */
cJSON *pc_cache_get(pc_cache *c, const char *key);
/* Store an entry (the per-input report object); its run-specific keys are dropped first. */
int pc_cache_put(pc_cache *c, const char *key, const pc_input *in, const cJSON *entry);
#endif
