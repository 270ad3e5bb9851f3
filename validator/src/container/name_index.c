/* The tensor-name hash index (name_index.h): open addressing, linear probing. */
#include "name_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint32_t hash;  /* the name's hash, high half: most mismatches end here without a compare */
    uint32_t at;    /* tensor index + 1; 0 is an empty slot */
} slot;

struct pc_name_index {
    slot *slots;
    size_t mask, max_probe;
};

/* A 64-bit multiply-rotate hash of len bytes, a word at a time (a byte at a time cost a fifth of
 * the lookups' time on a 150k-tensor header). */
uint64_t pc_name_hash(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h = h << 29 | h >> 35;
    }
    w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 31;
}

/* The hash of prefix + suffix, joined in a stack buffer; *fits is false when they are too long to
 * join (such a name is then searched for in the sorted array). */
static uint64_t hash_joined(const char *prefix, const char *suffix, bool *fits)
{
    char buf[512];
    size_t lp = strlen(prefix), ls = strlen(suffix);
    *fits = lp + ls <= sizeof buf;
    if (!*fits) return 0;
    memcpy(buf, prefix, lp);
    memcpy(buf + lp, suffix, ls);
    return pc_name_hash(buf, lp + ls);
}

static bool name_is(const char *name, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix);
    return !strncmp(name, prefix, lp) && !strcmp(name + lp, suffix);
}

pc_name_index *pc_name_index_build(const pc_tensor *t, size_t n, size_t max_probe)
{
    if (!n || n > ((size_t)1 << 31)) return NULL;
    size_t cap = 16;
    while (cap < n + n / 2) cap *= 2; /* at most two thirds full */
    pc_name_index *ix = malloc(sizeof *ix);
    slot *s = calloc(cap, sizeof *s);
    if (!ix || !s) { free(ix); free(s); return NULL; }
    *ix = (pc_name_index){s, cap - 1, max_probe};
    for (size_t i = 0; i < n; i++) {
        uint64_t h = pc_name_hash(t[i].name, strlen(t[i].name));
        size_t k = (size_t)h & ix->mask, probe = 0;
        for (; s[k].at; k = (k + 1) & ix->mask) {
            if (s[k].hash == (uint32_t)(h >> 32) && !strcmp(t[s[k].at - 1].name, t[i].name)) break; /* a repeat */
            if (++probe > max_probe) { pc_name_index_free(ix); return NULL; }
        }
        if (!s[k].at) s[k] = (slot){(uint32_t)(h >> 32), (uint32_t)(i + 1)};
    }
    return ix;
}

const pc_tensor *pc_name_index_find(const pc_name_index *ix, const pc_tensor *t, const char *prefix, const char *suffix, bool *searched)
{
    uint64_t h = hash_joined(prefix, suffix, searched);
    if (!*searched) return NULL;
    for (size_t k = (size_t)h & ix->mask, probe = 0; ix->slots[k].at && probe <= ix->max_probe; k = (k + 1) & ix->mask, probe++) {
        const slot *s = &ix->slots[k];
        if (s->hash == (uint32_t)(h >> 32) && name_is(t[s->at - 1].name, prefix, suffix)) return &t[s->at - 1];
    }
    return NULL;
}

void pc_name_index_free(pc_name_index *ix)
{
    if (ix) free(ix->slots);
    free(ix);
}
