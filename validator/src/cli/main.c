/* packcheck: one small file per subcommand; this one only dispatches. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct { const char *name; int (*run)(int, char **); const char *what; } k_cmds[] = {
    {"validate", cmd_validate, "validate checkpoints against the rule catalogue"},
    {"unpack", cmd_unpack, "write the logical view (codes and f32 weights) of every quantized weight"},
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
    fprintf(f, "\nexit codes: 0 accepted, 1 rejected / check failed, 2 could not do the job\n");
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr, PC_EXIT_ERROR);
    if (cli_is_help(argv[1])) return usage(stdout, PC_EXIT_OK);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) { printf("packcheck %s\n", PACKCHECK_VERSION); return PC_EXIT_OK; }
    for (size_t i = 0; i < sizeof k_cmds / sizeof *k_cmds; i++)
        if (!strcmp(argv[1], k_cmds[i].name)) return k_cmds[i].run(argc - 1, argv + 1);
    fprintf(stderr, "packcheck: unknown command \"%s\"\n", argv[1]);
    return usage(stderr, PC_EXIT_ERROR);
}
