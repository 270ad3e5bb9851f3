/* The format plugin interface: what one folder under formats/ implements (struct pc_format) and
 * the services the driver gives it (modules, tensor claims, layouts). Internal: not installed. A
 * format registers with one line in formats/formats.c. */
#ifndef PC_FORMAT_H
#define PC_FORMAT_H

#include "../packcheck_internal.h"

/* ------------------------------------------------------------------------------------------------
 * Format modules
 * --------------------------------------------------------------------------------------------- */


/* What certify's diagnosis needs to simulate known reader bugs on one module, filled by the format
 * (pc_format.diag_params) so harness/diagnose.c names no format. The logical view is ([E,] N, K),
 * element i = (e*N + n)*K + k. Layout facts are data: which misreads a module admits follows from
 * them, not from its layout name. */
typedef enum pc_diag_kind {
    PC_DIAG_INT,    /* w = f32(v - zq) * s */
    PC_DIAG_E2M1,   /* w = e2m1(v) * s (FP4 with a per-element scale) */
    PC_DIAG_E4M3,   /* w = e4m3(v) * s */
    PC_DIAG_TABLE,  /* w = table[v] * s */
    PC_DIAG_AFFINE  /* w = affine(v, s, bias): the format's own formula (rounding included) */
} pc_diag_kind;

/* Alternative per-element scales (and zero points) a buggy reader would use. */
typedef enum pc_diag_alt {
    PC_ALT_NO_GIDX,      /* group k // group_size, g_idx ignored */
    PC_ALT_GLOBAL_OTHER, /* a global scale applied the other way round (multiplied / divided) */
    PC_ALT_GLOBAL_RECIP, /* a global scale inverted first, then applied the other way round */
    PC_ALT_GRID_T,       /* a block scale grid read transposed */
    PC_ALT_BLOCK_SHAPE,  /* block size derived from the shapes, not read from the config */
    PC_ALT_EXP_LINEAR,   /* an exponent scale byte used as a linear value */
    PC_ALT_ROW_BLOCKS,   /* blocks counted per row instead of over the flattened tensor */
    PC_ALT_NESTED_OFFSET,/* a nested (double-quantised) scale's offset dropped */
    PC_ALT_E8M0_BIAS,    /* an E8M0 exponent read with the other bias (125 for 127, or the reverse) */
    /* Loader bugs of companion tensors (reports/LOADER-BUGS-COVERAGE.md): */
    PC_ALT_GLOBAL_DROPPED, /* a two-level scale's global (per-tensor) factor missing: the block scale alone */
    PC_ALT_SHARD_REUSED,   /* a fused shard (k/v, up, w3) given its first sibling's (q, gate, w1) global scale */
    PC_ALT_SLOT0_ONLY,     /* a fused layer's scalar global scale written to shard slot 0 only: the other
                              shards' rows decode with the slot left at zero */
    PC_ALT_SCALE_ZEROED,   /* the block scale tensor left at its zero initialisation (a name not mapped):
                              E8M0 byte 0 (2^-bias), float 0 */
    PC_ALT_COUNT
} pc_diag_alt;

/* How a single nibble swap pairs elements (high and low half of each byte trade places). */
typedef enum pc_diag_nibble {
    PC_NIB_NONE,
    PC_NIB_K_XOR,    /* element k pairs with k ^ nib_xor in its row */
    PC_NIB_FLAT_XOR, /* flat element i pairs with i ^ nib_xor (bytes across rows) */
    PC_NIB_SLOT,     /* slots 2j and 2j+1 of a word trade places (through slot_order, along N) */
    PC_NIB_FORMAT    /* the format's own pairing: pc_diag_layout.nibble_partner */
} pc_diag_nibble;

