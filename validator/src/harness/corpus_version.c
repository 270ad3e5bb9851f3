/* The corpus version (DIR/VERSION, one line MAJOR.MINOR.PATCH; fixtures/CHANGELOG.md says what
 * each part promises). The file is pinned in MANIFEST.sha256 like every other, so the digest
 * names the version too; the version is what a person reads and pins. */
#include "corpus.h"

#include "../core/util.h"

#include <ctype.h>
#include <string.h>

/* Three dot-separated runs of 1..9 digits: nothing else may reach a report. */
static bool well_formed(const char *s)
{
    for (int part = 0; part < 3; part++) {
        size_t n = 0;
        while (isdigit((unsigned char)s[n])) n++;
        if (n == 0 || n > 9) return false;
        s += n;
        if (part < 2 && *s++ != '.') return false;
    }
    return *s == 0;
}

int pc_corpus_read_version(const char *dir, char out[32])
{
    out[0] = 0;
    char *p = pc_path_join(dir, "VERSION");
    size_t len = 0;
    char *t = p && pc_file_exists(p) ? pc_slurp(p, 64, &len) : NULL;
    bool present = p && pc_file_exists(p);
    free(p);
    if (!present) return 0;
    if (!t) return -1;
    while (len && (t[len - 1] == '\n' || t[len - 1] == '\r')) t[--len] = 0;
    int rc = well_formed(t) ? 0 : -1;
    if (!rc) memcpy(out, t, len + 1);
    free(t);
    return rc;
}
