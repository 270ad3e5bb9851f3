/* Format module: GGUF block-quantized tensors (families Q40 for Q4_0, GQ for the other types).
 *
 * One skeleton for every decoded ggml block type; a type is one row of k_types below (its rule ids,
 * how many fp16 scale fields open its block, its oracle and fast decoders). Its geometry (elements
 * and bytes per block) comes from the container's type table (pc_ggml_type_block), so the module and
 * GGUF-023/024 cannot disagree.
 *
 * Every tensor of a decoded type is one module: prefix = the tensor name without a trailing
 * ".weight" (CONTRACT 3), layout "gguf". Tensors of other ggml types (F32, F16, types not decoded
 * yet) are left alone: the container described them, accounting names them.
 *
 * Logical shape: ne reversed, so ne = [ne0, ne1] gives [ne1, ne0]. A 1-D tensor is one row
 * [1, ne0]; a 3-D tensor is [ne2, ne1, ne0] (mixture-of-experts [E, out, in]); a 4-D tensor folds
 * its two outer dims into the expert dim, [ne3 * ne2, ne1, ne0], which keeps the element order. */
#include "formats/format.h"

#include "../../core/scan.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "kernels.h"
#include "gguf_pairs.h"
#include "nvfp4_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_gguf_blocks;

#define GQ_CHUNK_BYTES (72u * 1024u) /* bytes per read while decoding */

typedef struct gq_type {
    int ggml_type;
    const char *name;
    unsigned bits;                     /* width of one code in the logical view */
    unsigned nscales;                  /* consecutive fp16 fields (d, then m / dmin) that must be finite */
    unsigned scale_at;                 /* byte offset of the first in the block */
    const char *geometry, *scale, *prefix; /* rule ids */
    pc_block_fn ref, fast;
} gq_type;

/* Block structs: ggml src/ggml-common.h (block_q4_0, block_q8_0, block_q4_1, block_q5_0, block_q5_1,
 * block_q4_K, block_q6_K, block_q5_K, block_iq4_nl, block_iq4_xs, block_mxfp4, block_q2_K, block_q3_K, block_tq1_0, block_tq2_0,
 * block_iq2_xxs, block_iq2_xs, block_iq2_s, block_iq3_xxs, block_iq3_s, block_iq1_s, block_iq1_m;
 * ggml 0.25.3: block_nvfp4, block_q1_0, block_q2_0). */
