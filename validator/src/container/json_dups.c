#include "json_dups.h"

#include "../core/util.h"
#include "json_lex.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_CAP 512

typedef struct jkey { char *s; size_t len, at; } jkey;

/* One open object or array. An object's last key is the one whose value is being read. */
typedef struct frame {
    bool is_obj, want_key;
    size_t index; /* arrays: the element being read */
    jkey *keys;
    size_t nkeys, cap;
} frame;

typedef struct walk {
    const uint8_t *s;
    size_t n, max, found;
    pc_json_issue_fn on;
    void *ud;
    frame *st;
    size_t depth, stcap;
    char path[PATH_CAP];
    bool oom;
} walk;

static void frame_free(frame *f)
{
    for (size_t i = 0; i < f->nkeys; i++) free(f->keys[i].s);
    free(f->keys);
}

/* The key path of the value being read, with `last` (a key) appended when given. */
static const char *path_of(walk *w, const jkey *last)
{
    size_t k = 0;
    w->path[0] = 0;
    for (size_t d = 0; d < w->depth && k < PATH_CAP; d++) {
        const frame *f = &w->st[d];
        if (d + 1 == w->depth && last) break;
        if (f->is_obj && f->nkeys)
            k += (size_t)snprintf(w->path + k, PATH_CAP - k, "%s%.*s", k ? "." : "", (int)f->keys[f->nkeys - 1].len, f->keys[f->nkeys - 1].s);
        else if (!f->is_obj)
            k += (size_t)snprintf(w->path + k, PATH_CAP - k, "[%zu]", f->index);
    }
    if (last && k < PATH_CAP) snprintf(w->path + k, PATH_CAP - k, "%s%.*s", k ? "." : "", (int)last->len, last->s);
    return w->path;
}

static void issue(walk *w, pc_json_issue_kind kind, size_t at, size_t at2, const jkey *last, const char *what)
{
    if (w->found >= w->max) return;
    w->found++;
    pc_json_issue is = {kind, at, at2, path_of(w, last), what};
    w->on(w->ud, &is);
}

static int cmp_key(const void *a, const void *b)
{
    const jkey *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, m);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* At an object's close: each key held more than once, first against last occurrence (what cJSON
 * reads against what json.loads reads). Sorting by (bytes, offset) makes that the group's ends. */
static void close_object(walk *w, frame *f)
{
    pc_sort(f->keys, f->nkeys, sizeof *f->keys, cmp_key);
    for (size_t i = 0; i < f->nkeys;) {
        size_t j = i + 1;
        while (j < f->nkeys && f->keys[j].len == f->keys[i].len && !memcmp(f->keys[j].s, f->keys[i].s, f->keys[i].len)) j++;
        if (j - i > 1) issue(w, PC_JSON_DUP_KEY, f->keys[i].at, f->keys[j - 1].at, &f->keys[i], NULL);
        i = j;
    }
}

static bool push(walk *w, bool is_obj)
{
    if (w->depth == w->stcap) {
        size_t cap = w->stcap ? 2 * w->stcap : 16;
        frame *ns = realloc(w->st, cap * sizeof *ns);
        if (!ns) return false;
        w->st = ns, w->stcap = cap;
    }
    w->st[w->depth++] = (frame){.is_obj = is_obj, .want_key = is_obj};
    return true;
}

static bool add_key(frame *f, char *s, size_t len, size_t at)
{
    if (f->nkeys == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        jkey *nk = realloc(f->keys, cap * sizeof *nk);
        if (!nk) return false;
        f->keys = nk, f->cap = cap;
    }
    f->keys[f->nkeys++] = (jkey){s, len, at};
    return true;
}

static bool is_hex(uint8_t c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }

/* The last byte of the escape at s[i] == '\\'. cJSON reads a \u with bad hex digits ("\u000M") as
 * U+0000 and goes on; json.loads refuses it ("Invalid \uXXXX escape"), as it does an unknown escape. */
static size_t escape_end(walk *w, size_t i, bool *bad)
{
    if (i + 1 >= w->n) { *bad = true; return i; }
    uint8_t e = w->s[i + 1];
    if (e != 'u') {
        if (!e || !strchr("\"\\/bfnrt", e)) {
            issue(w, PC_JSON_NOT_PY, i, 0, NULL, "an escape json.loads does not know");
            *bad = true;
        }
        return i + 1;
    }
    size_t k = 0;
    while (k < 4 && i + 2 + k < w->n && is_hex(w->s[i + 2 + k])) k++;
    if (k < 4) {
        issue(w, PC_JSON_NOT_PY, i, 0, NULL, "a \\u escape without four hex digits");
        *bad = true;
    }
    return i + 1 + k;
}

/* One past the closing quote of the string at s[i] == '"' (cJSON has checked it closes). Raw
 * control bytes inside, NUL included, are noted: json.loads (strict, its default) refuses them. */
