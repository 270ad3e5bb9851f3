/* packcheck read INPUT OUTPUT [--profile P] [--config FILE]: packcheck as a reader under certify's
 * protocol (CONTRACT 5; issue 32 item 7). It is unpack with the reader's exit codes: 0 after writing
 * the logical view of what it decodes (tensors it does not decode are left out, as any reader leaves
 * out what it does not know), 1 to refuse an input (rejected by a rule, or nothing decodable: unpack's
 * exit 3), 2 when it could not do its job at all. `packcheck certify --reader 'packcheck read {input}
 * {output} --profile {profile}'` certifies packcheck itself. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE = "packcheck read INPUT OUTPUT [--profile strict|compat] [--config FILE]";

int cmd_read(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) return PC_EXIT_ERROR;
    int n = 0;
    args[n++] = "unpack";
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\npackcheck as a reader under certify's protocol (CONTRACT 5): write the logical view\n"
                   "of INPUT (M.codes U8, M.weight F32) to OUTPUT and exit 0; exit 1 to refuse an input that\n"
                   "breaks a MUST rule or holds nothing packcheck decodes (tensors it does not decode are left\n"
                   "out of the view, as unpack --allow-unchecked does); exit 2 when it cannot do its job.\n"
                   "  packcheck certify --reader 'packcheck read {input} {output} --profile {profile}'\n", USAGE);
            free(args);
            return PC_EXIT_OK;
        }
        if (!strcmp(argv[i], "--profile") || !strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) { free(args); return cli_usage(USAGE, "%s needs a value", argv[i]); }
            args[n++] = argv[i++];
            args[n++] = argv[i];
        } else if (!strncmp(argv[i], "--profile=", 10) || !strncmp(argv[i], "--config=", 9)) {
            args[n++] = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(args);
            return cli_usage(USAGE, "unknown option \"%s\"", argv[i]);
        } else if (npos < 2) {
            pos[npos++] = argv[i];
        } else {
            free(args);
            return cli_usage(USAGE, "INPUT and OUTPUT only");
        }
    }
    if (npos != 2) { free(args); return cli_usage(USAGE, "INPUT and OUTPUT are required"); }
    args[n++] = (char *)pos[0];
    args[n++] = "--out";
    args[n++] = (char *)pos[1];
    args[n++] = "--allow-unchecked";
    int rc = cmd_unpack(n, args);
    free(args);
    return rc == PC_EXIT_UNCHECKED ? PC_EXIT_REJECT : rc; /* nothing decodable: a refusal, not a crash */
}
