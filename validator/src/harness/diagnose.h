/* Diagnosis of a reader's wrong output: re-derive what each known reader bug (the seed article's
 * failure modes and FORMATS.md section 8) would produce from our reference view, and name the bug
 * whose output equals the reader's.
 *
 * The simulations work on the logical view ([E,] N, K; element (e, n, k) at (e*N + n)*K + k) plus
 * per-element dequantization parameters read from the input's own tensors: w = f32(v - zq) * s for
 * integer codes (v the code, zq the zero point in code units), w = f32(e2m1(code) * s) for FP4.
 * Those parameters are checked against the reference weights element by element before any
 * weight-level simulation trusts them. The same simulations drive the self-test mutant readers
 * (tests/readers/pc_mutate.c), so "the corpus kills the mutant" and "diagnosis names the bug" are
 * two sides of one definition. */
#ifndef PC_DIAGNOSE_H
#define PC_DIAGNOSE_H

#include "compare.h"
#include "formats/format.h"

#include <cjson/cJSON.h>

typedef enum pc_bug {
    PC_BUG_PACK_AXIS,        /* GPTQ read as packed along N, AWQ as packed along K */
    PC_BUG_AWQ_ORDER,        /* AWQ slot order 0,2,4,6,1,3,5,7 not undone (qweight and qzeros) */
    PC_BUG_NIBBLE_SWAP,      /* high and low nibble of each byte swapped */
    PC_BUG_SIGN_EXT,         /* arithmetic shift: the top slot of an int32 word sign-extended */
    PC_BUG_ZERO_OFF_BY_ONE,  /* GPTQ v1 read as v2 or the reverse: zero point +-1 */
    PC_BUG_G_IDX_IGNORED,    /* group k // group_size instead of g_idx[k] */
    PC_BUG_CT_LAYOUT,        /* compressed-tensors dense read as legacy (word-aligned) or the reverse */
    PC_BUG_PAD_NOT_SLICED,   /* padded columns kept: width from the packed tensor, not weight_shape */
    PC_BUG_GLOBAL_SCALE_MUL, /* NVFP4 global scale multiplied instead of divided (or the reverse) */
    PC_BUG_MLX_BIAS_SUB,     /* MLX affine bias subtracted instead of added: w = s*q - b */
    PC_BUG_SCALE_GRID_T,     /* FP8/INT8 block scale grid read transposed: scale[k // bw, n // bh] */
    PC_BUG_BLOCK_FROM_SHAPE, /* FP8/INT8 block size derived as floor(N / rows of the grid), not read from the config */
    PC_BUG_SCALE_INV_DIVIDED,/* DeepSeek weight_scale_inv divided instead of multiplied */
    PC_BUG_E8M0_LINEAR,      /* MXFP4 E8M0 scale byte used as a linear value instead of 2^(s - 127) */
    PC_BUG_MLX_MSB_FIRST,    /* MLX's LSB-first uint32 stream read MSB-first */
    PC_BUG_BNB_ROW_BLOCKS,   /* bitsandbytes blocks counted per row instead of over the flattened tensor */
    PC_BUG_BNB_NESTED_OFFSET,/* bitsandbytes nested (double-quant) absmax: offset dropped */
    PC_BUG_E8M0_BIAS,        /* E8M0 exponent read with bias 127 where the writer used 125, or the reverse */
    PC_BUG_ROWS_SCALES_KEPT, /* block-scaled rows permuted, their scale rows left in place (sglang PR #35703) */
    PC_BUG_MUTANTS,          /* the classes above each have a self-test mutant; the ones below are
                                diagnosis only (upstream behaviours seen in FORMATS.md section 5/4.6) */
    PC_BUG_ZERO_WRAP = PC_BUG_MUTANTS, /* GPTQ v1 stored zero 2^b - 1 decoded as (stored + 1) & mask = 0 */
    PC_BUG_GLOBAL_SCALE_RECIP,/* NVFP4 global scale inverted first (1/(1/x) != x in f32: ModelOpt <-> CT names) */
    PC_BUG_COUNT
} pc_bug;

