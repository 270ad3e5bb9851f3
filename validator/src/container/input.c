/* Opening an INPUT: a .safetensors file, a .gguf file, or a checkpoint folder (CONTRACT 1).
 * Reads every container's header and the sidecar configs; never reads tensor data. */
#include "gguf.h"
#include "shard_index.h"

#include "../core/file.h"
#include "../core/remote.h"
#include "../core/pagebuf.h"
#include "../core/util.h"
#include "../core/scan.h"
#include "../core/sha256.h"
#include "json_report.h"
#include "link_policy.h"
#include "safetensors.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIDECAR_MAX_BYTES (16u << 20)
#define MAX_SHARDS 4096

/* Sidecar slots in pc_input.sidecars, in the order a quantization config is looked for after
 * config.json's quantization_config (AutoGPTQ's loader order, FORMATS.md 1.2). */
static const char *const k_sidecars[] = {"quantize_config.json", "quant_config.json", "hf_quant_config.json"};
enum { SIDECAR_OVERRIDE = 3 };

static int cmp_tensor(const void *a, const void *b)
{
    return strcmp(((const pc_tensor *)a)->name, ((const pc_tensor *)b)->name);
}

static void sort_tensors(pc_input *in) { pc_sort(in->tensors, in->ntensors, sizeof *in->tensors, cmp_tensor); }

/* Where the last search ended, this thread: the next one usually looks near it (a module's parts
 * sit together in name order, and the accounting walks the tensors in that order). A hint only: any
 * value gives the right answer. */
static _Thread_local size_t g_hint;

/* Is tensor i's name below key (+ key2)? Without key2, a name starting with key is not below it. */
static bool below(const pc_input *in, size_t i, const char *key, size_t klen, const char *key2)
{
    const char *n = in->tensors[i].name;
    int c = strncmp(n, key, klen);
    if (!c && key2) c = strcmp(n + klen, key2);
    return c < 0;
}

/* Index of the first tensor whose name is not below key (names are sorted by strcmp): galloping out
 * from the hint (2 log d compares for an answer d places away), then a binary search. */
static size_t lower_bound(const pc_input *in, const char *key, size_t klen, const char *key2)
{
    size_t n = in->ntensors, lo, hi, h = g_hint < n ? g_hint : n / 2;
    if (!n) return 0;
    if (below(in, h, key, klen, key2)) { /* the answer is in (h, n] */
        size_t step = 1;
        lo = h + 1;
        hi = h + 1;
        while (hi < n && below(in, hi, key, klen, key2)) { lo = hi + 1; hi = step < n - hi ? hi + step : n; step *= 2; }
    } else { /* in [0, h] */
        size_t step = 1;
        hi = h;
        lo = h;
        while (lo > 0 && !below(in, lo - 1, key, klen, key2)) { hi = lo - 1; lo = step < lo ? lo - step : 0; step *= 2; }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (below(in, mid, key, klen, key2)) lo = mid + 1;
        else hi = mid;
    }
    g_hint = lo;
    return lo;
}

const pc_tensor *pc_input_find(const pc_input *in, const char *name) { return pc_input_find_part(in, name, ""); }

const pc_tensor *pc_input_find_part(const pc_input *in, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix), i = lower_bound(in, prefix, lp, suffix);
    if (i == in->ntensors) return NULL;
    const char *n = in->tensors[i].name;
    return !strncmp(n, prefix, lp) && !strcmp(n + lp, suffix) ? &in->tensors[i] : NULL;
}

size_t pc_input_prefixed(const pc_input *in, const char *prefix, size_t *first)
{
    size_t lp = strlen(prefix), i = lower_bound(in, prefix, lp, NULL), n = 0;
    *first = i;
    while (i + n < in->ntensors && !strncmp(in->tensors[i + n].name, prefix, lp)) n++;
    return n;
}

