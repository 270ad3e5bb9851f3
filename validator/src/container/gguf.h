/* The GGUF container reader (gguf.c): rules GGUF-*, header and tensor infos in file order. */
#ifndef PC_GGUF_H
#define PC_GGUF_H
#include "packcheck_internal.h"

/* Read the GGUF file f, appending its tensors to *tensors (growing *cap) as st_read_header does for
 * safetensors. Returns 0, or -1 after reporting why to cx. */
int gguf_read(const pc_file *f, pc_ctx *cx, pc_tensor **tensors, size_t *ntensors, size_t *cap);
#endif
