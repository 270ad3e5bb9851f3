/* The services the driver gives a format's check() (formats/format.h): modules, tensor claims,
 * layouts. They write only the input's validation state, which pc_input_free releases through
 * the hook set here. */
#include "formats/format.h"

#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void release_validation(pc_input *in)
{
    if (in->acct) free(in->acct->list); /* the accounting (validate/accounting.c) */
    free(in->acct);
    in->acct = NULL;
    for (size_t i = 0; i < in->nmodules; i++) {
        pc_module *m = &in->modules[i];
        if (m->fmt && m->fmt->module_free) m->fmt->module_free(m->priv);
        free(m->prefix);
    }
    free(in->modules);
    free(in->claimed_by);
    in->modules = NULL;
    in->claimed_by = NULL;
    in->nmodules = in->modcap = 0;
}

void pc_validation_attach(pc_input *in) { in->release_validation = release_validation; }

pc_module *pc_module_add(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout)
{
    if (in->nmodules == in->modcap) {
        size_t nc = in->modcap ? in->modcap * 2 : 16;
        pc_module *nm = realloc(in->modules, nc * sizeof *nm);
        if (!nm) return NULL;
        in->modules = nm;
        in->modcap = nc;
    }
    pc_validation_attach(in);
    pc_module *m = &in->modules[in->nmodules];
    memset(m, 0, sizeof *m);
    m->prefix = pc_strdup(prefix);
    if (!m->prefix) return NULL;
    m->fmt = fmt;
    m->layout = layout;
    in->nmodules++;
    pc_input_note_layout(in, layout);
    return m;
}

void pc_input_note_layout(pc_input *in, const char *layout)
{
    for (size_t i = 0; i < in->nlayouts; i++)
        if (!strcmp(in->layouts[i], layout)) return;
    if (in->nlayouts < sizeof in->layouts / sizeof *in->layouts) in->layouts[in->nlayouts++] = layout;
}

int pc_claims_ensure(pc_input *in)
{
    if (in->claimed_by || !in->ntensors) return 0;
    pc_validation_attach(in);
    in->claimed_by = calloc(in->ntensors, sizeof *in->claimed_by);
    return in->claimed_by ? 0 : -1;
}

void pc_tensor_claim(pc_input *in, const pc_tensor *t, const char *layout)
{
    if (!t || t < in->tensors || t >= in->tensors + in->ntensors || pc_claims_ensure(in)) return;
    in->claimed_by[t - in->tensors] = layout;
}

size_t pc_module_claim_suffixes(pc_input *in, const char *prefix, const char *layout, const char *const *suffixes)
{
    size_t n = 0;
    for (; *suffixes; suffixes++) {
        char dotted[64];
        if (snprintf(dotted, sizeof dotted, ".%s", *suffixes) >= (int)sizeof dotted) continue;
        const pc_tensor *t = pc_input_find_part(in, prefix, dotted);
        if (t) { pc_tensor_claim(in, t, layout); n++; }
    }
    return n;
}

pc_module *pc_module_add_with(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout,
                              const void *priv, size_t size, pc_ctx *cx)
{
    void *copy = malloc(size);
    pc_module *m = copy ? pc_module_add(in, fmt, prefix, layout) : NULL;
    if (!m) { free(copy); cx->oom = true; return NULL; }
    memcpy(copy, priv, size);
    m->priv = copy;
    return m;
}

void pc_module_set_matrix(pc_module *m, uint64_t N, uint64_t K, int bits)
{
    m->ndim = 2;
    m->shape[0] = N;
    m->shape[1] = K;
    m->numel = N * K;
    m->bits = bits;
}

size_t pc_module_claim_parts(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout)
{
    size_t n = 0;
    for (const pc_part *p = fmt->parts; p && p->suffix; p++) {
        const pc_tensor *t = pc_input_find_part(in, prefix, p->suffix);
        if (t) { pc_tensor_claim(in, t, layout); n++; }
    }
    return n;
}

