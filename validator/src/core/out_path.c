#include "out_path.h"

#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The files packcheck reads beside a single-file input (container/input.c load_sidecars, the index). */
static const char *const k_beside[] = {"config.json", "quantize_config.json", "quant_config.json", "hf_quant_config.json",
                                       "model.safetensors.index.json"};

static bool same(const struct stat *a, const struct stat *b) { return a->st_dev == b->st_dev && a->st_ino == b->st_ino; }

static bool same_path(const char *p, const struct stat *target)
{
    struct stat st;
    return stat(p, &st) == 0 && same(&st, target);
}

/* `dir` (resolved) or one of its ancestors is the folder `in`. */
static bool under(const char *dir, const struct stat *in)
{
    char *p = pc_strdup(dir);
    bool hit = false;
    while (p && !hit) {
        hit = same_path(p, in);
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) { hit = hit || same_path("/", in); break; }
        *slash = 0;
    }
    free(p);
    return hit;
}

/* A file directly in folder `dir` that is `out` (a hard link to a shard elsewhere). */
static bool folder_holds(const char *dir, const struct stat *out)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool hit = false;
    struct dirent *de;
    while (!hit && (de = readdir(d))) {
        char *p = pc_path_join(dir, de->d_name);
        hit = p && same_path(p, out);
        free(p);
    }
    closedir(d);
    return hit;
}

static bool reads_beside(const char *file, const struct stat *out)
{
    char *dir = pc_dirname(file);
    bool hit = false;
    for (size_t i = 0; dir && !hit && i < sizeof k_beside / sizeof *k_beside; i++) {
        char *p = pc_path_join(dir, k_beside[i]);
        hit = p && same_path(p, out);
        free(p);
    }
    free(dir);
    return hit;
}

int pc_out_path_check(const char *out, const char *const *inputs, size_t n, char *why, size_t whylen)
{
    if (!out || !strcmp(out, "-")) return 0;
    struct stat so;
    bool exists = stat(out, &so) == 0;
    char *dir = pc_dirname(out), *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct stat si;
        if (!inputs[i] || stat(inputs[i], &si)) continue;
        if (S_ISDIR(si.st_mode)) {
            if (real && under(real, &si)) snprintf(why, whylen, "inside the input folder %s", inputs[i]), rc = -1;
            else if (exists && folder_holds(inputs[i], &so)) snprintf(why, whylen, "a file of the input folder %s", inputs[i]), rc = -1;
        } else if (exists && same(&si, &so)) {
            snprintf(why, whylen, "the input %s itself", inputs[i]), rc = -1;
        } else if (exists && reads_beside(inputs[i], &so)) {
            snprintf(why, whylen, "a file packcheck reads beside the input %s", inputs[i]), rc = -1;
        }
    }
    free(real);
    return rc;
}
