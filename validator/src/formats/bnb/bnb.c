/* Format module: bitsandbytes 4-bit NF4/FP4 (FORMATS-2.md E; bitsandbytes 0.50.2 functional.py
 * quantize_4bit / dequantize_4bit / QuantState.as_dict, backends/default/ops.py).
 *
 * Per module M: M.weight U8 holding ceil(n/2) bytes ([n/2, 1] as Linear4bit saves it), the even
 * element in the high nibble, blocks of `blocksize` over the flattened tensor; M.weight.absmax F32
 * [ceil(n/bs)] (double quantization: U8 codes of absmax - offset, with M.weight.nested_absmax F32
 * [ceil(nblocks/256)] and M.weight.nested_quant_map F32 [256]); M.weight.quant_map F32 [16]; and
 * exactly one M.weight.quant_state.bitsandbytes__nf4|fp4, a U8 tensor holding the JSON dict
 * {quant_type, blocksize, dtype, shape, nested_blocksize, nested_dtype, nested_offset}.
 * Config: quantization_config quant_method "bitsandbytes" with load_in_4bit.
 *
 * Logical view (CONTRACT 3): codes = the stored nibble; weight w = f32(table[q] * A[i // bs]), A the
 * absmax or, nested, f32(f32(nested_quant_map[absmax[j]] * nested_absmax[j // 256]) + offset). */
#include "../row_decode.h"
#include "../known_schemes.h"
#include "../qlinear.h"

#include "../../core/arith.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "../../container/json_report.h"
#include "kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_bnb;

#define BNB_LAYOUT "bnb-4bit"
#define BNB_TENSOR_LIMIT (1ull << 30)
#define BNB_STATE_LIMIT 65536 /* the JSON of one quant state is ~200 bytes */
#define PREFIX_MAX 1024
#define QS_INFIX ".weight.quant_state.bitsandbytes__"

typedef struct bnb_mod {
    const pc_tensor *weight, *absmax, *quant_map, *nested_absmax, *nested_map;
    bool fp4, nested;
    uint64_t n, blocksize, nblocks, nested_bs;
    float offset;
    int ndim;
    uint64_t shape[3];
} bnb_mod;

/* ---- names ----------------------------------------------------------------------------- */

/* M for a tensor named M.weight.quant_state.bitsandbytes__<type>; *type receives <type>. */
static bool state_prefix(const char *name, char *m, size_t n, const char **type)
{
    const char *p = strstr(name, QS_INFIX);
    if (!p || (size_t)(p - name) >= n || p == name) return false;
    memcpy(m, name, (size_t)(p - name));
    m[p - name] = 0;
    *type = p + strlen(QS_INFIX);
    return true;
}

static const pc_tensor *part(const pc_input *in, const char *m, const char *suffix)
{
    char dotted[64];
    size_t n = strlen(suffix);
    if (n + sizeof ".weight" > sizeof dotted) return NULL;
    memcpy(dotted, ".weight", 7);
    memcpy(dotted + 7, suffix, n + 1);
    return pc_input_find_part(in, m, dotted);
}

/* ---- config ---------------------------------------------------------------------------- */

static bool check_config(const pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "BNB-001");
    const cJSON *qc = in->qconfig;
    const char *method = ql_cfg_str(qc, "quant_method");
    bool b4 = false, present;
    if (!method || strcmp(method, "bitsandbytes")) {
        pc_report(cx, "BNB-001", "", -1,
                  "bitsandbytes 4-bit tensors (quant_state.bitsandbytes__*) without a quantization_config naming "
                  "quant_method \"bitsandbytes\": transformers would load the packed bytes as a dense weight");
        return false;
    }
    if (!ql_cfg_bool(qc, "load_in_4bit", &b4, &present) || !b4) {
        pc_report(cx, "BNB-001", in->qconfig_source ? in->qconfig_source : "config", -1,
                  "quant_method bitsandbytes with 4-bit quant states needs load_in_4bit true");
        return false;
    }
    return true;
}

/* ---- the quant-state JSON ---------------------------------------------------------------- */

static bool json_int(const cJSON *o, const char *k, long long *v) { return ql_cfg_int(o, k, v, NULL); }

