/* The GGUF container reader (family GGUF).
 *
 * One pass over the header in file order, as ggml's gguf_init_from_reader reads it (FORMATS.md
 * 7.3), through a 64 KiB window: fixed header, key/value pairs, tensor infos; then the data
 * section's geometry. Tensor data is never read here except padding bytes (GGUF-030).
 *
 * Every count and length read from the file is bounded by what the rest of the file can hold
 * before it sizes a loop or an allocation, and every size and offset goes through core/arith.h.
 * A structural break (truncation, a length past the end, an unknown value type) stops the pass:
 * what follows cannot be located. Other breaks are reported and the pass goes on, so one file
 * shows all its header defects. Tensors are handed on (appended to the input) only when no MUST
 * or LIMIT rule of family GGUF broke; F32, F16 and other quant types are described like Q4_0
 * ones, and only the format modules decide what they decode. */
#include "gguf.h"
#include "gguf_types.h"

#include "../core/arith.h"
#include "../core/file.h"
#include "../core/pagebuf.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GG_WINDOW (64u * 1024u)
#define GG_MAX_LENGTH (1ull << 30)     /* ggml GGUF_MAX_STRING_LENGTH / GGUF_MAX_ARRAY_ELEMENTS */
#define GG_MAX_COUNT (1ull << 20)      /* LIMIT GGUF-005: tensor infos and key/value pairs each */
#define GG_MAX_ALIGN (1u << 20)        /* LIMIT GGUF-013: ggml PR #1516's proposed bound */
#define GG_NAME_MAX 64                 /* docs/gguf.md: tensor names at most 64 bytes (GGUF-015) */
#define GG_GGML_NAME_MAX 63            /* ggml: GGML_MAX_NAME 64 including the NUL (GGUF-036) */
#define GG_MIN_KV 13                   /* u64 key length + i32 type + a one-byte value */
#define GG_MIN_TI 24                   /* u64 name length + u32 n_dims + i32 type + u64 offset */
#define GG_MAX_KEY_STRICT 65535        /* docs/gguf.md: keys at most 2^16 - 1 bytes */
#define GG_INT64_MAX 0x7fffffffffffffffull
#define GG_SHOWN (4 * GG_NAME_MAX + 4) /* a name or key as messages show it */

enum gg_vtype {
    GV_U8, GV_I8, GV_U16, GV_I16, GV_U32, GV_I32, GV_F32, GV_BOOL, GV_STRING, GV_ARRAY,
    GV_U64, GV_I64, GV_F64, GV_COUNT
};
static const char *const k_vtype_name[GV_COUNT] = {"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32",
                                                   "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"};
