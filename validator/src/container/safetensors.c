/* The safetensors container reader (family ST).
 *
 * The header is read into memory (at most 100,000,000 bytes, ST-002); tensor data is never read
 * here. Checks run in file order, as the reference crate runs them (FORMATS.md 2.2), each with its
 * own rule ID; rules where the spec text and the crate disagree carry a compat severity in the
 * catalogue (FORMATS.md 2.4). */
#include "safetensors.h"

#include "../core/arith.h"
#include "../core/file.h"
#include "../core/util.h"
#include "json_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_MAX_HEADER 100000000ull   /* the crate's MAX_HEADER_SIZE */
#define ST_MAX_VALUES 2000000ull     /* LIMIT (ST-024): bounds the entries a header can make */

typedef struct st_entry {
    char *name;           /* display form: the decoded name, or for a name holding U+0000 an escaped copy */
    const char *key;      /* the exact decoded name (may hold NUL bytes) and its length */
    size_t keylen;
    char *owned;          /* the escaped copy, when name is one */
    bool seen_dtype, seen_shape, seen_offsets, offsets_ok, ok;
    bool dropped;         /* an earlier definition of a duplicated name (compat: last wins) */
    pc_dtype dtype;
    int ndim;
    uint64_t shape[PC_MAX_DIMS];
    uint64_t begin, end, nbytes, numel;
    int64_t at;           /* file offset of the entry's key, for messages */
    size_t idx;           /* position in the header: "last wins" needs it */
} st_entry;

typedef struct st_parse {
    const pc_file *file;
    const char *fname;    /* for messages */
    const uint8_t *hdr;
    size_t n;
    pc_jlex lx;           /* the cursor, over a header that passed pc_json_value_check */
    pc_ctx *cx;
    char *keys;           /* every decoded key, NUL-terminated, one after another: at most n bytes */
    size_t keys_used;
    st_entry *e;
    size_t ne, cap;
    pc_tensor *out;       /* appended tensors */
    size_t *nout, *capout;
} st_parse;

static int64_t hoff(const st_parse *p, size_t pos) { (void)p; return (int64_t)(8 + pos); }

/* Absolute file offset of a byte-buffer position, or -1 when that position is not in the file
 * (offsets come from the header and may be anything up to 2^64-1). */
static int64_t boff(const st_parse *p, uint64_t pos)
{
    uint64_t abs;
    if (!pc_add_u64(8 + p->n, pos, &abs) || abs > p->file->size) return -1;
    return (int64_t)abs;
}

static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static bool next_tok(st_parse *p, pc_jtok *t) { return pc_json_lex_next(&p->lx, t); }
static uint8_t peek(st_parse *p) { return pc_json_peek(&p->lx); }
static void skip_value(st_parse *p) { pc_json_skip(&p->lx); }

/* A name as the crate sees it: exact bytes, U+0000 included. */
typedef struct st_key {
    const char *s;
    size_t len;
} st_key;

static int cmp_key(const void *a, const void *b)
{
    const st_key *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The decoded text of a key token, stored in p->keys (a token of L bytes decodes to at most L - 2
 * bytes plus its NUL, and the tokens lie apart in the header: the store never runs out). */
static st_key key_of(st_parse *p, const pc_jtok *t)
{
    char *at = p->keys + p->keys_used;
    size_t len = 0;
    if (!pc_json_string_decode_into(p->hdr + t->start, t->len, at, &len)) len = 0, *at = 0; /* checked: cannot fail */
    p->keys_used += len + 1;
    return (st_key){at, len};
}

/* Display form of a name holding NUL bytes: each NUL written as the six characters \u0000. */
static char *escape_nuls(const char *s, size_t len)
{
    size_t nul = 0;
    for (size_t i = 0; i < len; i++) nul += !s[i];
    char *o = malloc(len + 5 * nul + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i]) o[k++] = s[i];
        else memcpy(o + k, "\\u0000", 6), k += 6;
    }
    o[k] = 0;
    return o;
}