bool pc_input_prefix_shared(const pc_input *in, const char *prefix)
{
    size_t lp = strlen(prefix), i = lower_bound(in, prefix, lp, NULL);
    return i + 1 < in->ntensors && !strncmp(in->tensors[i + 1].name, prefix, lp);
}

const char *pc_input_qconfig_str(const pc_input *in, const char *key)
{
    const cJSON *v = in->qconfig ? cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int pc_tensor_read(const pc_tensor *t, uint64_t off, void *buf, size_t len)
{
    if (off > t->nbytes || len > t->nbytes - off) return -1;
    return pc_file_read(t->file, t->offset + off, buf, len);
}

void *pc_tensor_load(const pc_tensor *t, uint64_t limit)
{
    if (t->nbytes > limit || t->nbytes > SIZE_MAX - 1) return NULL;
    void *p = pc_page_alloc((size_t)t->nbytes);
    if (p && pc_tensor_read(t, 0, p, (size_t)t->nbytes)) { free(p); return NULL; }
    return p;
}

/* 1-based line and column of byte `at` in text, for a config syntax error. */
static void line_col(const char *text, size_t at, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') { (*line)++; *col = 1; }
        else (*col)++;
    }
}

static cJSON *parse_json(char *text, size_t len, const char *label, pc_ctx *cx);

static cJSON *load_json(const char *path, const char *label, pc_ctx *cx)
{
    pc_eval(cx, "CFG-001");
    size_t len;
    char *text = pc_slurp(path, SIDECAR_MAX_BYTES, &len);
    if (!text) {
        const char *kind = pc_path_kind(path);
        if (kind && strcmp(kind, "a regular file")) pc_report(cx, "CFG-001", label, -1, "%s is not a regular file (%s)", label, kind);
        else pc_report(cx, "CFG-001", label, -1, "%s is unreadable or larger than 16 MiB", label);
        return NULL;
    }
    return parse_json(text, len, label, cx);
}

/* A sidecar beside a remote input: absent (404) is as a missing file; a failed fetch is an I/O
 * error (the input could not be read), never a CFG finding about bytes that did not arrive. */
static cJSON *load_json_remote(const char *url, const char *label, pc_ctx *cx)
{
    size_t len;
    bool absent;
    char *text = pc_remote_slurp(url, SIDECAR_MAX_BYTES, &len, &absent);
    if (!text) {
        if (!absent) pc_io_error(cx, "%s: cannot fetch", url);
        return NULL;
    }
    pc_eval(cx, "CFG-001");
    return parse_json(text, len, label, cx);
}

/* Parses and frees text: one JSON object, else a CFG-001 finding. */
static cJSON *parse_json(char *text, size_t len, const char *label, pc_ctx *cx)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    /* "One JSON object": text after it (a second object, garbage) is an error, as in json.loads. */
    for (const char *q = end; j && q && q < text + len; q++)
        if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') { cJSON_Delete(j); j = NULL; }
    if (!j && end && end >= text && end <= text + len) {
        size_t line, col;
        line_col(text, (size_t)(end - text), &line, &col);
        pc_report(cx, "CFG-001", label, (int64_t)(end - text), "%s is not valid JSON: syntax error at line %zu, column %zu", label, line, col);
    } else if (!cJSON_IsObject(j)) {
        pc_report(cx, "CFG-001", label, -1, "%s is not one JSON object", label);
        cJSON_Delete(j);
        j = NULL;
    }
    /* Read as json.loads reads it too: a key twice, a NUL or bytes Python refuses is a finding. */
    if (j) pc_json_check_reads(cx, text, len, label, 0, "CFG-001");
    free(text);
    return j;
}

/* ST-037: a file found in the folder (not one the user named) that resolves outside the
 * checkpoint's root is refused before it is opened, so none of its bytes reach a message. */
static bool inside(const char *root, const char *path, const char *label, pc_ctx *cx)
{
    pc_eval(cx, "ST-037");
    if (!root || pc_link_inside(root, path)) return true;
    pc_report(cx, "ST-037", label, -1, "%s is a symbolic link resolving outside the checkpoint folder %s: not opened", label, root);
    return false;
}

