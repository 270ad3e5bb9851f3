/* The structs behind packcheck.h's opaque handles, and the library's internal services: findings
 * (core/), files, tensors and inputs (container/), the tensor accounting (validate/). Every room
 * includes this; nothing here is installed. The format plugin interface is formats/format.h. */
#ifndef PC_INTERNAL_H
#define PC_INTERNAL_H

#include "packcheck.h"

/* Which implementation decodes: the literal oracle or the fast path (kernels/). */
typedef enum { PC_IMPL_REF = 0, PC_IMPL_FAST = 1 } pc_impl;

/* ------------------------------------------------------------------------------------------------
 * Rules and findings
 * --------------------------------------------------------------------------------------------- */

/* One entry of the catalogue (rules/rules.json, embedded at build time). */
struct pc_rule {
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
};


struct pc_finding {
    const pc_rule *rule;
    pc_status status;        /* FAIL (MUST/LIMIT broken) or WARN (SHOULD broken) */
    char *tensor;            /* may be "" */
    int64_t offset;          /* byte offset in the file, -1 when none applies */
    char *message;
};

/* A validation context: the findings for one input, and which rules were evaluated on it. */
struct pc_ctx {
    pc_profile profile;
    pc_finding *findings;
    size_t nfindings, cap;
    unsigned char *evaluated; /* one byte per catalogue rule */
    bool oom;                 /* an allocation failed: the run is an error, not a verdict */
    bool io_error;            /* the input could not be read at all */
    char io_message[256];
};

/* A ctx in caller storage (pc_ctx_new allocates one): pair with pc_ctx_free. */
int pc_ctx_init(pc_ctx *cx, pc_profile p);
void pc_ctx_free(pc_ctx *cx);
/* Mark a rule as evaluated on this input (so the report says `pass` when nothing broke it). */
void pc_eval(pc_ctx *cx, const char *rule_id);
/* Take back a pass: the rule was evaluated on part of the input only (--tier header), so without a
 * finding it is not evaluated (skip), never pass. A rule with a finding keeps it. */
void pc_eval_withdraw(pc_ctx *cx, const char *rule_id);
/* Report that `rule_id` is broken. Status comes from the rule's severity under cx->profile; a rule
 * that is OFF in the profile is recorded as evaluated and dropped. Unknown ids abort: a bug. */
void pc_report(pc_ctx *cx, const char *rule_id, const char *tensor, int64_t offset, const char *fmt,
               ...) __attribute__((format(printf, 5, 6)));
void pc_io_error(pc_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Has any rule of `family` (e.g. "ST") failed? */
bool pc_family_failed(const pc_ctx *cx, const char *family);

/* ------------------------------------------------------------------------------------------------
 * Files, tensors, inputs
 * --------------------------------------------------------------------------------------------- */

typedef struct pc_file {
    char *path;
    int fd;
    uint64_t size;
    char sha256[65];             /* lowercase hex of the whole file when hashed (validate --hash), else "" */
    struct pc_remote *remote;    /* a URL: reads are HTTP range requests (core/remote.h), fd is -1 */
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

struct pc_input {
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
    /* Set by validation (validate/) when it attaches modules, claims or accounting: frees them, so
     * the container that frees the input needs to know nothing of formats. */
    void (*release_validation)(struct pc_input *in);
    /* How much was read (validate --tier): PC_TIER_FULL every data byte the rules need, HEADER no
     * tensor data (formats and data rules not evaluated), SAMPLE sample_blocks units per scan plus
     * its first and last, chosen with sample_seed. */
    int tier;
    unsigned sample_blocks;
    uint64_t sample_seed;
    bool remote;                 /* named by URL */
    uint64_t bytes_fetched, requests; /* what the run cost: bodies fetched or bytes read, HTTP requests */
    void *cached;                /* cJSON*: validate --cache's stored report entry that stands for
                                  * this run (nothing was validated), owned by the input; else NULL */
    char index_id[72];           /* "sha256:HEX" of model.safetensors.index.json as read, "" when none */
};

enum { PC_TIER_FULL = 0, PC_TIER_HEADER = 1, PC_TIER_SAMPLE = 2 };

const pc_tensor *pc_input_find(const pc_input *in, const char *name);
/* The tensor named prefix + suffix (suffix usually starts with "."), found without building the
 * name: the lookups of a module's parts on a 100k-tensor checkpoint. NULL when absent. These
 * searches (find, find_part, prefixed, prefix_shared) start from where the thread's last one ended:
 * a module's parts sit together in name order, so most take a few compares of names in cache. */
const pc_tensor *pc_input_find_part(const pc_input *in, const char *prefix, const char *suffix);
/* The tensors whose names start with `prefix`: a contiguous run of in->tensors (sorted by name)
 * starting at *first; returns its length. */
size_t pc_input_prefixed(const pc_input *in, const char *prefix, size_t *first);
/* Whether two or more tensors start with prefix (one search, whatever their number). */
bool pc_input_prefix_shared(const pc_input *in, const char *prefix);
/* A string member of the quantization config that applies (in->qconfig), NULL when absent. */
const char *pc_input_qconfig_str(const pc_input *in, const char *key);
/* Read `len` bytes at `off` inside tensor t. Fails (returns -1, reports nothing) when out of
 * bounds or on I/O error. */
int pc_tensor_read(const pc_tensor *t, uint64_t off, void *buf, size_t len);
/* Read a whole tensor into a fresh buffer, refusing anything larger than `limit` bytes. */
void *pc_tensor_load(const pc_tensor *t, uint64_t limit);

/* Why a tensor that no module claimed was not checked (pc_format.explain). */
typedef struct pc_explain {
    char scheme[96];   /* "compressed-tensors float-quantized FP8 E4M3, block 128x128" */
    char reason[256];  /* "not decoded by this version" */
} pc_explain;

struct pc_format;
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

#endif
