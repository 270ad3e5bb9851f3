/* The bug catalogue: stable ids (certificates and the self-test name them), human titles, and how
 * each is simulated. Data, not machinery: diagnose.c knows no format, these words do. */
#include "diagnose.h"

const dg_bug_def dg_bugs[PC_BUG_COUNT] = {
    [PC_BUG_PACK_AXIS] = {"pack-axis", "pack axis transposed (GPTQ read as packed along N, or AWQ along K)", 1, DG_SIM_PACK_AXIS, 0},
    [PC_BUG_AWQ_ORDER] = {"awq-order", "AWQ slot order 0,2,4,6,1,3,5,7 not undone", 1, DG_SIM_SLOT_ORDER, 0},
    [PC_BUG_NIBBLE_SWAP] = {"nibble-swap", "nibbles swapped (high and low half of each byte)", 1, DG_SIM_NIBBLE, 0},
    [PC_BUG_SIGN_EXT] = {"sign-extension", "top slot of each int32 word sign-extended (arithmetic shift, no mask)", 1, DG_SIM_SIGN_EXT, 0},
    [PC_BUG_ZERO_OFF_BY_ONE] = {"zero-off-by-one", "zero point off by one (GPTQ v1 read as v2, or the reverse)", 2, DG_SIM_ZERO_SHIFT, 0},
    [PC_BUG_G_IDX_IGNORED] = {"g-idx-ignored", "g_idx ignored (group k // group_size instead of g_idx[k])", 1, DG_SIM_ALT_SCALE, PC_ALT_NO_GIDX},
    [PC_BUG_CT_LAYOUT] = {"ct-layout", "compressed-tensors dense layout read as legacy word-aligned, or the reverse", 1, DG_SIM_STREAM_ALT, 0},
    [PC_BUG_PAD_NOT_SLICED] = {"pad-not-sliced", "padded columns not sliced off (width taken from the packed tensor, not weight_shape)", 1, DG_SIM_PAD, 0},
    [PC_BUG_GLOBAL_SCALE_MUL] = {"global-scale-multiplied", "NVFP4 global scale multiplied instead of divided (or the reverse)", 1, DG_SIM_ALT_SCALE, PC_ALT_GLOBAL_OTHER},
    [PC_BUG_SCALE_GRID_T] = {"scale-grid-transposed", "FP8/INT8 block scale grid read transposed (scale[k // bw, n // bh])", 1, DG_SIM_ALT_SCALE, PC_ALT_GRID_T},
    [PC_BUG_BLOCK_FROM_SHAPE] = {"block-from-shape", "FP8/INT8 block size derived from the shapes (N // scale rows), not read from the config", 1, DG_SIM_ALT_SCALE, PC_ALT_BLOCK_SHAPE},
    [PC_BUG_SCALE_INV_DIVIDED] = {"scale-inv-divided", "DeepSeek weight_scale_inv divided instead of multiplied", 1, DG_SIM_SCALE_DIV, 0},
    [PC_BUG_E8M0_LINEAR] = {"e8m0-linear", "MXFP4/MXFP8 E8M0 scale byte used as a linear value instead of 2^(s - 127)", 1, DG_SIM_ALT_SCALE, PC_ALT_EXP_LINEAR},
    [PC_BUG_ZERO_WRAP] = {"zero-wrap", "GPTQ v1 zero point stored as 2^b - 1 decoded as (stored + 1) & mask = 0 instead of 2^b", 1, DG_SIM_ZERO_WRAP, 0},
    [PC_BUG_MLX_BIAS_SUB] = {"mlx-bias-sub", "MLX affine bias subtracted instead of added (w = s*q - b)", 1, DG_SIM_BIAS_SUB, 0},
    [PC_BUG_GLOBAL_SCALE_RECIP] = {"global-scale-reciprocal", "NVFP4 global scale converted through its reciprocal (1/(1/x) is not x in f32; ModelOpt <-> compressed-tensors names)", 1, DG_SIM_ALT_SCALE, PC_ALT_GLOBAL_RECIP},
    [PC_BUG_MLX_MSB_FIRST] = {"mlx-msb-first", "MLX uint32 words read MSB-first (MLX packs element j of a word at bits j*b, LSB first)", 1, DG_SIM_MSB_FIRST, 0},
    [PC_BUG_BNB_ROW_BLOCKS] = {"bnb-row-blocks", "bitsandbytes 4-bit blocks counted per row instead of over the flattened tensor", 1, DG_SIM_ALT_SCALE, PC_ALT_ROW_BLOCKS},
    [PC_BUG_E8M0_BIAS] = {"e8m0-bias", "E8M0 scale bias 125 read as 127, or the reverse (compressed-tensors 0.13.0 mxfp4-pack-quantized wrote 2^(s - 125), later releases 2^(s - 127))", 1, DG_SIM_ALT_SCALE, PC_ALT_E8M0_BIAS},
    [PC_BUG_BNB_NESTED_OFFSET] = {"bnb-nested-offset", "bitsandbytes nested (double-quant) absmax offset dropped (absmax = code_map[q] * nested_absmax, no + offset)", 1, DG_SIM_ALT_SCALE, PC_ALT_NESTED_OFFSET},
    [PC_BUG_ROWS_SCALES_KEPT] = {"rows-permuted-scales-kept", "rows permuted without their scale rows (whole rows of codes reordered, each dequantized with the scale left at its position, as sgl-project/sglang PR #35703 did to block-FP8 qkv rows)", 1, DG_SIM_ROW_SWAP, 0},
    [PC_BUG_SCALE_DROPPED] = {"scale-dropped", "scale dropped: the weight is the code's own value, no scale applied (transformers #47145, sglang #34895's FP8 lm_head, Megatron-LM PR #135)", 1, DG_SIM_SCALE_ONE, 0},
    [PC_BUG_GLOBAL_MISSING] = {"global-scale-missing", "NVFP4 global scale missing: the FP8 block scale applied alone (transformers #48371: per-expert weight_global_scale not loaded, missing_keys empty)", 1, DG_SIM_ALT_SCALE, PC_ALT_GLOBAL_DROPPED},
    [PC_BUG_SHARD_REUSED] = {"shard-scale-reused", "per-shard global scale reused: a fused layer's k/v (or up, w3) shard decoded with q's (gate's, w1's) scale (vLLM #54150, #54974)", 1, DG_SIM_ALT_SCALE, PC_ALT_SHARD_REUSED},
    [PC_BUG_SLOT0_ONLY] = {"scale-slot0-only", "fused layer's scalar global scale written to shard slot 0 only: the other shards' rows use an unset (zero) slot (sglang PR #29151)", 1, DG_SIM_ALT_SCALE, PC_ALT_SLOT0_ONLY},
    [PC_BUG_SCALE_ZEROED] = {"scale-zeroed", "block scales left at their zero initialisation (E8M0 byte 0, float 0): the scale tensor's name was not mapped (sglang PR #33541)", 1, DG_SIM_ALT_SCALE, PC_ALT_SCALE_ZEROED},
};
