/* The format table: adding a format is one file implementing struct pc_format, and one line here. */
#include "formats/format.h"

extern const pc_format pc_format_ct;
extern const pc_format pc_format_nvfp4;
extern const pc_format pc_format_gptq;
extern const pc_format pc_format_awq;
extern const pc_format pc_format_gguf_blocks;
extern const pc_format pc_format_logical_view;
extern const pc_format pc_format_mlx;
extern const pc_format pc_format_bnb;
extern const pc_format pc_format_fp8;
extern const pc_format pc_format_mxfp4;
extern const pc_format pc_format_bnb_int8;
/* Recognise-only entries (explain() alone): schemes named in reports but not decoded yet. */
extern const pc_format pc_format_known_fp8_int8_mxfp4;

const pc_format *const pc_formats[] = {
    &pc_format_ct, &pc_format_nvfp4, &pc_format_gptq, &pc_format_awq, &pc_format_gguf_blocks, &pc_format_logical_view,
    &pc_format_mlx, &pc_format_bnb, &pc_format_bnb_int8, &pc_format_fp8, &pc_format_mxfp4,
    &pc_format_known_fp8_int8_mxfp4, NULL,
};