static cJSON *load_sidecar(const pc_input *in, const char *name, const char *root, pc_ctx *cx)
{
    char *p = pc_path_join(in->dir, name);
    cJSON *j = NULL;
    if (p && in->remote) j = load_json_remote(p, name, cx);
    else if (p && pc_path_present(p) && inside(root, p, name, cx)) j = load_json(p, name, cx);
    free(p);
    return j;
}

static void load_sidecars(pc_input *in, const char *override, const char *root, pc_ctx *cx)
{
    in->config_json = load_sidecar(in, "config.json", root, cx);
    for (int i = 0; i < 3; i++) in->sidecars[i] = load_sidecar(in, k_sidecars[i], root, cx);
    if (override) {
        if (!pc_path_present(override)) pc_io_error(cx, "--config %s: no such file", override);
        else in->sidecars[SIDECAR_OVERRIDE] = load_json(override, override, cx);
    }
    /* Which quantization config applies. An override may be a whole config.json or the bare dict. */
    cJSON *ov = in->sidecars[SIDECAR_OVERRIDE];
    cJSON *qc = in->config_json ? cJSON_GetObjectItemCaseSensitive(in->config_json, "quantization_config") : NULL;
    if (ov) {
        cJSON *inner = cJSON_GetObjectItemCaseSensitive(ov, "quantization_config");
        in->qconfig = cJSON_IsObject(inner) ? inner : ov;
        in->qconfig_source = "--config";
    } else if (cJSON_IsObject(qc)) {
        in->qconfig = qc;
        in->qconfig_source = "config.json";
    } else {
        for (int i = 0; i < 3 && !in->qconfig; i++)
            if (in->sidecars[i]) in->qconfig = in->sidecars[i], in->qconfig_source = k_sidecars[i];
    }
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static int cmp_cstr(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b; /* NULL: a name lost to OOM */
    return strcmp(x ? x : "", y ? y : "");
}

/* The container files of a folder: the index's shards, else every *.safetensors, else *.gguf. */
static char **list_containers(const char *dir, size_t *n, bool *gguf)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **st = NULL, **gg = NULL;
    size_t nst = 0, ngg = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        bool is_st = has_suffix(de->d_name, ".safetensors"), is_gg = has_suffix(de->d_name, ".gguf");
        if (!is_st && !is_gg) continue;
        char ***v = is_st ? &st : &gg;
        size_t *k = is_st ? &nst : &ngg;
        char **nv = realloc(*v, (*k + 1) * sizeof **v);
        if (!nv) break;
        *v = nv;
        (*v)[(*k)++] = pc_strdup(de->d_name);
    }
    closedir(d);
    pc_sort(st, nst, sizeof *st, cmp_cstr);
    pc_sort(gg, ngg, sizeof *gg, cmp_cstr);
    *gguf = nst == 0 && ngg > 0;
    char **keep = *gguf ? gg : st, **drop = *gguf ? st : gg;
    size_t nkeep = *gguf ? ngg : nst, ndrop = *gguf ? nst : ngg;
    for (size_t i = 0; i < ndrop; i++) free(drop[i]);
    free(drop);
    *n = nkeep;
    return keep;
}

/* A PyTorch checkpoint (torch.save: a zip archive since 1.6, a bare pickle before) is not a
 * container packcheck reads: say so instead of reading its first bytes as a header length. A real
 * safetensors header length is below 2^32 (ST-002 caps it at 10^8), so bytes 4..7 are zero and byte 8
 * opens the JSON: a zip or pickle magic followed by that is a safetensors file after all. */
