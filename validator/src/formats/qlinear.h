/* What GPTQ and AWQ GEMM share: both store an nn.Linear as M.qweight / M.qzeros / M.scales
 * (GPTQ adds M.g_idx), and both take their scheme from the same family of sidecar configs
 * (FORMATS.md 1.2). This header decides which of the two owns a module, so the two format
 * modules never both claim one, and holds the small readers both use. */
#ifndef PC_QLINEAR_H
#define PC_QLINEAR_H

#include "packcheck_internal.h"

#include <cjson/cJSON.h>

typedef enum { QL_NONE = 0, QL_GPTQ, QL_AWQ, QL_OTHER } ql_method;

/* The method the applicable quantization config names: quant_method "gptq"/"awq" (any case);
 * without quant_method, AutoAWQ's legacy keys (w_bit, q_group_size) mean AWQ and a bare
 * AutoGPTQ dict (bits + desc_act/sym/group_size) means GPTQ. QL_NONE: no config at all;
 * QL_OTHER: a config of another scheme (compressed-tensors, modelopt, ...). */
ql_method ql_config_method(const pc_input *in);

/* Which format owns the module whose qweight is `qweight_name`: the config's method when it
 * names GPTQ or AWQ, else the tensor fingerprint (M.g_idx present: GPTQ; absent: AWQ). */
ql_method ql_module_owner(const pc_input *in, const char *qweight_name);

/* Does the input hold at least one M.qweight owned by `who`? */
bool ql_any_module(const pc_input *in, ql_method who);

/* The module prefix of a ".qweight" tensor name (fresh string), or NULL when the name does not
 * end in ".qweight". */
char *ql_prefix(const char *name);

/* The tensor M.suffix, or NULL. */
const pc_tensor *ql_sibling(const pc_input *in, const char *prefix, const char *suffix);

/* Config values. Each returns true when the key holds a value of the right type and stores it;
 * `present` (may be NULL) tells an absent key from a mistyped one. */
bool ql_cfg_int(const cJSON *cfg, const char *key, long long *out, bool *present);
bool ql_cfg_bool(const cJSON *cfg, const char *key, bool *out, bool *present);
const char *ql_cfg_str(const cJSON *cfg, const char *key); /* NULL when absent or not a string */

/* `rule` (the format's tensor-set rule) holds for M.suffix: present, I32 (or a float dtype when
 * `floating`) with `ndim` dims. Reports and returns false otherwise. */
bool ql_want_tensor(const char *rule, const pc_tensor *t, const char *prefix, const char *suffix, int ndim, bool floating, pc_ctx *cx);

/* Floating tensors whose values the checks read: F16, BF16 or F32. */
bool ql_float_dtype(pc_dtype d);

/* Load a floating tensor of exactly `count` elements as f32 (fresh buffer), NULL when the read
 * fails or the tensor is larger than `limit` bytes. */
float *ql_load_f32(const pc_tensor *t, uint64_t count, uint64_t limit);

/* Transpose a row-major [rows, cols] byte matrix into [cols, rows]. */
void ql_transpose_u8(const uint8_t *src, size_t rows, size_t cols, uint8_t *dst);

/* How many findings of the context are failures (so a module knows whether its own rules held). */
size_t ql_fail_count(const pc_ctx *cx);

/* Most bytes a check or a decode loads for one tensor of a GPTQ/AWQ module. */
#define QL_TENSOR_LIMIT (1ull << 30)

#endif
