#include "json_lex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static bool is_hex(uint8_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_json_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
/* cJSON treats every byte <= 0x20 as whitespace and hands numbers to strtod: only these may sit
 * between tokens, and a number or literal must end at one of them. */
static bool is_structural(uint8_t c) { return c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':'; }
static bool is_delim(const uint8_t *s, size_t n, size_t i) { return i >= n || is_json_ws(s[i]) || is_structural(s[i]); }

static unsigned hex4(const uint8_t *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) v = v * 16 + (unsigned)(is_digit(p[k]) ? p[k] - '0' : (p[k] | 0x20) - 'a' + 10);
    return v;
}

/* Scan a string starting at s[i] == '"'. Returns the offset one past the closing quote, or 0. */
static size_t scan_string(const uint8_t *s, size_t n, size_t i, bool *has_nul, size_t *err_at)
{
    *has_nul = false;
    for (i++; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"') return i + 1;
        if (c < 0x20) break;
        if (c != '\\') continue;
        if (++i >= n) break;
        switch (s[i]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            continue;
        case 'u':
            if (i + 4 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2]) || !is_hex(s[i + 3]) || !is_hex(s[i + 4])) {
                *err_at = i;
                return 0;
            }
            unsigned cp = hex4(s + i + 1);
            if (cp == 0) *has_nul = true;
            if (cp >= 0xdc00 && cp <= 0xdfff) { *err_at = i; return 0; } /* lone trailing surrogate */
            if (cp >= 0xd800 && cp <= 0xdbff) {                             /* needs its trailing half */
                if (i + 10 >= n || s[i + 5] != '\\' || s[i + 6] != 'u' || !is_hex(s[i + 7]) || !is_hex(s[i + 8]) ||
                    !is_hex(s[i + 9]) || !is_hex(s[i + 10]) || hex4(s + i + 7) < 0xdc00 || hex4(s + i + 7) > 0xdfff) {
                    *err_at = i;
                    return 0;
                }
                i += 6;
            }
            i += 4;
            continue;
        default:
            *err_at = i;
            return 0;
        }
    }
    *err_at = i;
    return 0;
}

/* Scan a number per RFC 8259. Returns one past its end, or 0. */
static size_t scan_number(const uint8_t *s, size_t n, size_t i, size_t *err_at)
{
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0') i++;
    else if (i < n && is_digit(s[i])) while (i < n && is_digit(s[i])) i++;
    else { *err_at = i; return 0; }
    if (i < n && s[i] == '.') {
        if (++i >= n || !is_digit(s[i])) { *err_at = i; return 0; }
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) { *err_at = i; return 0; }
        while (i < n && is_digit(s[i])) i++;
    }
    return i;
}

static bool match_word(const uint8_t *s, size_t n, size_t i, const char *w, size_t *end)
{
    size_t k = 0;
    for (; w[k]; k++)
        if (i + k >= n || s[i + k] != (uint8_t)w[k]) return false;
    *end = i + k;
    return true;
}

/* serde_json reads a number that is not a u64/i64 as an f64 and refuses one that overflows to
 * infinity ("number out of range", e.g. 1e400), wherever it appears, ignored fields included.
 * Underflow to zero is fine. Only tokens with a fraction, an exponent or more than 18 digits can
 * leave the integer range, so the rest skip the conversion. */
static bool number_in_range(const uint8_t *tok, size_t len)
{
    bool simple = len <= 18;
    for (size_t k = 0; k < len && simple; k++) simple = is_digit(tok[k]) || (k == 0 && tok[k] == '-');
    if (simple) return true;
    char stackbuf[128], *buf = len < sizeof stackbuf ? stackbuf : malloc(len + 1);
    if (!buf) return false;
    memcpy(buf, tok, len);
    buf[len] = 0;
    double v = strtod(buf, NULL);
    if (buf != stackbuf) free(buf);
    return !isinf(v);
}

