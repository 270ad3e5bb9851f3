/* The module correspondence of llama.cpp's gpt-oss converter, for `packcheck equiv` (pc_format.pair_map
 * of the GGUF block module): source = a gpt-oss / transformers MXFP4 checkpoint (layout mxfp4-gptoss),
 * target = the GGUF convert_hf_to_gguf.py writes from it.
 *
 * What the converter does (llama.cpp conversion/gpt_oss.py, GptOssModel; names from gguf-py
 * tensor_mapping.py and constants.py TENSOR_NAMES):
 * - generate_extra_tensors: mlp.experts.gate_up_proj_{blocks,scales} is split by alternate rows,
 *   rows 0::2 -> blk.N.ffn_gate_exps, rows 1::2 -> blk.N.ffn_up_exps; mlp.experts.down_proj ->
 *   blk.N.ffn_down_exps whole. repack_mxfp4 keeps them MXFP4 (scale byte = the gpt-oss scale byte,
 *   nibbles moved to block_mxfp4's order), so codes and f32 weights stay equal element for element.
 * - every other tensor is renamed only (the table below); filter_tensors appends ".weight" to
 *   self_attn.sinks. Expert biases (gate_up_proj_bias split along its last axis) are not declared:
 *   a row map cannot say it, so such a pair reports them unpaired (EQ-004). */
#include "gguf_pairs.h"

#include <stdio.h>
#include <string.h>

static const char k_source_layout[] = "mxfp4-gptoss";

typedef struct gp_entry {
    const char *gguf;       /* after "blk.N." (or the whole name for globals) */
    const char *hf;         /* after "model.layers.N." (or the whole name) */
    uint64_t first_row, row_stride;
    bool keep_suffix;       /* ".weight" / ".bias" carried over */
} gp_entry;

static const gp_entry k_block[] = {
    {"ffn_gate_exps", "mlp.experts.gate_up_proj", 0, 2, false},
    {"ffn_up_exps", "mlp.experts.gate_up_proj", 1, 2, false},
    {"ffn_down_exps", "mlp.experts.down_proj", 0, 1, false},
    {"attn_sinks.weight", "self_attn.sinks", 0, 1, false},
    {"attn_norm", "input_layernorm", 0, 1, true},
    {"post_attention_norm", "post_attention_layernorm", 0, 1, true},
    {"attn_q", "self_attn.q_proj", 0, 1, true},
    {"attn_k", "self_attn.k_proj", 0, 1, true},
    {"attn_v", "self_attn.v_proj", 0, 1, true},
    {"attn_output", "self_attn.o_proj", 0, 1, true},
    {"ffn_gate_inp", "mlp.router", 0, 1, true},
};

static const gp_entry k_global[] = {
    {"token_embd.weight", "model.embed_tokens.weight", 0, 1, false},
    {"output_norm.weight", "model.norm.weight", 0, 1, false},
    {"output.weight", "lm_head.weight", 0, 1, false},
};

static bool has_layout(const pc_input *in, const char *layout)
{
    for (size_t i = 0; i < in->nlayouts; i++)
        if (!strcmp(in->layouts[i], layout)) return true;
    return false;
}

/* `name` with `stem` then nothing, or (keep_suffix) ".weight" / ".bias": the suffix, else NULL. */
static const char *match(const char *name, const char *stem, bool keep_suffix)
{
    size_t n = strlen(stem);
    if (strncmp(name, stem, n)) return NULL;
    const char *rest = name + n;
    if (!*rest) return rest;
    return keep_suffix && (!strcmp(rest, ".weight") || !strcmp(rest, ".bias")) ? rest : NULL;
}

/* The source's own copy of `name`: a module prefix, else a tensor name; NULL when absent. */
static const char *source_name(const pc_input *source, const char *name)
{
    for (size_t i = 0; i < source->nmodules; i++)
        if (!strcmp(source->modules[i].prefix, name)) return source->modules[i].prefix;
    const pc_tensor *t = pc_input_find(source, name);
    return t ? t->name : NULL;
}

static bool fill(const pc_input *source, const char *hf_name, const gp_entry *e, pc_pair_ref *ref)
{
    ref->source = source_name(source, hf_name);
    ref->first_row = e->first_row;
    ref->row_stride = e->row_stride;
    return ref->source != NULL;
}

static bool block_ref(const pc_input *source, const char *name, pc_pair_ref *ref)
{
    unsigned bid = 0;
    int used = 0;
    if (sscanf(name, "blk.%u.%n", &bid, &used) != 1 || used == 0) return false;
    for (size_t i = 0; i < sizeof k_block / sizeof *k_block; i++) {
        const char *suffix = match(name + used, k_block[i].gguf, k_block[i].keep_suffix);
        if (!suffix) continue;
        char hf[512];
        int n = snprintf(hf, sizeof hf, "model.layers.%u.%s%s", bid, k_block[i].hf, suffix);
        return n > 0 && (size_t)n < sizeof hf && fill(source, hf, &k_block[i], ref);
    }
    return false;
}

/* ggml decodes E2M1 through an int8 table (ggml-common.h kvalues_mxfp4: index 8 is 0), so code 8 is
 * +0 in GGUF where gpt-oss (transformers integrations/mxfp4.py FP4_VALUES, OCP MX E2M1) has -0: the
 * converter keeps the byte, the decoders differ only in the sign of zero. The pair's default is
 * therefore ulp:0 (values equal, -0 == +0), not bit-exact. */
bool pc_gguf_pair_detect(const pc_input *source, const pc_input *target, unsigned *default_ulp)
{
    if (!pc_gguf_pair_map(source, target, NULL, NULL)) return false;
    *default_ulp = PC_ULP_SIGNED_ZERO;
    return true;
}

bool pc_gguf_pair_map(const pc_input *source, const pc_input *target, const char *target_name, pc_pair_ref *ref)
{
    if (!target->is_gguf || source->is_gguf || !has_layout(source, k_source_layout)) return false;
    if (!target_name) return true;
    for (size_t i = 0; i < sizeof k_global / sizeof *k_global; i++)
        if (!strcmp(target_name, k_global[i].gguf)) return fill(source, k_global[i].hf, &k_global[i], ref);
    return block_ref(source, target_name, ref);
}
