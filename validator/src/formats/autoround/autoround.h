/* AutoRound native checkpoints (quant_method "auto-round"): the config rules (AR family) and the
 * per-layer scheme. The tensors are GPTQ or AWQ GEMM tensors, decoded by formats/gptq and formats/awq
 * (auto-round 0.16.1 export/export_to_autoround/export.py packs them with the packers named by
 * packing_format, inference/backend.py lists which packing stores which zero point). */
#ifndef PC_AUTOROUND_H
#define PC_AUTOROUND_H

#include "packcheck_internal.h"

#include <stdbool.h>

typedef enum {
    AR_PACK_NONE = 0,  /* not an auto-round config */
    AR_PACK_GPTQ_ZP,   /* "auto_round:auto_gptq": GPTQ tensors, stored zero = z - 1 */
    AR_PACK_GPTQ,      /* "auto_round", "auto_round:gptqmodel": GPTQ tensors, stored zero = z */
    AR_PACK_AWQ,       /* "auto_round:auto_awq": AWQ GEMM tensors */
    AR_PACK_OTHER      /* a packing these modules do not decode (fp8, mx, nvfp4, llm-compressor ...) */
} ar_packing;

typedef struct ar_scheme {
    unsigned bits;
    long long group_size; /* -1: one group over K */
    bool sym;
} ar_scheme;

/* The packing an auto-round config names (AR_PACK_NONE for any other config). */
ar_packing pc_ar_packing(const pc_input *in);

/* AR-001, AR-002 on the top-level scheme. False when no module can be read. */
bool pc_ar_base_scheme(const pc_input *in, ar_scheme *base, pc_ctx *cx);

/* The scheme of the layer `prefix`: base, overridden by its extra_config entry (the exact name,
 * else the first pattern that re.search finds in the name). 1: quantized (bits <= 8), 0: kept in
 * float (the module must then hold no packed tensors: AR-003), -1: refused (reported). */
int pc_ar_layer_scheme(const pc_input *in, const char *prefix, const ar_scheme *base, ar_scheme *out, pc_ctx *cx);

/* AR-004: every layer extra_config names exactly with an int scheme of <= 8 bits, stored as a float
 * M.weight instead of packed tensors, is reported (auto-round's loader builds a QuantLinear there). */
void pc_ar_check_pinned_layers(const pc_input *in, pc_ctx *cx);

#endif