bool pc_json_lex_check(const uint8_t *s, size_t n, size_t *nvalues, size_t *err_at)
{
    size_t i = 0, values = 0, end, depth = 0;
    bool nul;
    while (i < n) {
        uint8_t c = s[i];
        if (c == '"') {
            if (!(end = scan_string(s, n, i, &nul, err_at))) return false;
            i = end, values++;
        } else if (c == '-' || is_digit(c)) {
            if (!(end = scan_number(s, n, i, err_at))) return false;
            if (!is_delim(s, n, end)) { *err_at = end; return false; }
            if (!number_in_range(s + i, end - i)) { *err_at = i; return false; }
            i = end, values++;
        } else if (c == 't' || c == 'f' || c == 'n') {
            if ((!match_word(s, n, i, "true", &end) && !match_word(s, n, i, "false", &end) &&
                 !match_word(s, n, i, "null", &end)) || !is_delim(s, n, end)) {
                *err_at = i;
                return false;
            }
            i = end, values++;
        } else if (is_json_ws(c) || is_structural(c)) {
            /* The structure itself is the parser's to check; only its depth is counted here. */
            if (c == '[' || c == '{') {
                if (++depth > PC_JSON_MAX_DEPTH) { *err_at = i; return false; }
            } else if ((c == ']' || c == '}') && depth) {
                depth--;
            }
            i++;
        } else {
            *err_at = i;
            return false;
        }
    }
    *nvalues = values;
    return true;
}

size_t pc_json_value_bound(const uint8_t *s, size_t n)
{
    size_t bound = 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
        } else if (c == '[' || c == '{' || c == ',' || c == ':') {
            bound++;
        }
    }
    return bound;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

bool pc_json_string_decode_into(const uint8_t *tok, size_t toklen, char *o, size_t *len)
{
    if (toklen < 2) return false;
    size_t k = 0, end = toklen - 1;
    for (size_t i = 1; i < end; i++) {
        if (tok[i] != '\\') { o[k++] = (char)tok[i]; continue; }
        uint8_t e = tok[++i];
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *hit = e != 'u' ? memchr(from, e, sizeof from - 1) : NULL;
        if (hit) { o[k++] = to[hit - from]; continue; }
        uint32_t cp = hex4(tok + i + 1);
        i += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff) return false;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (i + 6 >= end || tok[i + 1] != '\\' || tok[i + 2] != 'u') return false;
            uint32_t lo = hex4(tok + i + 3);
            if (lo < 0xdc00 || lo > 0xdfff) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            i += 6;
        }
        k += put_utf8(o + k, cp);
    }
    o[k] = 0;
    *len = k;
    return true;
}

char *pc_json_string_decode(const uint8_t *tok, size_t toklen, size_t *len)
{
    /* Decoding never grows the text: an escape of 6 or 12 bytes yields at most 4. */
    char *o = toklen >= 2 ? malloc(toklen) : NULL;
    if (o && !pc_json_string_decode_into(tok, toklen, o, len)) { free(o); return NULL; }
    return o;
}

bool pc_json_lex_next(pc_jlex *lx, pc_jtok *t)
{
    size_t err, end;
    while (lx->pos < lx->n) {
        size_t i = lx->pos;
        uint8_t c = lx->s[i];
        if (c == '"') {
            end = scan_string(lx->s, lx->n, i, &t->has_nul, &err);
            if (!end) return false;
            *t = (pc_jtok){.start = i, .len = end - i, .is_string = true, .has_nul = t->has_nul};
            lx->pos = end;
            return true;
        }
        if (c == '-' || is_digit(c)) {
            end = scan_number(lx->s, lx->n, i, &err);
            if (!end) return false;
            *t = (pc_jtok){.start = i, .len = end - i, .is_string = false, .has_nul = false};
            lx->pos = end;
            return true;
        }
        lx->pos++;
    }
    return false;
}

bool pc_json_u64(const uint8_t *s, size_t len, uint64_t *out)
{
    if (len == 0 || (s[0] == '0' && len > 1)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i])) return false;
        if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v)) return false;
    }
    *out = v;
    return true;
}

bool pc_utf8_valid(const uint8_t *s, size_t n, size_t *err_at)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t need;
        uint32_t cp, min;
        if ((c & 0xe0) == 0xc0) need = 1, cp = c & 0x1f, min = 0x80;
        else if ((c & 0xf0) == 0xe0) need = 2, cp = c & 0x0f, min = 0x800;
        else if ((c & 0xf8) == 0xf0) need = 3, cp = c & 0x07, min = 0x10000;
        else { *err_at = i; return false; }
        if (need > n - i - 1) { *err_at = i; return false; }
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80) { *err_at = i; return false; }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) { *err_at = i; return false; }
        i += need + 1;
    }
    return true;
}