typedef struct pc_diag_layout {
    unsigned word_bits;          /* 32 when codes sit in int32 words with 32/bits fields each, else 0 */
    int pack_dim;                /* the words run along: 'K' or 'N' (0: not word-packed) */
    const unsigned *slot_order;  /* slot f of a word holds element base + slot_order[f]; NULL: f */
    unsigned slots;              /* length of slot_order */
    bool axis_misread;           /* a reader may take the words as packed along the other axis */
    bool order_misread;          /* a reader may skip the slot order (on the codes and the zero points) */
    bool sign_ext;               /* a reader may shift arithmetically: the top slot sign-extends */
    bool msb_first;              /* a reader may read each word's slots from the top bit down */
    pc_diag_nibble nibble;
    unsigned nib_xor;
    /* A pairing none of the kinds above expresses (HQQ: rows r and r + R/2 share a byte): the
     * element whose nibble shares a byte with (e, n, k) in an [E, N, K] view, -1 for none. Set
     * nibble to PC_NIB_FORMAT with it. */
    int64_t (*nibble_partner)(const struct pc_diag_layout *l, uint64_t N, uint64_t K, uint64_t e, uint64_t n, uint64_t k);
    uint64_t format_param[4];    /* the format's own numbers for nibble_partner (a row stride, a block) */
    bool stream;                 /* rows are a bit stream of words: dense (fields cross words) or aligned */
    bool stream_aligned;         /* this module's stream is word-aligned (floor(32/b) fields per word) */
    uint64_t stream_words;       /* words per packed row as stored (0: unknown) */
    bool zero_shift;             /* zero point +-1 misreads apply (version conventions) */
    int zero_wrap;               /* stored zero 2^b - 1 read as 0 instead of this value (0: n/a) */
    bool scale_divided;          /* a reader may divide by the scale instead of multiplying */
    uint64_t row_block;          /* rows per scale block along N (block-scaled modules): a converter may
                                    permute rows without their scale rows (0: scales do not vary by row block) */
} pc_diag_layout;

typedef struct pc_diag_params {
    pc_diag_layout lay;          /* always filled, also when parameters are not */
    pc_diag_kind kind;
    const float *table;          /* PC_DIAG_TABLE: codebook indexed by code (static storage) */
    int scale_type;              /* PC_DIAG_AFFINE: the format's rounding type */
    /* PC_DIAG_AFFINE: w for code q with scale s and bias b (the format's oracle formula) */
    float (*affine)(uint8_t q, float s, float b, int scale_type);
    float *s;                    /* per element; NULL when the format cannot re-derive them */
    int16_t *zq;                 /* per element, zero point in code units */
    float *bias;                 /* PC_DIAG_AFFINE: per element */
    int16_t *zq_layout;          /* the zero point a reader of the other stream layout sees */
    float *alt_s[PC_ALT_COUNT];  /* per element, NULL when that misread does not apply */
    int16_t *alt_zq[PC_ALT_COUNT]; /* NULL: the zero point is zq */
    char note[160];              /* why s is NULL */
} pc_diag_params;

/* Per-element arrays of a pc_diag_params (caller frees with pc_diag_params_free). */
void pc_diag_params_free(pc_diag_params *p);

/* One kernel benchmark a format offers to `packcheck bench` (CONTRACT 6): the fast kernel and its
 * oracle on the same input, timed against memcpy of the same output bytes (harness/bench.c). */
typedef struct pc_bench_case {
    const uint8_t *src;
    size_t in_bytes;
    size_t count;                                /* elements per call (codes or f32 values) */
    unsigned b;
    void *out;
} pc_bench_case;
typedef struct pc_bench_entry {
    const char *name;                            /* "ct-dense-3", "q4_k-f32"; NULL ends a table */
    const char *layout;
    unsigned b;
    size_t out_elem;                             /* output bytes per element: 1 (codes) or 4 (f32) */
    size_t (*in_size)(unsigned b, size_t count); /* input bytes for count elements */
    void (*run)(const pc_bench_case *c, pc_impl impl);
    double target_memcpy, target_ref;            /* the issues' targets (reported, never asserted) */
    size_t unit;                                 /* count is a multiple of this (0: 1) */
    void (*fill)(uint8_t *src, size_t n);        /* shape random input bytes (finite scales); NULL: as is */
} pc_bench_entry;
/* A physical reference for one bench entry (pc_format.bench_bounds): the same data-dependent loads and
 * output stores per output byte as the entry's fast kernel, without its arithmetic. bench times it
 * beside memcpy and reports fast_vs_bound, so that a kernel far below memcpy shows how far it is from
 * what its loads alone allow. */
