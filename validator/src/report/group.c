/* Grouping identical findings (group.h). Keys are sorted, not compared pairwise, so a checkpoint
 * with 100k findings groups in n log n. */
#include "group.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

char *pc_module_prefix(const char *tensor)
{
    const char *dot = strrchr(tensor, '.');
    size_t n = dot ? (size_t)(dot - tensor) : strlen(tensor);
    char *p = malloc(n + 1);
    if (p) { memcpy(p, tensor, n); p[n] = 0; }
    return p;
}

/* `s` with every occurrence of `what` (non-empty) replaced by "\x01". */
static char *cut(const char *s, const char *what)
{
    pc_sb b = {0};
    size_t w = strlen(what);
    const char *p;
    if (!w) { pc_sb_puts(&b, s); return pc_sb_take(&b); }
    while ((p = strstr(s, what))) {
        pc_sb_printf(&b, "%.*s\x01", (int)(p - s), s);
        s = p + w;
    }
    pc_sb_puts(&b, s);
    return pc_sb_take(&b);
}

typedef struct item { char *key, *prefix; size_t pos; const cJSON *r; } item;

static char *key_of(const cJSON *r, char **prefix)
{
    const char *t = pc_json_str(r, "tensor");
    *prefix = pc_module_prefix(t);
    char *a = cut(pc_json_str(r, "message"), t);
    char *b = a && *prefix && **prefix && strcmp(*prefix, t) ? cut(a, *prefix) : NULL;
    pc_sb k = {0};
    pc_sb_printf(&k, "%s\x02%s\x02%s", pc_json_str(r, "rule"), pc_json_str(r, "status"), b ? b : a ? a : "");
    free(a);
    free(b);
    return pc_sb_take(&k);
}

static int by_key(const void *x, const void *y)
{
    const item *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static int by_first(const void *x, const void *y)
{
    const pc_fgroup *a = x, *b = y;
    return (a->first_pos > b->first_pos) - (a->first_pos < b->first_pos);
}

static int by_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* Distinct module prefixes among n items (0 when out of memory: then no "modules" wording). */
static size_t count_prefixes(const item *it, size_t n)
{
    char **p = malloc(n * sizeof *p);
    if (!p) return 0;
    for (size_t i = 0; i < n; i++) p[i] = it[i].prefix;
    qsort(p, n, sizeof *p, by_str);
    size_t m = n > 0;
    for (size_t i = 1; i < n; i++) m += strcmp(p[i], p[i - 1]) != 0;
    free(p);
    return m;
}

size_t pc_findings_group(const cJSON *results, bool (*keep)(const cJSON *r, void *arg), void *arg, pc_fgroup **out)
{
    size_t n = 0, ng = 0, cap = (size_t)cJSON_GetArraySize(results);
    item *it = calloc(cap ? cap : 1, sizeof *it);
    pc_fgroup *g = calloc(cap ? cap : 1, sizeof *g);
    const cJSON **all = calloc(cap ? cap : 1, sizeof *all);
    const cJSON *r;
    bool oom = !it || !g || !all;
    cJSON_ArrayForEach(r, results) {
        if (oom || !keep(r, arg)) continue;
        it[n].key = key_of(r, &it[n].prefix);
        it[n].pos = n;
        it[n].r = r;
        if (!it[n].key || !it[n].prefix) oom = true;
        n++;
    }
    if (!oom) qsort(it, n, sizeof *it, by_key);
    for (size_t i = 0; !oom && i < n;) {
        size_t j = i;
        while (j < n && !strcmp(it[j].key, it[i].key)) j++;
        pc_fgroup *x = &g[ng++];
        x->n = j - i;
        x->first_pos = it[i].pos;
        x->all = all + i;
        for (size_t k = i; k < j; k++) all[k] = it[k].r;
        for (size_t k = 0; k < PC_GROUP_FIRST && i + k < j; k++) x->inst[k] = it[i + k].r;
        x->modules = count_prefixes(it + i, j - i);
        i = j;
    }
    for (size_t i = 0; it && i < n; i++) { free(it[i].key); free(it[i].prefix); }
    free(it);
    if (oom) { free(g); free(all); return (size_t)-1; }
    if (!ng) free(all);
    qsort(g, ng, sizeof *g, by_first); /* back to report order */
    *out = g;
    return ng;
}

void pc_findings_group_free(pc_fgroup *g, size_t ng)
{
    const cJSON **base = NULL;
    for (size_t i = 0; i < ng; i++) if (!base || g[i].all < base) base = g[i].all;
    free((void *)base);
    free(g);
}

/* A tensor of a module that failed a rule: same module prefix as a failing finding's tensor. */
bool pc_of_failed_module(const cJSON *in, const char *tensor)
{
    char *p = pc_module_prefix(tensor);
    const cJSON *r;
    bool hit = false;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(in, "results")) {
        if (hit || !p || strcmp(pc_json_str(r, "status"), "fail")) continue;
        char *q = pc_module_prefix(pc_json_str(r, "tensor"));
        hit = q && *q && !strcmp(p, q);
        free(q);
    }
    free(p);
    return hit;
}

