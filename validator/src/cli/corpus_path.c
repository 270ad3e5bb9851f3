/* Where the default corpus is: PACKCHECK_CORPUS, else the corpus installed beside the binary
 * (<bindir>/../share/packcheck/fixtures, the `cmake --install` and wheel layouts), else, for the
 * binary in its own build tree only, the source tree's fixtures/. An installed binary never falls
 * back to the tree it was built from: that tree may be gone or hold a different corpus. */
#include "cli.h"

#include "../core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder holding the running binary (realpath), or NULL. Caller frees. */
static char *exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = 0;
    return pc_dirname(buf);
}

static bool same_dir(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

const char *cli_default_corpus(void)
{
    static char *found;
    static bool searched;
    if (searched) return found;
    searched = true;
    const char *env = getenv("PACKCHECK_CORPUS");
    if (env && *env) return found = pc_strdup(env);
    char *dir = exe_dir();
    if (!dir) return NULL;
    char *cand = pc_asprintf("%s/../share/packcheck/fixtures", dir);
    char *manifest = cand ? pc_path_join(cand, "MANIFEST.sha256") : NULL;
    if (manifest && pc_file_exists(manifest)) {
        char real[PATH_MAX];
        found = pc_strdup(realpath(cand, real) ? real : cand);
    }
#if defined(PC_DEFAULT_CORPUS) && defined(PC_BUILD_BINDIR)
    else if (same_dir(dir, PC_BUILD_BINDIR)) found = pc_strdup(PC_DEFAULT_CORPUS);
#else
    (void)same_dir;
#endif
    free(manifest);
    free(cand);
    free(dir);
    return found;
}

const char *cli_corpus_or_complain(const char *given)
{
    if (given) return given;
    const char *d = cli_default_corpus();
    if (!d)
        fprintf(stderr, "packcheck: no corpus found: none is installed beside the binary (../share/packcheck/fixtures);\n"
                        "           pass DIR / --corpus DIR or set PACKCHECK_CORPUS\n");
    return d;
}
