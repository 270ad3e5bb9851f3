/* What the formats' row decoders (pc_format.decode_rows, unpack's sliced writer) share: a read
 * buffer kept across a module's slices, and row slices of an FP8 / INT8 matrix with a 2-D scale
 * grid (kernels.h pc_fp8_dequant: fp8, modelopt, quark). */
#ifndef PC_FORMATS_ROW_DECODE_H
#define PC_FORMATS_ROW_DECODE_H

#include "../packcheck_internal.h"

/* A buffer of at least `need` bytes (grown, never shrunk: a module's slices have about one size),
 * or NULL with cx->oom set. */
uint8_t *pc_rows_buf(uint8_t **buf, size_t *cap, size_t need, pc_ctx *cx);

/* out = rows [r, r + n) of the rows x cols matrix whose element (i, k) uses
 * grid[(i / bh) * ceil(cols / bw) + k / bw] (and zero[same] when int8 and zero is not NULL), decoded
 * from w = those rows' stored bytes: fp8 (E4M3) when !int8, else int8 minus zero point. Byte for
 * byte what the whole-matrix kernel writes for those rows: a slice that starts inside a block of
 * bh rows decodes that head against its block's grid row alone (fewer than bh rows, so the
 * kernel's i / bh is 0 for each), the rest from a block boundary. */
void pc_grid_rows(pc_impl impl, bool int8, const uint8_t *w, uint64_t r, uint64_t n, size_t cols, size_t bh, size_t bw,
                  const float *grid, const int8_t *zero, float *out);

#endif
