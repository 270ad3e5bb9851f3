/* Format module: bitsandbytes LLM.int8 (8-bit), as transformers' BitsAndBytesConfig(load_in_8bit)
 * save_pretrained writes it (bitsandbytes 0.50.2 nn/modules.py Linear8bitLt, Int8Params).
 *
 * Per module M: M.weight I8 [out, in] (row-major int8 codes: int8_vectorwise_quant,
 * backends/default/ops.py, round(A * 127 / absmax_row)); M.SCB F32 [out] (the row absmax,
 * torch.max(A.abs(), dim=1)); optional M.weight_format, a U8 scalar, 0 = "row"
 * (utils.py LINEAR_8BIT_WEIGHTS_FORMAT_MAPPING; nn/modules.py maybe_rearrange_weight raises for
 * anything but "row" and takes "row" when it is absent). Config: quantization_config quant_method
 * "bitsandbytes" with load_in_8bit true.
 *
 * Logical view (CONTRACT 3): codes = q + 128 (the ct-int8 view); weight
 * w = f32(f32(q * SCB[row]) * 0x1.020408p-7f), bitsandbytes' default int8_vectorwise_dequant
 * (_ops.py: `A * stats.view(-1, 1) * 7.874015718698502e-3`). */
#include "../row_decode.h"
#include "formats/format.h"
#include "../known_schemes.h"
#include "../qlinear.h"

#include "../../core/arith.h"
#include "../../core/util.h"
#include "kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_bnb_int8;

#define BNB8_LAYOUT "bnb-int8"
#define BNB8_TENSOR_LIMIT (1ull << 30)
#define PREFIX_MAX 1024

typedef struct bnb8_mod {
    const pc_tensor *weight, *scb, *format;
    uint64_t rows, cols;
} bnb8_mod;

/* M for a tensor named M.SCB (the part only LLM.int8 writes). */
static bool scb_prefix(const char *name, char *m, size_t n)
{
    size_t len = strlen(name);
    if (len <= 4 || strcmp(name + len - 4, ".SCB") || len - 4 >= n) return false;
    memcpy(m, name, len - 4);
    m[len - 4] = 0;
    return true;
}

/* BNB-008: transformers reads M.SCB only under a bitsandbytes 8-bit config. */
static bool check_config(const pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "BNB-008");
    const cJSON *qc = in->qconfig;
    const char *method = ql_cfg_str(qc, "quant_method");
    bool b8 = false, present;
    if (!method || strcmp(method, "bitsandbytes") || !ql_cfg_bool(qc, "load_in_8bit", &b8, &present) || !b8) {
        pc_report(cx, "BNB-008", in->qconfig_source ? in->qconfig_source : "config", -1,
                  "bitsandbytes LLM.int8 tensors (M.weight I8 beside M.SCB) need a quantization_config with quant_method "
                  "\"bitsandbytes\" and load_in_8bit true: without it transformers loads the int8 codes as a dense weight");
        return false;
    }
    return true;
}

/* BNB-009: the weight is the 2-D int8 [out, in] Int8Params holds. */
static bool check_weight(const char *m, const bnb8_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-009");
    const pc_tensor *w = b->weight;
    if (!w) {
        pc_report(cx, "BNB-009", m, -1, "%s.SCB has no %s.weight beside it", m, m);
        return false;
    }
    if (w->dtype != PC_DT_I8 || w->ndim != 2 || w->numel == 0) {
        pc_report(cx, "BNB-009", w->name, (int64_t)w->offset, "%s is %s with %d dims; LLM.int8 stores a non-empty 2-D I8 [out, in]",
                  w->name, pc_dtype_name(w->dtype), w->ndim);
        return false;
    }
    return true;
}