typedef struct pc_bench_bound {
    const char *entry;                           /* the pc_bench_entry's name; NULL ends a table */
    bool (*run)(const pc_bench_case *c);         /* false (nothing written): cannot run here (build, CPU, kernel set) */
    const char *what;                            /* one line for the report */
} pc_bench_bound;

/* Where one target module or tensor of a converted pair comes from (pc_format.pair_map). Target
 * row r (the logical view's second-to-last axis: [E, R, K] or [R, K]) is source row
 * first_row + r * row_stride of the same expert; a rename alone is {name, 0, 1}. Plain tensors are
 * only renamed (row_stride 1, first_row 0). */
typedef struct pc_pair_ref {
    const char *source;           /* source module prefix or tensor name (borrowed from the source input) */
    uint64_t first_row, row_stride;
} pc_pair_ref;

#define PC_ULP_SIGNED_ZERO 0xFFFFFFFFu /* pair_detect's default: ulp:0 (-0 == +0), not exact */

/* One tensor a module of a format is made of: the module prefix followed by `suffix` ("" for the
 * module tensor itself, ".weight_packed", "_blocks", ".weight.absmax"). */
typedef enum { PC_PART_CODES = 1, PC_PART_COMPANION = 2, PC_PART_JSON = 4 } pc_part_role; /* JSON: a companion
                                               holding JSON text (bitsandbytes' quant_state), read only with the data */
typedef struct pc_part {
    const char *suffix;           /* NULL ends a list */
    pc_part_role role;            /* CODES: holds packed codes or quantized values, whatever its dtype */
} pc_part;

