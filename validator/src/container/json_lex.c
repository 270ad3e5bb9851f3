#include "json_lex.h"

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static bool is_hex(uint8_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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
            if (s[i + 1] == '0' && s[i + 2] == '0' && s[i + 3] == '0' && s[i + 4] == '0') *has_nul = true;
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

bool pc_json_lex_check(const uint8_t *s, size_t n, size_t *nvalues, size_t *err_at)
{
    size_t i = 0, values = 0, end;
    bool nul;
    while (i < n) {
        uint8_t c = s[i];
        if (c == '"') {
            if (!(end = scan_string(s, n, i, &nul, err_at))) return false;
            i = end, values++;
        } else if (c == '-' || is_digit(c)) {
            if (!(end = scan_number(s, n, i, err_at))) return false;
            i = end, values++;
        } else if (c == 't' || c == 'f' || c == 'n') {
            if (!match_word(s, n, i, "true", &end) && !match_word(s, n, i, "false", &end) &&
                !match_word(s, n, i, "null", &end)) {
                *err_at = i;
                return false;
            }
            i = end, values++;
        } else {
            /* Structure and whitespace are left to the parser; anything else is its error. */
            i++;
        }
    }
    *nvalues = values;
    return true;
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