static const uint8_t k_vtype_size[GV_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* What one string looked like, gathered while streaming its bytes. */
typedef struct gg_str {
    uint64_t len, at;          /* byte length; file offset of the bytes */
    uint64_t hash;             /* FNV-1a 64 of the bytes */
    char head[GG_NAME_MAX + 1];/* the first bytes, NUL-terminated (exact when len <= 64) */
    char shown[GG_SHOWN];      /* head for messages: valid UTF-8, other bytes as \xNN */
    bool has_nul, utf8_ok, key_ok;
} gg_str;

typedef struct gg_key { uint64_t hash, len, at; } gg_key;

typedef struct gg_ti {
    char name[GG_NAME_MAX + 1];
    char shown[GG_SHOWN];      /* for messages and findings */
    uint64_t name_len, at;     /* at: file offset of the record */
    uint32_t n_dims;
    int64_t ne[4];
    int32_t type;
    uint64_t offset, offset_at;
    uint64_t numel, nbytes;
    bool sized;                /* dims, type and byte size all valid */
} gg_ti;

/* Tokenizer arrays llama.cpp reads by element type and indexes by token id (GGUF-014). */
typedef struct gg_tok { const char *key; int elem; bool seen; int vtype, etype; uint64_t count, at; } gg_tok;

typedef struct gg {
    const pc_file *f;
    pc_ctx *cx;
    uint64_t pos, size;
    uint8_t *win;
    uint64_t win_off;
    size_t win_len;
    bool stop;                 /* structural break: nothing after pos can be located */
    uint32_t align;
    bool align_seen;
    gg_key *keys;
    size_t nkeys;
    gg_ti *ti;
    uint64_t nti;
    gg_tok tok[4];
} gg;

static const char *fname(const gg *g) { return g->f->path; }

/* ---- bounded reading through the window ---- */

static bool fill(gg *g)
{
    uint64_t left = g->size - g->pos;
    size_t n = left < GG_WINDOW ? (size_t)left : GG_WINDOW;
    if (pc_file_read(g->f, g->pos, g->win, n)) {
        pc_io_error(g->cx, "%s: read failed at byte %llu", fname(g), (unsigned long long)g->pos);
        g->stop = true;
        return false;
    }
    g->win_off = g->pos;
    g->win_len = n;
    return true;
}

/* Copy n bytes at pos (caller checked n <= size - pos) and advance, or only advance when out is NULL
 * and visit is NULL. visit sees every byte chunk. */
typedef void (*gg_visit)(void *ctx, const uint8_t *p, size_t n);
static bool take(gg *g, uint64_t n, uint8_t *out, gg_visit visit, void *vctx)
{
    if (!out && !visit) { g->pos += n; return true; }
    while (n) {
        if (g->pos < g->win_off || g->pos >= g->win_off + g->win_len)
            if (!fill(g)) return false;
        size_t at = (size_t)(g->pos - g->win_off), avail = g->win_len - at;
        size_t k = n < avail ? (size_t)n : avail;
        if (out) { memcpy(out, g->win + at, k); out += k; }
        if (visit) visit(vctx, g->win + at, k);
        g->pos += k;
        n -= k;
    }
    return true;
}

/* A fixed-size field: GGUF-003 when the file ends inside it. */
static bool rd(gg *g, void *out, size_t n, const char *what, const char *tensor)
{
    if (g->stop) return false;
    if (n > g->size - g->pos) {
        pc_report(g->cx, "GGUF-003", tensor, (int64_t)g->pos, "%s (%zu bytes at byte %llu) runs past the end of the %llu-byte file",
                  what, n, (unsigned long long)g->pos, (unsigned long long)g->size);
        g->stop = true;
        return false;
    }
    return take(g, n, out, NULL, NULL);
}

static bool rd_u32(gg *g, uint32_t *v, const char *what, const char *tensor)
{
    uint8_t b[4];
    if (!rd(g, b, 4, what, tensor)) return false;
    *v = pc_le32(b);
    return true;
}

static bool rd_u64(gg *g, uint64_t *v, const char *what, const char *tensor)
{
    uint8_t b[8];
    if (!rd(g, b, 8, what, tensor)) return false;
    *v = pc_le64(b);
    return true;
}

/* A length or count about to size a read of `unit` bytes per item: GGUF-007 above ggml's 2^30,
 * GGUF-006 when the rest of the file cannot hold len * unit bytes. */
static bool bound_length(gg *g, uint64_t len, uint64_t unit, uint64_t at, const char *what, const char *tensor)
{
    if (len > GG_MAX_LENGTH) {
        pc_report(g->cx, "GGUF-007", tensor, (int64_t)at, "%s declares length %llu, above the 2^30 limit",
                  what, (unsigned long long)len);
        g->stop = true;
        return false;
    }
    uint64_t need;
    if (!pc_mul_u64(len, unit, &need) || need > g->size - g->pos) {
        pc_report(g->cx, "GGUF-006", tensor, (int64_t)at, "%s of length %llu (%llu bytes each) runs past the end of the file: %llu bytes left",
                  what, (unsigned long long)len, (unsigned long long)unit, (unsigned long long)(g->size - g->pos));
        g->stop = true;
        return false;
    }
    return true;
}

/* ---- strings ---- */

typedef struct u8state { unsigned need; uint8_t lo, hi; bool bad; } u8state;

/* RFC 3629 UTF-8, byte at a time (no overlongs, surrogates or code points past U+10FFFF). */
static void u8_feed(u8state *s, uint8_t c)
{
    if (s->bad) return;
    if (s->need) {
        if (c < s->lo || c > s->hi) { s->bad = true; return; }
        s->lo = 0x80, s->hi = 0xBF, s->need--;
        return;
    }
    if (c < 0x80) return;
    s->lo = 0x80, s->hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) s->need = 1;
    else if (c == 0xE0) s->need = 2, s->lo = 0xA0;
    else if (c == 0xED) s->need = 2, s->hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) s->need = 2;
    else if (c == 0xF0) s->need = 3, s->lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) s->need = 3;
    else if (c == 0xF4) s->need = 3, s->hi = 0x8F;
    else s->bad = true;
}

typedef struct str_scan {
    gg_str *s;
    u8state u8;
    uint64_t seen;
    bool after_dot;            /* key naming: at the start or just after '.' */
} str_scan;

static void scan_bytes(void *ctx, const uint8_t *p, size_t n)
{
    str_scan *sc = ctx;
    gg_str *s = sc->s;
    for (size_t i = 0; i < n; i++, sc->seen++) {
        uint8_t c = p[i];
        if (sc->seen < GG_NAME_MAX) s->head[sc->seen] = (char)c;
        s->hash = (s->hash ^ c) * 0x100000001b3ull;
        if (!c) s->has_nul = true;
        u8_feed(&sc->u8, c);
        bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (c == '.' ? sc->after_dot : !word) s->key_ok = false;
        sc->after_dot = c == '.';
    }
}

/* Bytes as messages show them: reports are JSON, so anything that is not known-good UTF-8 (a cut
 * head, invalid sequences, NUL, control bytes) is escaped as \xNN; "..." marks a cut. */
static void show_bytes(const char *p, size_t n, bool utf8_ok, bool cut, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)p[i];
        if (utf8_ok && !cut ? c >= 0x20 && c != 0x7f : c >= 0x20 && c < 0x7f) out[k++] = (char)c;
        else k += (size_t)snprintf(out + k, GG_SHOWN - k, "\\x%02x", c);
    }
    if (cut) memcpy(out + k, "...", 3), k += 3;
    out[k] = 0;
}

