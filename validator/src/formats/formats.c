/* The format table: a format is one folder (formats/<name>/) defining `const pc_format
 * pc_format_<name>`, registered by one line here. Order matters only for explain(): the first
 * format that recognises an unclaimed tensor names it. */
#include "formats/format.h"

#define PC_FORMAT_TABLE(X)                                                                          \
    X(ct)                                                                                           \
    X(nvfp4)                                                                                        \
    X(modelopt)                                                                                     \
    X(gptq)                                                                                         \
    X(awq)                                                                                          \
    X(gguf_blocks)                                                                                  \
    X(logical_view)                                                                                 \
    X(mlx)                                                                                          \
    X(bnb)                                                                                          \
    X(bnb_int8)                                                                                     \
    X(fp8)                                                                                          \
    X(mxfp4)                                                                                        \
    X(hqq)                                                                                          \
    X(quark)                                                                                        \
    X(known_fp8_int8_mxfp4) /* recognise-only (explain alone): schemes named, not decoded yet */

#define PC_FORMAT_EXTERN(name) extern const pc_format pc_format_##name;
#define PC_FORMAT_ENTRY(name) &pc_format_##name,
PC_FORMAT_TABLE(PC_FORMAT_EXTERN)
const pc_format *const pc_formats[] = {PC_FORMAT_TABLE(PC_FORMAT_ENTRY) NULL};