static const gq_type k_types[] = {
    {2, "Q4_0", 4, 1, 0, "Q40-001", "Q40-002", "Q40-003", pc_q4_0_decode_ref, pc_q4_0_decode_fast},
    {8, "Q8_0", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_q8_0_decode_ref, pc_q8_0_decode_fast},
    {3, "Q4_1", 4, 2, 0, "GQ-001", "GQ-002", "GQ-003", pc_q4_1_decode_ref, pc_q4_1_decode_fast},
    {6, "Q5_0", 5, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_q5_0_decode_ref, pc_q5_0_decode_fast},
    {7, "Q5_1", 5, 2, 0, "GQ-001", "GQ-002", "GQ-003", pc_q5_1_decode_ref, pc_q5_1_decode_fast},
    {12, "Q4_K", 4, 2, 0, "GQ-001", "GQ-002", "GQ-003", pc_q4_k_decode_ref, pc_q4_k_decode_fast},
    {14, "Q6_K", 6, 1, 208, "GQ-001", "GQ-002", "GQ-003", pc_q6_k_decode_ref, pc_q6_k_decode_fast},
    {13, "Q5_K", 5, 2, 0, "GQ-001", "GQ-002", "GQ-003", pc_q5_k_decode_ref, pc_q5_k_decode_fast},
    {20, "IQ4_NL", 4, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq4_nl_decode_ref, pc_iq4_nl_decode_fast},
    {23, "IQ4_XS", 4, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq4_xs_decode_ref, pc_iq4_xs_decode_fast},
    {10, "Q2_K", 2, 2, 80, "GQ-001", "GQ-002", "GQ-003", pc_q2_k_decode_ref, pc_q2_k_decode_fast},
    {11, "Q3_K", 3, 1, 108, "GQ-001", "GQ-002", "GQ-003", pc_q3_k_decode_ref, pc_q3_k_decode_fast},
    {34, "TQ1_0", 2, 1, 52, "GQ-001", "GQ-002", "GQ-003", pc_tq1_0_decode_ref, pc_tq1_0_decode_fast},
    {35, "TQ2_0", 2, 1, 64, "GQ-001", "GQ-002", "GQ-003", pc_tq2_0_decode_ref, pc_tq2_0_decode_fast},
    /* MXFP4: the E8M0 scale is an exponent byte; every value decodes (no fp16 field to check) */
    {39, "MXFP4", 4, 0, 0, "GQ-001", "GQ-002", "GQ-003", pc_mxfp4_decode_ref, pc_mxfp4_decode_fast},
    /* grid i-quants: codes = the signed grid value as int8 (kernels.h) */
    {16, "IQ2_XXS", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq2_xxs_decode_ref, pc_iq2_xxs_decode_fast},
    {17, "IQ2_XS", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq2_xs_decode_ref, pc_iq2_xs_decode_fast},
    {22, "IQ2_S", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq2_s_decode_ref, pc_iq2_s_decode_fast},
    {18, "IQ3_XXS", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq3_xxs_decode_ref, pc_iq3_xxs_decode_fast},
    {21, "IQ3_S", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq3_s_decode_ref, pc_iq3_s_decode_fast},
    {19, "IQ1_S", 8, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_iq1_s_decode_ref, pc_iq1_s_decode_fast},
    /* IQ1_M has no d field: its fp16 scale is assembled from the top nibbles of the four u16 scale
     * words at byte 48 (block_scale below); scale_at names where they start */
    {29, "IQ1_M", 8, 1, 48, "GQ-001", "GQ-002", "GQ-003", pc_iq1_m_decode_ref, pc_iq1_m_decode_fast},
    /* NVFP4: four UE4M3 scale bytes, no fp16 field (GQ-004/005 and the .scale companion: nvfp4_checks.c) */
    {40, "NVFP4", 4, 0, 0, "GQ-001", "GQ-002", "GQ-003", pc_gguf_nvfp4_decode_ref, pc_gguf_nvfp4_decode_fast},
    {41, "Q1_0", 1, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_q1_0_decode_ref, pc_q1_0_decode_fast},
    {42, "Q2_0", 2, 1, 0, "GQ-001", "GQ-002", "GQ-003", pc_q2_0_decode_ref, pc_q2_0_decode_fast},
};
#define GQ_NTYPES (sizeof k_types / sizeof *k_types)

static const gq_type *type_of(const pc_tensor *t)
{
    if (t->dtype != PC_DT_GGML) return NULL;
    for (size_t i = 0; i < GQ_NTYPES; i++)
        if (k_types[i].ggml_type == t->ggml_type) return &k_types[i];
    return NULL;
}

/* What one module holds: its tensor, type and block geometry. */
typedef struct gq_module {
    const pc_tensor *t;
    const gq_type *ty;
    uint32_t blck, bytes;
} gq_module;

static bool gq_detect(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++)
        if (type_of(&in->tensors[i])) return true;
    return false;
}

static uint64_t ne0_of(const pc_tensor *t) { return t->ndim ? t->shape[t->ndim - 1] : 1; }

/* Q40-001 / GQ-001: the geometry the block layout needs. */
static bool check_geometry(const pc_tensor *t, const gq_type *ty, uint32_t blck, uint32_t bytes, pc_ctx *cx)
{
    uint64_t ne0 = ne0_of(t);
    if (ne0 % blck) {
        pc_report(cx, ty->geometry, t->name, (int64_t)t->offset, "ne[0] = %llu is not a multiple of %u", (unsigned long long)ne0, blck);
        return false;
    }
    if (t->numel % blck || t->nbytes / bytes != t->numel / blck || t->nbytes % bytes) {
        pc_report(cx, ty->geometry, t->name, (int64_t)t->offset, "%llu bytes for %llu elements, %s needs %u per %u",
                  (unsigned long long)t->nbytes, (unsigned long long)t->numel, ty->name, bytes, blck);
        return false;
    }
    return true;
}