static bool valid_blocksize(long long b)
{
    return b == 32 || b == 64 || b == 128 || b == 256 || b == 512 || b == 1024 || b == 2048 || b == 4096;
}

/* bitsandbytes reads the state as json.loads(bytes.decode("utf-8")): one value, then only JSON
 * whitespace. A value followed by anything else comes back with *tail at the first such byte and
 * must not be taken (cJSON alone stops at the value and ignores the rest). */
static cJSON *parse_one_value(const char *buf, size_t n, size_t *tail)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(buf, n, &end, 0);
    if (!j || !end) return j;
    for (size_t i = (size_t)(end - buf); i < n; i++)
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') { *tail = i; return j; }
    return j;
}

static cJSON *load_state(const pc_tensor *qs, pc_ctx *cx)
{
    if (qs->dtype != PC_DT_U8 || qs->ndim != 1 || qs->nbytes == 0 || qs->nbytes > BNB_STATE_LIMIT) {
        pc_report(cx, "BNB-002", qs->name, (int64_t)qs->offset, "%s is %s with %llu bytes; the quant state is a 1-D U8 "
                  "tensor of at most %d bytes", qs->name, pc_dtype_name(qs->dtype), (unsigned long long)qs->nbytes, BNB_STATE_LIMIT);
        return NULL;
    }
    char *buf = malloc((size_t)qs->nbytes + 1);
    if (!buf) { cx->oom = true; return NULL; }
    cJSON *j = NULL;
    size_t n = (size_t)qs->nbytes, tail = n;
    if (pc_tensor_read(qs, 0, buf, n)) pc_io_error(cx, "%s: cannot read", qs->name);
    else j = parse_one_value(buf, n, &tail);
    if (!cx->io_error && cJSON_IsObject(j) && tail < n) {
        pc_report(cx, "BNB-002", qs->name, (int64_t)(qs->offset + tail), "%s holds bytes after its JSON object (from byte %zu): "
                  "json.loads refuses them (\"Extra data\")", qs->name, tail);
        cJSON_Delete(j);
        j = NULL;
    } else if (!cx->io_error && !cJSON_IsObject(j)) {
        pc_report(cx, "BNB-002", qs->name, (int64_t)qs->offset, "%s does not hold a JSON object", qs->name);
        cJSON_Delete(j);
        j = NULL;
    } else if (j && !pc_json_check_reads(cx, buf, n, qs->name, qs->offset, "BNB-002")) {
        /* QuantState.from_dict reads json.loads' dict; cJSON's differs, so nothing here is checked further. */
        cJSON_Delete(j);
        j = NULL;
    }
    free(buf);
    return j;
}

static bool state_shape(const cJSON *shape, bnb_mod *m)
{
    int nd = cJSON_GetArraySize(shape);
    if (!cJSON_IsArray(shape) || nd < 1 || nd > 3) return false;
    m->ndim = nd;
    m->n = 1;
    int d = 0;
    for (const cJSON *e = shape->child; e; e = e->next, d++) {
        double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!(v >= 1 && v <= 9007199254740992.0) || v != floor(v) || !pc_mul_u64(m->n, (uint64_t)v, &m->n)) return false;
        m->shape[d] = (uint64_t)v;
    }
    return true;
}

