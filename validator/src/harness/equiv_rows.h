/* Row permutations of a logical view: is one view's code matrix the other's with its rows
 * reordered (per expert)? `equiv` uses it to diagnose a row-permuting converter (sgl-project/sglang
 * PR #35703 permuted block-FP8 qkv rows but not their weight_scale_inv rows: blank output, no
 * error), certify's diagnosis to recognise a reader that does the same (diagnose.c).
 *
 * Format-neutral: only the logical view ([E,] N, K; row (e, n) is K codes at (e*N + n)*K). Rows are
 * matched by a 64-bit hash of their codes, confirmed byte for byte; memory is a few words per row,
 * time linear in the elements (duplicate rows are paired identity first, then in row order, with a
 * bounded number of probes per row), and the result is deterministic. */
#ifndef PC_EQUIV_ROWS_H
#define PC_EQUIV_ROWS_H

#include "formats/format.h"
#include "equiv.h"

#include <cjson/cJSON.h>

typedef struct pc_row_perm {
    uint64_t E, N, K;
    uint64_t *from;   /* E*N entries: row n of expert e of `dst` holds row from[e*N + n] of `src`'s expert e */
    uint64_t moved;   /* rows with from[r] != r */
} pc_row_perm;

/* Find p with dst row r == src row p->from[r] for every row. Returns 0 when found (p->moved may be
 * 0: the views are equal), 1 when dst's rows are not a permutation of src's, -1 when out of memory.
 * p->from is allocated only on 0; free with pc_row_perm_free. */
int pc_row_perm_find(const uint8_t *src, const uint8_t *dst, uint64_t E, uint64_t N, uint64_t K, pc_row_perm *p);
void pc_row_perm_free(pc_row_perm *p);

/* The moved rows as ranges: "rows 0-127 hold source rows 128-255, rows 128-255 hold source rows 0-127" (per
 * expert when E > 1; at most a few ranges, then how many more). */
void pc_row_perm_ranges(const pc_row_perm *p, char *buf, size_t n);

/* The smallest aligned group (2, 4, ... 64 rows) no row leaves, or 0: a permutation inside groups of 8
 * is what a packed word's slot order looks like in the logical view, not a converter reordering heads. */
uint64_t pc_row_perm_group(const pc_row_perm *p);

/* equiv's diagnosis for module m whose codes differ: when the target's rows (cb, wb) are a
 * permutation of the source's (ca, wa), add "diagnosis" {"bug", "title", "detail"} to js:
 * `rows-permuted` when the weights moved with the rows (within tol), or
 * `rows-permuted-scales-kept` when they did not (checked against the source's own per-element
 * parameters when the format re-derives them: each target weight is its moved code dequantized with
 * the scale left at its position). src is the source input, for those parameters. */
void pc_equiv_rows(const pc_input *src, const pc_module *m, const uint8_t *ca, const float *wa, const uint8_t *cb, const float *wb,
                   const pc_tolerance *tol, cJSON *js);

#endif