static size_t skip_ws(const uint8_t *s, size_t n, size_t i)
{
    while (i < n && is_json_ws(s[i])) i++;
    return i;
}

/* One value at s[*i] (after whitespace), inside `depth` containers; *i ends one past it. Recursion
 * is bounded by PC_JSON_MAX_DEPTH. */
static bool value_at(const uint8_t *s, size_t n, size_t *i, unsigned depth, size_t *err_at)
{
    size_t at = skip_ws(s, n, *i), end;
    bool nul;
    uint8_t c = at < n ? s[at] : 0;
    if (c == '"') {
        if (!(end = scan_string(s, n, at, &nul, err_at))) return false;
    } else if (c == '-' || is_digit(c)) {
        if (!(end = scan_number(s, n, at, err_at))) return false;
        if (!is_delim(s, n, end) || !number_in_range(s + at, end - at)) { *err_at = !is_delim(s, n, end) ? end : at; return false; }
    } else if (c == 't' || c == 'f' || c == 'n') {
        if ((!match_word(s, n, at, "true", &end) && !match_word(s, n, at, "false", &end) && !match_word(s, n, at, "null", &end)) ||
            !is_delim(s, n, end)) {
            *err_at = at;
            return false;
        }
    } else if (c == '{' || c == '[') {
        if (depth + 1 > PC_JSON_MAX_DEPTH) { *err_at = at; return false; }
        uint8_t close = c == '{' ? '}' : ']';
        end = skip_ws(s, n, at + 1);
        if (end < n && s[end] == close) { *i = end + 1; return true; }
        for (;;) {
            if (c == '{') {
                end = skip_ws(s, n, end);
                if (end >= n || s[end] != '"') { *err_at = end; return false; }
                if (!(end = scan_string(s, n, end, &nul, err_at))) return false;
                end = skip_ws(s, n, end);
                if (end >= n || s[end] != ':') { *err_at = end; return false; }
                end++;
            }
            if (!value_at(s, n, &end, depth + 1, err_at)) return false;
            end = skip_ws(s, n, end);
            if (end < n && s[end] == ',') { end++; continue; }
            if (end < n && s[end] == close) { end++; break; }
            *err_at = end;
            return false;
        }
    } else {
        *err_at = at;
        return false;
    }
    *i = end;
    return true;
}

bool pc_json_value_check(const uint8_t *s, size_t n, size_t *end, size_t *err_at)
{
    size_t i = 0;
    if (!value_at(s, n, &i, 0, err_at)) return false;
    *end = i;
    return true;
}

uint8_t pc_json_peek(pc_jlex *lx)
{
    lx->pos = skip_ws(lx->s, lx->n, lx->pos);
    return lx->pos < lx->n ? lx->s[lx->pos] : 0;
}

bool pc_json_open(pc_jlex *lx)
{
    pc_json_peek(lx);
    lx->pos++;
    uint8_t c = pc_json_peek(lx);
    if (c != '}' && c != ']') return true;
    lx->pos++;
    return false;
}

bool pc_json_more(pc_jlex *lx)
{
    uint8_t c = pc_json_peek(lx);
    lx->pos++;
    return c == ',';
}

bool pc_json_key(pc_jlex *lx, pc_jtok *t)
{
    if (!pc_json_lex_next(lx, t)) return false;
    pc_json_peek(lx);
    lx->pos++; /* the ':' */
    return true;
}

void pc_json_skip(pc_jlex *lx)
{
    uint8_t c = pc_json_peek(lx);
    pc_jtok t;
    if (c == '{' || c == '[') {
        if (pc_json_open(lx))
            do {
                if (c == '{') pc_json_key(lx, &t);
                pc_json_skip(lx);
            } while (pc_json_more(lx));
    } else if (c == '"' || c == '-' || is_digit(c)) {
        pc_json_lex_next(lx, &t);
    } else {
        while (lx->pos < lx->n && lx->s[lx->pos] >= 'a' && lx->s[lx->pos] <= 'z') lx->pos++; /* true, false, null */
    }
}
