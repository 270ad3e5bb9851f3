/* model.safetensors.index.json (shard_index.c). */
#ifndef PC_SHARD_INDEX_H
#define PC_SHARD_INDEX_H
#include "packcheck_internal.h"

/* model.safetensors.index.json (shard_index.c). st_index_load parses and checks the index and
 * returns the shard file names it names (ST-030, ST-031); st_index_verify checks, once the shards
 * are read, that every tensor is where the index says (ST-032, ST-033). */
typedef struct st_index_entry {
    const char *tensor;      /* weight_map key, borrowed from root */
    const char *shard;       /* its value when a string, else NULL */
} st_index_entry;

typedef struct st_index {
    void *root;      /* cJSON* */
    char **shards;
    size_t nshards;
    st_index_entry *entries; /* weight_map sorted by tensor name (lookups stay O(log n) per tensor) */
    size_t nentries;
} st_index;
int st_index_load(const char *dir, const char *path, pc_ctx *cx, st_index *ix);
void st_index_verify(const st_index *ix, const pc_input *in, pc_ctx *cx);
void st_index_free(st_index *ix);
#endif
