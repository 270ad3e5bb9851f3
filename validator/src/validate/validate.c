/* The validation driver: formats check an opened input, the streaming pass runs their data scans,
 * then every tensor is accounted for. The container readers (container/) open inputs and know no
 * formats; the formats (formats/) know no reports; this room is where they meet. */
#include "formats/format.h"

#include "../core/scan.h"
#include "../core/util.h"
#include "accounting.h"

#include <stdlib.h>
#include <string.h>

void pc_validate(pc_input *in, pc_ctx *cx)
{
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

const char *pc_verdict(const pc_input *in, const pc_ctx *cx)
{
    if (!in || cx->io_error || cx->oom) return "error";
    if (pc_rejected(cx)) return "reject";
    return in->acct && in->acct->unchecked ? "unchecked" : "pass";
}