/* BNB-002: the dict's fields, each of the type and domain QuantState.from_dict expects. */
static bool parse_state(const cJSON *j, const pc_tensor *qs, const char *type, bnb_mod *m, pc_ctx *cx)
{
    const char *qt = ql_cfg_str(j, "quant_type"), *dt = ql_cfg_str(j, "dtype");
    long long bs = 0, nbs = 0;
    const char *why = NULL;
    if (!qt || (strcmp(qt, "nf4") && strcmp(qt, "fp4"))) why = "quant_type is not \"nf4\" or \"fp4\"";
    else if (strcmp(qt, type)) why = "quant_type differs from the tensor name's bitsandbytes__<type>";
    else if (!json_int(j, "blocksize", &bs) || !valid_blocksize(bs)) why = "blocksize is not one of 32, 64, ..., 4096";
    else if (!dt || (strcmp(dt, "float32") && strcmp(dt, "float16") && strcmp(dt, "bfloat16"))) why = "dtype is not float32, float16 or bfloat16";
    else if (!state_shape(cJSON_GetObjectItemCaseSensitive(j, "shape"), m)) why = "shape is not a list of 1 to 3 positive integers";
    m->fp4 = qt && !strcmp(qt, "fp4");
    m->blocksize = (uint64_t)bs;
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(j, "nested_offset");
    m->nested = cJSON_GetObjectItemCaseSensitive(j, "nested_blocksize") != NULL || off;
    if (!why && m->nested) {
        const char *ndt = ql_cfg_str(j, "nested_dtype");
        if (!json_int(j, "nested_blocksize", &nbs) || !valid_blocksize(nbs)) why = "nested_blocksize is not one of 32, ..., 4096";
        else if (!ndt || strcmp(ndt, "float32")) why = "nested_dtype is not float32";
        else if (!cJSON_IsNumber(off) || !isfinite((float)off->valuedouble)) why = "nested_offset is not a finite number";
        m->nested_bs = (uint64_t)nbs;
        m->offset = cJSON_IsNumber(off) ? (float)off->valuedouble : 0;
    }
    if (why) pc_report(cx, "BNB-002", qs->name, (int64_t)qs->offset, "%s: %s", qs->name, why);
    return !why;
}

/* ---- tensors --------------------------------------------------------------------------- */

static bool want(const pc_tensor *t, const char *m, const char *suffix, pc_dtype dt, uint64_t numel, pc_ctx *cx)
{
    if (!t) {
        pc_report(cx, "BNB-003", m, -1, "%s.weight%s is missing", m, suffix);
        return false;
    }
    if (t->dtype != dt || t->numel != numel) {
        pc_report(cx, "BNB-003", t->name, (int64_t)t->offset, "%s is %s with %llu elements; the quant state needs %s with %llu",
                  t->name, pc_dtype_name(t->dtype), (unsigned long long)t->numel, pc_dtype_name(dt), (unsigned long long)numel);
        return false;
    }
    return true;
}

static bool check_tensors(const pc_input *in, const char *m, bnb_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-003");
    b->weight = pc_sibling(in, m, "weight");
    b->absmax = part(in, m, ".absmax");
    b->quant_map = part(in, m, ".quant_map");
    b->nested_absmax = part(in, m, ".nested_absmax");
    b->nested_map = part(in, m, ".nested_quant_map");
    b->nblocks = b->n / b->blocksize + (b->n % b->blocksize != 0);
    bool ok = want(b->weight, m, "", PC_DT_U8, b->n / 2 + b->n % 2, cx);
    ok &= want(b->quant_map, m, ".quant_map", PC_DT_F32, 16, cx);
    ok &= want(b->absmax, m, ".absmax", b->nested ? PC_DT_U8 : PC_DT_F32, b->nblocks, cx);
    if (b->nested) {
        uint64_t nn = b->nblocks / b->nested_bs + (b->nblocks % b->nested_bs != 0);
        ok &= want(b->nested_absmax, m, ".nested_absmax", PC_DT_F32, nn, cx);
        ok &= want(b->nested_map, m, ".nested_quant_map", PC_DT_F32, 256, cx);
    } else if (b->nested_absmax || b->nested_map) {
        const pc_tensor *t = b->nested_absmax ? b->nested_absmax : b->nested_map;
        pc_report(cx, "BNB-003", t->name, (int64_t)t->offset, "%s is present but the quant state has no nested_* fields", t->name);
        ok = false;
    }
    return ok;
}

static bool check_limits(const bnb_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-006");
    if (b->weight->nbytes > BNB_TENSOR_LIMIT || b->absmax->nbytes > BNB_TENSOR_LIMIT || b->n > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "BNB-006", b->weight->name, (int64_t)b->weight->offset,
                  "the module exceeds packcheck's limits (1 GiB per tensor, 2^30 elements)");
        return false;
    }
    return true;
}

static bool same_bits(float a, float b) { return !memcmp(&a, &b, sizeof a); }

/* BNB-004: dequantize_4bit ignores the stored map and uses its own codebook, so they must agree
 * (FP4 code 8 may be either zero: one of the library's own CPU kernels gives -0.0). */