/* Q40-002 / GQ-002: every block's fp16 scale fields are finite (exponent field not all ones). The
 * blocks are not read here: a scan joins the input's one streaming pass (core/scan.h), so the data
 * is read once, in bounded windows, split across the cores, and hashed in the same pass under
 * --hash. The report names the first bad block with its absolute offset, and the count. */
typedef struct d_scan {
    const pc_tensor *t;
    const gq_type *ty;
    uint32_t bytes;
    uint64_t bad, first;
    unsigned field; /* 0: d, 1: m */
    uint16_t d;
} d_scan;

/* Scale field f of a block: the fp16 at scale_at + 2f, except IQ1_M's, which ggml assembles from the
 * top nibbles of its four LE u16 scale words (dequantize_row_iq1_m, ggml_validate_row_data). */
static uint16_t block_scale(const gq_type *ty, const uint8_t *block, unsigned f)
{
    const uint8_t *at = block + ty->scale_at;
    if (ty->ggml_type == 29)
        return (uint16_t)((pc_le16(at) >> 12) | ((pc_le16(at + 2) >> 8) & 0x00f0u) | ((pc_le16(at + 4) >> 4) & 0x0f00u) |
                          (pc_le16(at + 6) & 0xf000u));
    return pc_le16(at + 2 * f);
}

static int d_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    d_scan *s = arg;
    for (size_t i = 0; i + s->bytes <= n; i += s->bytes)
        for (unsigned f = 0; f < s->ty->nscales; f++) {
            uint16_t d = block_scale(s->ty, p + i, f);
            if ((d & 0x7c00u) != 0x7c00u) continue;
            if (!s->bad++) {
                s->first = (off + i) / s->bytes;
                s->d = d;
                s->field = f;
            }
            break; /* one count per block */
        }
    return 0;
}

static void d_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    const d_scan *s = arg;
    if (s->bad)
        pc_report(cx, s->ty->scale, s->t->name, (int64_t)(s->t->offset + s->first * s->bytes + s->ty->scale_at + 2 * s->field),
                  "block %llu has %s = 0x%04x (%s); %llu block(s) in all have a non-finite scale", (unsigned long long)s->first,
                  s->field ? (s->ty->ggml_type >= 10 && s->ty->ggml_type <= 13 ? "dmin" : "m") : "d", s->d, (s->d & 0x3ffu) ? "NaN" : "inf", (unsigned long long)s->bad);
}

static bool check_scales(pc_input *in, const gq_module *g, pc_ctx *cx)
{
    d_scan *s = calloc(1, sizeof *s);
    if (!s) { cx->oom = true; return false; }
    s->t = g->t;
    s->ty = g->ty;
    s->bytes = g->bytes;
    if (pc_scan_add(in, g->t, 0, g->t->nbytes, g->bytes, d_chunk, d_finish, free, s)) { free(s); cx->oom = true; return false; }
    return true;
}

static char *module_prefix(const char *name)
{
    size_t n = strlen(name), k = strlen(".weight");
    return n > k && !strcmp(name + n - k, ".weight") ? pc_strndup(name, n - k) : pc_strdup(name);
}

static void set_shape(pc_module *m, const pc_tensor *t)
{
    const uint64_t *s = t->shape;
    switch (t->ndim) {
    case 0: m->ndim = 2; m->shape[0] = 1; m->shape[1] = 1; break;
    case 1: m->ndim = 2; m->shape[0] = 1; m->shape[1] = s[0]; break;
    case 2: m->ndim = 2; m->shape[0] = s[0]; m->shape[1] = s[1]; break;
    case 3: m->ndim = 3; m->shape[0] = s[0]; m->shape[1] = s[1]; m->shape[2] = s[2]; break;
    default: /* 4: the container holds the element count within 63 bits, so s[0]*s[1] fits */
        m->ndim = 3; m->shape[0] = s[0] * s[1]; m->shape[1] = s[2]; m->shape[2] = s[3]; break;
    }
    m->numel = t->numel;
}

