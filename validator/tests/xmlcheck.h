/* A small XML 1.0 well-formedness check for the tests and fuzzers (no libxml2 in the C build):
 * valid UTF-8, only XML Chars, one root element, balanced tags with matching names, quoted unique-
 * enough attributes, entity references limited to the five predefined and character references,
 * comments, processing instructions and CDATA sections. Returns NULL when well-formed, else a
 * static description of the first defect. */
#ifndef PC_XMLCHECK_H
#define PC_XMLCHECK_H

#include "report/text_escape.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct { const unsigned char *p; size_t n, i; } xc_in;

static inline bool xc_is_name_start(unsigned c) { return c == ':' || c == '_' || (c | 32) - 'a' < 26 || c >= 0x80; }
static inline bool xc_is_name(unsigned c) { return xc_is_name_start(c) || c == '-' || c == '.' || c - '0' < 10; }
static inline bool xc_starts(const xc_in *x, const char *s) { size_t k = strlen(s); return x->n - x->i >= k && !memcmp(x->p + x->i, s, k); }
static inline void xc_ws(xc_in *x) { while (x->i < x->n && strchr(" \t\r\n", x->p[x->i]) && x->p[x->i]) x->i++; }

/* Every character of the document is an XML Char (XML 1.0 section 2.2). */
static inline const char *xc_chars(const unsigned char *p, size_t n)
{
    for (size_t i = 0, k; i < n; i += k) {
        if (!(k = pc_utf8_seq_len(p + i, n - i))) return "not UTF-8";
        if (k == 1 && p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') return "a control character";
        if (k == 3 && p[i] == 0xef && p[i + 1] == 0xbf && (p[i + 2] & 0xfe) == 0xbe) return "U+FFFE or U+FFFF";
    }
    return NULL;
}

static inline size_t xc_name(xc_in *x)
{
    size_t at = x->i;
    if (x->i >= x->n || !xc_is_name_start(x->p[x->i])) return 0;
    while (x->i < x->n && xc_is_name(x->p[x->i])) x->i++;
    return x->i - at;
}

/* &amp; &lt; &gt; &quot; &apos; &#N; &#xN; */
static inline bool xc_ref(xc_in *x)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (int k = 0; k < 5; k++)
        if (xc_starts(x, ents[k])) { x->i += strlen(ents[k]); return true; }
    if (!xc_starts(x, "&#")) return false;
    x->i += 2;
    bool hex = x->i < x->n && x->p[x->i] == 'x';
    x->i += hex;
    size_t d = 0;
    while (x->i < x->n && (hex ? strchr("0123456789abcdefABCDEF", x->p[x->i]) : strchr("0123456789", x->p[x->i])) && x->p[x->i]) x->i++, d++;
    if (!d || x->i >= x->n || x->p[x->i] != ';') return false;
    x->i++;
    return true;
}

/* Text up to the next '<' (or an attribute value up to its quote q). */
static inline const char *xc_text(xc_in *x, unsigned char q)
{
    while (x->i < x->n && x->p[x->i] != (q ? q : '<')) {
        if (x->p[x->i] == '&') { if (!xc_ref(x)) return "a bad entity reference"; }
        else if (q && x->p[x->i] == '<') return "'<' in an attribute value";
        else x->i++;
    }
    return NULL;
}

static inline const char *xc_skip_to(xc_in *x, const char *end, const char *what)
{
    while (x->i < x->n && !xc_starts(x, end)) x->i++;
    if (x->i >= x->n) return what;
    x->i += strlen(end);
    return NULL;
}

static inline const char *xc_tag(xc_in *x, size_t *stack, size_t *depth, size_t max_depth, int *roots)
{
    x->i++; /* '<' */
    if (x->i < x->n && x->p[x->i] == '/') {
        x->i++;
        size_t at = x->i, len = xc_name(x);
        if (!len || !*depth) return "an unmatched end tag";
        size_t open = stack[--*depth];
        size_t olen = 0;
        while (open + olen < x->n && xc_is_name(x->p[open + olen])) olen++;
        if (olen != len || memcmp(x->p + open, x->p + at, len)) return "an end tag that does not match";
        xc_ws(x);
        if (x->i >= x->n || x->p[x->i] != '>') return "a bad end tag";
        x->i++;
        return NULL;
    }
    size_t at = x->i;
    if (!xc_name(x)) return "a bad element name";
    if (!*depth && ++*roots > 1) return "more than one root element";
    for (;;) {
        size_t before = x->i;
        xc_ws(x);
        if (x->i >= x->n) return "an unterminated tag";
        if (x->p[x->i] == '>') { x->i++; if (*depth == max_depth) return "too deep"; stack[(*depth)++] = at; return NULL; }
        if (xc_starts(x, "/>")) { x->i += 2; return NULL; }
        if (x->i == before) return "attributes without white space";
        if (!xc_name(x)) return "a bad attribute name";
        xc_ws(x);
        if (x->i >= x->n || x->p[x->i] != '=') return "an attribute without '='";
        x->i++;
        xc_ws(x);
        if (x->i >= x->n || (x->p[x->i] != '"' && x->p[x->i] != '\'')) return "an unquoted attribute";
        unsigned char q = x->p[x->i++];
        const char *e = xc_text(x, q);
        if (e) return e;
        if (x->i >= x->n) return "an unterminated attribute";
        x->i++;
    }
}

static inline const char *xml_wellformed(const char *doc, size_t n)
{
    enum { MAX_DEPTH = 256 };
    size_t stack[MAX_DEPTH], depth = 0;
    int roots = 0;
    xc_in x = {(const unsigned char *)doc, n, 0};
    const char *e = xc_chars(x.p, n);
    if (e) return e;
    if (xc_starts(&x, "<?xml") && (e = xc_skip_to(&x, "?>", "an unterminated declaration"))) return e;
    while (x.i < x.n) {
        if (!depth) { xc_ws(&x); if (x.i >= x.n) break; if (x.p[x.i] != '<') return "text outside the root element"; }
        if (x.p[x.i] != '<') { if ((e = xc_text(&x, 0))) return e; continue; }
        if (xc_starts(&x, "<!--")) { x.i += 4; e = xc_skip_to(&x, "-->", "an unterminated comment"); }
        else if (xc_starts(&x, "<![CDATA[")) { if (!depth) return "CDATA outside the root"; e = xc_skip_to(&x, "]]>", "unterminated CDATA"); }
        else if (xc_starts(&x, "<?")) e = xc_skip_to(&x, "?>", "an unterminated processing instruction");
        else if (xc_starts(&x, "<!")) return "a DOCTYPE or declaration";
        else e = xc_tag(&x, stack, &depth, MAX_DEPTH, &roots);
        if (e) return e;
    }
    if (depth) return "an element left open";
    if (!roots) return "no root element";
    return NULL;
}

#endif
