/* The GGUF container reader (not implemented yet; see the GGUF issue). */
#include "input.h"

int gguf_read(const pc_file *f, pc_ctx *cx, pc_tensor **tensors, size_t *ntensors, size_t *cap)
{
    (void)tensors; (void)ntensors; (void)cap;
    pc_io_error(cx, "%s: GGUF is not supported yet", f->path);
    return 0;
}
