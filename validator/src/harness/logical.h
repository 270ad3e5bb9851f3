/* The logical view (CONTRACT 3): decode modules to codes and f32 weights, write them. */
#ifndef PC_LOGICAL_H
#define PC_LOGICAL_H
#include "formats/format.h"


/* Decode module m with impl into fresh arrays (caller frees). Returns 0, or -1 after reporting. */
int pc_logical_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t **codes, float **weights, pc_ctx *cx);

/* Write every module of `in` (M.codes U8, M.weight F32, in name order) to a safetensors file. */
int pc_logical_write(const pc_input *in, const char *out_path, pc_ctx *cx);

/* Index of the module with this prefix, or -1. */
long pc_module_find(const pc_input *in, const char *prefix);
#endif