static bool check_map(const bnb_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-004");
    float *qm = ql_load_f32(b->quant_map, 16, BNB_STATE_LIMIT);
    if (!qm) { pc_io_error(cx, "%s: cannot read", b->quant_map->name); return false; }
    const float *t = pc_bnb4_table(b->fp4);
    int bad = -1;
    for (int k = 0; k < 16 && bad < 0; k++)
        if (!same_bits(qm[k], t[k]) && !(b->fp4 && k == 8 && qm[k] == 0.0f)) bad = k;
    if (bad >= 0)
        pc_report(cx, "BNB-004", b->quant_map->name, (int64_t)(b->quant_map->offset + 4 * (uint64_t)bad),
                  "quant_map[%d] = %a differs from bitsandbytes' %s codebook value %a", bad, (double)qm[bad],
                  b->fp4 ? "FP4" : "NF4", (double)t[bad]);
    free(qm);
    return bad < 0;
}

/* The per-block scales, as dequantize_4bit computes them (f32, nested: one rounding per step). */
static float *block_scales(const bnb_mod *b)
{
    if (!b->nested) return ql_load_f32(b->absmax, b->nblocks, BNB_TENSOR_LIMIT);
    uint8_t *q = pc_tensor_load(b->absmax, BNB_TENSOR_LIMIT);
    uint64_t nn = b->nested_absmax->numel;
    float *na = ql_load_f32(b->nested_absmax, nn, BNB_TENSOR_LIMIT), *map = ql_load_f32(b->nested_map, 256, BNB_STATE_LIMIT);
    float *out = q && na && map ? malloc((size_t)b->nblocks * sizeof *out) : NULL;
    for (size_t j = 0; out && j < (size_t)b->nblocks; j++) {
        float v = map[q[j]] * na[j / (size_t)b->nested_bs];
        out[j] = v + b->offset;
    }
    free(q); free(na); free(map);
    return out;
}

/* BNB-005: every value a block scale is made of is finite, and so is every scale. */
static bool check_scales(const bnb_mod *b, pc_ctx *cx)
{
    pc_eval(cx, "BNB-005");
    const pc_tensor *parts[] = {b->nested ? b->nested_absmax : b->absmax, b->nested ? b->nested_map : NULL};
    for (int p = 0; p < 2 && parts[p]; p++) {
        float *v = ql_load_f32(parts[p], parts[p]->numel, BNB_TENSOR_LIMIT);
        if (!v) { pc_io_error(cx, "%s: cannot read", parts[p]->name); return false; }
        for (size_t i = 0; i < (size_t)parts[p]->numel; i++)
            if (!isfinite(v[i])) {
                pc_report(cx, "BNB-005", parts[p]->name, (int64_t)(parts[p]->offset + 4 * i), "%s element %zu is %s",
                          parts[p]->name, i, isnan(v[i]) ? "NaN" : "infinite");
                free(v);
                return false;
            }
        free(v);
    }
    float *s = block_scales(b);
    if (!s) { pc_io_error(cx, "%s: cannot read the block scales", b->absmax->name); return false; }
    bool ok = true;
    for (size_t j = 0; ok && j < (size_t)b->nblocks; j++)
        if (!isfinite(s[j])) {
            pc_report(cx, "BNB-005", b->absmax->name, (int64_t)b->absmax->offset, "block %zu's scale is not finite", j);
            ok = false;
        }
    free(s);
    return ok;
}

static void add_module(pc_input *in, const char *m, const bnb_mod *b, const pc_tensor *qs, pc_ctx *cx)
{
    pc_module *pm = pc_module_add_with(in, &pc_format_bnb, m, BNB_LAYOUT, b, sizeof *b, cx);
    if (!pm) return;
    pm->ndim = b->ndim == 3 ? 3 : 2;
    if (b->ndim == 1) { pm->shape[0] = 1; pm->shape[1] = b->shape[0]; }
    else for (int d = 0; d < b->ndim; d++) pm->shape[d] = b->shape[d];
    pm->numel = b->n;
    pm->bits = 4;
    const pc_tensor *ts[] = {b->weight, b->absmax, b->quant_map, b->nested_absmax, b->nested_map, qs};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
        if (ts[i]) pc_tensor_claim(in, ts[i], pm->layout);
}