static void check_metadata(st_parse *p, size_t key_pos)
{
    uint8_t c = peek(p);
    if (c == 'n') {
        /* The crate treats null as absent; the spec says a string-to-string map (ST-035 is OFF
         * under compat: the catalogue, not this code, holds the profile difference). */
        pc_report(p->cx, "ST-035", "__metadata__", hoff(p, key_pos), "__metadata__ is null, not a map");
        skip_value(p);
        return;
    }
    if (c != '{') {
        pc_report(p->cx, "ST-009", "__metadata__", hoff(p, key_pos), "__metadata__ is not an object");
        skip_value(p);
        return;
    }
    st_key *keys = NULL;
    size_t k = 0, cap = 0;
    pc_jtok t;
    if (pc_json_open(&p->lx))
        do {
            pc_json_key(&p->lx, &t);
            if (k == cap) {
                st_key *nk = realloc(keys, (cap = cap ? 2 * cap : 16) * sizeof *nk);
                if (!nk) { p->cx->oom = true; free(keys); keys = NULL; k = cap = 0; }
                else keys = nk;
            }
            st_key key = key_of(p, &t);
            if (keys) keys[k++] = key;
            if (peek(p) != '"') {
                pc_report(p->cx, "ST-009", "__metadata__", hoff(p, t.start), "__metadata__[\"%s\"] is not a string", key.s);
                skip_value(p);
            } else {
                next_tok(p, &t);
            }
        } while (pc_json_more(&p->lx));
    pc_sort(keys, k, sizeof *keys, cmp_key);
    for (size_t i = 1; i < k; i++)
        if (!cmp_key(&keys[i], &keys[i - 1]))
            pc_report(p->cx, "ST-023", "__metadata__", hoff(p, key_pos), "duplicate __metadata__ key \"%s\"", keys[i].s);
    free(keys);
}

/* A number token read as a u64 (false for anything else, which is skipped). */
static bool read_u64(st_parse *p, uint64_t *out, size_t *at)
{
    pc_jtok t;
    uint8_t c = peek(p);
    *at = p->lx.pos;
    if (c != '-' && !(c >= '0' && c <= '9')) { skip_value(p); return false; }
    next_tok(p, &t);
    return pc_json_u64(p->hdr + t.start, t.len, out);
}

static void parse_shape(st_parse *p, st_entry *e, const char *name)
{
    if (peek(p) != '[') {
        pc_report(p->cx, "ST-013", name, e->at, "shape is not an array");
        skip_value(p);
        e->ok = false;
        return;
    }
    size_t at = 0;
    e->ndim = 0;
    if (pc_json_open(&p->lx))
        do {
            uint64_t d;
            if (!read_u64(p, &d, &at)) {
                pc_report(p->cx, "ST-013", name, hoff(p, at), "shape entry %d is not a non-negative integer below 2^64", e->ndim);
                e->ok = false;
            } else if (e->ndim >= PC_MAX_DIMS) {
                if (e->ndim == PC_MAX_DIMS) pc_report(p->cx, "ST-027", name, hoff(p, at), "rank above %d", PC_MAX_DIMS);
                e->ok = false;
            } else {
                e->shape[e->ndim] = d;
            }
            e->ndim++;
        } while (pc_json_more(&p->lx));
}

static void parse_offsets(st_parse *p, st_entry *e, const char *name)
{
    uint64_t o[2] = {0, 0};
    size_t at = 0;
    int n = 0;
    bool ok = peek(p) == '[';
    if (!ok) skip_value(p);
    else if (pc_json_open(&p->lx))
        do {
            uint64_t x;
            if (read_u64(p, &x, &at) && n < 2) o[n] = x;
            else ok = false;
            n++;
        } while (pc_json_more(&p->lx));
    if (!ok || n != 2) {
        pc_report(p->cx, "ST-017", name, e->at, "data_offsets is not two non-negative integers");
        e->ok = false;
        return;
    }
    if (o[1] < o[0]) {
        pc_report(p->cx, "ST-017", name, e->at, "data_offsets [%llu, %llu]: end before begin",
                  (unsigned long long)o[0], (unsigned long long)o[1]);
        e->ok = false;
        return;
    }
    e->begin = o[0];
    e->end = o[1];
    e->offsets_ok = true;
}