/* A string: u64 length, then the bytes, streamed (never held whole). */
static bool rd_string(gg *g, gg_str *s, const char *what, const char *tensor)
{
    memset(s, 0, sizeof *s);
    uint64_t at = g->pos;
    if (!rd_u64(g, &s->len, what, tensor)) return false;
    if (!bound_length(g, s->len, 1, at, what, tensor)) return false;
    s->at = g->pos;
    s->hash = 0xcbf29ce484222325ull;
    s->key_ok = true;
    str_scan sc = {.s = s, .after_dot = true};
    if (!take(g, s->len, NULL, scan_bytes, &sc)) return false;
    s->head[s->len < GG_NAME_MAX ? s->len : GG_NAME_MAX] = 0;
    s->utf8_ok = !sc.u8.bad && !sc.u8.need;
    if (s->len == 0 || sc.after_dot) s->key_ok = false;
    show_bytes(s->head, s->len < GG_NAME_MAX ? (size_t)s->len : GG_NAME_MAX, s->utf8_ok, s->len > GG_NAME_MAX, s->shown);
    return true;
}

static void check_utf8(gg *g, const gg_str *s, const char *what, const char *tensor)
{
    if (!s->utf8_ok)
        pc_report(g->cx, "GGUF-033", tensor, (int64_t)s->at, "%s is not valid UTF-8", what);
}

/* ---- key/value pairs ---- */

typedef struct bool_scan { uint64_t bad, first; uint64_t at; } bool_scan;

static void scan_bools(void *ctx, const uint8_t *p, size_t n)
{
    bool_scan *b = ctx;
    for (size_t i = 0; i < n; i++, b->at++)
        if (p[i] > 1 && !b->bad++) b->first = b->at;
}

static void check_bools(gg *g, uint64_t count, const char *key)
{
    bool_scan b = {0, 0, g->pos};
    if (!take(g, count, NULL, scan_bools, &b)) return;
    if (b.bad)
        pc_report(g->cx, "GGUF-031", "", (int64_t)b.first, "key \"%s\": %llu bool byte(s) other than 0 or 1",
                  key, (unsigned long long)b.bad);
}

static bool valid_vtype(gg *g, int32_t t, uint64_t at, const char *key, const char *role)
{
    if (t >= 0 && t < GV_COUNT) return true;
    pc_report(g->cx, "GGUF-008", "", (int64_t)at, "key \"%s\": %s type %d is not one of the 13 GGUF value types (0..12)",
              key, role, t);
    g->stop = true;
    return false;
}

/* An ARRAY value: element type, count, elements. */
static bool rd_array(gg *g, const char *key, int32_t *etype_out, uint64_t *count_out)
{
    uint32_t et;
    uint64_t at = g->pos, count;
    if (!rd_u32(g, &et, "array element type", "")) return false;
    int32_t etype = (int32_t)et;
    if (etype == GV_ARRAY) {
        pc_report(g->cx, "GGUF-009", "", (int64_t)at, "key \"%s\": array of arrays (ggml rejects element type 9)", key);
        g->stop = true;
        return false;
    }
    if (!valid_vtype(g, etype, at, key, "array element")) return false;
    uint64_t cat = g->pos;
    if (!rd_u64(g, &count, "array count", "")) return false;
    *etype_out = etype;
    *count_out = count;
    /* A string element is at least its 8-byte length. */
    uint64_t unit = etype == GV_STRING ? 8 : k_vtype_size[etype];
    if (!bound_length(g, count, unit, cat, "array", "")) return false;
    if (etype == GV_STRING) {
        for (uint64_t i = 0; i < count; i++) {
            gg_str s;
            if (!rd_string(g, &s, "array string", "")) return false;
            check_utf8(g, &s, "array string", "");
        }
        return true;
    }
    if (etype == GV_BOOL) { check_bools(g, count, key); return !g->stop; }
    return take(g, count * unit, NULL, NULL, NULL);
}

static void note_tokenizer(gg *g, const gg_str *key, int32_t vtype, int32_t etype, uint64_t count, uint64_t at)
{
    for (int i = 0; i < 4; i++) {
        gg_tok *t = &g->tok[i];
        if (t->seen || key->len != strlen(t->key) || strcmp(key->head, t->key)) continue;
        t->seen = true;
        t->vtype = vtype;
        t->etype = etype;
        t->count = count;
        t->at = at;
    }
}

static void read_alignment(gg *g, int32_t vtype, uint64_t at)
{
    if (g->align_seen) return;  /* a second definition is GGUF-011's business */
    g->align_seen = true;
    if (vtype != GV_U32) {
        pc_report(g->cx, "GGUF-012", "", (int64_t)at, "general.alignment is typed %s, not UINT32", k_vtype_name[vtype]);
        return;
    }
    uint32_t a;
    uint64_t vat = g->pos;
    if (!rd_u32(g, &a, "general.alignment value", "")) return;
    g->pos -= 4;  /* the caller consumes the value */
    if (a == 0) {
        pc_report(g->cx, "GGUF-012", "", (int64_t)vat, "general.alignment is 0 (padding to a multiple of 0 is undefined)");
        return;
    }
    /* Padding here is a modulo (pc_pad_u64), so a spec-valid 24 is read; ggml's GGML_PAD is a mask. */
    if (a & (a - 1))
        pc_report(g->cx, "GGUF-037", "", (int64_t)vat, "general.alignment %u is not a power of two: ggml and gguf-py refuse the file", a);
    if (a > GG_MAX_ALIGN) {
        pc_report(g->cx, "GGUF-013", "", (int64_t)vat, "general.alignment %u is above the 1 MiB limit", a);
        return;
    }
    if (a % 8) pc_report(g->cx, "GGUF-034", "", (int64_t)vat, "general.alignment %u is not a multiple of 8", a);
    g->align = a;
}

