/* Helpers of the row decoders (row_decode.h). */
#include "row_decode.h"

#include <stdlib.h>

#include "../kernels/kernels.h"

uint8_t *pc_rows_buf(uint8_t **buf, size_t *cap, size_t need, pc_ctx *cx)
{
    if (need <= *cap && *buf) return *buf;
    free(*buf);
    *cap = 0;
    if (!(*buf = malloc(need ? need : 1))) { cx->oom = true; return NULL; }
    *cap = need;
    return *buf;
}

void pc_grid_rows(pc_impl impl, bool int8, const uint8_t *w, uint64_t r, uint64_t n, size_t cols, size_t bh, size_t bw,
                  const float *grid, const int8_t *zero, float *out)
{
    size_t gc = cols / bw + (cols % bw != 0);
    while (n) {
        uint64_t head = r % bh ? bh - r % bh : n;
        if (head > n) head = n;
        size_t si = (size_t)(r / bh) * gc;
        if (int8) pc_int8_dequant(impl)(w, (size_t)head, cols, bh, bw, grid + si, zero ? zero + si : NULL, out);
        else pc_fp8_dequant(impl)(w, (size_t)head, cols, bh, bw, grid + si, out);
        w += head * cols;
        out += head * cols;
        r += head;
        n -= head;
    }
}
