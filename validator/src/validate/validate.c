/* The validation driver: formats check an opened input, the streaming pass runs their data scans,
 * then every tensor is accounted for. The container readers (container/) open inputs and know no
 * formats; the formats (formats/) know no reports; this room is where they meet. */
#include "formats/format.h"

#include "../core/pyre.h"
#include "../core/scan.h"
#include "../core/util.h"
#include "accounting.h"

#include <stdlib.h>
#include <string.h>

/* Does the input hold a tensor that a format declares as JSON text (PC_PART_JSON)? */
static bool holds_tensor_json(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++) {
        size_t len = strlen(in->tensors[i].name);
        for (const pc_format *const *f = pc_formats; *f; f++)
            for (const pc_part *p = (*f)->parts; p && p->suffix; p++) {
                size_t sl = strlen(p->suffix);
                if ((p->role & PC_PART_JSON) && sl && sl < len && !strcmp(in->tensors[i].name + len - sl, p->suffix)) return true;
            }
    }
    return false;
}

void pc_validate(pc_input *in, pc_ctx *cx)
{
    pc_pyre_reset(); /* the matcher's budget is per input (pyre.h) */
    /* A broken container has no trustworthy tensor table: formats see nothing of it. */
    bool container_ok = !cx->io_error && !pc_family_failed(cx, "ST") && !pc_family_failed(cx, "GGUF");
    /* --tier header: the containers, the configs and the shard index were read and checked when the
     * input was opened; no tensor byte is read, so the formats (which read scales, zero points and
     * codes) do not run and their rules stay not evaluated. */
    if (in->tier == PC_TIER_HEADER) {
        /* the JSON rules judged the configs; JSON kept in tensor data was not read */
        if (holds_tensor_json(in)) { pc_eval_withdraw(cx, "CFG-032"); pc_eval_withdraw(cx, "CFG-033"); }
        return;
    }
    if (container_ok)
        for (const pc_format *const *f = pc_formats; *f; f++)
            if ((*f)->detect && (*f)->detect(in)) (*f)->check(in, cx);
    /* The data scans the formats registered, and --hash, in one windowed pass over each file
     * (a broken container is still hashed: certificates name the bytes, good or bad). */
    if (!cx->io_error) pc_scan_run(in, cx);
    if (container_ok && !cx->io_error && pc_accounting_run(in, cx)) cx->oom = true;
}

const char *pc_verdict(const pc_input *in, const pc_ctx *cx)
{
    if (!in || cx->io_error || cx->oom) return "error";
    if (pc_rejected(cx)) return "reject";
    if (in->tier == PC_TIER_HEADER) return "unchecked"; /* no tensor data was looked at */
    return in->acct && in->acct->unchecked ? "unchecked" : "pass";
}
