/* The symlink policy (link_policy.h): resolve with realpath(3) and compare path prefixes. */
#include "link_policy.h"

#include "../core/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

char *pc_link_root(const char *dir)
{
    char *real = realpath(dir, NULL);
    if (!real) return NULL;
    /* <repo>/snapshots/<revision>: the snapshot's files are links to ../../blobs/<hash>. */
    char *rev = strrchr(real, '/');
    if (rev && rev != real) {
        *rev = 0;
        char *snap = strrchr(real, '/');
        if (snap && !strcmp(snap + 1, "snapshots") && snap != real) {
            *snap = 0;
            return real;
        }
        *rev = '/';
    }
    return real;
}

bool pc_link_inside(const char *root, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real) return true;
    size_t n = strlen(root);
    bool inside = !strcmp(root, "/") || (!strncmp(real, root, n) && (real[n] == '/' || real[n] == 0));
    free(real);
    return inside;
}
