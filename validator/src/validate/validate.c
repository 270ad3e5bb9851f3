/* The validation driver: formats check an opened input, the streaming pass runs their data scans,
 * then every tensor is accounted for. The container readers (container/) open inputs and know no
 * formats; the formats (formats/) know no reports; this room is where they meet. */
#include "packcheck.h"

#include "../core/pyre.h"
#include "../core/scan.h"
#include "../core/util.h"
#include "accounting.h"

#include <stdlib.h>
#include <string.h>

pc_module *pc_module_add(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout)
{
    if (in->nmodules == in->modcap) {
        size_t nc = in->modcap ? in->modcap * 2 : 16;
        pc_module *nm = realloc(in->modules, nc * sizeof *nm);
        if (!nm) return NULL;
        in->modules = nm;
        in->modcap = nc;
    }
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

void pc_validate(pc_input *in, pc_ctx *cx)
{
    pc_pyre_reset(); /* the matcher's budget is per input (pyre.h) */
    /* A broken container has no trustworthy tensor table: formats see nothing of it. */
    bool container_ok = !cx->io_error && !pc_family_failed(cx, "ST") && !pc_family_failed(cx, "GGUF");
    if (container_ok)
        for (const pc_format *const *f = pc_formats; *f; f++)
            if ((*f)->detect && (*f)->detect(in)) (*f)->check(in, cx);
    /* The data scans the formats registered, and --hash, in one windowed pass over each file
     * (a broken container is still hashed: certificates name the bytes, good or bad). */
    if (!cx->io_error) pc_scan_run(in, cx);
    if (container_ok && !cx->io_error && pc_accounting_run(in, cx)) cx->oom = true;
}

const char *pc_input_format(const pc_input *in)
{
    if (in->is_gguf) return "gguf";
    if (in->nlayouts > 1) return "mixed";
    return in->nlayouts ? in->layouts[0] : "safetensors";
}

const char *pc_verdict(const pc_input *in, const pc_ctx *cx)
{
    if (!in || cx->io_error || cx->oom) return "error";
    if (pc_rejected(cx)) return "reject";
    return in->acct && in->acct->unchecked ? "unchecked" : "pass";
}
