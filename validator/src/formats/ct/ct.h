/* compressed-tensors int pack-quantized: what ct.c and ct_config.c share. Nothing outside the ct
 * module includes this. */
#ifndef PC_FORMATS_CT_H
#define PC_FORMATS_CT_H

#include "packcheck_internal.h"
#include "ct_match.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum { CT_STRAT_TENSOR, CT_STRAT_CHANNEL, CT_STRAT_GROUP, CT_STRAT_BLOCK, CT_STRAT_UNSUPPORTED } ct_strategy;
typedef enum { CT_ACT_NONE, CT_ACT_GROUP, CT_ACT_WEIGHT } ct_actorder;
typedef enum { CT_LAYOUT_DENSE, CT_LAYOUT_LEGACY } ct_layout;

/* The weights' QuantizationArgs, after the library's defaults and inference (FORMATS.md 3.1). */
typedef struct ct_scheme {
    int64_t num_bits;         /* default 8 */
    bool is_int;              /* type "int" (default) */
    bool symmetric;           /* default true */
    ct_strategy strategy;
    const char *strategy_name;
    int64_t group_size;       /* > 0 for group */
    int64_t block[2];         /* rows, cols for block */
    ct_actorder actorder;
    bool input_tensor_group;  /* input activations use tensor_group: input_global_scale is stored */
} ct_scheme;

typedef struct ct_group {
    const char *name;
    const char *format;       /* per-group format, or NULL */
    void *targets;            /* cJSON array of strings (borrowed) */
    bool has_weights;
    bool valid;               /* its weights args passed the CFG rules */
    ct_scheme w;
} ct_group;

/* What the version string says about the bit layout (FORMATS.md 1.3). */
typedef enum { CT_VER_ABSENT, CT_VER_DENSE, CT_VER_LEGACY, CT_VER_UNDECIDED, CT_VER_BAD } ct_version_says;

typedef struct ct_config {
    bool present;             /* quantization_config with quant_method compressed-tensors */
    const char *source;       /* "config.json", "--config", ... for messages */
    const char *format;       /* top-level format or NULL */
    const char *version;      /* raw string or NULL */
    ct_version_says version_says;
    const char *status;       /* quantization_status or NULL */
    void *ignore;             /* cJSON array (borrowed) or NULL */
    ct_group *groups;
    size_t ngroups;
} ct_config;

/* Parse in->qconfig, evaluating the CFG rules it touches. Returns -1 only when out of memory. */
int ct_config_parse(const pc_input *in, ct_config *c, pc_ctx *cx);
void ct_config_free(ct_config *c);
/* Does the qconfig say compressed-tensors? (cheap, for detect) */
bool ct_config_is_ct(const pc_input *in);

/* The group whose targets match module name `prefix`, or NULL. *ignored is set when an ignore
 * entry matches it. Priority as in the library: exact name, then re: pattern, then class name. */
const ct_group *ct_config_match(const ct_config *c, const char *prefix, bool *ignored, pc_ctx *cx);
/* The format that applies to a group: its own, else the top level's. */
const char *ct_group_format(const ct_config *c, const ct_group *g);

#endif