/* BNB-010: one F32 row scale per output row. */
static bool check_scb_shape(const bnb8_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-010");
    const pc_tensor *s = b->scb;
    if (s->dtype != PC_DT_F32 || s->ndim != 1 || s->shape[0] != b->rows) {
        pc_report(cx, "BNB-010", s->name, (int64_t)s->offset, "%s is %s with %d dims and %llu elements; the weight needs F32 [%llu]",
                  s->name, pc_dtype_name(s->dtype), s->ndim, (unsigned long long)s->numel, (unsigned long long)b->rows);
        return false;
    }
    return true;
}

/* BNB-012: weight_format, when present, is 0 ("row"); bitsandbytes refuses every other value. */
static bool check_format(const bnb8_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-012");
    const pc_tensor *f = b->format;
    if (!f) return true;
    uint8_t v = 1;
    bool shape_ok = f->dtype == PC_DT_U8 && f->numel == 1 && f->nbytes == 1;
    if (shape_ok && pc_tensor_read(f, 0, &v, 1)) { pc_io_error(cx, "%s: cannot read", f->name); return false; }
    if (!shape_ok || v != 0) {
        pc_report(cx, "BNB-012", f->name, (int64_t)f->offset, shape_ok ? "%s is %u; bitsandbytes loads only 0 (\"row\")"
                  : "%s is not a one-element U8 tensor (bitsandbytes writes a U8 scalar, 0 = \"row\")", f->name, (unsigned)v);
        return false;
    }
    return true;
}

static bool check_limits(const bnb8_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-013");
    if (b->weight->nbytes > BNB8_TENSOR_LIMIT || b->weight->numel > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "BNB-013", b->weight->name, (int64_t)b->weight->offset,
                  "the module exceeds packcheck's limits (1 GiB per tensor, 2^30 elements)");
        return false;
    }
    return true;
}

/* BNB-011: SCB is a row absmax, so finite and not negative (a zero row gives 0). */
static bool check_scb_values(const bnb8_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-011");
    float *s = ql_load_f32(b->scb, b->rows, BNB8_TENSOR_LIMIT);
    if (!s) { pc_io_error(cx, "%s: cannot read", b->scb->name); return false; }
    bool ok = true;
    for (size_t r = 0; ok && r < (size_t)b->rows; r++)
        if (!isfinite(s[r]) || s[r] < 0) {
            pc_report(cx, "BNB-011", b->scb->name, (int64_t)(b->scb->offset + 4 * r), "%s[%zu] = %g; SCB is a row absmax, "
                      "finite and >= 0", b->scb->name, r, (double)s[r]);
            ok = false;
        }
    free(s);
    return ok;
}

static void add_module(pc_input *in, const char *m, const bnb8_mod *b, pc_ctx *cx)
{
    pc_module *pm = pc_module_add_with(in, &pc_format_bnb_int8, m, BNB8_LAYOUT, b, sizeof *b, cx);
    if (!pm) return;
    pc_module_set_matrix(pm, b->rows, b->cols, 8);
    const pc_tensor *ts[] = {b->weight, b->scb, b->format};
    for (size_t i = 0; i < 3; i++)
        if (ts[i]) pc_tensor_claim(in, ts[i], pm->layout);
}

static void check_module(pc_input *in, const pc_tensor *scb, pc_ctx *cx)
{
    char m[PREFIX_MAX];
    if (!scb_prefix(scb->name, m, sizeof m)) return;
    bnb8_mod b = {.weight = pc_sibling(in, m, "weight"), .scb = scb, .format = pc_sibling(in, m, "weight_format")};
    if (!check_weight(m, &b, cx)) return;
    b.rows = b.weight->shape[0];
    b.cols = b.weight->shape[1];
    if (!check_limits(&b, cx)) return;
    bool ok = check_scb_shape(&b, cx);
    ok = check_format(&b, cx) && ok;
    if (!ok || !check_scb_values(&b, cx)) return;
    add_module(in, m, &b, cx);
}

