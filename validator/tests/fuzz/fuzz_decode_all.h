/* What the folder-shaped harnesses do with their folder: open it (with an optional --config override),
 * validate it, and decode every module it holds while nothing is rejected; modules larger than 2^22
 * elements are skipped (a fuzz input should not spend its time allocating). */
#ifndef PC_FUZZ_DECODE_ALL_H
#define PC_FUZZ_DECODE_ALL_H

#include "harness/logical.h"
#include "packcheck.h"

#include <stdlib.h>

static inline void fuzz_validate_and_decode(const char *dir, const char *config_override)
{
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return;
    pc_input *in = pc_input_open(dir, config_override, &cx);
    if (in) {
        pc_validate(in, &cx);
        for (size_t i = 0; i < in->nmodules && !pc_rejected(&cx); i++) {
            const pc_module *m = &in->modules[i];
            if (m->numel > (1u << 22)) continue;
            uint8_t *codes = NULL;
            float *w = NULL;
            if (pc_logical_decode(in, m, PC_IMPL_REF, &codes, &w, &cx) == 0) { free(codes); free(w); }
        }
        (void)pc_input_format(in);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
}

#endif
