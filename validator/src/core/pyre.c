#include "pyre.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PYRE_MAX_PATTERN 4096

static const char *class_of(char c)
{
    switch (c) {
    case 'd': return "[0-9]";
    case 'D': return "[^0-9]";
    case 'w': return "[A-Za-z0-9_]";
    case 'W': return "[^A-Za-z0-9_]";
    case 's': return "[[:space:]]";
    case 'S': return "[^[:space:]]";
    default: return NULL;
    }
}

/* Python pattern -> "^(ERE)"; NULL for syntax ERE lacks. Back-references are refused on purpose:
 * they make POSIX regexec exponential on hostile input. */
static char *py_to_ere(const char *p)
{
    size_t n = strlen(p);
    if (n > PYRE_MAX_PATTERN) return NULL;
    char *out = malloc(12 * n + 4), *o = out; /* "[^[:space:]]" is the longest expansion of one input byte */
    if (!out) return NULL;
    o += sprintf(o, "^(");
    for (; *p; p++) {
        const char *cls;
        if (p[0] == '(' && p[1] == '?') {
            if (p[2] != ':') break; /* lookaround, flags, named groups */
            *o++ = '(';
            p += 2;
        } else if (p[0] == '\\' && p[1]) {
            if ((cls = class_of(p[1]))) o += sprintf(o, "%s", cls);
            else if (strchr(".[]()*+?{}|^$\\", p[1])) *o++ = '\\', *o++ = p[1];
            else if (strchr("-/_:", p[1])) *o++ = p[1];
            else break;
            p++;
        } else if (strchr("*+?}", p[0]) && p[1] == '?') {
            break; /* lazy quantifiers */
        } else {
            *o++ = *p;
        }
    }
    if (*p) { free(out); return NULL; }
    *o++ = ')';
    *o = 0;
    return out;
}

int pc_pyre_match(const char *pattern, const char *name)
{
    char *ere = py_to_ere(pattern);
    regex_t re;
    if (!ere || regcomp(&re, ere, REG_EXTENDED | REG_NOSUB)) { free(ere); return -1; }
    int rc = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    free(ere);
    return rc;
}