/* Rules are evaluated per family present: a Q4_0-only file reports Q40 rules and no GQ rules. */
static void eval_rules(const pc_input *in, pc_ctx *cx)
{
    bool q40 = false, gq = false, nvfp4 = false;
    for (size_t i = 0; i < in->ntensors; i++) {
        const gq_type *ty = type_of(&in->tensors[i]);
        if (ty) *(ty->ggml_type == 2 ? &q40 : &gq) = true;
        if (ty && ty->ggml_type == 40) nvfp4 = true;
    }
    if (nvfp4)
        for (int i = 0; i < 3; i++) pc_eval(cx, (const char *const[]){"GQ-004", "GQ-005", "GQ-006"}[i]);
    static const char *const q40_rules[] = {"Q40-001", "Q40-002", "Q40-003"}, *const gq_rules[] = {"GQ-001", "GQ-002", "GQ-003"};
    for (int i = 0; i < 3; i++) {
        if (q40) pc_eval(cx, q40_rules[i]);
        if (gq) pc_eval(cx, gq_rules[i]);
    }
}

static bool prefix_taken(const pc_input *in, const char *prefix)
{
    for (size_t k = 0; k < in->nmodules; k++)
        if (!strcmp(in->modules[k].prefix, prefix)) return true;
    return false;
}

/* One tensor: geometry, the scale scan, then its module. Returns false only when out of memory. */
static bool add_tensor(pc_input *in, const pc_tensor *t, const gq_type *ty, pc_ctx *cx)
{
    gq_module g = {.t = t, .ty = ty};
    if (!pc_ggml_type_block(ty->ggml_type, &g.blck, &g.bytes)) return true; /* the table lists every type here */
    if (!check_geometry(t, ty, g.blck, g.bytes, cx)) return true;
    if (ty->nscales && !check_scales(in, &g, cx)) return false;
    if (ty->ggml_type == 40) {
        if (!pc_gguf_nvfp4_scan(in, t, cx)) return false;
        pc_gguf_nvfp4_companion(in, t, cx);
    }
    char *prefix = module_prefix(t->name);
    if (!prefix) { cx->oom = true; return false; }
    if (prefix_taken(in, prefix)) {
        pc_report(cx, ty->prefix, t->name, (int64_t)t->offset, "module prefix \"%s\" is already taken by another %s tensor", prefix,
                  ty->ggml_type == 2 ? "Q4_0" : "block-quantized");
        free(prefix);
        return true;
    }
    gq_module *priv = malloc(sizeof *priv);
    pc_module *m = priv ? pc_module_add(in, &pc_format_gguf_blocks, prefix, "gguf") : NULL;
    free(prefix);
    if (!m) { free(priv); cx->oom = true; return false; }
    *priv = g;
    set_shape(m, t);
    m->bits = ty->bits;
    m->priv = priv; /* in->tensors does not move once the input is open */
    pc_tensor_claim(in, t, m->layout);
    return true;
}

static void gq_check(pc_input *in, pc_ctx *cx)
{
    eval_rules(in, cx);
    pc_input_note_layout(in, "gguf");
    for (size_t i = 0; i < in->ntensors; i++) {
        const gq_type *ty = type_of(&in->tensors[i]);
        if (ty && !add_tensor(in, &in->tensors[i], ty, cx)) return;
    }
}

/* The read buffer of one module's decode, kept across unpack's slices (pc_format.decode_rows). */
typedef struct gq_dec { uint8_t *buf; uint64_t chunk; } gq_dec;

static void gq_dec_free(void *p)
{
    gq_dec *d = p;
    if (d) free(d->buf);
    free(d);
}

/* Blocks [b0, b0 + nb) into codes/weights (arrays of nb * blck, either may be NULL). */
static int decode_blocks(const gq_module *g, pc_impl impl, gq_dec *d, uint64_t b0, uint64_t nb, uint8_t *codes, float *weights, pc_ctx *cx)
{
    pc_block_fn decode = impl == PC_IMPL_REF ? g->ty->ref : g->ty->fast;
    for (uint64_t b = 0; b < nb; b += d->chunk) {
        size_t n = nb - b < d->chunk ? (size_t)(nb - b) : (size_t)d->chunk;
        uint64_t at = b0 + b;
        if (pc_tensor_read(g->t, at * g->bytes, d->buf, n * g->bytes)) {
            pc_io_error(cx, "%s: cannot read tensor data at byte %llu", g->t->name, (unsigned long long)(g->t->offset + at * g->bytes));
            return -1;
        }
        size_t o = (size_t)(b * g->blck);
        decode(d->buf, n, codes ? codes + o : NULL, weights ? weights + o : NULL);
    }
    return 0;
}

