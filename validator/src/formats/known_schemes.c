/* Shared by the recognise-only entries (known_schemes.h). */
#include "known_schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char pc_not_decoded[] = "not decoded by this version of packcheck: no rule was checked on it";

const pc_tensor *pc_sibling(const pc_input *in, const char *prefix, const char *suffix)
{
    char dotted[64];
    size_t n = strlen(suffix);
    if (n + 2 > sizeof dotted) return NULL;
    dotted[0] = '.';
    memcpy(dotted + 1, suffix, n + 1); /* not snprintf: this runs for every tensor of a large header */
    return pc_input_find_part(in, prefix, dotted);
}

bool pc_split_suffix(const char *name, const char *const *suffixes, char *buf, size_t n)
{
    size_t ln = strlen(name);
    for (; *suffixes; suffixes++) {
        size_t ls = strlen(*suffixes);
        if (ln <= ls + 1 || name[ln - ls - 1] != '.' || strcmp(name + ln - ls, *suffixes)) continue;
        if (ln - ls - 1 >= n) return false;
        memcpy(buf, name, ln - ls - 1);
        buf[ln - ls - 1] = 0;
        return true;
    }
    return false;
}
