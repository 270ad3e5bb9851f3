/* Subcommands still to come (bench): they say so and exit 2. */
#include "cli.h"

#include <stdio.h>

static int not_yet(const char *name, int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) { printf("usage: packcheck %s ... (not implemented yet)\n", name); return PC_EXIT_OK; }
    fprintf(stderr, "packcheck: %s is not implemented yet\n", name);
    return PC_EXIT_ERROR;
}

int cmd_bench(int argc, char **argv) { return not_yet("bench", argc, argv); }
