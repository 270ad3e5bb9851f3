/* packcheck gc [DIR...]: remove the temporaries killed runs left behind (core/stale_tmp.h). */
#include "cli.h"

#include "../core/stale_tmp.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE = "packcheck gc [--] [DIR...]";

static void said(void *ud, const char *path, long pid)
{
    (void)ud;
    printf("removed %s (left by process %ld)\n", path, pid);
}

int cmd_gc(int argc, char **argv)
{
    int ndirs = 0, rc = PC_EXIT_OK;
    long total = 0;
    bool paths_only = false;
    for (int i = 1; i < argc; i++) {
        if (!paths_only && !strcmp(argv[i], "--")) { paths_only = true; continue; }
        if (!paths_only && cli_is_help(argv[i])) {
            printf("usage: %s\n\nRemove the temporary files (.<name>" PC_TMP_TAG "<pid>.XXXXXX) that a killed packcheck\n"
                   "run (SIGKILL, a power cut) left in each DIR (default: the current folder): those of this user\n"
                   "whose writing process is gone and that have not changed for %d minutes. Every write into a\n"
                   "folder does the same for that folder first. Only such files are ever removed.\n", USAGE, PC_STALE_TMP_AGE_S / 60);
            return PC_EXIT_OK;
        }
        if (!paths_only && argv[i][0] == '-' && argv[i][1]) return cli_usage(USAGE, "unknown option \"%s\"", argv[i]);
        long n = pc_stale_tmp_sweep(argv[i], said, NULL);
        if (n < 0) { fprintf(stderr, "packcheck: gc: cannot read the folder %s\n", argv[i]); rc = PC_EXIT_ERROR; }
        else total += n;
        ndirs++;
    }
    if (!ndirs) {
        long n = pc_stale_tmp_sweep(".", said, NULL);
        if (n < 0) { fprintf(stderr, "packcheck: gc: cannot read the current folder\n"); return PC_EXIT_ERROR; }
        total += n;
    }
    printf("gc: %ld stale temporar%s removed\n", total, total == 1 ? "y" : "ies");
    return rc;
}
