/*
 * packcheck: the library's public face.
 *
 * Data flows one way:
 *   bytes on disk -> container reader (safetensors, GGUF) -> pc_input (tensors + sidecar configs)
 *   -> format modules (detect, check rules, decode) -> findings (pc_ctx) -> report writers.
 *
 * Every size that comes from a file goes through the checked arithmetic in core/arith.h before it
 * sizes an allocation, a loop or an offset.
 *
 * Embedding (installed: `pkg-config --cflags --libs packcheck` (shared, with an rpath to the prefix)
 * or `packcheck-static` (libpackcheck.a), or find_package(packcheck) and link packcheck::packcheck /
 * packcheck::packcheck_static):
 *
 *     pc_ctx cx;
 *     if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return oom;
 *     pc_input *in = pc_input_open(path, NULL, &cx);     NULL only when out of memory
 *     if (in) pc_validate(in, &cx);
 *     for (size_t i = 0; i < cx.nfindings; i++) use(cx.findings[i].rule->id, cx.findings[i].status, ...);
 *     // No finding is not "clean": a tensor packcheck does not decode is `unchecked`, not a pass.
 *     const pc_accounting *a = in ? in->acct : NULL;     checked / plain / unchecked tensor counts
 *     for (size_t i = 0; a && i < a->unchecked; i++) say(a->list[i].t->name, a->list[i].why.reason);
 *     const char *verdict = pc_verdict(in, &cx);         "pass", "unchecked", "reject" or "error"
 *     pc_input_free(in);
 *     pc_ctx_free(&cx);
 *
 * Ownership, function by function:
 * - pc_rule_count/at/find, pc_rules_json, pc_severity_name, pc_status_name, pc_dtype_name: return
 *   pointers into the embedded catalogue or static strings, valid for the whole process; never free.
 *   The catalogue is parsed once, thread-safely, on first use.
 * - pc_ctx_init: fills a caller-provided pc_ctx (any storage) and allocates its bookkeeping; pair
 *   every successful call with pc_ctx_free, which frees the findings (their tensor and message
 *   strings) and zeroes the struct. Findings are owned by the ctx: copy what must outlive it.
 *   A ctx holds one input's findings; it is not shared between threads.
 * - pc_report, pc_io_error, pc_eval: copy their arguments; the caller keeps its strings.
 * - pc_input_open: returns a heap pc_input the caller owns (free with pc_input_free, which takes
 *   NULL); it keeps open file descriptors until then and borrows nothing from the caller after
 *   returning (`path` and `config_override` are copied). An unreadable input still returns a
 *   pc_input, with cx->io_error set and the reason in cx->io_message.
 * - pc_input_find, pc_input_format: borrowed from the input, valid until pc_input_free.
 * - pc_tensor_read: writes into the caller's buffer. pc_tensor_load: returns a malloc'd buffer the
 *   caller frees with free(); NULL when too large (limit) or unreadable.
 * - pc_validate: appends findings to cx and modules to in (owned by in, freed by pc_input_free).
 * - pc_module_add: copies `prefix`; `layout` and `fmt` must be static (string literals, the
 *   pc_formats table). The module's priv is freed by its format's module_free.
 * - pc_formats: a static NULL-terminated table; never free.
 * Nothing in the library writes to stdout or stderr except on an internal bug (abort with a message).
 */
#ifndef PACKCHECK_H
#define PACKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PACKCHECK_VERSION "0.1.0"

/* Exit codes everywhere (CONTRACT section 1). */
/* 3: no MUST rule failed, but a quantized tensor was not checked (the gate fails safe;
 * `--allow-unchecked` turns it into 0). */
enum { PC_EXIT_OK = 0, PC_EXIT_REJECT = 1, PC_EXIT_ERROR = 2, PC_EXIT_UNCHECKED = 3 };

/* ------------------------------------------------------------------------------------------------
 * Rules and findings
 * --------------------------------------------------------------------------------------------- */

typedef enum { PC_SEV_OFF = 0, PC_SEV_SHOULD, PC_SEV_MUST, PC_SEV_LIMIT } pc_severity;
typedef enum { PC_PROFILE_STRICT = 0, PC_PROFILE_COMPAT } pc_profile;
typedef enum { PC_STATUS_PASS = 0, PC_STATUS_FAIL, PC_STATUS_WARN, PC_STATUS_SKIP } pc_status;