static bool rd_kv(gg *g)
{
    gg_str key;
    uint64_t at = g->pos;
    if (!rd_string(g, &key, "key", "")) return false;
    if (key.len == 0) pc_report(g->cx, "GGUF-010", "", (int64_t)at, "empty key");
    else if (!key.key_ok || key.len > GG_MAX_KEY_STRICT)
        pc_report(g->cx, "GGUF-032", "", (int64_t)key.at, "key \"%s\" is not lower_snake_case words joined by dots (at most 65535 bytes)",
                  key.shown);
    check_utf8(g, &key, "key", "");
    g->keys[g->nkeys++] = (gg_key){key.hash, key.len, key.at};
    uint32_t vt;
    uint64_t tat = g->pos;
    if (!rd_u32(g, &vt, "value type", "")) return false;
    int32_t vtype = (int32_t)vt;
    if (!valid_vtype(g, vtype, tat, key.shown, "value")) return false;
    bool is_align = key.len == 17 && !strcmp(key.head, "general.alignment");
    if (is_align) read_alignment(g, vtype, tat);
    if (g->stop) return false;
    int32_t etype = -1;
    uint64_t count = 1;
    if (vtype == GV_ARRAY) {
        if (!rd_array(g, key.shown, &etype, &count)) return false;
    } else if (vtype == GV_STRING) {
        gg_str s;
        if (!rd_string(g, &s, "string value", "")) return false;
        check_utf8(g, &s, "string value", "");
    } else if (vtype == GV_BOOL) {
        if (g->size == g->pos) { rd(g, NULL, 1, "bool value", ""); return false; }
        check_bools(g, 1, key.shown);
    } else {
        if (!rd(g, NULL, k_vtype_size[vtype], "value", "")) return false;
    }
    note_tokenizer(g, &key, vtype, etype, count, at);
    return !g->stop;
}

