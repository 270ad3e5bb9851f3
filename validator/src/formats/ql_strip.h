/* Column strips of a row-major packed tensor, for row decoders of formats whose logical rows are
 * the stored tensor's columns (GPTQ's qweight [K * b / 32, N] and AWQ's [K, N / 8] hold view row n
 * in column n, or in a nibble of column n / 8, of every stored row). */
#ifndef PC_FORMATS_QL_STRIP_H
#define PC_FORMATS_QL_STRIP_H

#include "../packcheck_internal.h"

/* A window of byte columns [c0, c0 + w) of every row, kept between calls: a slice of a few view
 * rows is a few bytes of each stored row, so reading each slice on its own would cost one read per
 * stored row per slice; the window reads QL_STRIP_BYTES at a time (one read per stored row per
 * window, or one read in all when the window spans whole rows). */
typedef struct ql_strip {
    const pc_tensor *t;
    uint64_t rows, row_bytes;
    uint8_t *buf;               /* [rows, w] */
    uint64_t c0, w, cap;
} ql_strip;

#define QL_STRIP_BYTES ((uint64_t)4 << 20)

/* Byte columns [b0, b0 + nb) of every row into out, as a row-major [rows, nb] matrix. b0 and nb are
 * multiples of 4 (whole int32 words). 0, or -1 (read failed or out of memory: cx says which). */
int ql_strip_get(ql_strip *s, uint64_t b0, uint64_t nb, uint8_t *out, pc_ctx *cx);
void ql_strip_free(ql_strip *s);

#endif
