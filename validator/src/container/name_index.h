/* A hash index over the input's tensor names, for the exact-name lookups every format's parts
 * search makes (pc_input_find, pc_input_find_part): on a 150k-tensor header the binary searches
 * (17 string compares each, names sharing long prefixes) were a fifth of the run.
 *
 * Hostile names cannot make it slow: the hash is not secret, so an input can be built to collide,
 * and then the index refuses itself (an insert past PC_NAME_INDEX_MAX_PROBE slots) and the callers
 * search the sorted array as before. A lookup never probes more than that many slots either. */
#ifndef PC_NAME_INDEX_H
#define PC_NAME_INDEX_H

#include "../packcheck_internal.h"

#define PC_NAME_INDEX_MAX_PROBE 64

typedef struct pc_name_index pc_name_index;

/* The index of names t[0..n) (equal names: the first is found). NULL when out of memory, when n is
 * 0 or above 2^31, or when the names collide past the probe limit. */
pc_name_index *pc_name_index_build(const pc_tensor *t, size_t n, size_t max_probe);
/* The tensor named prefix + suffix, NULL when absent. `t` is the array the index was built on.
 * *searched is false when the index could not answer (prefix + suffix longer than 512 bytes). */
const pc_tensor *pc_name_index_find(const pc_name_index *ix, const pc_tensor *t, const char *prefix, const char *suffix, bool *searched);
void pc_name_index_free(pc_name_index *ix);
/* The hash of a name's len bytes; its low bits pick the home slot (exposed so a test can collide). */
uint64_t pc_name_hash(const char *s, size_t len);

#endif
