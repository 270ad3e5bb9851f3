/* Helpers the formats share when they fill pc_diag_params (pc_format.diag_params): whole small
 * tensors as numbers and fields of int32 word streams. Bounded: tensors above PC_DIAG_MAX_ELEMS
 * elements are refused (diagnosis re-derives parameters only for small modules). */
#ifndef PC_DIAG_UTIL_H
#define PC_DIAG_UTIL_H

#include "formats/format.h"

#define PC_DIAG_MAX_ELEMS (1ull << 26)

float *pc_diag_load_floats(const pc_tensor *t);   /* exact conversions; NULL when unreadable */
int64_t *pc_diag_load_ints(const pc_tensor *t);   /* signed dtypes sign-extended; NULL when unreadable */
const pc_tensor *pc_diag_find(const pc_input *in, const char *prefix, const char *suffix); /* suffix may be NULL */

/* Field j (width b) of a little-endian stream of int32 words `stride` apart; dense (bit j*b, crossing
 * words) or aligned (floor(32/b) fields per word). Words past nwords read as 0. */
uint32_t pc_diag_stream_get(const int64_t *base, size_t stride, uint64_t nwords, uint64_t j, unsigned b, bool aligned);
void pc_diag_stream_put(uint32_t *w, uint64_t nwords, uint64_t j, unsigned b, bool aligned, uint32_t v);

/* s and zq of n elements (and alt_s/alt_zq[alt] when alt >= 0); 0, or -1 when out of memory. */
int pc_diag_alloc(pc_diag_params *p, size_t n, int alt);
int pc_diag_alloc_alt(pc_diag_params *p, size_t n, pc_diag_alt alt); /* alt_s[alt] alone */
/* The first shard (q_proj, gate_proj, w1) of the split fused layer that module `prefix` (k_proj or
 * v_proj, up_proj, w3) is loaded into, or NULL; caller frees. */
char *pc_diag_shard_sibling(const char *prefix);
#endif