static void check_module(pc_input *in, const pc_tensor *qs, pc_ctx *cx)
{
    char m[PREFIX_MAX];
    const char *type;
    if (!state_prefix(qs->name, m, sizeof m, &type)) return;
    pc_eval(cx, "BNB-002");
    const char *other = !strcmp(type, "nf4") ? "fp4" : "nf4";
    char oname[PREFIX_MAX + 64];
    snprintf(oname, sizeof oname, "%s%s%s", m, QS_INFIX, other);
    if (pc_input_find(in, oname)) {
        if (!strcmp(type, "nf4"))
            pc_report(cx, "BNB-002", qs->name, (int64_t)qs->offset, "%s.weight has both an nf4 and an fp4 quant state", m);
        return;
    }
    cJSON *j = load_state(qs, cx);
    if (!j) return;
    bnb_mod b = {0};
    bool ok = parse_state(j, qs, type, &b, cx);
    cJSON_Delete(j);
    if (!ok || !check_tensors(in, m, &b, cx) || !check_limits(&b, cx) || !check_map(&b, cx) || !check_scales(&b, cx)) return;
    add_module(in, m, &b, qs, cx);
}

static bool is_state(const pc_tensor *t) { return strstr(t->name, QS_INFIX) != NULL; }

static bool bnb_detect(const pc_input *in)
{
    if (in->is_gguf) return false;
    for (size_t i = 0; i < in->ntensors; i++)
        if (is_state(&in->tensors[i])) return true;
    return false;
}

static void bnb_check(pc_input *in, pc_ctx *cx)
{
    pc_input_note_layout(in, BNB_LAYOUT);
    if (!check_config(in, cx)) return;
    for (size_t i = 0; i < in->ntensors; i++) {
        if (is_state(&in->tensors[i])) check_module(in, &in->tensors[i], cx);
        if (cx->oom || cx->io_error) return;
    }
}

/* The module's scale parameters as it decodes them (its diag_params re-derives weights from them). */
static int bnb_params(const pc_module *pm, float **scales, size_t *blocksize, const float **table)
{
    if (pm->fmt != &pc_format_bnb) return -1;
    const bnb_mod *b = pm->priv;
    *scales = block_scales(b);
    *blocksize = (size_t)b->blocksize;
    *table = pc_bnb4_table(b->fp4);
    return *scales ? 0 : -1;
}

static int bnb_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const bnb_mod *b = pm->priv;
    size_t n = (size_t)b->n;
    uint8_t *raw = pc_tensor_load(b->weight, BNB_TENSOR_LIMIT);
    uint8_t *q = codes ? codes : malloc(n ? n : 1);
    float *s = weights ? block_scales(b) : NULL;
    int rc = -1;
    if (!raw || !q || (weights && !s) || b->weight->nbytes != n / 2 + n % 2) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        goto out;
    }
    pc_bnb4_unpack(impl)(raw, n, q);
    if (weights) pc_bnb4_dequant(impl)(q, n, pc_bnb4_table(b->fp4), s, (size_t)b->blocksize, weights);
    rc = 0;
out:
    free(raw); free(s);
    if (q != codes) free(q);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* bitsandbytes flattens the tensor: blocks of `blocksize` and the bytes' nibble pairs run across
 * rows, so a slice of rows is the flat range [r0 * K, (r0 + n) * K), which may start in the low
 * nibble of a byte and in the middle of a block. Both are handled here rather than refused: the
 * bytes from the one holding the first element are unpacked and the first element picked, and a
 * block cut by the slice's start is dequantized on its own against its absmax (fewer than
 * blocksize elements, so the kernel's i / blocksize is 0 for each), the rest from a block
 * boundary. Every element meets the same table, absmax and arithmetic as in the whole decode. */
typedef struct bnb_rows {
    float *s;        /* the block scales, once per module (block_scales) */
    uint8_t *buf;    /* packed bytes, then unpacked codes */
    size_t cap;
} bnb_rows;

static void bnb_rows_free(void *p)
{
    bnb_rows *r = p;
    if (r) { free(r->s); free(r->buf); }
    free(r);
}