static bool is_torch_checkpoint(const pc_file *f)
{
    uint8_t m[9];
    if (f->size < sizeof m || pc_file_read(f, 0, m, sizeof m)) return false;
    bool st_like = !(m[4] | m[5] | m[6] | m[7]) && m[8] == '{';
    bool zip = !memcmp(m, "PK\x03\x04", 4), pickle = m[0] == 0x80 && m[1] >= 2 && m[1] <= 5;
    return (zip || pickle) && !st_like;
}

/* The first weight_map entry naming shard (the tensor a local ST-031 finding names). */
static const char *index_first_tensor(const st_index *ix, const char *shard)
{
    const cJSON *wm = cJSON_GetObjectItemCaseSensitive(ix->root, "weight_map"), *e;
    cJSON_ArrayForEach(e, wm)
        if (cJSON_IsString(e) && !strcmp(e->valuestring, shard)) return e->string;
    return shard;
}

/* index_name: the shard's name when the index named it (a remote shard the server does not have
 * is then ST-031, as a missing local one is, not an unreadable input). */
static int open_container(pc_input *in, const char *path, pc_ctx *cx, size_t *cap, const st_index *ix, const char *index_name)
{
    pc_file *f = &in->files[in->nfiles];
    const char *why;
    if (pc_file_open_why(f, path, &why)) {
        if (index_name && in->remote && !strncmp(why, "not found", 9)) {
            pc_report(cx, "ST-031", index_first_tensor(ix, index_name), -1, "shard \"%s\" does not exist (HTTP 404)", index_name);
            pc_remote_failure_reset();
        } else {
            pc_io_error(cx, "%s: cannot open: %s", path, why);
        }
        free(f->path);
        return 0;
    }
    in->nfiles++;
    uint8_t magic[4] = {0};
    bool has_magic = f->size >= 4 && pc_file_read(f, 0, magic, 4) == 0;
    /* A .gguf name or either byte order of the magic goes to the GGUF reader, so a broken or
     * big-endian GGUF file is rejected by a GGUF rule rather than read as safetensors. */
    bool gguf = has_suffix(path, ".gguf") || (has_magic && (!memcmp(magic, "GGUF", 4) || !memcmp(magic, "FUGG", 4)));
    if (gguf) in->is_gguf = true;
    if (!gguf && is_torch_checkpoint(f)) {
        pc_io_error(cx, "%s is a PyTorch checkpoint (zip or pickle), not safetensors: packcheck reads .safetensors and .gguf "
                        "(convert it, e.g. with safetensors.torch.save_file)", path);
        return 0;
    }
    return gguf ? gguf_read(f, cx, &in->tensors, &in->ntensors, cap)
                : st_read_header(f, cx, &in->tensors, &in->ntensors, cap);
}

/* ST-034: one name in two shards. */
static void check_cross_file_duplicates(pc_input *in, pc_ctx *cx)
{
    if (in->nfiles < 2) return;
    pc_eval(cx, "ST-034");
    for (size_t i = 1; i < in->ntensors; i++)
        if (!strcmp(in->tensors[i].name, in->tensors[i - 1].name))
            pc_report(cx, "ST-034", in->tensors[i].name, (int64_t)in->tensors[i].offset,
                      "tensor is in both %s and %s", in->tensors[i - 1].file->path, in->tensors[i].file->path);
}

/* ST-036: past MAX_SHARDS the first ones in name order are read and the limit fails; the cap comes
 * after sorting, so which shards are read does not depend on readdir's order. */
static size_t cap_shards(char **names, size_t n, pc_ctx *cx)
{
    pc_eval(cx, "ST-036");
    pc_sort(names, n, sizeof *names, cmp_cstr);
    if (n <= MAX_SHARDS) return n;
    pc_report(cx, "ST-036", names[MAX_SHARDS], -1, "%zu container files, more than the limit of %d: the first %d in name order are read, %s and %zu more are not",
              n, MAX_SHARDS, MAX_SHARDS, names[MAX_SHARDS], n - MAX_SHARDS - 1);
    for (size_t i = MAX_SHARDS; i < n; i++) { free(names[i]); names[i] = NULL; }
    return MAX_SHARDS;
}

