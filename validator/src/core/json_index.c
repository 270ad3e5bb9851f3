#include "json_index.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

typedef struct member { const cJSON *item; size_t pos; } member;

static int cmp_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int c = strcmp(x->item->string ? x->item->string : "", y->item->string ? y->item->string : "");
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int pc_json_index_build(pc_json_index *ix, const cJSON *obj)
{
    ix->v = NULL;
    ix->n = 0;
    if (!cJSON_IsObject(obj)) return 0;
    size_t n = 0;
    for (const cJSON *e = obj->child; e; e = e->next) n++;
    if (!n) return 0;
    member *m = malloc(n * sizeof *m);
    ix->v = malloc(n * sizeof *ix->v);
    if (!m || !ix->v) { free(m); free(ix->v); ix->v = NULL; return -1; }
    size_t k = 0;
    for (const cJSON *e = obj->child; e; e = e->next, k++) m[k] = (member){e, k};
    pc_sort(m, n, sizeof *m, cmp_member); /* (key, position): the first of equal keys comes first */
    for (k = 0; k < n; k++) ix->v[k] = m[k].item;
    free(m);
    ix->n = n;
    return 0;
}

void pc_json_index_free(pc_json_index *ix)
{
    free(ix->v);
    ix->v = NULL;
    ix->n = 0;
}

const cJSON *pc_json_index_get(const pc_json_index *ix, const char *key)
{
    size_t lo = 0, hi = ix->n; /* lower bound: the first member whose key is >= key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *k = ix->v[mid]->string ? ix->v[mid]->string : "";
        if (strcmp(k, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->n && !strcmp(ix->v[lo]->string ? ix->v[lo]->string : "", key) ? ix->v[lo] : NULL;
}

static bool objects_equal(const cJSON *a, const cJSON *b)
{
    pc_json_index ia, ib;
    if (pc_json_index_build(&ia, a)) return false;
    if (pc_json_index_build(&ib, b)) { pc_json_index_free(&ia); return false; }
    bool eq = ia.n == ib.n;
    for (size_t i = 0; eq && i < ia.n; i++) {
        const char *ka = ia.v[i]->string ? ia.v[i]->string : "", *kb = ib.v[i]->string ? ib.v[i]->string : "";
        eq = !strcmp(ka, kb) && pc_json_equal(ia.v[i], ib.v[i]);
    }
    pc_json_index_free(&ia);
    pc_json_index_free(&ib);
    return eq;
}

bool pc_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b) return a == b;
    if ((a->type & 0xff) != (b->type & 0xff)) return false;
    if (cJSON_IsObject(a)) return objects_equal(a, b);
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!pc_json_equal(x, y)) return false;
        return !x && !y;
    }
    return cJSON_Compare(a, b, true);
}