static void bnb_rows_dequant(const bnb_mod *b, const float *s, pc_impl impl, uint64_t e0, const uint8_t *q, size_t cnt, float *out)
{
    size_t bs = (size_t)b->blocksize, head = e0 % bs ? bs - (size_t)(e0 % bs) : 0;
    if (head > cnt) head = cnt;
    if (head) pc_bnb4_dequant(impl)(q, head, pc_bnb4_table(b->fp4), s + e0 / bs, bs, out);
    if (cnt > head) pc_bnb4_dequant(impl)(q + head, cnt - head, pc_bnb4_table(b->fp4), s + (e0 + head) / bs, bs, out + head);
}

static int bnb_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                           uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const bnb_mod *b = pm->priv;
    uint64_t K = pm->shape[pm->ndim - 1], e0 = r0 * K, odd = e0 & 1;
    size_t cnt = (size_t)(n * K), span = (size_t)(cnt + odd), bytes = span / 2 + span % 2; /* <= numel + 1 */
    bnb_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (b->weight->nbytes != b->n / 2 + b->n % 2) { pc_io_error(cx, "%s: the weight is not ceil(n / 2) bytes", pm->prefix); return -1; }
    if (weights && !st->s && !(st->s = block_scales(b))) { pc_io_error(cx, "%s: cannot read the block scales", pm->prefix); return -1; }
    if (!pc_rows_buf(&st->buf, &st->cap, bytes + span + 1, cx)) return -1;
    if (pc_tensor_read(b->weight, e0 / 2, st->buf, bytes)) { pc_io_error(cx, "%s: cannot read", b->weight->name); return -1; }
    uint8_t *q = st->buf + bytes;
    pc_bnb4_unpack(impl)(st->buf, span, q);
    q += odd;
    if (codes) memcpy(codes, q, cnt);
    if (weights) bnb_rows_dequant(b, st->s, impl, e0, q, cnt, weights);
    return 0;
}

/* Unclaimed parts of a bitsandbytes 4-bit module (one a rule rejected). */
static bool bnb_explain(const pc_input *in, const pc_tensor *t, pc_explain *e)
{
    char m[PREFIX_MAX];
    const char *dot = strstr(t->name, ".weight");
    if (!dot || (size_t)(dot - t->name) >= sizeof m) return false;
    memcpy(m, t->name, (size_t)(dot - t->name));
    m[dot - t->name] = 0;
    bool nf4 = part(in, m, ".quant_state.bitsandbytes__nf4") != NULL, fp4 = part(in, m, ".quant_state.bitsandbytes__fp4") != NULL;
    if (!nf4 && !fp4) return false;
    snprintf(e->scheme, sizeof e->scheme, "bitsandbytes %s", nf4 ? "NF4" : "FP4");
    snprintf(e->reason, sizeof e->reason, "%s", pc_not_decoded);
    (void)in;
    return true;
}

/* Certify's diagnosis: w = table[code] * absmax[block], blocks over the flattened tensor
 * (bitsandbytes quantize_4bit flattens A); byte i holds flat elements 2i (high nibble) and 2i + 1
 * (low), across rows. Two misreads of the scales: blocks counted per row (block n*ceil(K/bs) +
 * k/bs; only where it stays inside the absmax tensor), and a nested absmax without its offset. */
static float *bnb_diag_row_blocks(const bnb_mod *b, const float *sc, const pc_module *pm)
{
    uint64_t K = pm->shape[pm->ndim - 1], per = pc_ceil_div(K, b->blocksize);
    float *r = malloc((size_t)pm->numel * sizeof *r);
    for (size_t i = 0; r && i < pm->numel; i++) {
        uint64_t j = i / K * per + i % K / b->blocksize;
        if (j >= b->nblocks) { free(r); return NULL; }
        r[i] = sc[j];
    }
    return r;
}

static float *bnb_diag_no_offset(const bnb_mod *b, const pc_module *pm)
{
    if (!b->nested || b->offset == 0.0f) return NULL;
    bnb_mod plain = *b;
    plain.offset = 0.0f;
    float *blk = block_scales(&plain), *r = blk ? malloc((size_t)pm->numel * sizeof *r) : NULL;
    for (size_t i = 0; r && i < pm->numel; i++) r[i] = blk[i / b->blocksize];
    free(blk);
    return r;
}