static bool is_scb(const pc_tensor *t)
{
    size_t n = strlen(t->name);
    return n > 4 && !strcmp(t->name + n - 4, ".SCB");
}

static bool bnb8_detect(const pc_input *in)
{
    if (in->is_gguf) return false;
    for (size_t i = 0; i < in->ntensors; i++)
        if (is_scb(&in->tensors[i])) return true;
    return false;
}

static void bnb8_check(pc_input *in, pc_ctx *cx)
{
    pc_input_note_layout(in, BNB8_LAYOUT);
    if (!check_config(in, cx)) return;
    for (size_t i = 0; i < in->ntensors; i++) {
        if (is_scb(&in->tensors[i])) check_module(in, &in->tensors[i], cx);
        if (cx->oom || cx->io_error) return;
    }
}

static int bnb8_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const bnb8_mod *b = pm->priv;
    size_t n = (size_t)(b->rows * b->cols);
    uint8_t *raw = pc_tensor_load(b->weight, BNB8_TENSOR_LIMIT);
    float *s = weights ? ql_load_f32(b->scb, b->rows, BNB8_TENSOR_LIMIT) : NULL;
    int rc = -1;
    if (!raw || (weights && !s) || b->weight->nbytes != n) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
    } else {
        if (codes) pc_bnb8_codes(impl)(raw, n, codes);
        if (weights) pc_bnb8_dequant(impl)(raw, (size_t)b->rows, (size_t)b->cols, s, weights);
        rc = 0;
    }
    free(raw); free(s);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* One I8 byte per element and one SCB value per row: a slice of rows is a run of bytes and of SCB. */
typedef struct bnb8_rows {
    float *s;
    uint8_t *buf;
    size_t cap;
} bnb8_rows;

static void bnb8_rows_free(void *p)
{
    bnb8_rows *r = p;
    if (r) { free(r->s); free(r->buf); }
    free(r);
}

static int bnb8_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                            uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const bnb8_mod *b = pm->priv;
    size_t cnt = (size_t)(n * b->cols);
    bnb8_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (b->weight->nbytes != b->rows * b->cols) { pc_io_error(cx, "%s: the weight is not rows x cols bytes", pm->prefix); return -1; }
    if (weights && !st->s && !(st->s = ql_load_f32(b->scb, b->rows, BNB8_TENSOR_LIMIT))) { pc_io_error(cx, "%s: cannot read", b->scb->name); return -1; }
    if (!pc_rows_buf(&st->buf, &st->cap, cnt, cx)) return -1;
    if (pc_tensor_read(b->weight, r0 * b->cols, st->buf, cnt)) { pc_io_error(cx, "%s: cannot read", b->weight->name); return -1; }
    if (codes) pc_bnb8_codes(impl)(st->buf, cnt, codes);
    if (weights) pc_bnb8_dequant(impl)(st->buf, (size_t)n, (size_t)b->cols, st->s + r0, weights);
    return 0;
}

/* Unclaimed parts of an LLM.int8 module (one a rule rejected). */
static bool bnb8_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    char m[PREFIX_MAX];
    static const char *const k_w[] = {"weight", "SCB", "weight_format", NULL};
    if (!pc_split_suffix(t->name, k_w, m, sizeof m) || !pc_sibling(in, m, "SCB")) return false;
    snprintf(e->scheme, sizeof e->scheme, "bitsandbytes LLM.int8 (8-bit)");
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    return true;
}

extern const pc_bench_entry pc_bnb_int8_bench[]; /* bnb_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES},
    {".SCB", PC_PART_COMPANION},
    {".weight_format", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_bnb_int8 = {.parts = k_format_parts, .name = "bnb-int8", .detect = bnb8_detect, .check = bnb8_check, .decode = bnb8_decode, .decode_rows = bnb8_decode_rows, .decode_rows_free = bnb8_rows_free,
                                      .module_free = free, .explain = bnb8_explain, .bench = pc_bnb_int8_bench};