typedef struct pc_format {
    const char *name;             /* "ct", "nvfp4", "gptq", "awq", "q4_0" */
    /* The tensors its modules are made of, as data: accounting recognises a module by this
     * structure (a codes part beside a companion is never `plain`, whatever its dtype), and
     * `packcheck formats --json` gives it to the generators. NULL: the format claims no tensors. */
    const pc_part *parts;
    /* Does this input hold modules of this format? Cheap: config keys and tensor names. */
    bool (*detect)(const pc_input *in);
    /* Evaluate every rule of the format on the input; append decodable modules (pc_module_add). */
    void (*check)(pc_input *in, pc_ctx *cx);
    /* Decode one module: codes[numel] as stored (unsigned), weights[numel] in f32 per the contract.
     * Either output may be NULL. Returns 0, or -1 after reporting why to cx. */
    int (*decode)(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes,
                  float *weights, pc_ctx *cx);
    void (*module_free)(void *priv);
    /* Optional, for unpack's sliced writer (harness/logical.c): decode rows [r0, r0 + n) of the
     * module's view flattened to [numel / K, K] (K: its last dimension) into codes[n*K] and
     * weights[n*K], byte for byte what decode() gives for those rows. *state is NULL on a module's
     * first call; the format may keep there what every slice needs (scales loaded once), and
     * decode_rows_free(*state) releases it after the module's last slice or a failure. Formats
     * without it are decoded whole (a buffer of the module's size). */
    int (*decode_rows)(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                       uint8_t *codes, float *weights, pc_ctx *cx);
    void (*decode_rows_free)(void *state);
    /* Optional. Called for each tensor no module claimed, after every check ran: return true when
     * this format recognises it as part of a quantization scheme (decoded or not) and say which,
     * so the report names it (`unchecked`) instead of passing it as plain. */
    bool (*explain)(const pc_input *in, const pc_tensor *t, pc_explain *out);
    /* Optional, for `packcheck equiv` (CONTRACT 7 step 2): is (source, target) a converted pair
     * whose byte-level contract this format knows? Then *default_ulp is the f32 tolerance the pair
     * gets without --tolerance (0: exact; PC_ULP_SIGNED_ZERO: ulp:0, equal values with the sign of
     * zero free), and pair_check (may be NULL) reports the contract's rules into cx. */
    bool (*pair_detect)(const pc_input *source, const pc_input *target, unsigned *default_ulp);
    void (*pair_check)(const pc_input *source, const pc_input *target, pc_ctx *cx);
    /* Optional, for `packcheck equiv` (CONTRACT 7, EQ-001): the module correspondence of a converter
     * that renames or splits. With target_name NULL: does this format know (source, target)'s map?
     * Then, per target module prefix or tensor name: fill *ref and return true, or false when the
     * converter gives it no source counterpart. The pair's modules and plain tensors are then paired
     * through the map instead of by equal names; without the hook names must be equal. */
    bool (*pair_map)(const pc_input *source, const pc_input *target, const char *target_name, pc_pair_ref *ref);
    /* Optional, for certify's diagnosis: fill *out for module pm (out zeroed by the caller). Layout
     * always; the per-element arrays only when want_params (the module is small enough) and the
     * format can re-derive them, else out->s stays NULL and out->note says why. 0, or -1 (memory). */
    int (*diag_params)(const pc_input *in, const pc_module *pm, bool want_params, pc_diag_params *out);
    /* Optional, for `packcheck bench`: this format's kernels, a table ended by an entry with a NULL
     * name (formats/<name>_bench.c). */
    const pc_bench_entry *bench;
    /* Optional: physical references for some of those entries, a table ended by a NULL entry. */
    const pc_bench_bound *bench_bounds;
} pc_format;

extern const pc_format *const pc_formats[]; /* NULL-terminated, see formats/formats.c */

/* Append a module (prefix copied). Returns the new module, or NULL when out of memory. */
pc_module *pc_module_add(pc_input *in, const pc_format *fmt, const char *prefix,
                         const char *layout);

/* pc_module_add with a private copy of the format's module state (size bytes of priv, freed with
 * the input); sets cx->oom and returns NULL when out of memory. */
pc_module *pc_module_add_with(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout,
                              const void *priv, size_t size, pc_ctx *cx);
/* A 2-D [N, K] module of `bits`-bit codes (N * K checked by the caller). */
void pc_module_set_matrix(pc_module *m, uint64_t N, uint64_t K, int bits);

/* Tensor t is part of a module of `layout` that this format checked (call it for every tensor a
 * module is made of: packed weights, scales, zero points, g_idx, shapes). Tensors nobody claims
 * are `plain` when they are unquantized floats and `unchecked` otherwise (CONTRACT 2). */
void pc_tensor_claim(pc_input *in, const pc_tensor *t, const char *layout);
/* Claim `prefix` + "." + each suffix that exists (a NULL-terminated list); returns how many. */
size_t pc_module_claim_suffixes(pc_input *in, const char *prefix, const char *layout, const char *const *suffixes);
/* Claim every declared part of fmt (fmt->parts) that exists beside `prefix`; returns how many. */
size_t pc_module_claim_parts(pc_input *in, const pc_format *fmt, const char *prefix, const char *layout);

/* The driver's side of the same services (validate/): make pc_input_free release what validation
 * attached to `in`, and allocate the claims table; 0, or -1 when out of memory. */
void pc_validation_attach(pc_input *in);
int pc_claims_ensure(pc_input *in);

/* Record that the input holds a layout (pc_module_add does this for decodable modules). */
void pc_input_note_layout(pc_input *in, const char *layout);

#endif