static int cmp_key(const void *a, const void *b)
{
    const gg_key *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Are the bytes of two equal-length keys the same? Compared from the file in chunks. */
static bool same_bytes(gg *g, uint64_t a, uint64_t b, uint64_t len)
{
    uint8_t x[512], y[512];
    while (len) {
        size_t k = len < sizeof x ? (size_t)len : sizeof x;
        if (pc_file_read(g->f, a, x, k) || pc_file_read(g->f, b, y, k) || memcmp(x, y, k)) return false;
        a += k, b += k, len -= k;
    }
    return true;
}

/* GGUF-011: keys unique. Hash-sorted; equal hashes are confirmed byte for byte. */
static void check_duplicate_keys(gg *g)
{
    pc_sort(g->keys, g->nkeys, sizeof *g->keys, cmp_key);
    for (size_t i = 1; i < g->nkeys; i++) {
        for (size_t j = i; j-- > 0;) {
            const gg_key *x = &g->keys[j], *y = &g->keys[i];
            if (x->hash != y->hash || x->len != y->len) break;
            if (!same_bytes(g, x->at, y->at, x->len)) continue;
            char head[GG_NAME_MAX + 1] = {0}, shown[GG_SHOWN];
            size_t n = y->len < GG_NAME_MAX ? (size_t)y->len : GG_NAME_MAX;
            if (pc_file_read(g->f, y->at, head, n)) n = 0;
            show_bytes(head, n, false, y->len > GG_NAME_MAX, shown);
            pc_report(g->cx, "GGUF-011", "", (int64_t)y->at - 8, "key \"%s\" defined twice (first at byte %llu)",
                      shown, (unsigned long long)(x->at - 8));
            break;
        }
    }
}

/* GGUF-014: llama.cpp reads these arrays by element type and indexes scores and token_type by
 * token id (llama.cpp PR #26690: a UINT8 scores array over-read the heap). Scores may be INT32:
 * gguf-py writes an INT32 array when every score is an integer, and llama.cpp reads it since PR
 * #27260 (published Devstral GGUFs failed before it, issue #27254). Arrays longer than the token
 * list are read (llama.cpp asserts only that none is shorter, PR #20737). */
static bool tok_etype_ok(const gg_tok *t, int i) { return t->etype == t->elem || (i == 1 && t->etype == GV_I32); }

static void check_tokenizer(gg *g)
{
    const gg_tok *tokens = &g->tok[0];
    for (int i = 0; i < 4; i++) {
        const gg_tok *t = &g->tok[i];
        if (!t->seen) continue;
        if (t->vtype != GV_ARRAY || !tok_etype_ok(t, i))
            pc_report(g->cx, "GGUF-014", "", (int64_t)t->at, "%s is %s%s%s, llama.cpp reads an ARRAY of %s%s", t->key,
                      k_vtype_name[t->vtype], t->vtype == GV_ARRAY ? " of " : "",
                      t->vtype == GV_ARRAY ? k_vtype_name[t->etype] : "", k_vtype_name[t->elem], i == 1 ? " or INT32" : "");
        else if (i >= 1 && i <= 2 && tokens->seen && tokens->vtype == GV_ARRAY && t->count < tokens->count)
            pc_report(g->cx, "GGUF-014", "", (int64_t)t->at, "%s holds %llu entries for %llu tokens", t->key,
                      (unsigned long long)t->count, (unsigned long long)tokens->count);
    }
}

/* ---- tensor infos ---- */

/* GGUF-039 when a fork assigns the id, else GGUF-022: never sized, so never misread. */
static void report_unknown_type(gg *g, const gg_ti *t)
{
    const pc_ggml_fork_row *f = pc_ggml_fork_only(t->type);
    if (f)
        pc_report(g->cx, "GGUF-039", t->shown, (int64_t)t->offset_at - 4,
                  "ggml type %d is no upstream ggml type: it is %s of the %s (%u elements in %u bytes per block); loaded by %s",
                  t->type, f->name, f->fork, f->blck, f->bytes, f->loaders);
    else
        pc_report(g->cx, "GGUF-022", t->shown, (int64_t)t->offset_at - 4,
                  "ggml type %d is not a known type id (upstream ggml has 0-3, 6-30, 34, 35, 39-42; no known fork assigns it)", t->type);
}

/* Element count and byte size of one tensor info (GGUF-020..GGUF-024). */
static void size_tensor(gg *g, gg_ti *t)
{
    const char *n = t->shown;
    bool ok = true;
    for (uint32_t j = 0; j < t->n_dims; j++)
        if (t->ne[j] < 0) {
            pc_report(g->cx, "GGUF-020", n, (int64_t)t->at, "ne[%u] = %lld is negative", j, (long long)t->ne[j]);
            ok = false;
        }
    if (!ok) return;
    uint64_t numel = 1;
    bool zero = false;
    for (int j = 0; j < 4; j++) zero |= t->ne[j] == 0;
    for (int j = 0; j < 4 && !zero; j++)
        if (!pc_mul_u64(numel, (uint64_t)t->ne[j], &numel) || numel > GG_INT64_MAX) {
            pc_report(g->cx, "GGUF-021", n, (int64_t)t->at, "ne = [%lld, %lld, %lld, %lld]: element count does not fit in 63 bits",
                      (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3]);
            return;
        }
    t->numel = zero ? 0 : numel;
    const pc_ggml_type_row *ty = pc_ggml_upstream(t->type);
    if (!ty) {
        report_unknown_type(g, t);
        return;
    }
    if ((uint64_t)t->ne[0] % ty->blck) {
        pc_report(g->cx, "GGUF-023", n, (int64_t)t->at, "%s: ne[0] = %lld is not a multiple of the block size %u",
                  ty->name, (long long)t->ne[0], ty->blck);
        return;
    }
    uint64_t nbytes, padded;
    if (!pc_mul_u64(t->numel / ty->blck, ty->bytes, &nbytes) || nbytes > GG_INT64_MAX ||
        !pc_pad_u64(nbytes, g->align, &padded) || padded > GG_INT64_MAX) {
        pc_report(g->cx, "GGUF-024", n, (int64_t)t->at, "%s tensor of %llu elements: byte size (padded to %u) does not fit in 63 bits",
                  ty->name, (unsigned long long)t->numel, g->align);
        return;
    }
    t->nbytes = nbytes;
    t->sized = true;
}

static bool rd_tensor_info(gg *g, gg_ti *t)
{
    gg_str s;
    t->at = g->pos;
    if (!rd_string(g, &s, "tensor name", "")) return false;
    memcpy(t->name, s.head, sizeof t->name);
    memcpy(t->shown, s.shown, sizeof t->shown);
    t->name_len = s.len;
    const char *n = t->shown;
    if (s.len > GG_NAME_MAX)
        pc_report(g->cx, "GGUF-015", n, (int64_t)t->at, "tensor name of %llu bytes is longer than 64 bytes", (unsigned long long)s.len);
    else if (s.len > GG_GGML_NAME_MAX)
        pc_report(g->cx, "GGUF-036", n, (int64_t)t->at,
                  "tensor name of %llu bytes: the spec allows 64, but every ggml reader refuses names over 63 (GGML_MAX_NAME includes the NUL)",
                  (unsigned long long)s.len);
    if (s.len == 0) pc_report(g->cx, "GGUF-016", "", (int64_t)t->at, "empty tensor name");
    if (s.has_nul) pc_report(g->cx, "GGUF-017", n, (int64_t)s.at, "tensor name holds a NUL byte");
    if (!s.utf8_ok) pc_report(g->cx, "GGUF-035", n, (int64_t)s.at, "tensor name is not valid UTF-8");
    uint64_t dat = g->pos;
    if (!rd_u32(g, &t->n_dims, "n_dims", n)) return false;
    if (t->n_dims > 4) {
        pc_report(g->cx, "GGUF-019", n, (int64_t)dat, "n_dims = %u, above ggml's 4", t->n_dims);
        g->stop = true;
        return false;
    }
    for (int j = 0; j < 4; j++) t->ne[j] = 1;
    for (uint32_t j = 0; j < t->n_dims; j++) {
        uint64_t v;
        if (!rd_u64(g, &v, "ne", n)) return false;
        t->ne[j] = (int64_t)v;
    }
    uint32_t ty;
    if (!rd_u32(g, &ty, "ggml type", n)) return false;
    t->type = (int32_t)ty;
    t->offset_at = g->pos;
    if (!rd_u64(g, &t->offset, "tensor offset", n)) return false;
    size_tensor(g, t);
    return true;
}

/* Names compare as C strings, as ggml compares them (a name with a NUL already broke GGUF-017). */
static int cmp_ti_name(const void *a, const void *b)
{
    const gg_ti *x = *(const gg_ti *const *)a, *y = *(const gg_ti *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at < y->at ? -1 : x->at > y->at);
}

/* GGUF-018: names unique. Names longer than 64 bytes already broke GGUF-015 and are left out. */
static void check_duplicate_names(gg *g)
{
    gg_ti **v = calloc(g->nti ? (size_t)g->nti : 1, sizeof *v);
    if (!v) { g->cx->oom = true; return; }
    size_t n = 0;
    for (uint64_t i = 0; i < g->nti; i++)
        if (g->ti[i].name_len <= GG_NAME_MAX) v[n++] = &g->ti[i];
    pc_sort(v, n, sizeof *v, cmp_ti_name);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(v[i]->name, v[i - 1]->name))
            pc_report(g->cx, "GGUF-018", v[i]->shown, (int64_t)v[i]->at, "tensor name defined twice (first at byte %llu)",
                      (unsigned long long)v[i - 1]->at);
    free(v);
}

