/* The reader's command line: the template with its paths shell-quoted, and the report's
 * description of the reader (certify_internal.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "certify_internal.h"

#include "../core/sha256.h"
#include "../core/util.h"
#include "../report/report.h"
#include "corpus.h"
#include "diagnose.h"
#include "expect_fail.h"
#include "bounded.h"
#include "case_copy.h"
#include "logical.h"
#include "runner.h"

#include <pwd.h>
#include <strings.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static void sb_shell_quote(pc_sb *b, const char *s)
{
    pc_sb_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'') pc_sb_puts(b, "'\\''");
        else { char one[2] = {*s, 0}; pc_sb_puts(b, one); }
    }
    pc_sb_puts(b, "'");
}

char *pc_certify_command(const char *tmpl, const char *input, const char *output, const char *profile)
{
    pc_sb b = {0};
    for (const char *p = tmpl; *p;) {
        if (!strncmp(p, "{profile}", 9)) { sb_shell_quote(&b, profile ? profile : "strict"); p += 9; }
        else if (!strncmp(p, "{input}", 7)) { sb_shell_quote(&b, input); p += 7; }
        else if (!strncmp(p, "{output}", 8)) { sb_shell_quote(&b, output); p += 8; }
        else { char one[2] = {*p++, 0}; pc_sb_puts(&b, one); }
    }
    return pc_sb_take(&b);
}

/* The words of the template, unquoted roughly (enough to find the files it names). */
static char *next_word(const char **p)
{
    while (**p == ' ' || **p == '\t') (*p)++;
    if (!**p) return NULL;
    pc_sb b = {0};
    char q = 0;
    for (; **p && (q || (**p != ' ' && **p != '\t')); (*p)++) {
        char c = **p;
        if (!q && (c == '\'' || c == '"')) { q = c; continue; }
        if (q && c == q) { q = 0; continue; }
        char one[2] = {c, 0};
        pc_sb_puts(&b, one);
    }
    return pc_sb_take(&b);
}

static char *which(const char *word)
{
    if (strchr(word, '/')) return realpath(word, NULL);
    const char *path = getenv("PATH");
    char *copy = pc_strdup(path ? path : "/usr/bin:/bin");
    char *found = NULL, *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *c = pc_path_join(d, word);
        if (c && access(c, X_OK) == 0 && !pc_is_dir(c)) found = realpath(c, NULL);
        free(c);
    }
    free(copy);
    return found;
}

/* reader: {name, command, executable, executable_sha256, files: [{path, sha256}]} */
cJSON *pc_certify_reader_json(const pc_certify_opts *o)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "name", o->name ? o->name : o->reader);
    cJSON_AddStringToObject(r, "command", o->reader);
    cJSON *files = cJSON_CreateArray();
    const char *p = o->reader;
    char *w;
    bool have_exe = false;
    while ((w = next_word(&p))) {
        bool placeholder = strstr(w, "{input}") || strstr(w, "{output}") || strstr(w, "{profile}");
        bool assignment = !have_exe && strchr(w, '=') && !strchr(w, '/');
        if (!have_exe && !placeholder && !assignment && strcmp(w, "env") && strcmp(w, "exec")) {
            have_exe = true;
            char *exe = which(w), hex[65] = "";
            cJSON_AddStringToObject(r, "executable", exe ? exe : w);
            if (!exe || pc_sha256_file_hex(exe, hex)) snprintf(hex, sizeof hex, "unavailable");
            cJSON_AddStringToObject(r, "executable_sha256", hex);
            free(exe);
        } else if (!placeholder && !assignment) {
            struct stat st;
            char hex[65];
            if (stat(w, &st) == 0 && S_ISREG(st.st_mode) && !pc_sha256_file_hex(w, hex)) {
                cJSON *f = cJSON_CreateObject();
                char *rp = realpath(w, NULL);
                cJSON_AddStringToObject(f, "path", rp ? rp : w);
                cJSON_AddStringToObject(f, "sha256", hex);
                free(rp);
                cJSON_AddItemToArray(files, f);
            }
        }
        free(w);
    }
    if (!have_exe) { cJSON_AddStringToObject(r, "executable", ""); cJSON_AddStringToObject(r, "executable_sha256", "unavailable"); }
    cJSON_AddItemToObject(r, "files", files);
    return r;
}