/* Open the folder's containers names[0..n) (after the ST-036 cap) and check them together. */
static int open_listed(pc_input *in, char **names, size_t n, const st_index *ix, const char *root, pc_ctx *cx, size_t *cap)
{
    int rc = 0;
    in->files = calloc(n ? n : 1, sizeof *in->files);
    if (!in->files) return -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *p = names[i] ? pc_path_join(in->dir, names[i]) : NULL;
        rc = !p ? -1 : inside(root, p, names[i], cx) ? open_container(in, p, cx, cap, ix, ix->root ? names[i] : NULL) : 0;
        free(p);
    }
    if (rc == 0) {
        sort_tensors(in);
        check_cross_file_duplicates(in, cx);
        if (ix->root && !pc_family_failed(cx, "ST")) st_index_verify(ix, in, cx);
    }
    return rc;
}

/* A folder URL cannot be listed: its containers are the index's shards, else model.safetensors
 * (the name transformers saves an unsharded checkpoint under). */
static int open_remote_folder(pc_input *in, pc_ctx *cx, size_t *cap)
{
    st_index ix = {0};
    char **names = NULL;
    size_t n = 0, len = 0;
    bool absent = false;
    char *index_url = pc_path_join(in->dir, "model.safetensors.index.json");
    char *text = index_url ? pc_remote_slurp(index_url, INDEX_MAX_BYTES, &len, &absent) : NULL;
    int rc = 0;
    if (!text && !absent) { pc_io_error(cx, "%s: cannot fetch", index_url ? index_url : in->dir); free(index_url); return 0; }
    free(index_url);
    if (text) {
        char hex[65];
        pc_sha256_hex(text, len, hex);
        snprintf(in->index_id, sizeof in->index_id, "sha256:%s", hex);
        rc = st_index_parse(in->dir, text, len, cx, &ix);
    }
    if (rc == 0 && ix.root) {
        names = calloc(ix.nshards ? ix.nshards : 1, sizeof *names);
        for (size_t i = 0; names && i < ix.nshards; i++) names[n++] = pc_strdup(ix.shards[i]);
    } else if (rc == 0 && !text) {
        names = calloc(1, sizeof *names);
        if (names && (names[0] = pc_strdup("model.safetensors"))) n = 1;
    } else if (rc == 0) {
        /* An index too broken to use (ST-030 failed): a folder URL cannot be listed, so its shards
         * cannot be found; the input is rejected by ST-030 and no container is read. */
        names = calloc(1, sizeof *names);
    }
    if (!names) rc = -1;
    else rc = open_listed(in, names, cap_shards(names, n, cx), &ix, NULL, cx, cap);
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    st_index_free(&ix);
    return rc;
}

static int open_folder(pc_input *in, const char *root, pc_ctx *cx, size_t *cap)
{
    st_index ix = {0};
    char **names = NULL;
    size_t n = 0;
    bool gguf = false;
    char *index_path = pc_path_join(in->dir, "model.safetensors.index.json");
    int rc = 0;
    if (index_path && pc_path_present(index_path) && inside(root, index_path, "model.safetensors.index.json", cx)) {
        char hex[65];
        if (!pc_sha256_file_hex(index_path, hex)) snprintf(in->index_id, sizeof in->index_id, "sha256:%s", hex);
        rc = st_index_load(in->dir, index_path, cx, &ix);
    }
    if (ix.root) {
        names = calloc(ix.nshards ? ix.nshards : 1, sizeof *names);
        for (size_t i = 0; names && i < ix.nshards; i++) names[n++] = pc_strdup(ix.shards[i]);
    } else if (rc == 0) {
        /* No index, or one too broken to use (ST-030 already failed): still read every shard. */
        names = list_containers(in->dir, &n, &gguf);
    }
    free(index_path);
    if (!names || (n == 0 && !ix.root)) {
        char *bin = pc_path_join(in->dir, "pytorch_model.bin");
        bool torch = bin && pc_file_exists(bin);
        free(bin);
        pc_io_error(cx, "%s: no .safetensors or .gguf file in the folder%s", in->path,
                    torch ? " (it holds pytorch_model.bin, a PyTorch pickle/zip checkpoint: packcheck reads safetensors and GGUF only)" : "");
        goto out;
    }
    n = cap_shards(names, n, cx);
    rc = open_listed(in, names, n, &ix, root, cx, cap);
out:
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    st_index_free(&ix);
    return rc;
}

