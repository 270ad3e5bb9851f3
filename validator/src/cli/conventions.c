/* Options every checking command can share (issue 17), kept apart from the commands so they merge:
 * --select RULE[,RULE...] and --ignore RULE[,RULE...] (an ID such as ST-009 or a family such as
 * GGUF; repeatable), --warnings-as-errors, --color WHEN, --progress / --no-progress.
 * The filter runs on each input's findings after validation and before any report is built, so
 * every output (stdout, JSON, SARIF, annotations, the exit code) sees the same filtered set. */
#include "cli.h"

#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool known(const char *pat)
{
    if (pc_rule_find(pat)) return true;
    for (size_t i = 0; i < pc_rule_count(); i++)
        if (!strcmp(pc_rule_at(i)->family, pat)) return true;
    return false;
}

/* Split a comma list into the pattern array; unknown IDs and families are usage errors (a typo
 * must not silently select nothing). */
static int add_list(cli_conv *c, const char *list, bool ignore)
{
    char *dup = pc_strdup(list), *save = NULL;
    if (!dup) return -1;
    int rc = 0;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!known(t)) { fprintf(stderr, "packcheck: %s: no such rule or rule family (see `packcheck rules`)\n", t); rc = -1; break; }
        char ***arr = ignore ? &c->ignore : &c->select;
        size_t *n = ignore ? &c->nignore : &c->nselect;
        char **na = realloc(*arr, (*n + 1) * sizeof *na);
        if (!na) { rc = -1; break; }
        *arr = na;
        na[(*n)++] = pc_strdup(t);
    }
    free(dup);
    return rc;
}

int cli_conv_option(int argc, char **argv, int *i, cli_conv *c)
{
    const char *v;
    if ((v = cli_value(argc, argv, i, "--select"))) return add_list(c, v, false) ? -1 : 1;
    if ((v = cli_value(argc, argv, i, "--ignore"))) return add_list(c, v, true) ? -1 : 1;
    if ((v = cli_value(argc, argv, i, "--color")) || (v = cli_value(argc, argv, i, "--colour"))) {
        if (cli_colour_set(v)) { fprintf(stderr, "packcheck: --color wants auto, always or never\n"); return -1; }
        return 1;
    }
    if (!strcmp(argv[*i], "--warnings-as-errors")) { c->warnings_as_errors = true; return 1; }
    if (!strcmp(argv[*i], "--progress")) { c->progress = 1; return 1; }
    if (!strcmp(argv[*i], "--no-progress")) { c->progress = -1; return 1; }
    return 0;
}

static bool matches(char *const *pats, size_t n, const pc_rule *r)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(pats[k], r->id) || !strcmp(pats[k], r->family)) return true;
    return false;
}

bool cli_conv_keeps(const cli_conv *c, const pc_rule *r)
{
    if (c->nselect && !matches(c->select, c->nselect, r)) return false;
    return !matches(c->ignore, c->nignore, r);
}

void cli_conv_apply(const cli_conv *c, pc_ctx *cx)
{
    size_t w = 0;
    for (size_t k = 0; k < cx->nfindings; k++) {
        pc_finding *f = &cx->findings[k];
        if (!cli_conv_keeps(c, f->rule)) { free(f->tensor); free(f->message); continue; }
        if (c->warnings_as_errors && f->status == PC_STATUS_WARN) f->status = PC_STATUS_FAIL;
        cx->findings[w++] = *f;
    }
    cx->nfindings = w;
    /* A rule left out was not applied: the reports say skip, not pass. */
    for (size_t i = 0; cx->evaluated && i < pc_rule_count(); i++)
        if (!cli_conv_keeps(c, pc_rule_at(i))) cx->evaluated[i] = 0;
}

void cli_conv_free(cli_conv *c)
{
    for (size_t k = 0; k < c->nselect; k++) free(c->select[k]);
    for (size_t k = 0; k < c->nignore; k++) free(c->ignore[k]);
    free(c->select);
    free(c->ignore);
    memset(c, 0, sizeof *c);
}
