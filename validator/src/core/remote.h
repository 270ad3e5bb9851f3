/* Remote inputs: a checkpoint named by URL is read with HTTP range requests behind the same pc_file
 * reads a local file gets (core/file.c dispatches), so every rule runs unchanged on it.
 *
 * Accepted forms: http://..., https://..., and hf://ORG/REPO[@REVISION][/FILE], resolved to the
 * Hub's file URLs {endpoint}/ORG/REPO/resolve/{REVISION}/{FILE} (endpoint from HF_ENDPOINT, else
 * https://huggingface.co; REVISION defaults to main).
 *
 * Built with libcurl when it was found (PC_HAVE_CURL); without it every remote call fails with a
 * message saying so, and local inputs are unaffected. */
#ifndef PC_REMOTE_H
#define PC_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pc_remote pc_remote;

/* True for http://, https:// and hf:// names (nothing is contacted). */
bool pc_is_url(const char *path);
/* True when this build can read URLs. */
bool pc_remote_available(void);
/* The http(s) URL an input names (hf:// resolved; a bare hf://ORG/REPO ends in '/'): malloc'd,
 * NULL when out of memory or the hf:// name is malformed. */
char *pc_url_resolve(const char *name);
/* A URL naming a folder (ends in '/'). */
bool pc_url_is_folder(const char *url);

/* Open url for range reads: one request fetches its first bytes, its size (Content-Range) and
 * its ETag. NULL with *why (static or in a thread-local buffer) when it fails. */
pc_remote *pc_remote_open(const char *url, uint64_t *size, const char **why);
/* Read exactly len bytes at off; -1 on any failure (the reason: pc_remote_failure()). Thread-safe. */
int pc_remote_read(pc_remote *r, uint64_t off, void *buf, size_t len);
void pc_remote_close(pc_remote *r);
/* The ETag the server gave (stable while the file is unchanged), "" when none. */
const char *pc_remote_etag(const pc_remote *r);

/* GET a small whole file (configs, the shard index): NUL-terminated text, or NULL. *absent is set
 * when the server said 404/410 (the file is not there), else a NULL result is a failure. */
char *pc_remote_slurp(const char *url, size_t limit, size_t *len, bool *absent);

/* What this process fetched so far (all remote files and sidecars): bytes of bodies and requests. */
void pc_remote_stats(uint64_t *bytes, uint64_t *requests);
/* The first remote failure since the last reset ("URL: what went wrong"), "" when none; appended to
 * the input's I/O error message so the report says which URL failed and how. */
const char *pc_remote_failure(void);
void pc_remote_failure_reset(void);
/* The same without its "URL: " prefix. */
const char *pc_remote_failure_what(void);

#endif