/* An input named by URL (core/remote.h): the same reading as a local one, through range requests. */
static pc_input *open_remote(pc_input *in, const char *config_override, pc_ctx *cx)
{
    in->remote = true;
    if (!in->path) { pc_input_free(in); return NULL; }
    if (!pc_remote_available()) {
        pc_io_error(cx, "%s: this packcheck was built without libcurl (install libcurl4-openssl-dev and rebuild): URLs cannot be read", in->path);
        return in;
    }
    char *url = pc_url_resolve(in->path);
    if (!url) { pc_io_error(cx, "%s: not a valid hf://ORG/REPO[@REVISION][/FILE] name", in->path); return in; }
    bool folder = pc_url_is_folder(url);
    in->dir = folder ? pc_strdup(url) : pc_dirname(url);
    if (!in->dir) { free(url); pc_input_free(in); return NULL; }
    load_sidecars(in, config_override, NULL, cx);
    size_t cap = 0;
    int rc = 0;
    if (cx->io_error) {
        /* a sidecar could not be fetched: the input is unreadable */
    } else if (folder) {
        rc = open_remote_folder(in, cx, &cap);
    } else {
        in->files = calloc(1, sizeof *in->files);
        rc = in->files ? open_container(in, url, cx, &cap, NULL, NULL) : -1;
        sort_tensors(in);
    }
    free(url);
    if (rc) cx->oom = true;
    return in;
}

pc_input *pc_input_open(const char *path, const char *config_override, pc_ctx *cx)
{
    pc_input *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->path = pc_strdup(path);
    if (pc_is_url(path)) return open_remote(in, config_override, cx);
    bool dir = pc_is_dir(path);
    in->dir = dir ? pc_strdup(path) : pc_dirname(path);
    if (!in->path || !in->dir) { pc_input_free(in); return NULL; }
    char *root = pc_link_root(in->dir);
    load_sidecars(in, config_override, root, cx);
    size_t cap = 0;
    int rc;
    if (dir) {
        rc = open_folder(in, root, cx, &cap);
    } else if (!pc_path_present(path)) {
        pc_io_error(cx, "%s: no such file or folder", path);
        rc = 0;
    } else {
        in->files = calloc(1, sizeof *in->files);
        rc = in->files ? open_container(in, path, cx, &cap, NULL, NULL) : -1;
        sort_tensors(in);
    }
    free(root);
    if (rc) cx->oom = true;
    return in;
}

void pc_input_free(pc_input *in)
{
    if (!in) return;
    pc_scan_free(in);
    if (in->release_validation) in->release_validation(in); /* modules, claims, accounting (validate/) */
    for (size_t i = 0; i < in->ntensors; i++) free(in->tensors[i].name);
    free(in->tensors);
    for (size_t i = 0; i < in->nfiles; i++) pc_file_close(&in->files[i]);
    free(in->files);
    cJSON_Delete(in->cached);
    cJSON_Delete(in->config_json);
    for (int i = 0; i < 4; i++) cJSON_Delete(in->sidecars[i]);
    free(in->path);
    free(in->dir);
    free(in);
}

/* The input's contract format name, from the layouts the formats noted on it. */
const char *pc_input_format(const pc_input *in)
{
    if (in->is_gguf) return "gguf";
    if (in->nlayouts > 1) return "mixed";
    return in->nlayouts ? in->layouts[0] : "safetensors";
}