static size_t string_end(walk *w, size_t i, bool *bad_escape)
{
    *bad_escape = false;
    for (i++; i < w->n && w->s[i] != '"'; i++) {
        if (w->s[i] == '\\') { i = escape_end(w, i, bad_escape); continue; }
        if (w->s[i] < 0x20) issue(w, PC_JSON_NOT_PY, i, 0, NULL, "a raw control character inside a string");
    }
    return i < w->n ? i + 1 : w->n;
}

/* A string token: decoded (so "a" and "\u0061" are one key, as both parsers see it), checked for
 * U+0000, and recorded when it is a key. */
static bool on_string(walk *w, size_t i, size_t *next)
{
    bool bad_escape;
    size_t end = string_end(w, i, &bad_escape), len = 0;
    char *dec = bad_escape ? NULL : pc_json_string_decode(w->s + i, end - i, &len);
    if (!dec) { /* an escape cJSON took but the strict decoder does not: compare the raw bytes */
        len = end - i - 2;
        if (!(dec = malloc(len + 1))) return false;
        memcpy(dec, w->s + i + 1, len);
        dec[len] = 0;
    }
    frame *f = w->depth ? &w->st[w->depth - 1] : NULL;
    bool is_key = f && f->is_obj && f->want_key;
    if (memchr(dec, 0, len)) { /* an escaped U+0000 (a raw one is refused above) */
        jkey k = {dec, len, i};
        issue(w, PC_JSON_NUL, i, 0, is_key ? &k : NULL, NULL);
    }
    *next = end;
    if (!is_key) { free(dec); return true; }
    f->want_key = false;
    if (!add_key(f, dec, len, i)) { free(dec); return false; }
    return true;
}

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* A number as json.loads reads it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. cJSON hands the
 * run of number characters to strtod, which also takes "01", "+1", "1." and ".5". */
static size_t number_end(walk *w, size_t i)
{
    const uint8_t *s = w->s;
    size_t n = w->n, start = i, end = i;
    while (end < n && (is_digit(s[end]) || s[end] == '-' || s[end] == '+' || s[end] == '.' || s[end] == 'e' || s[end] == 'E')) end++;
    bool ok = true;
    if (i < end && s[i] == '-') i++;
    if (i < end && s[i] == '0') i++;
    else if (i < end && is_digit(s[i])) while (i < end && is_digit(s[i])) i++;
    else ok = false;
    if (ok && i < end && s[i] == '.') {
        if (++i >= end || !is_digit(s[i])) ok = false;
        while (i < end && is_digit(s[i])) i++;
    }
    if (ok && i < end && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < end && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= end || !is_digit(s[i])) ok = false;
        while (i < end && is_digit(s[i])) i++;
    }
    if (!ok || i != end) issue(w, PC_JSON_NOT_PY, start, 0, NULL, "a number json.loads does not read (a leading zero or '+', a bare '.')");
    return end;
}

static bool step(walk *w, size_t *i)
{
    uint8_t c = w->s[*i];
    frame *f = w->depth ? &w->st[w->depth - 1] : NULL;
    switch (c) {
    case '"': return on_string(w, *i, i);
    case '{': case '[':
        (*i)++;
        return push(w, c == '{');
    case '}': case ']':
        if (f) {
            if (f->is_obj) close_object(w, f);
            frame_free(f);
            w->depth--;
        }
        (*i)++;
        return true;
    case ',':
        if (f && f->is_obj) f->want_key = true;
        else if (f) f->index++;
        (*i)++;
        return true;
    case ' ': case '\t': case '\n': case '\r': case ':':
        (*i)++;
        return true;
    default:
        if (c == '-' || c == '+' || c == '.' || is_digit(c)) { *i = number_end(w, *i); return true; }
        if (c < 0x20) issue(w, PC_JSON_NOT_PY, *i, 0, NULL, "a control byte between tokens (json.loads allows only space, tab, CR, LF)");
        (*i)++; /* true, false, null: letters cJSON has checked */
        return true;
    }
}

int pc_json_ambiguities(const uint8_t *s, size_t n, size_t max_issues, pc_json_issue_fn on, void *ud)
{
    walk w = {.s = s, .n = n, .max = max_issues, .on = on, .ud = ud};
    size_t bad;
    size_t i = 0;
    if (n >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
        issue(&w, PC_JSON_NOT_PY, 0, 0, NULL, "a UTF-8 byte order mark (json.loads: \"Unexpected UTF-8 BOM\")");
        i = 3;
    }
    if (!pc_utf8_valid(s, n, &bad)) issue(&w, PC_JSON_NOT_PY, bad, 0, NULL, "bytes that are not UTF-8 (Python decodes the file as UTF-8 first)");
    while (i < n && !w.oom)
        if (!step(&w, &i)) w.oom = true;
    while (w.depth) frame_free(&w.st[--w.depth]);
    free(w.st);
    return w.oom ? -1 : (int)w.found;
}
