#include "logical.h"

#include "../container/safetensors.h"
#include "../core/atomic_file.h"
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
    *codes = malloc(n);
    *weights = malloc(n * sizeof **weights);
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

/* Streamed module by module (issue 12 item 6): the header is known from the shapes alone, so it is
 * written first and each module is decoded and written in name order. One pair of output buffers,
 * sized for the largest module, serves every module: a fresh buffer per module faulted in ~56 MB of
 * new pages each time (system time dominated unpack), a reused one is faulted once. Peak memory is
 * the largest module's view (5 bytes per element) plus what its decode reads, not the whole view. */
int pc_logical_write(const pc_input *in, const char *out_path, pc_ctx *cx)
{
    size_t n = in->nmodules;
    const pc_module **mods = calloc(n ? n : 1, sizeof *mods);
    st_out_tensor *t = calloc(2 * n + 1, sizeof *t);
    char **names = calloc(2 * n + 1, sizeof *names);
    int rc = -1;
    pc_afile out;
    bool open = false;
    uint8_t *codes = NULL;
    float *w = NULL;
    if (!mods || !t || !names) { cx->oom = true; goto out; }
    for (size_t i = 0; i < n; i++) mods[i] = &in->modules[i];
    pc_sort(mods, n, sizeof *mods, cmp_module);
    /* "M.codes" sorts before "M.weight" for the same M, and module prefixes are distinct. */
    for (size_t i = 0; i < n; i++) {
        const pc_module *m = mods[i];
        if (m->numel > PC_LOGICAL_MAX_ELEMS) { /* before the sizes below are computed */
            pc_io_error(cx, "%s: %llu elements exceed the logical-view limit of 2^30", m->prefix, (unsigned long long)m->numel);
            goto out;
        }
        names[2 * i] = pc_asprintf("%s.codes", m->prefix);
        names[2 * i + 1] = pc_asprintf("%s.weight", m->prefix);
        if (!names[2 * i] || !names[2 * i + 1]) { cx->oom = true; goto out; }
        for (int k = 0; k < 2; k++) {
            st_out_tensor *o = &t[2 * i + k];
            o->name = names[2 * i + k];
            o->dtype = k ? PC_DT_F32 : PC_DT_U8;
            o->ndim = m->ndim;
            memcpy(o->shape, m->shape, sizeof m->shape);
            o->nbytes = m->numel * (k ? 4 : 1); /* numel <= 2^30 is checked by pc_logical_decode */
        }
    }
    size_t most = 1; /* elements of the largest module (<= 2^30, checked above) */
    for (size_t i = 0; i < n; i++)
        if (mods[i]->numel > most) most = (size_t)mods[i]->numel;
    codes = pc_page_alloc(most);
    w = pc_page_alloc(most * sizeof *w);
    if (!codes || !w) { cx->oom = true; goto out; }
    /* Fault the pages in once, and fill them with a pattern no decode produces by chance at every
     * element: a decode that skipped an element would show it (test_logical_write) instead of
     * passing on a previous module's bytes. */
    memset(codes, 0xA5, most);
    memset(w, 0xFF, most * sizeof *w);
    if (st_write_begin(&out, out_path, t, 2 * n)) { pc_io_error(cx, "%s: cannot write", out_path); goto out; }
    open = true;
    for (size_t i = 0; i < n; i++) {
        if (mods[i]->fmt->decode(in, mods[i], PC_IMPL_FAST, codes, w, cx)) goto out;
        if (pc_afile_write(&out, codes, (size_t)t[2 * i].nbytes) || pc_afile_write(&out, w, (size_t)t[2 * i + 1].nbytes)) {
            pc_io_error(cx, "%s: cannot write", out_path);
            goto out;
        }
    }
    open = false;
    rc = pc_afile_commit(&out);
    if (rc) pc_io_error(cx, "%s: cannot write", out_path);
out:
    if (open) pc_afile_abort(&out);
    free(codes);
    free(w);
    for (size_t i = 0; names && i < 2 * n; i++) free(names[i]);
    free(names);
    free(t);
    free(mods);
    return rc;
}