/* ---- fork-era type ids (GGUF-040) ---- */

/* Do the tensors tile the data section when tensors of type `id` take the fork row f's geometry (f
 * NULL: upstream's)? Offsets must be the running padded sum, and the file must end inside the last
 * tensor's padding, as a writer leaves it (so a merely truncated upstream file does not pass for a
 * fork's: its end falls anywhere). */
static bool tiles_as(const gg *g, int id, const pc_ggml_fork_row *f)
{
    uint64_t data_start, running = 0, end = 0;
    if (!pc_pad_u64(g->pos, g->align, &data_start)) return false;
    for (uint64_t i = 0; i < g->nti; i++) {
        const gg_ti *t = &g->ti[i];
        const pc_ggml_type_row *up = pc_ggml_upstream(t->type);
        uint32_t blck = t->type == id && f ? f->blck : up ? up->blck : 0, bytes = t->type == id && f ? f->bytes : up ? up->bytes : 0;
        uint64_t nbytes, padded;
        if (!blck || t->ne[0] < 0 || (uint64_t)t->ne[0] % blck || t->numel % blck || t->offset != running) return false;
        if (!pc_mul_u64(t->numel / blck, bytes, &nbytes) || !pc_pad_u64(nbytes, g->align, &padded) ||
            !pc_add_u64(data_start, t->offset, &end) || !pc_add_u64(end, nbytes, &end) || !pc_add_u64(running, padded, &running))
            return false;
    }
    uint64_t padded_end;
    return pc_add_u64(data_start, running, &padded_end) && end <= g->size && g->size <= padded_end;
}

/* GGUF-040: an id a fork used for another layout, in a file that only tiles under the fork's geometry:
 * the fork wrote it, and upstream refuses it (GGUF-023/027/028) or, had the sizes fit, would misread it. */
static void check_fork_collisions(gg *g)
{
    const pc_ggml_fork_row *f;
    for (size_t k = 0; (f = pc_ggml_fork_at(k)); k++) {
        const pc_ggml_type_row *up = pc_ggml_upstream(f->id);
        if (f->kind != PC_FORK_COLLISION || !up || !f->blck || (f->blck == up->blck && f->bytes == up->bytes)) continue;
        uint64_t i = 0;
        while (i < g->nti && g->ti[i].type != f->id) i++;
        if (i == g->nti || !tiles_as(g, f->id, f) || tiles_as(g, f->id, NULL)) continue;
        pc_report(g->cx, "GGUF-040", g->ti[i].shown, (int64_t)g->ti[i].offset_at - 4,
                  "ggml type %d: the tensors tile the file only as %s of the %s (%u elements in %u bytes per block), not as "
                  "upstream %s (%u in %u, %s): a fork-era file; %s",
                  f->id, f->name, f->fork, f->blck, f->bytes, up->name, up->blck, up->bytes, up->since, f->loaders);
    }
}

/* ---- the data section ---- */

typedef struct zero_scan { uint64_t at, first, bad; } zero_scan;

static void scan_zero(void *ctx, const uint8_t *p, size_t n)
{
    zero_scan *z = ctx;
    for (size_t i = 0; i < n; i++, z->at++)
        if (p[i] && !z->bad++) z->first = z->at;
}

/* GGUF-030: padding bytes [from, to) (clipped to the file) are zero. */
static void check_padding(gg *g, uint64_t from, uint64_t to, const char *tensor)
{
    if (to > g->size) to = g->size;
    if (from >= to) return;
    g->pos = from;
    zero_scan z = {from, 0, 0};
    if (!take(g, to - from, NULL, scan_zero, &z)) return;
    if (z.bad)
        pc_report(g->cx, "GGUF-030", tensor, (int64_t)z.first, "%llu non-zero padding byte(s) in [%llu, %llu)",
                  (unsigned long long)z.bad, (unsigned long long)from, (unsigned long long)to);
}

/* GGUF-025..GGUF-030 in declaration order: offsets are the running padded sum, tensors lie
 * inside the file. Returns the data section's start. */
