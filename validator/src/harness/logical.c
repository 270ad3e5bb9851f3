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

int pc_logical_write(const pc_input *in, const char *out_path, pc_ctx *cx)
{
    size_t n = in->nmodules;
    const pc_module **mods = calloc(n ? n : 1, sizeof *mods);
    st_out_tensor *t = calloc(2 * n + 1, sizeof *t);
    char **names = calloc(2 * n + 1, sizeof *names);
    void **bufs = calloc(2 * n + 1, sizeof *bufs);
    int rc = -1;
    if (!mods || !t || !names || !bufs) { cx->oom = true; goto out; }
    for (size_t i = 0; i < n; i++) mods[i] = &in->modules[i];
    pc_sort(mods, n, sizeof *mods, cmp_module);
    /* "M.codes" sorts before "M.weight" for the same M, and module prefixes are distinct. */
    for (size_t i = 0; i < n; i++) {
        const pc_module *m = mods[i];
        uint8_t *codes;
        float *w;
        if (pc_logical_decode(in, m, PC_IMPL_FAST, &codes, &w, cx)) goto out;
        bufs[2 * i] = codes;
        bufs[2 * i + 1] = w;
        names[2 * i] = pc_asprintf("%s.codes", m->prefix);
        names[2 * i + 1] = pc_asprintf("%s.weight", m->prefix);
        if (!names[2 * i] || !names[2 * i + 1]) { cx->oom = true; goto out; }
        for (int k = 0; k < 2; k++) {
            st_out_tensor *o = &t[2 * i + k];
            o->name = names[2 * i + k];
            o->dtype = k ? PC_DT_F32 : PC_DT_U8;
            o->ndim = m->ndim;
            memcpy(o->shape, m->shape, sizeof m->shape);
            o->data = bufs[2 * i + k];
            o->nbytes = m->numel * (k ? 4 : 1);
        }
    }
    rc = st_write_file(out_path, t, 2 * n);
    if (rc) pc_io_error(cx, "%s: cannot write", out_path);
out:
    for (size_t i = 0; bufs && names && i < 2 * n; i++) { free(bufs[i]); free(names[i]); }
    free(bufs);
    free(names);
    free(t);
    free(mods);
    return rc;
}