/* Rows of K = ne[0] elements, a whole number of blocks each (check_geometry). */
static int gq_decode_rows(const pc_input *in, const pc_module *m, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                          uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const gq_module *g = m->priv;
    uint64_t K = m->shape[m->ndim - 1];
    if (!K || K % g->blck) { pc_io_error(cx, "%s: rows of %llu elements are not whole blocks", g->t->name, (unsigned long long)K); return -1; }
    gq_dec *d = *state;
    if (!d) {
        if (!(d = calloc(1, sizeof *d))) { cx->oom = true; return -1; }
        *state = d;
        d->chunk = GQ_CHUNK_BYTES / g->bytes; /* blocks per read */
        if (!(d->buf = malloc((size_t)d->chunk * g->bytes))) { cx->oom = true; return -1; }
    }
    return decode_blocks(g, impl, d, r0 * (K / g->blck), n * (K / g->blck), codes, weights, cx);
}

static int gq_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const gq_module *g = m->priv;
    gq_dec d = {NULL, GQ_CHUNK_BYTES / g->bytes};
    if (!(d.buf = malloc((size_t)d.chunk * g->bytes))) { cx->oom = true; return -1; }
    int rc = decode_blocks(g, impl, &d, 0, g->t->numel / g->blck, codes, weights, cx);
    free(d.buf);
    return rc;
}



/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* Q4_0 (ggml's block_q4_0): blocks of 32 along K, fp16 d then 16 bytes, byte j holds element j low
 * and j + 16 high; zero point 8. Other block types: code-level only. */
static int gq_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t K = pm->shape[pm->ndim - 1], rows = pm->numel / (K ? K : 1);
    const pc_tensor *t = pc_diag_find(in, pm->prefix, NULL);
    if (!t) t = pc_diag_find(in, pm->prefix, "weight");
    if (!t || t->ggml_type != 2 || K % 32 || t->nbytes != rows * (K / 32) * 18) { snprintf(p->note, sizeof p->note, "no Q4_0 tensor of the module's shape"); return 1; }
    uint8_t *raw = pc_tensor_load(t, 1ull << 30);
    if (!raw) { snprintf(p->note, sizeof p->note, "Q4_0 tensor unreadable"); return 1; }
    if (pc_diag_alloc(p, (size_t)pm->numel, -1)) { free(raw); return -1; }
    for (uint64_t n = 0; n < rows; n++)
        for (uint64_t k = 0; k < K; k++) {
            size_t i = (size_t)(n * K + k);
            p->s[i] = pc_f16_to_f32(pc_le16(raw + (n * (K / 32) + k / 32) * 18));
            p->zq[i] = 8;
        }
    free(raw);
    return 0;
}

static int gq_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    p->lay = (pc_diag_layout){.nibble = PC_NIB_K_XOR, .nib_xor = 16};
    p->kind = PC_DIAG_INT;
    return want ? gq_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_gguf_blocks_bench[]; /* gguf_blocks_bench.c */
extern const pc_bench_bound pc_gguf_blocks_bounds[];
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {"", PC_PART_CODES},
    {NULL, 0},
};
const pc_format pc_format_gguf_blocks = {.parts = k_format_parts, 
    .name = "gguf-blocks", .detect = gq_detect, .check = gq_check, .decode = gq_decode, .decode_rows = gq_decode_rows, .decode_rows_free = gq_dec_free, .module_free = free, .diag_params = gq_diag_params, .bench = pc_gguf_blocks_bench, .bench_bounds = pc_gguf_blocks_bounds,
    .pair_detect = pc_gguf_pair_detect, .pair_map = pc_gguf_pair_map};
