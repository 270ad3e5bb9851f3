/* An object's members sorted by key, for lookups that cJSON_GetObjectItem (a walk of the member
 * list) would make quadratic: an MLX config with 55,000 per-layer overrides read for 55,000
 * modules, or two such dicts compared. Built once in O(n log n); each lookup is O(log n). */
#ifndef PC_JSON_INDEX_H
#define PC_JSON_INDEX_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct pc_json_index {
    const cJSON **v;  /* members in key order; equal keys keep document order */
    size_t n;
} pc_json_index;

/* Index the members of obj (NULL or not an object: an empty index). -1 when out of memory. */
int pc_json_index_build(pc_json_index *ix, const cJSON *obj);
void pc_json_index_free(pc_json_index *ix);
/* The first member named key (cJSON_GetObjectItemCaseSensitive's answer), or NULL. */
const cJSON *pc_json_index_get(const pc_json_index *ix, const char *key);
/* cJSON_Compare(a, b, true) without its quadratic member matching: objects equal when they hold the
 * same keys with equal values (order aside), arrays element by element. false also when out of memory. */
bool pc_json_equal(const cJSON *a, const cJSON *b);

#endif