static uint64_t check_data(gg *g)
{
    uint64_t header_end = g->pos, data_start = header_end;
    /* ggml pads to the data section only when there are tensors (FORMATS.md 7.1). */
    if (g->nti > 0) pc_pad_u64(header_end, g->align, &data_start);
    uint64_t running = 0;
    bool consistent = true;
    for (uint64_t i = 0; i < g->nti; i++) {
        gg_ti *t = &g->ti[i];
        if (!t->sized) { consistent = false; break; }
        if (t->offset % g->align) {
            pc_report(g->cx, "GGUF-026", t->shown, (int64_t)t->offset_at, "offset %llu is not a multiple of the alignment %u",
                      (unsigned long long)t->offset, g->align);
            consistent = false;
        } else if (t->offset != running) {
            pc_report(g->cx, "GGUF-027", t->shown, (int64_t)t->offset_at, "offset %llu, expected %llu (the padded sizes of the tensors before it)",
                      (unsigned long long)t->offset, (unsigned long long)running);
            consistent = false;
        }
        uint64_t end, abs_off;
        if (!pc_add_u64(data_start, t->offset, &abs_off) || !pc_add_u64(abs_off, t->nbytes, &end) || end > g->size)
            pc_report(g->cx, "GGUF-028", t->shown, (int64_t)t->offset_at, "data [%llu + %llu, +%llu bytes) runs past the end of the %llu-byte file",
                      (unsigned long long)data_start, (unsigned long long)t->offset, (unsigned long long)t->nbytes,
                      (unsigned long long)g->size);
        uint64_t padded;
        pc_pad_u64(t->nbytes, g->align, &padded); /* fits: GGUF-024 */
        if (!pc_add_u64(running, padded, &running) || running > GG_INT64_MAX) {
            pc_report(g->cx, "GGUF-025", t->shown, (int64_t)t->offset_at, "the padded sizes of the tensors up to this one sum past 2^63 - 1");
            consistent = false;
            break;
        }
    }
    if (!consistent || g->nti == 0) return data_start;
    uint64_t end;
    if (!pc_add_u64(data_start, running, &end) || end > g->size) {
        const gg_ti *last = &g->ti[g->nti - 1];
        pc_report(g->cx, "GGUF-029", last->shown, (int64_t)g->size, "the data section ends %llu bytes short of the last tensor's padding",
                  (unsigned long long)(end - g->size));
    }
    check_padding(g, header_end, data_start, "");
    for (uint64_t i = 0; i < g->nti; i++) {
        const gg_ti *t = &g->ti[i];
        uint64_t padded;
        pc_pad_u64(t->nbytes, g->align, &padded);
        uint64_t from = data_start + t->offset + t->nbytes, to = data_start + t->offset + padded;
        check_padding(g, from, to, t->shown);
    }
    return data_start;
}

/* ---- the whole file ---- */

static const char *const k_header_rules[] = {"GGUF-001", "GGUF-002", "GGUF-003", "GGUF-004", "GGUF-005", "GGUF-038"};
static const char *const k_kv_rules[] = {"GGUF-006", "GGUF-007", "GGUF-008", "GGUF-009", "GGUF-010", "GGUF-011",
                                         "GGUF-012", "GGUF-013", "GGUF-014", "GGUF-031", "GGUF-032", "GGUF-033", "GGUF-034",
                                         "GGUF-037"};
static const char *const k_ti_rules[] = {"GGUF-015", "GGUF-016", "GGUF-017", "GGUF-018", "GGUF-019", "GGUF-020",
                                         "GGUF-021", "GGUF-022", "GGUF-023", "GGUF-024", "GGUF-035", "GGUF-036", "GGUF-039"};
static const char *const k_data_rules[] = {"GGUF-025", "GGUF-026", "GGUF-027", "GGUF-028", "GGUF-029", "GGUF-030"};

static void eval_all(pc_ctx *cx, const char *const *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) pc_eval(cx, ids[i]);
}
#define EVAL(cx, list) eval_all(cx, list, sizeof list / sizeof *list)

