/* GGUF NVFP4 checks (nvfp4_checks.c): scale bytes (GQ-004, GQ-005), the `.scale` companion (GQ-006). */
#ifndef PC_GGUF_NVFP4_CHECKS_H
#define PC_GGUF_NVFP4_CHECKS_H
#include "formats/format.h"

/* Queue the scan of t's UE4M3 scale bytes; false when out of memory (cx->oom set). */
bool pc_gguf_nvfp4_scan(pc_input *in, const pc_tensor *t, pc_ctx *cx);
/* GQ-006 on t's `<prefix>.scale` tensor, when there is one. */
void pc_gguf_nvfp4_companion(const pc_input *in, const pc_tensor *t, pc_ctx *cx);
#endif
