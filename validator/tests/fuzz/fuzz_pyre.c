/* libFuzzer harness for core/pyre.c: input = a pattern, one NUL, a module name. Whatever the
 * pattern, matching must end in bounded time and memory (libFuzzer's -timeout and -rss_limit_mb
 * catch a regression to backtracking), return one of 1, 0, PC_PYRE_SYNTAX, PC_PYRE_LIMIT,
 * PC_PYRE_BUDGET (the per-input cost budget, reset for each fuzz input), agree
 * with pc_pyre_check, and give the same answer twice (the compiled-pattern cache). */
#include "core/pyre.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t plen = nul ? (size_t)(nul - data) : size;
    size_t nlen = nul ? size - plen - 1 : 0;
    char *pat = malloc(plen + 1), *name = malloc(nlen + 1);
    if (!pat || !name) abort();
    memcpy(pat, data, plen);
    pat[plen] = 0;
    if (nlen) memcpy(name, nul + 1, nlen);
    name[nlen] = 0; /* a NUL inside the name ends it, as a C string would */
    pc_pyre_reset(); /* one fuzz input is one checkpoint's patterns: the cost budget is per input */
    int a = pc_pyre_match(pat, name), b = pc_pyre_match(pat, name), c = pc_pyre_check(pat);
    if (a != b) __builtin_trap();
    if (a != 1 && a != 0 && a != PC_PYRE_SYNTAX && a != PC_PYRE_LIMIT && a != PC_PYRE_BUDGET) __builtin_trap();
    if (a != PC_PYRE_BUDGET && ((c < 0) != (a < 0) || (c < 0 && c != a))) __builtin_trap();
    free(pat);
    free(name);
    return 0;
}