static int bnb_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    (void)in;
    float *sc = NULL;
    size_t group = 0;
    const float *table = NULL;
    p->lay = (pc_diag_layout){.nibble = PC_NIB_FLAT_XOR, .nib_xor = 1};
    p->kind = PC_DIAG_TABLE;
    if (!want) return 0;
    if (bnb_params(pm, &sc, &group, &table) || !group) { snprintf(p->note, sizeof p->note, "bnb parameters unreadable"); free(sc); return 1; }
    p->table = table;
    int rc = pc_diag_alloc(p, (size_t)pm->numel, -1);
    for (size_t i = 0; !rc && i < pm->numel; i++) p->s[i] = sc[i / group];
    if (!rc && pm->ndim >= 2) p->alt_s[PC_ALT_ROW_BLOCKS] = bnb_diag_row_blocks(pm->priv, sc, pm);
    if (!rc) p->alt_s[PC_ALT_NESTED_OFFSET] = bnb_diag_no_offset(pm->priv, pm);
    free(sc);
    return rc;
}

/* ---- equiv (CONTRACT 7): the seed's rule that NF4 cannot be converted to an integer format ----
 * A bnb module's levels are table[q] * absmax: NF4's 16 values are normal quantiles, FP4 its own
 * table, neither a uniform grid. Every integer or affine layout holds s * (q - z) (or s * q + b), a
 * uniform grid per group, so a module that is bnb on one side and decoded from any other layout on
 * the other was requantized: another model, whatever the weights' distance. */
static const pc_module *other_layout(const pc_input *a, const pc_input *b, size_t *ia)
{
    for (; *ia < a->nmodules; (*ia)++) {
        if (a->modules[*ia].fmt != &pc_format_bnb) continue;
        for (size_t j = 0; j < b->nmodules; j++)
            if (b->modules[j].fmt != &pc_format_bnb && !strcmp(a->modules[*ia].prefix, b->modules[j].prefix)) return &b->modules[j];
    }
    return NULL;
}

static bool bnb_pair_detect(const pc_input *source, const pc_input *target, unsigned *default_ulp)
{
    size_t i = 0, j = 0;
    *default_ulp = 0;
    return other_layout(source, target, &i) || other_layout(target, source, &j);
}

static void bnb_pair_check(const pc_input *source, const pc_input *target, pc_ctx *cx)
{
    pc_eval(cx, "BNB-007");
    const pc_input *side[2] = {source, target};
    const char *label[2] = {"source", "target"};
    for (int k = 0; k < 2; k++) {
        const pc_module *o;
        for (size_t i = 0; (o = other_layout(side[k], side[1 - k], &i)); i++) {
            const bnb_mod *b = side[k]->modules[i].priv;
            pc_report(cx, "BNB-007", o->prefix, -1,
                      "module %s is bitsandbytes %s in the %s (16 non-uniform codebook levels times a block absmax) and %s in the %s: "
                      "NF4 cannot be converted to an integer format without requantizing, so this is a different model",
                      o->prefix, b && b->fp4 ? "FP4" : "NF4", label[k], o->layout, label[1 - k]);
        }
    }
}

extern const pc_bench_entry pc_bnb_bench[]; /* bnb_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight", PC_PART_CODES},
    {".weight.absmax", PC_PART_COMPANION},
    {".weight.quant_map", PC_PART_COMPANION},
    {".weight.nested_absmax", PC_PART_COMPANION},
    {".weight.nested_quant_map", PC_PART_COMPANION},
    {".weight.quant_state.bitsandbytes__nf4", PC_PART_COMPANION | PC_PART_JSON},
    {".weight.quant_state.bitsandbytes__fp4", PC_PART_COMPANION | PC_PART_JSON},
    {NULL, 0},
};
const pc_format pc_format_bnb = {.parts = k_format_parts, .name = "bnb", .detect = bnb_detect, .check = bnb_check, .decode = bnb_decode, .decode_rows = bnb_decode_rows, .decode_rows_free = bnb_rows_free,
                                 .module_free = free, .explain = bnb_explain, .diag_params = bnb_diag_params,
                                 .pair_detect = bnb_pair_detect, .pair_check = bnb_pair_check, .bench = pc_bnb_bench};