/* A string token as text for a message: decoded, with U+0000 and other control characters written
 * \u00XX so nothing after them is lost, cut at about n bytes. */
static void show_token(const uint8_t *tok, size_t toklen, char *out, size_t n)
{
    size_t len = 0, k = 0;
    char *dec = pc_json_string_decode(tok, toklen, &len);
    if (!dec) { snprintf(out, n, "?"); return; }
    for (size_t i = 0; i < len && k + 8 < n; i++) {
        unsigned char ch = (unsigned char)dec[i];
        if (ch < 0x20) k += (size_t)snprintf(out + k, n - k, "\\u%04x", ch);
        else out[k++] = (char)ch;
    }
    out[k] = 0;
    if (k + 8 >= n && k >= 3) memcpy(out + k - 3, "...", 4);
    free(dec);
}

/* The dtype token's decoded name, or false when it cannot be one (holding U+0000, or too long: a
 * token of 256 bytes decodes to at least 42 characters, and the longest dtype, every character
 * written \uXXXX, is a 68-byte token). */
static bool parse_dtype(const st_parse *p, const pc_jtok *t, pc_dtype *dt)
{
    char name[256];
    size_t len;
    return !t->has_nul && t->len <= sizeof name && pc_json_string_decode_into(p->hdr + t->start, t->len, name, &len) &&
           pc_dtype_parse(name, dt);
}

static void parse_entry(st_parse *p, st_entry *e)
{
    const char *name = e->name;
    if (peek(p) != '{') {
        pc_report(p->cx, "ST-010", name, e->at, "tensor entry is not an object");
        skip_value(p);
        e->ok = false;
        return;
    }
    pc_jtok t;
    if (pc_json_open(&p->lx))
        do {
            pc_json_key(&p->lx, &t);
            /* A key holding U+0000 ("dtype\u0000x") is some other field, whatever its C string says. */
            st_key key = key_of(p, &t);
            const char *k = t.has_nul ? "" : key.s;
            bool *seen = t.has_nul ? NULL : !strcmp(k, "dtype") ? &e->seen_dtype : !strcmp(k, "shape") ? &e->seen_shape
                       : !strcmp(k, "data_offsets") ? &e->seen_offsets : NULL;
            if (!seen) {
                pc_report(p->cx, "ST-011", name, hoff(p, t.start), "unknown field \"%s%s\" in tensor entry", key.s,
                          t.has_nul ? "\\u0000..." : "");
                skip_value(p);
                continue;
            }
            if (*seen) {
                pc_report(p->cx, "ST-010", name, hoff(p, t.start), "duplicate field \"%s\"", k);
                skip_value(p);
                e->ok = false;
                continue;
            }
            *seen = true;
            if (seen == &e->seen_dtype) {
                if (peek(p) != '"') {
                    pc_report(p->cx, "ST-012", name, hoff(p, t.start), "dtype is not a string");
                    skip_value(p);
                    e->ok = false;
                    continue;
                }
                next_tok(p, &t);
                if (!parse_dtype(p, &t, &e->dtype)) {
                    char shown[160]; /* the whole token: a C string would stop at a U+0000 ("F32\u0000x" showed as F32) */
                    show_token(p->hdr + t.start, t.len, shown, sizeof shown);
                    pc_report(p->cx, "ST-012", name, hoff(p, t.start), "dtype \"%s\" is not one of the 22 safetensors dtypes", shown);
                    e->ok = false;
                }
            } else if (seen == &e->seen_shape) {
                parse_shape(p, e, name);
            } else {
                parse_offsets(p, e, name);
            }
        } while (pc_json_more(&p->lx));
    if (!e->seen_dtype || !e->seen_shape || !e->seen_offsets) {
        pc_report(p->cx, "ST-010", name, e->at, "tensor entry lacks %s", !e->seen_dtype ? "dtype" : !e->seen_shape ? "shape" : "data_offsets");
        e->ok = false;
    }
}

