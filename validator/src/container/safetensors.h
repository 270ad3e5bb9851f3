#ifndef PC_SAFETENSORS_H
#define PC_SAFETENSORS_H
#include "packcheck_internal.h"

/* Read and check one safetensors file's header (rules ST-001..ST-027). When the file breaks no
 * MUST rule of family ST, its tensors are appended to *tensors (grown as needed). Returns -1 only
 * when out of memory. */
int st_read_header(const pc_file *f, pc_ctx *cx, pc_tensor **tensors, size_t *ntensors, size_t *cap);

/* Writing: the canonical writer form (FORMATS.md 2.5) - tensors in the order given, contiguous
 * from 0, compact header padded with spaces to a multiple of 8. */
typedef struct st_out_tensor {
    const char *name;
    pc_dtype dtype;
    int ndim;
    uint64_t shape[PC_MAX_DIMS];
    const void *data;
    uint64_t nbytes;
} st_out_tensor;

/* Write atomically: a temporary file beside `path`, renamed on success, removed on failure. */
int st_write_file(const char *path, const st_out_tensor *t, size_t n);

/* Streaming: open the temporary beside path and write the header for t (data unused); the caller
 * then writes each tensor's nbytes in order with pc_afile_write and ends with pc_afile_commit (or
 * pc_afile_abort). 0, or -1 with nothing left behind. */
struct pc_afile;
int st_write_begin(struct pc_afile *a, const char *path, const st_out_tensor *t, size_t n);
#endif
