/* packcheck: one small file per subcommand; this one only dispatches. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct { const char *name; int (*run)(int, char **); const char *what; } k_cmds[] = {
    {"validate", cmd_validate, "validate checkpoints against the rule catalogue"},
    {"unpack", cmd_unpack, "write the logical view (codes and f32 weights) of every quantized weight"},
    {"read", cmd_read, "packcheck as a reader under certify's protocol: write INPUT's view to OUTPUT, 0 / 1 (refused)"},
    {"rules", cmd_rules, "print the rule catalogue"},
    {"corpus", cmd_corpus, "run a fixture corpus: pins, verdicts, logical-view hashes, fast vs oracle"},
    {"certify", cmd_certify, "certify a third-party reader against a corpus"},
    {"equiv", cmd_equiv, "prove two checkpoints hold the same quantized model"},
    {"bench", cmd_bench, "fast unpackers against the oracle and memcpy"},
    {"gc", cmd_gc, "remove the temporary files killed runs left behind"},
    {"formats", cmd_formats, "the formats and the tensor parts their modules are made of"},
};

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: packcheck COMMAND [ARGS...]   (packcheck COMMAND --help for each)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof k_cmds / sizeof *k_cmds; i++) fprintf(f, "  %-9s %s\n", k_cmds[i].name, k_cmds[i].what);
    fprintf(f, "\n-V, --version  print the version (packcheck corpus --version: the corpus's)\n");
    fprintf(f, "--color WHEN   auto (a terminal, NO_COLOR unset, TERM not dumb), always, never: every command\n");
    fprintf(f, "\nexit codes: 0 accepted, 1 rejected / check failed, 2 could not do the job,\n"
               "            3 nothing failed but a quantized tensor was not checked (validate, unpack; --allow-unchecked: 0)\n");
    return rc;
}

/* --color WHEN / --colour WHEN / --color=WHEN anywhere after the command, for every command: taken
 * out of argv here so no command has to know it. Returns the new argc, or -1 on a bad value. */
static int take_colour(int argc, char **argv)
{
    int o = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        bool sep = !strcmp(a, "--color") || !strcmp(a, "--colour");
        if (sep && i + 1 < argc) v = argv[++i];
        else if (!strncmp(a, "--color=", 8)) v = a + 8;
        else if (!strncmp(a, "--colour=", 9)) v = a + 9;
        else if (sep) { fprintf(stderr, "packcheck: --color wants auto, always or never\n"); return -1; }
        if (!v) { argv[o++] = argv[i]; continue; }
        if (cli_colour_set(v)) { fprintf(stderr, "packcheck: --color wants auto, always or never, got \"%s\"\n", v); return -1; }
    }
    argv[o] = NULL;
    return o;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr, PC_EXIT_ERROR);
    if (cli_is_help(argv[1])) return usage(stdout, PC_EXIT_OK);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) { printf("packcheck %s\n", PACKCHECK_VERSION); return PC_EXIT_OK; }
    for (size_t i = 0; i < sizeof k_cmds / sizeof *k_cmds; i++) {
        if (strcmp(argv[1], k_cmds[i].name)) continue;
        int n = take_colour(argc - 1, argv + 1);
        return n < 0 ? PC_EXIT_ERROR : k_cmds[i].run(n, argv + 1);
    }
    fprintf(stderr, "packcheck: unknown command \"%s\"\n", argv[1]);
    return usage(stderr, PC_EXIT_ERROR);
}