static bool read_fixed_header(gg *g, uint64_t *n_tensors, uint64_t *n_kv)
{
    uint8_t magic[4];
    if (g->size < 4 || pc_file_read(g->f, 0, magic, 4) || memcmp(magic, "GGUF", 4)) {
        bool swapped = g->size >= 4 && !memcmp(magic, "FUGG", 4);
        pc_report(g->cx, "GGUF-001", "", 0, "%s", swapped ? "magic \"FUGG\": a byte-swapped (big-endian) GGUF file; only little-endian GGUF is read"
                                                          : "the file does not start with the magic \"GGUF\"");
        return false;
    }
    g->pos = 4;
    uint32_t v;
    if (!rd_u32(g, &v, "version", "")) return false;
    if (v != 2 && v != 3) {
        if (v == 0) pc_report(g->cx, "GGUF-002", "", 4, "version 0 is not a GGUF version");
        else if (v == 0x03000000u)
            pc_report(g->cx, "GGUF-038", "", 4, "version 0x03000000 is a byte-swapped 3: a big-endian GGUF v3 file (the spec permits it; "
                      "packcheck reads little-endian GGUF only, and ggml on a little-endian host refuses it)");
        else if ((v & 0xFFFF) == 0)
            pc_report(g->cx, "GGUF-002", "", 4, "version 0x%08x is byte-swapped (a big-endian file of version %u); only little-endian GGUF is read",
                      v, (unsigned)__builtin_bswap32(v));
        else if (v == 1) pc_report(g->cx, "GGUF-002", "", 4, "version 1: GGUFv1 is no longer supported (2 and 3 are)");
        else pc_report(g->cx, "GGUF-002", "", 4, "version %u is newer than 3, the latest this reader knows", v);
        return false;
    }
    if (!rd_u64(g, n_tensors, "n_tensors", "") || !rd_u64(g, n_kv, "n_kv", "")) return false;
    uint64_t left = g->size - g->pos;
    /* The counts are read as signed by ggml: a negative one is a huge unsigned one here. */
    if (*n_kv > left / GG_MIN_KV) {
        pc_report(g->cx, "GGUF-004", "", 16, "n_kv = %llu: the %llu bytes left hold at most %llu key/value pairs",
                  (unsigned long long)*n_kv, (unsigned long long)left, (unsigned long long)(left / GG_MIN_KV));
        return false;
    }
    if (*n_tensors > (left - *n_kv * GG_MIN_KV) / GG_MIN_TI) {
        pc_report(g->cx, "GGUF-004", "", 8, "n_tensors = %llu: the %llu bytes left after %llu key/value pairs hold at most %llu tensor infos",
                  (unsigned long long)*n_tensors, (unsigned long long)left, (unsigned long long)*n_kv,
                  (unsigned long long)((left - *n_kv * GG_MIN_KV) / GG_MIN_TI));
        return false;
    }
    if (*n_tensors > GG_MAX_COUNT || *n_kv > GG_MAX_COUNT) {
        pc_report(g->cx, "GGUF-005", "", *n_tensors > GG_MAX_COUNT ? 8 : 16, "%s = %llu is above the limit of 2^20",
                  *n_tensors > GG_MAX_COUNT ? "n_tensors" : "n_kv",
                  (unsigned long long)(*n_tensors > GG_MAX_COUNT ? *n_tensors : *n_kv));
        return false;
    }
    return true;
}

static int hand_over(gg *g, uint64_t data_start, pc_tensor **tensors, size_t *ntensors, size_t *cap)
{
    for (uint64_t i = 0; i < g->nti; i++) {
        const gg_ti *t = &g->ti[i];
        if (*ntensors == *cap) {
            size_t nc = *cap ? *cap * 2 : 64;
            pc_tensor *nt = realloc(*tensors, nc * sizeof *nt);
            if (!nt) return -1;
            *tensors = nt;
            *cap = nc;
        }
        pc_tensor *o = &(*tensors)[*ntensors];
        memset(o, 0, sizeof *o);
        o->name = pc_strdup(t->name);
        if (!o->name) return -1;
        o->dtype = PC_DT_GGML;
        o->ggml_type = t->type;
        o->ndim = (int)t->n_dims;
        /* ne[0] is the contiguous dimension: row-major shape is ne reversed. */
        for (uint32_t j = 0; j < t->n_dims; j++) o->shape[j] = (uint64_t)t->ne[t->n_dims - 1 - j];
        o->numel = t->numel;
        o->nbytes = t->nbytes;
        o->file = g->f;
        o->offset = data_start + t->offset;
        (*ntensors)++;
    }
    return 0;
}

int gguf_read(const pc_file *f, pc_ctx *cx, pc_tensor **tensors, size_t *ntensors, size_t *cap)
{
    gg g = {.f = f, .cx = cx, .size = f->size, .align = 32,
            .tok = {{.key = "tokenizer.ggml.tokens", .elem = GV_STRING}, {.key = "tokenizer.ggml.scores", .elem = GV_F32},
                    {.key = "tokenizer.ggml.token_type", .elem = GV_I32}, {.key = "tokenizer.ggml.merges", .elem = GV_STRING}}};
    int rc = 0;
    bool failed_before = pc_family_failed(cx, "GGUF");
    EVAL(cx, k_header_rules);
    uint64_t n_tensors, n_kv;
    g.win = pc_page_alloc(GG_WINDOW);
    if (!g.win) return -1;
    if (!read_fixed_header(&g, &n_tensors, &n_kv)) goto out;
    EVAL(cx, k_kv_rules);
    g.keys = calloc(n_kv ? (size_t)n_kv : 1, sizeof *g.keys);
    if (!g.keys) { rc = -1; goto out; }
    for (uint64_t i = 0; i < n_kv && !g.stop; i++) rd_kv(&g);
    check_duplicate_keys(&g);
    check_tokenizer(&g);
    if (g.stop) goto out;
    EVAL(cx, k_ti_rules);
    g.ti = calloc(n_tensors ? (size_t)n_tensors : 1, sizeof *g.ti);
    if (!g.ti) { rc = -1; goto out; }
    for (; g.nti < n_tensors && !g.stop; g.nti++)
        if (!rd_tensor_info(&g, &g.ti[g.nti])) break;
    if (g.stop) goto out;
    check_duplicate_names(&g);
    pc_eval(cx, "GGUF-040");
    check_fork_collisions(&g);
    EVAL(cx, k_data_rules);
    uint64_t data_start = check_data(&g);
    if (!failed_before && !pc_family_failed(cx, "GGUF")) rc = hand_over(&g, data_start, tensors, ntensors, cap);
out:
    free(g.win);
    free(g.keys);
    free(g.ti);
    return rc;
}
