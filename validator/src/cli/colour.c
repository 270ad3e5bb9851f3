/* Colour on a terminal only: never when NO_COLOR is set to anything non-empty (no-color.org) or
 * TERM is "dumb", never into a pipe or file; --color always|never|auto overrides the guess. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_mode; /* 0 auto, 1 always, 2 never */

int cli_colour_set(const char *when)
{
    if (!strcmp(when, "auto")) g_mode = 0;
    else if (!strcmp(when, "always")) g_mode = 1;
    else if (!strcmp(when, "never")) g_mode = 2;
    else return -1;
    return 0;
}

bool cli_colour(FILE *f)
{
    if (g_mode) return g_mode == 1;
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    if (nc && *nc) return false;
    if (term && !strcmp(term, "dumb")) return false;
    return isatty(fileno(f)) == 1;
}

const char *cli_sgr(FILE *f, const char *code)
{
    if (!cli_colour(f)) return "";
    if (!strcmp(code, "error")) return "\033[1;31m";
    if (!strcmp(code, "warn")) return "\033[33m";
    if (!strcmp(code, "ok")) return "\033[32m";
    if (!strcmp(code, "bold")) return "\033[1m";
    return "\033[0m"; /* "reset" */
}