/* Element count, bit size and byte size of a parsed entry (ST-014, ST-015, ST-016, ST-018). */
static void size_entry(st_parse *p, st_entry *e)
{
    if (!e->ok) return;
    uint64_t numel = 1, bits;
    for (int i = 0; i < e->ndim; i++) {
        if (!pc_mul_u64(numel, e->shape[i], &numel)) {
            pc_report(p->cx, "ST-014", e->name, e->at, "element count overflows 64 bits");
            e->ok = false;
            return;
        }
    }
    unsigned db = pc_dtype_bits(e->dtype);
    if (!pc_mul_u64(numel, db, &bits)) {
        pc_report(p->cx, "ST-014", e->name, e->at, "bit size overflows 64 bits");
        e->ok = false;
        return;
    }
    if (bits % 8) {
        pc_report(p->cx, "ST-015", e->name, e->at, "%s tensor of %llu elements holds %llu bits, not whole bytes",
                  pc_dtype_name(e->dtype), (unsigned long long)numel, (unsigned long long)bits);
        e->ok = false;
        return;
    }
    if (db < 8 && e->ndim > 0 && (e->shape[e->ndim - 1] * db) % 8) {
        /* shape[last] * db cannot overflow: numel * db did not. */
        pc_report(p->cx, "ST-016", e->name, e->at, "%s rows of %llu elements do not end on a byte",
                  pc_dtype_name(e->dtype), (unsigned long long)e->shape[e->ndim - 1]);
    }
    e->numel = numel;
    e->nbytes = bits / 8;
    if (e->end - e->begin != e->nbytes) {
        pc_report(p->cx, "ST-018", e->name, e->at, "data_offsets span %llu bytes, dtype and shape need %llu",
                  (unsigned long long)(e->end - e->begin), (unsigned long long)e->nbytes);
        e->ok = false;
    }
}