/* One entry of the catalogue (rules/rules.json, embedded at build time). */
typedef struct pc_rule {
    const char *id;          /* "CT-003" */
    const char *family;      /* "CT" */
    const char *title;       /* one line */
    const char *checks;      /* what it checks in a file */
    const char *reader;      /* what it demands of a reader ("" when nothing beyond the file) */
    const char *source;      /* spec text or upstream source it comes from */
    const char *profiles;    /* notes on strict vs compat ("" when the same) */
    const char *no_fixture;  /* why no negative fixture can exist ("" when one must) */
    pc_severity severity;    /* under the strict profile */
    pc_severity compat;      /* under the compat profile */
    size_t index;            /* position in the catalogue */
} pc_rule;

size_t pc_rule_count(void);
const pc_rule *pc_rule_at(size_t i);
const pc_rule *pc_rule_find(const char *id);
pc_severity pc_rule_severity(const pc_rule *r, pc_profile p);
const char *pc_severity_name(pc_severity s);
const char *pc_status_name(pc_status s);
/* The embedded catalogue text (JSON), for `packcheck rules --json`. */
const char *pc_rules_json(void);

typedef struct pc_finding {
    const pc_rule *rule;
    pc_status status;        /* FAIL (MUST/LIMIT broken) or WARN (SHOULD broken) */
    char *tensor;            /* may be "" */
    int64_t offset;          /* byte offset in the file, -1 when none applies */
    char *message;
} pc_finding;

/* A validation context: the findings for one input, and which rules were evaluated on it. */
typedef struct pc_ctx {
    pc_profile profile;
    pc_finding *findings;
    size_t nfindings, cap;
    unsigned char *evaluated; /* one byte per catalogue rule */
    bool oom;                 /* an allocation failed: the run is an error, not a verdict */
    bool io_error;            /* the input could not be read at all */
    char io_message[256];
} pc_ctx;

int pc_ctx_init(pc_ctx *cx, pc_profile p);
void pc_ctx_free(pc_ctx *cx);
/* Mark a rule as evaluated on this input (so the report says `pass` when nothing broke it). */
void pc_eval(pc_ctx *cx, const char *rule_id);
/* Report that `rule_id` is broken. Status comes from the rule's severity under cx->profile; a rule
 * that is OFF in the profile is recorded as evaluated and dropped. Unknown ids abort: a bug. */
void pc_report(pc_ctx *cx, const char *rule_id, const char *tensor, int64_t offset, const char *fmt,
               ...) __attribute__((format(printf, 5, 6)));
