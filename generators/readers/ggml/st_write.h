/* The ggml adapters' safetensors writer (the logical view they answer in: F32 M.weight tensors). */
#ifndef PC_GGML_ST_WRITE_H
#define PC_GGML_ST_WRITE_H
#include <stddef.h>
#include <stdint.h>

typedef struct out_tensor {
    char *key;  /* module prefix + ".weight" */
    int ndim;
    int64_t shape[4];
    float *data;
    size_t nbytes;
} out_tensor;

/* Writes the n tensors (sorted by key, in place) as F32 to path; 0 on success, -1 on an I/O error. */
int write_view(const char *path, out_tensor *t, size_t n);

#endif