static int cmp_entry_name(const void *a, const void *b)
{
    const st_entry *x = a, *y = b;
    st_key kx = {x->key, x->keylen}, ky = {y->key, y->keylen};
    int c = cmp_key(&kx, &ky);
    return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static int cmp_entry_offsets(const void *a, const void *b)
{
    const st_entry *x = *(st_entry *const *)a, *y = *(st_entry *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ST-022: duplicate names. Sorting by name keeps the last definition last, so compat's
 * "last wins" (the crate's behaviour) keeps it and drops the earlier ones. */
static void check_duplicates(st_parse *p)
{
    pc_eval(p->cx, "ST-022");
    pc_sort(p->e, p->ne, sizeof *p->e, cmp_entry_name);
    for (size_t i = 1; i < p->ne; i++) {
        if (p->e[i].keylen != p->e[i - 1].keylen || memcmp(p->e[i].key, p->e[i - 1].key, p->e[i].keylen)) continue;
        pc_report(p->cx, "ST-022", p->e[i].name, p->e[i].at, "tensor name defined twice");
        p->e[i - 1].ok = false;
        p->e[i - 1].dropped = true;
    }
}

/* ST-019, ST-020, ST-021: the tensors tile the byte buffer exactly. */
static void check_coverage(st_parse *p, uint64_t buffer_len)
{
    pc_eval(p->cx, "ST-019");
    pc_eval(p->cx, "ST-020");
    pc_eval(p->cx, "ST-021");
    st_entry **v = calloc(p->ne ? p->ne : 1, sizeof *v);
    if (!v) { p->cx->oom = true; return; }
    size_t n = 0;
    /* A tensor whose data_offsets are unusable (ST-010, ST-017) covers bytes we cannot know: the
     * buffer's tail is then not judged, so one broken entry does not also read as ST-021. */
    bool unknown_extent = false;
    for (size_t i = 0; i < p->ne; i++) {
        if (p->e[i].dropped) continue;
        if (p->e[i].offsets_ok) v[n++] = &p->e[i];
        else unknown_extent = true;
    }
    pc_sort(v, n, sizeof *v, cmp_entry_offsets);
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        st_entry *e = v[i];
        if (e->begin > at)
            pc_report(p->cx, "ST-019", e->name, boff(p, at), "hole: bytes [%llu, %llu) belong to no tensor",
                      (unsigned long long)at, (unsigned long long)e->begin);
        else if (e->begin < at)
            pc_report(p->cx, "ST-019", e->name, boff(p, e->begin), "bytes [%llu, %llu) overlap the previous tensor",
                      (unsigned long long)e->begin, (unsigned long long)at);
        if (e->end > at) at = e->end;
    }
    free(v);
    if (at > buffer_len)
        pc_report(p->cx, "ST-020", "", boff(p, buffer_len), "tensors end at buffer byte %llu but the file holds %llu",
                  (unsigned long long)at, (unsigned long long)buffer_len);
    else if (at < buffer_len && !unknown_extent)
        pc_report(p->cx, "ST-021", "", boff(p, at), "%llu bytes after the last tensor",
                  (unsigned long long)(buffer_len - at));
}

/* The next entry slot. The array holds one per two JSON values (a member costs a ':' and a ',' or
 * the closing brace), sized once by ST-024's bound and touched only as far as it is used. */
static st_entry *new_entry(st_parse *p)
{
    if (p->ne == p->cap) return NULL;
    st_entry *e = &p->e[p->ne++];
    memset(e, 0, sizeof *e);
    return e;
}

static void walk_header(st_parse *p)
{
    pc_jtok t;
    size_t nmeta = 0;
    static const char *const k_entry_rules[] = {"ST-009", "ST-010", "ST-011", "ST-012", "ST-013", "ST-014",
                                                "ST-015", "ST-016", "ST-017", "ST-018", "ST-023", "ST-025",
                                                "ST-026", "ST-027", "ST-035"};
    for (size_t i = 0; i < sizeof k_entry_rules / sizeof *k_entry_rules; i++) pc_eval(p->cx, k_entry_rules[i]);
    if (!pc_json_open(&p->lx)) return;
    do {
        pc_json_key(&p->lx, &t);
        st_key k = key_of(p, &t);
        if (!t.has_nul && !strcmp(k.s, "__metadata__")) {
            if (nmeta++) pc_report(p->cx, "ST-009", "__metadata__", hoff(p, t.start), "__metadata__ appears twice");
            check_metadata(p, t.start);
            continue;
        }
        st_entry *e = new_entry(p);
        if (!e || (t.has_nul && !(e->owned = escape_nuls(k.s, k.len)))) {
            p->cx->oom = true;
            if (e) p->ne--;
            skip_value(p);
            continue;
        }
        e->name = e->owned ? e->owned : (char *)k.s;
        e->key = k.s;
        e->keylen = k.len;
        e->at = hoff(p, t.start);
        e->idx = p->ne - 1;
        e->ok = true;
        if (!*e->name && !t.has_nul) pc_report(p->cx, "ST-025", "", e->at, "empty tensor name");
        if (t.has_nul) pc_report(p->cx, "ST-026", e->name, e->at, "tensor name contains U+0000");
        parse_entry(p, e);
        size_entry(p, e);
    } while (pc_json_more(&p->lx));
}

static int add_tensors(st_parse *p, uint64_t data_start)
{
    for (size_t i = 0; i < p->ne; i++) {
        st_entry *e = &p->e[i];
        if (!e->ok) continue;
        if (*p->nout == *p->capout) {
            size_t nc = *p->capout ? *p->capout * 2 : 64;
            pc_tensor *nt = realloc(p->out, nc * sizeof *nt);
            if (!nt) return -1;
            p->out = nt;
            *p->capout = nc;
        }
        pc_tensor *t = &p->out[(*p->nout)];
        memset(t, 0, sizeof *t);
        t->name = pc_strdup(e->name);
        if (!t->name) return -1;
        t->dtype = e->dtype;
        t->ggml_type = -1;
        t->ndim = e->ndim;
        memcpy(t->shape, e->shape, sizeof t->shape);
        t->numel = e->numel;
        t->nbytes = e->nbytes;
        t->file = p->file;
        t->offset = data_start + e->begin;
        (*p->nout)++;
    }
    return 0;
}

int st_read_header(const pc_file *f, pc_ctx *cx, pc_tensor **tensors, size_t *ntensors, size_t *cap)
{
    const char *fn = f->path;
    uint8_t lenbuf[8];
    static const char *const k_file_rules[] = {"ST-001", "ST-002", "ST-003", "ST-004", "ST-005",
                                               "ST-006", "ST-007", "ST-008", "ST-024"};
    for (size_t i = 0; i < sizeof k_file_rules / sizeof *k_file_rules; i++) pc_eval(cx, k_file_rules[i]);
    if (f->size < 8) {
        pc_report(cx, "ST-001", "", 0, "%s: file of %llu bytes is shorter than the 8-byte header length", fn, (unsigned long long)f->size);
        return 0;
    }
    if (pc_file_read(f, 0, lenbuf, 8)) { pc_io_error(cx, "%s: read failed", fn); return 0; }
    uint64_t n = pc_le64(lenbuf);
    if (n > ST_MAX_HEADER) {
        /* The value is not printed: out of range, it is just the file's first 8 bytes (a shard linked
         * to /etc/passwd would show "root:x:0" as a number). */
        pc_report(cx, "ST-002", "", 0, "%s: header length exceeds the 100,000,000-byte limit", fn);
        return 0;
    }
    if (n > f->size - 8) {
        pc_report(cx, "ST-003", "", 0, "%s: header length runs past the end of the %llu-byte file", fn, (unsigned long long)f->size);
        return 0;
    }
    uint8_t *hdr = malloc(n + 1);
    if (!hdr) { cx->oom = true; return -1; }
    if (pc_file_read(f, 8, hdr, n)) { free(hdr); pc_io_error(cx, "%s: read failed", fn); return 0; }
    hdr[n] = 0;

    st_parse p = {.file = f, .fname = fn, .hdr = hdr, .n = n, .lx = {hdr, n, 0}, .cx = cx,
                  .out = *tensors, .nout = ntensors, .capout = cap};
    size_t err = 0, bound, body = 0;
    if (!pc_utf8_valid(hdr, n, &err)) {
        pc_report(cx, "ST-004", "", hoff(&p, err), "%s: header is not valid UTF-8 (byte %zu)", fn, err);
        goto done;
    }
    if (n && is_ws(hdr[0]))
        pc_report(cx, "ST-008", "", 8, "%s: header starts with whitespace, not '{'", fn);
    bound = pc_json_value_bound(hdr, n);
    if (bound > ST_MAX_VALUES) {
        pc_report(cx, "ST-024", "", 8, "%s: header may hold %zu JSON values, over the limit of %llu", fn, bound, ST_MAX_VALUES);
        goto done;
    }
    if (!pc_json_value_check(hdr, n, &body, &err)) {
        pc_report(cx, "ST-005", "", hoff(&p, err), "%s: header is not valid JSON (header byte %zu)", fn, err);
        goto done;
    }
    if (pc_json_peek(&p.lx) != '{') {
        pc_report(cx, "ST-005", "", 8, "%s: header is not a JSON object", fn);
        goto done;
    }
    p.cap = bound / 2 + 1;
    if (!(p.keys = malloc(n)) || !(p.e = malloc(p.cap * sizeof *p.e))) { cx->oom = true; goto done; }
    /* Both rules scan the whole tail: a tab (ST-007, off under compat) must not hide a NUL behind it. */
    bool bad_pad = false;
    for (size_t i = body; i < n; i++) {
        if (!is_ws(hdr[i])) {
            pc_report(cx, "ST-006", "", hoff(&p, i), "%s: trailing characters after the header object (byte 0x%02x)", fn, hdr[i]);
            break;
        }
        if (hdr[i] != ' ' && !bad_pad) {
            pc_report(cx, "ST-007", "", hoff(&p, i), "%s: header padding byte 0x%02x is not a space", fn, hdr[i]);
            bad_pad = true;
        }
    }
    walk_header(&p);
    check_duplicates(&p);
    check_coverage(&p, f->size - 8 - n);
    if (!pc_family_failed(cx, "ST") && add_tensors(&p, 8 + n)) cx->oom = true;
done:
    *tensors = p.out;
    for (size_t i = 0; i < p.ne; i++) free(p.e[i].owned);
    free(p.e);
    free(p.keys);
    free(hdr);
    return 0;
}
