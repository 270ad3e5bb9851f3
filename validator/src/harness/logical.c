#include "logical.h"

#include "../container/safetensors.h"
#include "../core/pagebuf.h"
#include "../core/util.h"

#include <stdlib.h>
#include <string.h>

int pc_logical_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t **codes, float **weights, pc_ctx *cx)
{
    *codes = NULL;
    *weights = NULL;
    if (m->numel > PC_LOGICAL_MAX_ELEMS) {
        pc_io_error(cx, "%s: %llu elements exceed the logical-view limit of 2^30", m->prefix, (unsigned long long)m->numel);
        return -1;
    }
    size_t n = m->numel ? (size_t)m->numel : 1;
    *codes = pc_page_alloc(n);
    *weights = n <= SIZE_MAX / sizeof **weights ? pc_page_alloc(n * sizeof **weights) : NULL;
    if (!*codes || !*weights || m->fmt->decode(in, m, impl, *codes, *weights, cx)) {
        if (!*codes || !*weights) cx->oom = true;
        free(*codes);
        free(*weights);
        *codes = NULL;
        *weights = NULL;
        return -1;
    }
    return 0;
}

static int cmp_module(const void *a, const void *b)
{
    return strcmp((*(const pc_module *const *)a)->prefix, (*(const pc_module *const *)b)->prefix);
}

long pc_module_find(const pc_input *in, const char *prefix)
{
    for (size_t i = 0; i < in->nmodules; i++)
        if (!strcmp(in->modules[i].prefix, prefix)) return (long)i;
    return -1;
}

/* Unpack streams: each module is decoded when the writer reaches its "M.codes" entry, into two
 * buffers reused from module to module, and written before the next one is decoded. Peak memory
 * is the largest module's view (5 bytes per element), not the checkpoint's, and the output pages
 * are faulted in once (holding every module's view had unpack spend most of its time in system
 * time: one page fault per 4 KiB of output, 248,634 for a 1 GB view). */
typedef struct stream_ctx {
    const pc_input *in;
    const pc_module **mods;
    pc_ctx *cx;
    uint8_t *codes;
    float *weights;
    size_t cap;  /* elements both buffers hold */
    bool failed; /* a decode failed (and said why): no "cannot write" on top */
} stream_ctx;

static int fill_module(void *arg, size_t i, const void **data)
{
    stream_ctx *sc = arg;
    const pc_module *m = sc->mods[i / 2];
    if (i % 2) { *data = sc->weights; return 0; } /* decoded with its codes, one entry before */
    if (m->numel > PC_LOGICAL_MAX_ELEMS) {
        pc_io_error(sc->cx, "%s: %llu elements exceed the logical-view limit of 2^30", m->prefix, (unsigned long long)m->numel);
        sc->failed = true;
        return -1;
    }
    size_t n = m->numel ? (size_t)m->numel : 1;
    sc->failed = true; /* until the module is decoded */
    if (n > sc->cap) {
        free(sc->codes);
        free(sc->weights);
        sc->codes = pc_page_alloc(n);
        sc->weights = pc_page_alloc(n * sizeof *sc->weights);
        sc->cap = sc->codes && sc->weights ? n : 0;
        if (!sc->cap) { sc->cx->oom = true; return -1; }
    }
    if (m->fmt->decode(sc->in, m, PC_IMPL_FAST, sc->codes, sc->weights, sc->cx)) return -1;
    sc->failed = false;
    *data = sc->codes;
    return 0;
}

int pc_logical_write(const pc_input *in, const char *out_path, pc_ctx *cx)
{
    size_t n = in->nmodules;
    const pc_module **mods = calloc(n ? n : 1, sizeof *mods);
    st_out_tensor *t = calloc(2 * n + 1, sizeof *t);
    char **names = calloc(2 * n + 1, sizeof *names);
    stream_ctx sc = {in, mods, cx, NULL, NULL, 0, false};
    int rc = -1;
    if (!mods || !t || !names) { cx->oom = true; goto out; }
    for (size_t i = 0; i < n; i++) mods[i] = &in->modules[i];
    pc_sort(mods, n, sizeof *mods, cmp_module);
    /* "M.codes" sorts before "M.weight" for the same M, and module prefixes are distinct. */
    for (size_t i = 0; i < n; i++) {
        const pc_module *m = mods[i];
        names[2 * i] = pc_asprintf("%s.codes", m->prefix);
        names[2 * i + 1] = pc_asprintf("%s.weight", m->prefix);
        if (!names[2 * i] || !names[2 * i + 1]) { cx->oom = true; goto out; }
        for (int k = 0; k < 2; k++) {
            st_out_tensor *o = &t[2 * i + k];
            o->name = names[2 * i + k];
            o->dtype = k ? PC_DT_F32 : PC_DT_U8;
            o->ndim = m->ndim;
            memcpy(o->shape, m->shape, sizeof m->shape);
            o->data = NULL; /* fill_module decodes it when the writer gets there */
            o->nbytes = m->numel * (k ? 4 : 1);
        }
    }
    rc = st_write_stream(out_path, t, 2 * n, fill_module, &sc);
    if (rc && !sc.failed && !cx->oom) pc_io_error(cx, "%s: cannot write", out_path);
out:
    for (size_t i = 0; names && i < 2 * n; i++) free(names[i]);
    free(sc.codes);
    free(sc.weights);
    free(names);
    free(t);
    free(mods);
    return rc;
}