void pc_io_error(pc_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Has a MUST or LIMIT rule failed? */
bool pc_rejected(const pc_ctx *cx);
/* Has any rule of `family` (e.g. "ST") failed? */
bool pc_family_failed(const pc_ctx *cx, const char *family);
/* Status of one rule on this input: fail > warn > pass (evaluated) > skip (not evaluated). */
pc_status pc_rule_status(const pc_ctx *cx, const pc_rule *r);

/* ------------------------------------------------------------------------------------------------
 * Files, tensors, inputs
 * --------------------------------------------------------------------------------------------- */

typedef struct pc_file {
    char *path;
    int fd;
    uint64_t size;
    char sha256[65];             /* lowercase hex of the whole file when hashed (validate --hash), else "" */
} pc_file;

/* safetensors dtypes, in the crate's enum order (FORMATS.md 2.3). */
typedef enum pc_dtype {
    PC_DT_BOOL, PC_DT_F4, PC_DT_F6_E2M3, PC_DT_F6_E3M2, PC_DT_U8, PC_DT_I8, PC_DT_F8_E5M2,
    PC_DT_F8_E4M3, PC_DT_F8_E8M0, PC_DT_F8_E4M3FNUZ, PC_DT_F8_E5M2FNUZ, PC_DT_I16, PC_DT_U16,
    PC_DT_F16, PC_DT_BF16, PC_DT_I32, PC_DT_U32, PC_DT_F32, PC_DT_C64, PC_DT_F64, PC_DT_I64,
    PC_DT_U64,
    PC_DT_COUNT,
    PC_DT_GGML /* a GGUF tensor: the type is in pc_tensor.ggml_type */
} pc_dtype;

const char *pc_dtype_name(pc_dtype d);
unsigned pc_dtype_bits(pc_dtype d);          /* 0 for PC_DT_GGML */
bool pc_dtype_parse(const char *s, pc_dtype *out);
bool pc_dtype_is_float(pc_dtype d);
/* ggml type name ("Q8_0") of a GGUF tensor type, NULL when ggml has no such type. */
const char *pc_ggml_type_name(int type);
/* Elements and bytes per block of a ggml type (the container's type table); false when unknown. */
bool pc_ggml_type_block(int type, uint32_t *blck, uint32_t *bytes);

#define PC_MAX_DIMS 8

typedef struct pc_tensor {
    char *name;
    pc_dtype dtype;
    int ggml_type;               /* -1 for safetensors tensors */
    int ndim;
    uint64_t shape[PC_MAX_DIMS]; /* row-major, outermost first (GGUF: ne reversed) */
    uint64_t numel;
    uint64_t nbytes;
    const pc_file *file;
    uint64_t offset;             /* absolute offset of the first byte in file */
} pc_tensor;

struct pc_module;

typedef struct pc_input {
    char *path;                  /* as given */
    char *dir;                   /* folder holding sidecar configs */
    pc_file *files;
    size_t nfiles;
    pc_tensor *tensors;          /* sorted by name */
    size_t ntensors;
    bool is_gguf;
    /* Sidecar JSON (NULL when absent). `qconfig` is the quantization config that applies: an
     * explicit --config, else config.json's quantization_config, else the first sidecar found. */
    void *config_json;           /* cJSON*: config.json root */
    void *qconfig;               /* cJSON*: borrowed from one of the roots */
    const char *qconfig_source;  /* file name it came from */
    void *sidecars[4];           /* cJSON*: quantize_config, quant_config, hf_quant_config, --config */
    /* Decodable quantized modules, filled by format modules' check(). */
    struct pc_module *modules;
    size_t nmodules, modcap;
    /* Streaming pass (core/scan.h): data scans registered by format checks, run by pc_validate in
     * one windowed pass per file; with hash_files set the same pass fills files[i].sha256. */
    void *scans;
    bool hash_files;
    /* Layouts detected, decodable or not (so a rejected checkpoint still reports its format). */
    const char *layouts[8];
    size_t nlayouts;
    /* Tensor accounting (validate/accounting.c): claimed_by[i] names the layout whose module holds
     * tensors[i] (set by pc_tensor_claim during check), NULL while unclaimed. */
    const char **claimed_by;
    struct pc_accounting *acct; /* filled at the end of pc_validate */
} pc_input;

/* Open INPUT (file or folder), read its container(s) and sidecar configs, evaluating ST/GGUF/CFG
 * container rules. Returns NULL only when out of memory; unreadable inputs set cx->io_error. */
pc_input *pc_input_open(const char *path, const char *config_override, pc_ctx *cx);
void pc_input_free(pc_input *in);
const pc_tensor *pc_input_find(const pc_input *in, const char *name);
/* The tensor named prefix + suffix (suffix usually starts with "."), found without building the
 * name: the lookups of a module's parts on a 100k-tensor checkpoint. NULL when absent. */
const pc_tensor *pc_input_find_part(const pc_input *in, const char *prefix, const char *suffix);
/* The tensors whose names start with `prefix`: a contiguous run of in->tensors (sorted by name)
 * starting at *first; returns its length. */
size_t pc_input_prefixed(const pc_input *in, const char *prefix, size_t *first);
/* A string member of the quantization config that applies (in->qconfig), NULL when absent. */
const char *pc_input_qconfig_str(const pc_input *in, const char *key);
/* Read `len` bytes at `off` inside tensor t. Fails (returns -1, reports nothing) when out of
 * bounds or on I/O error. */
int pc_tensor_read(const pc_tensor *t, uint64_t off, void *buf, size_t len);
/* Read a whole tensor into a fresh buffer, refusing anything larger than `limit` bytes. */
void *pc_tensor_load(const pc_tensor *t, uint64_t limit);

/* ------------------------------------------------------------------------------------------------
 * Format modules
 * --------------------------------------------------------------------------------------------- */

typedef enum { PC_IMPL_REF = 0, PC_IMPL_FAST = 1 } pc_impl;

/* A module's logical view may hold at most this many elements (5 bytes each in memory): formats
 * refuse larger modules with their LIMIT rule (GPTQ-014, AWQ-010). */
#define PC_LOGICAL_MAX_ELEMS (1ull << 30)

/* One quantized weight, ready to decode into the logical view (CONTRACT section 3). */
typedef struct pc_module {
    char *prefix;                 /* M: tensor names share it */
    const char *layout;           /* contract format name: "ct-dense", "gptq-v1", ... */
    const struct pc_format *fmt;
    int ndim;                     /* 2, or 3 for [E, out, in] */
    uint64_t shape[3];
    uint64_t numel;
    unsigned bits;
    void *priv;                   /* the format's own description of the module */
} pc_module;

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
    PC_ALT_COUNT
} pc_diag_alt;

