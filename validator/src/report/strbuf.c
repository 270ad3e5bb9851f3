/* The renderers' growable string (pc_sb): appends that set `oom` instead of failing midway, and
 * the escapes of the two text formats that need them (XML for JUnit/HTML, Markdown tables). */
#include "report.h"

#include "../core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sb_grow(pc_sb *b, size_t add)
{
    if (b->oom || b->n + add + 1 <= b->cap) return;
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->n + add + 1) nc *= 2;
    char *ns = realloc(b->s, nc);
    if (!ns) { b->oom = true; return; }
    b->s = ns;
    b->cap = nc;
}

void pc_sb_puts(pc_sb *b, const char *s)
{
    size_t n = strlen(s);
    sb_grow(b, n);
    if (b->oom) return;
    memcpy(b->s + b->n, s, n + 1);
    b->n += n;
}

void pc_sb_printf(pc_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sb_grow(b, (size_t)n);
    if (b->oom) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void pc_sb_xml(pc_sb *b, const char *s)
{
    char one[2] = {0, 0};
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&') pc_sb_puts(b, "&amp;");
        else if (c == '<') pc_sb_puts(b, "&lt;");
        else if (c == '>') pc_sb_puts(b, "&gt;");
        else if (c == '"') pc_sb_puts(b, "&quot;");
        else if (c < 0x20 && c != '\n' && c != '\t') pc_sb_printf(b, "\\x%02x", c); /* not legal in XML 1.0 */
        else if (c == 0xef && (unsigned char)s[1] == 0xbf && ((unsigned char)s[2] & 0xfe) == 0xbe)
            pc_sb_printf(b, "\\x%02x\\x%02x\\x%02x", c, 0xbf, (unsigned char)s[2]), s += 2; /* U+FFFE/U+FFFF: not XML chars */
        else { one[0] = (char)c; pc_sb_puts(b, one); }
    }
}

void pc_sb_md(pc_sb *b, const char *s)
{
    char one[2] = {0, 0};
    for (; *s; s++) {
        if (*s == '|') pc_sb_puts(b, "\\|");
        else if (*s == '\n') pc_sb_puts(b, " ");
        else if (*s == '<') pc_sb_puts(b, "&lt;");
        else { one[0] = *s; pc_sb_puts(b, one); }
    }
}

char *pc_sb_take(pc_sb *b)
{
    if (b->oom) { free(b->s); return NULL; }
    if (!b->s) return pc_strdup("");
    return b->s;
}
