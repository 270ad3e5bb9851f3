/* Sharded checkpoints: model.safetensors.index.json's weight_map must name only shards that
 * exist, and every tensor must live in exactly the shard it names (transformers' sharding). */
#include "shard_index.h"

#include "../core/file.h"
#include "../core/util.h"
#include "json_lex.h"
#include "json_report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>


static const char *INDEX_NAME = "model.safetensors.index.json";

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const st_index_entry *)a)->tensor, ((const st_index_entry *)b)->tensor);
}

/* The distinct shard names of weight_map, as an open-addressing hash set (FNV-1a): a million
 * entries over thousands of shards cost one probe each, not a scan of the shards seen so far. */
typedef struct shard_set { const char **slot; size_t mask; } shard_set;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static int shard_set_init(shard_set *h, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2; /* n <= entries of a 64 MiB index: no overflow */
    h->slot = calloc(cap, sizeof *h->slot);
    h->mask = cap - 1;
    return h->slot ? 0 : -1;
}

/* true when s was already in the set; otherwise adds it (the set has room: at most n adds). */
static bool shard_set_seen(shard_set *h, const char *s)
{
    for (size_t i = (size_t)fnv1a(s) & h->mask;; i = (i + 1) & h->mask) {
        if (!h->slot[i]) { h->slot[i] = s; return false; }
        if (!strcmp(h->slot[i], s)) return true;
    }
}

static bool plain_file_name(const char *s)
{
    return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int st_index_load(const char *dir, const char *path, pc_ctx *cx, st_index *ix)
{
    memset(ix, 0, sizeof *ix);
    pc_eval(cx, "ST-030");
    pc_eval(cx, "ST-031");
    size_t len;
    char *text = pc_slurp(path, INDEX_MAX_BYTES, &len);
    if (!text) {
        const char *kind = pc_path_kind(path);
        if (kind && strcmp(kind, "a regular file")) pc_report(cx, "ST-030", INDEX_NAME, -1, "not a regular file (%s)", kind);
        else pc_report(cx, "ST-030", INDEX_NAME, -1, "unreadable or larger than 64 MiB");
        return 0;
    }
    return st_index_parse(dir, text, len, cx, ix);
}

int st_index_parse(const char *dir, char *text, size_t len, pc_ctx *cx, st_index *ix)
{
    memset(ix, 0, sizeof *ix);
    pc_eval(cx, "ST-030");
    pc_eval(cx, "ST-031");
    /* Strict JSON (the header lexer's rules: no BOM, no control bytes, no trailing text). */
    size_t nval, err;
    const char *end = NULL;
    cJSON *root = pc_json_lex_check((const uint8_t *)text, len, &nval, &err) ? cJSON_ParseWithLengthOpts(text, len, &end, 0) : NULL;
    for (const char *q = end; root && q && q < text + len; q++)
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') { cJSON_Delete(root); root = NULL; }
    if (root) pc_json_check_reads(cx, text, len, INDEX_NAME, 0, "ST-030"); /* transformers reads it with json.load */
    free(text);
    const cJSON *wm = root ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    if (!cJSON_IsObject(wm)) {
        pc_report(cx, "ST-030", INDEX_NAME, -1, root ? "no weight_map object" : "not valid JSON");
        cJSON_Delete(root);
        return 0;
    }
    ix->root = root;
    size_t n = (size_t)cJSON_GetArraySize(wm);
    ix->shards = calloc(n ? n : 1, sizeof *ix->shards);
    ix->entries = calloc(n ? n : 1, sizeof *ix->entries);
    shard_set seen = {0};
    if (!ix->shards || !ix->entries || shard_set_init(&seen, n)) { free(seen.slot); return -1; }
    const cJSON *e;
    cJSON_ArrayForEach(e, wm)
        ix->entries[ix->nentries++] = (st_index_entry){e->string, cJSON_IsString(e) ? e->valuestring : NULL};
    pc_sort(ix->entries, ix->nentries, sizeof *ix->entries, cmp_entry);
    /* json.load keeps the last of two equal keys, cJSON the first: a name mapped twice is ambiguous. */
    for (size_t i = 1; i < ix->nentries; i++)
        if (!strcmp(ix->entries[i].tensor, ix->entries[i - 1].tensor))
            pc_report(cx, "ST-030", ix->entries[i].tensor, -1, "weight_map names the tensor twice");
    cJSON_ArrayForEach(e, wm) {
        if (!cJSON_IsString(e)) { pc_report(cx, "ST-030", e->string, -1, "weight_map value is not a string"); continue; }
        const char *s = e->valuestring;
        /* Each distinct name is judged once: a bad shard is one finding, not one per tensor. */
        if (shard_set_seen(&seen, s)) continue;
        if (!plain_file_name(s)) { pc_report(cx, "ST-031", e->string, -1, "shard \"%s\" is not a file name in the folder", s); continue; }
        char *p = pc_path_join(dir, s);
        const char *kind = p ? pc_path_kind(p) : NULL;
        free(p);
        if (!kind) { pc_report(cx, "ST-031", e->string, -1, "shard \"%s\" does not exist", s); continue; }
        if (strcmp(kind, "a regular file")) { pc_report(cx, "ST-031", e->string, -1, "shard \"%s\" is not a regular file (%s)", s, kind); continue; }
        ix->shards[ix->nshards++] = (char *)s; /* borrowed from root */
    }
    free(seen.slot);
    return 0;
}

/* Both lists are in strcmp order (in->tensors by the input, entries by st_index_parse), so each
 * side is matched to the other by one merge walk, not a search per name. */
void st_index_verify(const st_index *ix, const pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "ST-032");
    pc_eval(cx, "ST-033");
    size_t j = 0;
    for (size_t i = 0; i < in->ntensors; i++) {
        const pc_tensor *t = &in->tensors[i];
        int c = 1;
        while (j < ix->nentries && (c = strcmp(ix->entries[j].tensor, t->name)) < 0) j++;
        const st_index_entry *e = j < ix->nentries && c == 0 ? &ix->entries[j] : NULL;
        const char *base = strrchr(t->file->path, '/');
        base = base ? base + 1 : t->file->path;
        if (!e) pc_report(cx, "ST-033", t->name, (int64_t)t->offset, "tensor in %s is missing from weight_map", base);
        else if (e->shard && strcmp(e->shard, base))
            pc_report(cx, "ST-032", t->name, (int64_t)t->offset, "weight_map says %s, tensor is in %s", e->shard, base);
    }
    size_t i = 0;
    for (j = 0; j < ix->nentries; j++) {
        int c = 1;
        while (i < in->ntensors && (c = strcmp(in->tensors[i].name, ix->entries[j].tensor)) < 0) i++;
        if (i == in->ntensors || c != 0)
            pc_report(cx, "ST-032", ix->entries[j].tensor, -1, "weight_map names a tensor that %s does not hold",
                      ix->entries[j].shard ? ix->entries[j].shard : "its shard");
    }
}

void st_index_free(st_index *ix)
{
    cJSON_Delete(ix->root);
    free(ix->shards);
    free(ix->entries);
    memset(ix, 0, sizeof *ix);
}