/* How a single nibble swap pairs elements (high and low half of each byte trade places). */
typedef enum pc_diag_nibble {
    PC_NIB_NONE,
    PC_NIB_K_XOR,    /* element k pairs with k ^ nib_xor in its row */
    PC_NIB_FLAT_XOR, /* flat element i pairs with i ^ nib_xor (bytes across rows) */
    PC_NIB_SLOT      /* slots 2j and 2j+1 of a word trade places (through slot_order, along N) */
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

/* Why a tensor that no module claimed was not checked (pc_format.explain). */
typedef struct pc_explain {
    char scheme[96];   /* "compressed-tensors float-quantized FP8 E4M3, block 128x128" */
    char reason[256];  /* "not decoded by this version" */
} pc_explain;

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

/* Where one target module or tensor of a converted pair comes from (pc_format.pair_map). Target
 * row r (the logical view's second-to-last axis: [E, R, K] or [R, K]) is source row
 * first_row + r * row_stride of the same expert; a rename alone is {name, 0, 1}. Plain tensors are
 * only renamed (row_stride 1, first_row 0). */
typedef struct pc_pair_ref {
    const char *source;           /* source module prefix or tensor name (borrowed from the source input) */
    uint64_t first_row, row_stride;
} pc_pair_ref;

#define PC_ULP_SIGNED_ZERO 0xFFFFFFFFu /* pair_detect's default: ulp:0 (-0 == +0), not exact */

typedef struct pc_format {
    const char *name;             /* "ct", "nvfp4", "gptq", "awq", "q4_0" */
    /* Does this input hold modules of this format? Cheap: config keys and tensor names. */
    bool (*detect)(const pc_input *in);
    /* Evaluate every rule of the format on the input; append decodable modules (pc_module_add). */
    void (*check)(pc_input *in, pc_ctx *cx);
    /* Decode one module: codes[numel] as stored (unsigned), weights[numel] in f32 per the contract.
     * Either output may be NULL. Returns 0, or -1 after reporting why to cx. */
    int (*decode)(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes,
                  float *weights, pc_ctx *cx);
    void (*module_free)(void *priv);
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
} pc_format;

extern const pc_format *const pc_formats[]; /* NULL-terminated, see formats/formats.c */

/* Append a module (prefix copied). Returns the new module, or NULL when out of memory. */
pc_module *pc_module_add(pc_input *in, const pc_format *fmt, const char *prefix,
                         const char *layout);

/* Tensor t is part of a module of `layout` that this format checked (call it for every tensor a
 * module is made of: packed weights, scales, zero points, g_idx, shapes). Tensors nobody claims
 * are `plain` when they are unquantized floats and `unchecked` otherwise (CONTRACT 2). */
void pc_tensor_claim(pc_input *in, const pc_tensor *t, const char *layout);
/* Claim `prefix` + "." + each suffix that exists (a NULL-terminated list); returns how many. */
size_t pc_module_claim_suffixes(pc_input *in, const char *prefix, const char *layout, const char *const *suffixes);

/* Record that the input holds a layout (pc_module_add does this for decodable modules). */
void pc_input_note_layout(pc_input *in, const char *layout);

/* Validate an opened input: run every format that detects itself, the streaming pass, then the
 * tensor accounting (validate/validate.c). */
void pc_validate(pc_input *in, pc_ctx *cx);
/* The input's contract format name: a layout, "mixed", "safetensors" or "gguf". */
const char *pc_input_format(const pc_input *in);

/* Every tensor of a validated input ends in exactly one class (validate/accounting.c). */
typedef enum { PC_TENSOR_CHECKED = 0, PC_TENSOR_PLAIN, PC_TENSOR_UNCHECKED } pc_tensor_class;
typedef struct pc_unchecked {
    const pc_tensor *t;
    pc_explain why;
} pc_unchecked;
typedef struct pc_accounting {
    size_t checked, plain, unchecked;
    pc_unchecked *list;            /* `unchecked` entries, in tensor name order */
} pc_accounting;
/* The verdict of a validated input: "error", "reject", "unchecked" or "pass". */
const char *pc_verdict(const pc_input *in, const pc_ctx *cx);

#endif
