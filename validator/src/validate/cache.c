/* The verdict cache (cache.h) on SQLite: one table, one row per key, written in one statement, so
 * several processes (packcheck.scale's tasks) share a file; a busy database is waited for. */
#include "cache.h"

#include "../core/remote.h"
#include "../core/sha256.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void hash_str(pc_sha256 *h, const char *tag, const char *s)
{
    pc_sha256_update(h, tag, strlen(tag) + 1);
    pc_sha256_update(h, s ? s : "", strlen(s ? s : "") + 1);
}

static void hash_json(pc_sha256 *h, const char *tag, const void *j)
{
    char *t = j ? cJSON_PrintUnformatted((const cJSON *)j) : NULL;
    hash_str(h, tag, t ? t : "-");
    free(t);
}

/* One container's identity, "" when it has none worth trusting. */
static bool file_identity(const pc_file *f, char *out, size_t n)
{
    if (f->remote) {
        const char *etag = pc_remote_etag(f->remote);
        if (!etag[0]) return false; /* no ETag: a changed file could not be told from this one */
        snprintf(out, n, "etag:%s:%llu", etag, (unsigned long long)f->size);
        return true;
    }
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st)) return false;
    snprintf(out, n, "stat:%llu:%llu:%llu:%lld.%09ld:%lld.%09ld", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
             (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
             st.st_ctim.tv_nsec);
    return true;
}

char *pc_cache_key(const pc_input *in, const pc_ctx *cx, const char *options)
{
    if (!in || cx->io_error || cx->oom || !in->nfiles) return NULL;
    pc_sha256 h;
    if (pc_sha256_init(&h)) return NULL;
    char id[512], rules[65], hex[65];
    pc_sha256_hex(pc_rules_json(), strlen(pc_rules_json()), rules);
    hash_str(&h, "version", PACKCHECK_VERSION);
    hash_str(&h, "rules", rules);
    snprintf(id, sizeof id, "%d:%u:%llu", in->tier, in->tier == PC_TIER_SAMPLE ? in->sample_blocks : 0,
             in->tier == PC_TIER_SAMPLE ? (unsigned long long)in->sample_seed : 0ull);
    hash_str(&h, "tier", id);
    hash_str(&h, "options", options);
    hash_str(&h, "index", in->index_id);
    hash_json(&h, "config.json", in->config_json);
    for (int i = 0; i < 4; i++) hash_json(&h, "sidecar", in->sidecars[i]);
    bool ok = true;
    for (size_t i = 0; i < in->nfiles && ok; i++) {
        ok = file_identity(&in->files[i], id, sizeof id);
        hash_str(&h, "file", in->files[i].path);
        hash_str(&h, "id", id);
    }
    pc_sha256_final_hex(&h, hex);
    return ok ? pc_strdup(hex) : NULL;
}

#ifdef PC_HAVE_SQLITE
#include <sqlite3.h>

struct pc_cache { sqlite3 *db; };

/* Keys of the report entry that describe one run, not the verdict: never stored. */
static const char *const k_run_keys[] = {"path", "seconds", "bytes_fetched", "requests", "cached", "remote", "error"};

bool pc_cache_available(void) { return true; }

pc_cache *pc_cache_open(const char *path, const char **why)
{
    pc_cache *c = calloc(1, sizeof *c);
    *why = "out of memory";
    if (!c) return NULL;
    if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        static __thread char msg[256];
        snprintf(msg, sizeof msg, "%s", c->db ? sqlite3_errmsg(c->db) : "cannot open");
        *why = msg;
        pc_cache_close(c);
        return NULL;
    }
    sqlite3_busy_timeout(c->db, 30000);
    char *err = NULL;
    /* WAL lets readers and a writer of several processes overlap; switching to it needs a moment
     * alone with the file, so a busy database keeps its mode (still correct, only slower). */
    sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    int rc = SQLITE_BUSY;
    for (int tries = 0; tries < 300 && (rc == SQLITE_BUSY || rc == SQLITE_LOCKED); tries++) {
        sqlite3_free(err);
        err = NULL;
        rc = sqlite3_exec(c->db, "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, version TEXT, tier INTEGER,"
                                 " verdict TEXT, files TEXT, entry TEXT NOT NULL, created INTEGER)", NULL, NULL, &err);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(100);
    }
    if (rc != SQLITE_OK) {
        static __thread char msg[256];
        snprintf(msg, sizeof msg, "%s", err ? err : "cannot create the table");
        sqlite3_free(err);
        *why = msg;
        pc_cache_close(c);
        return NULL;
    }
    return c;
}

void pc_cache_close(pc_cache *c)
{
    if (!c) return;
    sqlite3_close(c->db);
    free(c);
}

cJSON *pc_cache_get(pc_cache *c, const char *key)
{
    sqlite3_stmt *st = NULL;
    cJSON *j = NULL;
    if (sqlite3_prepare_v2(c->db, "SELECT entry FROM verdicts WHERE key = ?", -1, &st, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        j = t ? cJSON_Parse(t) : NULL;
        if (j && !cJSON_IsObject(j)) { cJSON_Delete(j); j = NULL; }
    }
    sqlite3_finalize(st);
    return j;
}

int pc_cache_put(pc_cache *c, const char *key, const pc_input *in, const cJSON *entry)
{
    cJSON *e = cJSON_Duplicate(entry, 1), *files = cJSON_CreateArray();
    if (!e || !files) { cJSON_Delete(e); cJSON_Delete(files); return -1; }
    for (size_t i = 0; i < sizeof k_run_keys / sizeof *k_run_keys; i++) cJSON_DeleteItemFromObjectCaseSensitive(e, k_run_keys[i]);
    for (size_t i = 0; i < in->nfiles; i++) cJSON_AddItemToArray(files, cJSON_CreateString(in->files[i].path));
    char *text = cJSON_PrintUnformatted(e), *ftext = cJSON_PrintUnformatted(files);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, "verdict");
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (text && ftext && sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, strftime('%s','now'))", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, PACKCHECK_VERSION, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, in->tier);
        sqlite3_bind_text(st, 4, cJSON_IsString(v) ? v->valuestring : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, ftext, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(st);
    free(text);
    free(ftext);
    cJSON_Delete(e);
    cJSON_Delete(files);
    return rc;
}

#else /* no SQLite */

bool pc_cache_available(void) { return false; }
pc_cache *pc_cache_open(const char *path, const char **why)
{
    (void)path;
    *why = "this packcheck was built without SQLite (install libsqlite3-dev and rebuild): no verdict cache";
    return NULL;
}
void pc_cache_close(pc_cache *c) { (void)c; }
cJSON *pc_cache_get(pc_cache *c, const char *key) { (void)c; (void)key; return NULL; }
int pc_cache_put(pc_cache *c, const char *key, const pc_input *in, const cJSON *entry) { (void)c; (void)key; (void)in; (void)entry; return -1; }
#endif
