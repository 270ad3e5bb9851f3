/* Column strips of a packed tensor (ql_strip.h). */
#include "ql_strip.h"

#include <stdlib.h>
#include <string.h>

/* Load the window of byte columns from b0: at least nb wide, QL_STRIP_BYTES in all where the rows
 * allow, in whole words, never past the row's end. */
static int load_window(ql_strip *s, uint64_t b0, uint64_t nb, pc_ctx *cx)
{
    uint64_t w = s->rows ? QL_STRIP_BYTES / s->rows / 4 * 4 : nb;
    if (w < nb) w = nb;
    if (w > s->row_bytes - b0) w = s->row_bytes - b0;
    uint64_t need = s->rows * w; /* <= the tensor's bytes */
    if (need > s->cap) {
        free(s->buf);
        s->cap = 0;
        if (!(s->buf = malloc((size_t)(need ? need : 1)))) { cx->oom = true; return -1; }
        s->cap = need;
    }
    s->w = 0;
    if (w == s->row_bytes) { /* whole rows: one contiguous read */
        if (pc_tensor_read(s->t, 0, s->buf, (size_t)need)) goto fail;
    } else {
        for (uint64_t r = 0; r < s->rows; r++)
            if (pc_tensor_read(s->t, r * s->row_bytes + b0, s->buf + r * w, (size_t)w)) goto fail;
    }
    s->c0 = b0;
    s->w = w;
    return 0;
fail:
    pc_io_error(cx, "%s: cannot read", s->t->name);
    return -1;
}

int ql_strip_get(ql_strip *s, uint64_t b0, uint64_t nb, uint8_t *out, pc_ctx *cx)
{
    if (b0 + nb > s->row_bytes) { pc_io_error(cx, "%s: columns past the row", s->t->name); return -1; }
    if (!s->w || b0 < s->c0 || b0 + nb > s->c0 + s->w)
        if (load_window(s, b0, nb, cx)) return -1;
    for (uint64_t r = 0; r < s->rows; r++) memcpy(out + r * nb, s->buf + r * s->w + (b0 - s->c0), (size_t)nb);
    return 0;
}

void ql_strip_free(ql_strip *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = s->w = 0;
}