const char *pc_bug_id(pc_bug b);    /* stable id: "pack-axis", ... */
const char *pc_bug_title(pc_bug b); /* human words */
int pc_bug_parse(const char *id);   /* -1 when unknown */
int pc_bug_variants(pc_bug b);      /* how many directions a bug has (zero point: -1 and +1) */

/* How a bug is simulated (the catalogue, diagnose_bugs.c, says which for each bug; the module's
 * pc_diag_layout, filled by its format, says whether it applies). */
typedef enum dg_sim {
    DG_SIM_PACK_AXIS,   /* word-packed codes read along the other axis */
    DG_SIM_SLOT_ORDER,  /* the slot order of a word not undone (codes and zero points) */
    DG_SIM_NIBBLE,      /* the two nibbles of each byte swapped */
    DG_SIM_SIGN_EXT,    /* the top slot of each word sign-extended */
    DG_SIM_STREAM_ALT,  /* a dense bit stream read word-aligned, or the reverse */
    DG_SIM_PAD,         /* stream padding kept as columns */
    DG_SIM_MSB_FIRST,   /* each word's slots read from the top bit down */
    DG_SIM_ZERO_SHIFT,  /* zero point -1 / +1 */
    DG_SIM_ALT_SCALE,   /* an alternative scale (pc_diag_alt) the format provides */
    DG_SIM_BIAS_SUB,    /* affine bias subtracted */
    DG_SIM_SCALE_DIV,   /* divided by the scale instead of multiplied */
    DG_SIM_ZERO_WRAP,   /* a stored zero point that wraps decoded as 0 */
    DG_SIM_ROW_SWAP     /* row blocks 0 and 1 swapped, scales applied unpermuted (diagnosed by row matching) */
} dg_sim;

typedef struct dg_bug_def { const char *id, *title; int variants; dg_sim sim; pc_diag_alt alt; } dg_bug_def;
extern const dg_bug_def dg_bugs[PC_BUG_COUNT];

/* One module's reference view and the parameters to re-derive its weights (pc_diag_params, filled
 * by the module's format: the layout always, the per-element arrays when they reproduce the
 * reference weights exactly). */
typedef struct dg_module {
    const char *prefix, *layout;
    unsigned bits;
    uint64_t E, N, K;       /* E = 1 for 2-D modules */
    size_t numel;
    const uint8_t *codes;   /* reference, borrowed */
    const float *weights;   /* reference, borrowed */
    pc_diag_params p;       /* owned; p.s NULL when the parameters could not be re-derived */
    char note[160];         /* why parameters are missing, if they are */
} dg_module;

/* Fill m for module pm of `in` from its reference view (codes, weights borrowed). Parameters are
 * read from the input's tensors and verified; when they cannot be, m->s stays NULL and m->note
 * says why (code-level simulations still work). Returns -1 only when out of memory. */
int dg_module_load(const pc_input *in, const pc_module *pm, const uint8_t *codes, const float *weights, dg_module *m);
void dg_module_free(dg_module *m);

/* What a buggy reader would write for one module. */
typedef struct dg_out {
    uint64_t K;             /* columns (differs from m->K only for PC_BUG_PAD_NOT_SLICED) */
    uint8_t *codes;
    float *weights;         /* NULL when parameters are unavailable */
} dg_out;

/* Simulate bug b (direction `variant`) on m. Returns 0 with fresh arrays in *out, 1 when the bug
 * does not apply to this module or changes nothing, -1 when out of memory. */
int dg_simulate(const dg_module *m, pc_bug b, int variant, dg_out *out);
void dg_out_free(dg_out *o);

/* The weight of code v at element i under m's own parameters (m->p.s must be set). */
float dg_weight(const dg_module *m, size_t i, int v);

/* Which bug explains a reader's output for module m? got_codes / got_weights may be NULL (the
 * reader wrote only one); got_k is the output's column count. Returns {"bug", "title", "detail"}
 * or NULL when no known bug matches; "also" lists other bugs that would write the same output. */
cJSON *dg_diagnose(const dg_module *m, const uint8_t *got_codes, const float *got_weights, uint64_t got_k, const pc_weight_compare *cmp);

#endif
