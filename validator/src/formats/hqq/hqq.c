/* Format module: HQQ (mobiusml/hqq 0.2.8, hqq/core/quantize.py HQQLinear, bitpack.py BitPack).
 *
 * Per module M, HQQLinear's encoded state dict (encode_safetensor_type: metadata as small tensors):
 * M.W_q (packed codes: U8, or I32 for 3 bits; with view_as_float the same bytes viewed as the compute
 * dtype, F16/BF16/F32), M.scale and M.zero (one per group, floats), M.nbits, M.group_size, M.axis (I32
 * scalars), M.shape (I64 [2]: out, in), M.packing ("4bit_u8"... as U8 bytes), M.view_as_float (U8),
 * M.compute_dtype ("torch.float16"... as U8 bytes), and flags. No quantization_config: hqq writes none,
 * so the module is recognised by these tensors.
 *
 * Geometry: the weight [N, K] is reshaped to groups, [R, C] = [N*K/g, g] for axis 1 (groups are rows),
 * [g, N*K/g] for axis 0 (groups are columns), then packed by rows (formats/hqq/kernels.h).
 * Logical view (CONTRACT 3): element (n, k) is reshaped element i = n*K + k; codes = q as stored;
 * w = rT(rT(q - z) * s), T the compute dtype (float16 when absent, Quantizer.dequantize's default),
 * z and s the group's zero and scale converted to T (Quantizer.cuda moves float meta to T). */
#include "formats/format.h"

#include "core/arith.h"
#include "core/util.h"
#include "formats/diag_util.h"
#include "formats/qlinear.h"
#include "formats/row_decode.h"
#include "kernels.h"
#include "kernels/oracle/round.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_hqq;

#define HQQ_LAYOUT "hqq"
#define HQQ_TENSOR_LIMIT (1ull << 30)

typedef struct hqq_mod {
    const pc_tensor *wq, *scale, *zero;
    unsigned bits, unit_bits; /* nbits, and the field width of the packing (8 for nbits 5 and 6) */
    int axis;
    uint64_t N, K, group, R, C;
    pc_round_t t;
} hqq_mod;

/* hqq's Quantizer.bit_to_packing for the widths it bit-packs. */
static const char *packing_for(long long nbits)
{
    switch (nbits) {
    case 8: case 6: case 5: return "8bit_u8"; /* 5 and 6 bits: one code per byte ("todo: bitpacking") */
    case 4: return "4bit_u8";
    case 3: return "3bit_32";
    case 2: return "2bit_u8";
    case 1: return "1bit_u8";
    default: return NULL;
    }
}

/* A scalar integer metadata tensor (I32 or I64, one element). */
static bool meta_int(const pc_input *in, const char *prefix, const char *part, long long *out)
{
    const pc_tensor *t = pc_input_find_part(in, prefix, part);
    if (!t || t->numel != 1 || (t->dtype != PC_DT_I32 && t->dtype != PC_DT_I64)) return false;
    uint8_t b[8] = {0};
    if (pc_tensor_read(t, 0, b, t->dtype == PC_DT_I32 ? 4 : 8)) return false;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | b[i];
    *out = t->dtype == PC_DT_I32 ? (long long)(int32_t)(uint32_t)u : (long long)(int64_t)u;
    return true;
}

/* A string metadata tensor (U8 bytes, encode_safetensor_type's str), NUL-terminated into buf. */
static bool meta_str(const pc_input *in, const char *prefix, const char *part, char *buf, size_t n)
{
    const pc_tensor *t = pc_input_find_part(in, prefix, part);
    if (!t || t->dtype != PC_DT_U8 || t->ndim != 1 || t->numel >= n || pc_tensor_read(t, 0, buf, (size_t)t->numel)) return false;
    buf[t->numel] = 0;
    return strlen(buf) == t->numel;
}

static bool compute_type(const pc_input *in, const char *prefix, pc_round_t *t)
{
    char s[32];
    if (!pc_input_find_part(in, prefix, ".compute_dtype")) { *t = PC_ROUND_F16; return true; } /* hqq's default */
    if (!meta_str(in, prefix, ".compute_dtype", s, sizeof s)) return false;
    if (!strcmp(s, "torch.float16")) *t = PC_ROUND_F16;
    else if (!strcmp(s, "torch.bfloat16")) *t = PC_ROUND_BF16;
    else if (!strcmp(s, "torch.float32")) *t = PC_ROUND_F32;
    else return false;
    return true;
}

/* HQQ-001: the metadata says one consistent thing: nbits bit-packed, packing = hqq's name for it,
 * axis 0 or 1, shape two positive dims, group_size dividing their product, a known compute dtype. */
static bool check_meta(const pc_input *in, const char *prefix, hqq_mod *m, pc_ctx *cx)
{
    long long nbits, group, axis, shape[2];
    char packing[16];
    const pc_tensor *st = pc_input_find_part(in, prefix, ".shape");
    uint8_t sb[16];
    const pc_tensor *nb = pc_input_find_part(in, prefix, ".nbits");
    int64_t at = nb ? (int64_t)nb->offset : -1;
    if (!meta_int(in, prefix, ".nbits", &nbits) || !meta_int(in, prefix, ".group_size", &group) ||
        !meta_int(in, prefix, ".axis", &axis) || !meta_str(in, prefix, ".packing", packing, sizeof packing) || !st ||
        st->dtype != PC_DT_I64 || st->numel != 2 || pc_tensor_read(st, 0, sb, 16)) {
        pc_report(cx, "HQQ-001", prefix, at, "nbits, group_size, axis (int scalars), packing (bytes) and shape (I64 [2]) must all be present");
        return false;
    }
    for (int i = 0; i < 2; i++) {
        uint64_t u = 0;
        for (int j = 7; j >= 0; j--) u = u << 8 | sb[8 * i + j];
        shape[i] = (long long)(int64_t)u;
    }
    const char *want = packing_for(nbits);
    uint64_t numel;
    if (!want || strcmp(packing, want)) {
        pc_report(cx, "HQQ-001", prefix, at, "nbits %lld with packing \"%s\": hqq packs nbits 1, 2, 3, 4, 5, 6, 8 as 1bit_u8, 2bit_u8, 3bit_32, 4bit_u8, 8bit_u8 (5, 6, 8)",
                  nbits, packing);
        return false;
    }
    if (axis != 0 && axis != 1) { pc_report(cx, "HQQ-001", prefix, at, "axis %lld (hqq groups along axis 0 or 1)", axis); return false; }
    if (shape[0] <= 0 || shape[1] <= 0 || !pc_mul_u64((uint64_t)shape[0], (uint64_t)shape[1], &numel) ||
        numel > PC_LOGICAL_MAX_ELEMS || group <= 0 || numel % (uint64_t)group) {
        pc_report(cx, "HQQ-001", prefix, (int64_t)st->offset, "shape [%lld, %lld] with group_size %lld: the groups must tile the weight",
                  shape[0], shape[1], group);
        return false;
    }
    if (!compute_type(in, prefix, &m->t)) {
        pc_report(cx, "HQQ-001", prefix, at, "compute_dtype is not torch.float16, torch.bfloat16 or torch.float32");
        return false;
    }
    m->bits = (unsigned)nbits;
    m->unit_bits = nbits >= 5 ? 8 : (unsigned)nbits;
    m->axis = (int)axis;
    m->N = (uint64_t)shape[0];
    m->K = (uint64_t)shape[1];
    m->group = (uint64_t)group;
    m->R = axis == 1 ? numel / m->group : m->group;
    m->C = numel / m->R;
    return true;
}

/* HQQ-002: W_q holds exactly the packed units, as raw integers or (view_as_float) the compute dtype. */
static bool check_wq(const pc_input *in, const char *prefix, hqq_mod *m, pc_ctx *cx)
{
    long long vaf = 0;
    const pc_tensor *v = pc_input_find_part(in, prefix, ".view_as_float");
    uint8_t vb = 0;
    if (v && v->dtype == PC_DT_U8 && v->numel == 1 && !pc_tensor_read(v, 0, &vb, 1)) vaf = vb;
    m->wq = pc_input_find_part(in, prefix, ".W_q");
    unsigned S = pc_hqq_slots(m->unit_bits), unit = m->unit_bits == 3 ? 4 : 1;
    pc_dtype raw = m->unit_bits == 3 ? PC_DT_I32 : PC_DT_U8;
    pc_dtype as_float = m->t == PC_ROUND_F16 ? PC_DT_F16 : m->t == PC_ROUND_BF16 ? PC_DT_BF16 : PC_DT_F32;
    uint64_t want = pc_hqq_packed_rows(m->unit_bits, (size_t)m->R) * m->C * unit;
    if (m->unit_bits != 3 && m->R % S) {
        pc_report(cx, "HQQ-002", prefix, m->wq ? (int64_t)m->wq->offset : -1, "%llu rows of groups do not split into %u row blocks (hqq's pack_%ubit_u8 needs R %% %u == 0)",
                  (unsigned long long)m->R, S, m->unit_bits, S);
        return false;
    }
    if (!m->wq || m->wq->nbytes != want || m->wq->dtype != (vaf ? as_float : raw)) {
        pc_report(cx, "HQQ-002", m->wq ? m->wq->name : prefix, m->wq ? (int64_t)m->wq->offset : -1,
                  "W_q must be %llu bytes of %s (%llu packed rows x %llu)%s; found %llu bytes of %s",
                  (unsigned long long)want, pc_dtype_name(vaf ? as_float : raw), (unsigned long long)pc_hqq_packed_rows(m->unit_bits, (size_t)m->R),
                  (unsigned long long)m->C, vaf ? ", viewed as the compute dtype (view_as_float)" : "",
                  (unsigned long long)(m->wq ? m->wq->nbytes : 0), m->wq ? pc_dtype_name(m->wq->dtype) : "nothing");
        return false;
    }
    return true;
}

/* HQQ-003 and HQQ-004: one float scale and zero point per group ([R, 1] for axis 1, [1, C] for
 * axis 0), all finite. */
static bool check_group_tensor(const pc_input *in, const char *prefix, const char *part, const hqq_mod *m,
                               const pc_tensor **out, pc_ctx *cx)
{
    const pc_tensor *t = pc_input_find_part(in, prefix, part);
    uint64_t rows = m->axis == 1 ? m->R : 1, cols = m->axis == 1 ? 1 : m->C;
    if (!t || !ql_float_dtype(t->dtype) || t->ndim != 2 || t->shape[0] != rows || t->shape[1] != cols) {
        pc_report(cx, "HQQ-003", t ? t->name : prefix, t ? (int64_t)t->offset : -1, "%s must be a float [%llu, %llu]: one per group of %llu",
                  part + 1, (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)m->group);
        return false;
    }
    float *v = ql_load_f32(t, t->numel, HQQ_TENSOR_LIMIT);
    if (!v) { pc_io_error(cx, "%s: cannot read", t->name); return false; }
    for (uint64_t i = 0; i < t->numel; i++)
        if (!isfinite(v[i])) {
            pc_report(cx, "HQQ-004", t->name, (int64_t)(t->offset + i * (pc_dtype_bits(t->dtype) / 8)), "%s of group %llu is %g",
                      part + 1, (unsigned long long)i, (double)v[i]);
            free(v);
            return false;
        }
    free(v);
    *out = t;
    return true;
}

static bool hqq_module_name(const pc_input *in, const pc_tensor *t, char *prefix, size_t n)
{
    size_t len = strlen(t->name);
    if (len < 5 || len - 4 >= n || strcmp(t->name + len - 4, ".W_q")) return false;
    memcpy(prefix, t->name, len - 4);
    prefix[len - 4] = 0;
    return pc_input_find_part(in, prefix, ".nbits") && pc_input_find_part(in, prefix, ".scale");
}

/* hqq's 1.58-bit mode stores nbits as a float (encode_safetensor_type of 1.58): a scheme this version
 * recognises but does not decode, so its tensors end unchecked, not rejected. */
static bool ternary_nbits(const pc_input *in, const char *prefix)
{
    const pc_tensor *t = pc_input_find_part(in, prefix, ".nbits");
    return t && ql_float_dtype(t->dtype);
}

static void check_module(pc_input *in, const char *prefix, pc_ctx *cx)
{
    if (ternary_nbits(in, prefix)) { pc_input_note_layout(in, HQQ_LAYOUT); return; }
    static const char *const k_rules[] = {"HQQ-001", "HQQ-002", "HQQ-003", "HQQ-004", NULL};
    for (const char *const *r = k_rules; *r; r++) pc_eval(cx, *r);
    hqq_mod m = {0};
    bool ok = check_meta(in, prefix, &m, cx) && check_wq(in, prefix, &m, cx) &&
              check_group_tensor(in, prefix, ".scale", &m, &m.scale, cx) &&
              check_group_tensor(in, prefix, ".zero", &m, &m.zero, cx);
    pc_input_note_layout(in, HQQ_LAYOUT);
    if (!ok) return;
    pc_module *pm = pc_module_add_with(in, &pc_format_hqq, prefix, HQQ_LAYOUT, &m, sizeof m, cx);
    if (!pm) return;
    pc_module_set_matrix(pm, m.N, m.K, m.bits);
    pc_module_claim_parts(in, &pc_format_hqq, prefix, HQQ_LAYOUT);
}

static bool hqq_detect(const pc_input *in)
{
    char p[1024];
    for (size_t i = 0; i < in->ntensors; i++)
        if (hqq_module_name(in, &in->tensors[i], p, sizeof p)) return true;
    return false;
}

static void hqq_check(pc_input *in, pc_ctx *cx)
{
    char p[1024];
    for (size_t i = 0; i < in->ntensors; i++)
        if (hqq_module_name(in, &in->tensors[i], p, sizeof p)) check_module(in, p, cx);
}

/* f32 values of T (the compute dtype): hqq converts the stored scale and zero to T first. */
static float *load_in_t(const pc_tensor *t, pc_round_t rt)
{
    float *v = ql_load_f32(t, t->numel, HQQ_TENSOR_LIMIT);
    for (uint64_t i = 0; v && rt != PC_ROUND_F32 && i < t->numel; i++) v[i] = pc_oracle_round_to(v[i], rt);
    return v;
}

static int hqq_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const hqq_mod *m = pm->priv;
    size_t n = (size_t)pm->numel;
    uint8_t *raw = pc_tensor_load(m->wq, HQQ_TENSOR_LIMIT), *q = codes ? codes : malloc(n ? n : 1);
    float *z = weights ? load_in_t(m->zero, m->t) : NULL, *s = weights ? load_in_t(m->scale, m->t) : NULL;
    int rc = -1;
    if (!raw || !q || (weights && (!z || !s))) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
    } else {
        pc_hqq_unpack(impl)(raw, m->unit_bits, (size_t)m->R, (size_t)m->C, q);
        if (weights) pc_hqq_dequant(impl)(q, (size_t)m->R, (size_t)m->C, m->axis, z, s, m->t, weights);
        rc = 0;
    }
    free(raw); free(z); free(s);
    if (q != codes) free(q);
    return rc;
}

/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* A slice of view rows is a flat range of the reshaped [R, C] matrix (same element order), but
 * BitPack interleaves row blocks: reshaped row r is slot r / P of packed row r % P. The range is
 * cut into pieces, each either whole reshaped rows of one slot block (packed rows contiguous) or
 * part of one reshaped row (axis 0's rows are numel / group long, so a slice is inside one or
 * two). A piece of nr rows x nc columns reads its packed rows' columns, unpacks them with the same
 * kernel as an S * nr-row matrix (its slot blocks are then nr rows each) and keeps its own slot
 * block, then dequantizes with the same kernel against its groups' zero points and scales: the
 * whole decode's bytes, at the price of unpacking S - 1 unneeded slot blocks (S = 8 / b, 10 for
 * 3 bits; codes are a fifth of the bytes unpack writes). */
typedef struct hqq_rows {
    float *z, *s;
    uint8_t *buf;    /* packed piece, then its S slot blocks unpacked */
    size_t cap;
} hqq_rows;

static void hqq_rows_free(void *p)
{
    hqq_rows *r = p;
    if (r) { free(r->z); free(r->s); free(r->buf); }
    free(r);
}

/* Reshaped rows [r, r + nr) (one slot block), columns [c0, c0 + nc) into codes/w (dense, either NULL). */
static int hqq_piece(const hqq_mod *m, hqq_rows *st, pc_impl impl, uint64_t r, uint64_t nr, uint64_t c0, uint64_t nc,
                     uint8_t *codes, float *w, pc_ctx *cx)
{
    unsigned S = pc_hqq_slots(m->unit_bits), unit = m->unit_bits == 3 ? 4 : 1;
    uint64_t P = pc_hqq_packed_rows(m->unit_bits, (size_t)m->R), p = r % P, j = r / P;
    size_t pb = (size_t)(nr * nc * unit), cnt = (size_t)(nr * nc);
    if (!pc_rows_buf(&st->buf, &st->cap, pb + S * cnt, cx)) return -1;
    for (uint64_t i = 0; i < nr; i += nc == m->C ? nr : 1) /* whole rows: one read; else one per row */
        if (pc_tensor_read(m->wq, ((p + i) * m->C + c0) * unit, st->buf + i * nc * unit, nc == m->C ? pb : (size_t)(nc * unit))) {
            pc_io_error(cx, "%s: cannot read", m->wq->name);
            return -1;
        }
    uint8_t *q = st->buf + pb;
    pc_hqq_unpack(impl)(st->buf, m->unit_bits, (size_t)(S * nr), (size_t)nc, q);
    q += j * cnt;
    if (codes) memcpy(codes, q, cnt);
    uint64_t g = m->axis == 1 ? r : c0;
    if (w) pc_hqq_dequant(impl)(q, (size_t)nr, (size_t)nc, m->axis, st->z + g, st->s + g, m->t, w);
    return 0;
}

static int hqq_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                           uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const hqq_mod *m = pm->priv;
    hqq_rows *st = *state;
    if (!st && !(st = *state = calloc(1, sizeof *st))) { cx->oom = true; return -1; }
    if (weights && !st->z && (!(st->z = load_in_t(m->zero, m->t)) || !(st->s = load_in_t(m->scale, m->t)))) {
        pc_io_error(cx, "%s: cannot read the zero points and scales", pm->prefix);
        return -1;
    }
    uint64_t K = pm->shape[pm->ndim - 1], e0 = r0 * K, e1 = (r0 + n) * K;
    uint64_t P = pc_hqq_packed_rows(m->unit_bits, (size_t)m->R);
    for (uint64_t at = e0; at < e1;) {
        uint64_t r = at / m->C, c0 = at % m->C, nr = 1, nc = m->C - c0;
        if (nc > e1 - at) nc = e1 - at;
        if (c0 == 0 && nc == m->C) { /* whole rows, up to the end of the range or of the slot block */
            nr = (e1 - at) / m->C;
            if (nr > (r / P + 1) * P - r) nr = (r / P + 1) * P - r;
        }
        uint64_t o = at - e0;
        if (hqq_piece(m, st, impl, r, nr, c0, nc, codes ? codes + o : NULL, weights ? weights + o : NULL, cx)) return -1;
        at += nr * nc;
    }
    return 0;
}

/* Diagnosis: HQQ packs row blocks, so the elements that share a byte are P reshaped rows apart,
 * never neighbours; a nibble swap (4 bits) trades row r of the first half with row r + R/2. */
static int64_t hqq_nibble_partner(const pc_diag_layout *l, uint64_t N, uint64_t K, uint64_t e, uint64_t n, uint64_t k)
{
    (void)e;
    uint64_t C = l->format_param[0], half = l->format_param[1];
    uint64_t i = n * K + k, r = i / C;
    uint64_t r2 = r < half ? r + half : r - half;
    uint64_t j = r2 * C + i % C;
    return j < N * K ? (int64_t)j : -1;
}

static float hqq_affine(uint8_t q, float s, float z, int t)
{
    float d = pc_oracle_round_to((float)q - z, (pc_round_t)t);
    return pc_oracle_round_to(d * s, (pc_round_t)t);
}

static int hqq_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    (void)in;
    const hqq_mod *m = pm->priv;
    p->kind = PC_DIAG_AFFINE;
    p->affine = hqq_affine;
    if (m && m->bits == 4) {
        p->lay.nibble = PC_NIB_FORMAT;
        p->lay.nibble_partner = hqq_nibble_partner;
        p->lay.format_param[0] = m->C;
        p->lay.format_param[1] = m->R / 2;
    }
    if (!want || !m) return 0;
    p->scale_type = (int)m->t;
    float *z = load_in_t(m->zero, m->t), *s = load_in_t(m->scale, m->t);
    int rc = !z || !s ? 1 : pc_diag_alloc(p, (size_t)pm->numel, -1);
    if (!rc && !(p->bias = malloc((size_t)pm->numel * sizeof *p->bias))) rc = -1;
    for (size_t i = 0; !rc && i < pm->numel; i++) {
        size_t g = m->axis == 1 ? i / m->C : i % m->C;
        p->s[i] = s[g];
        p->bias[i] = z[g]; /* the affine formula's third operand is the zero point */
    }
    if (rc > 0) snprintf(p->note, sizeof p->note, "HQQ scale or zero unreadable");
    free(z); free(s);
    return rc;
}

/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".W_q", PC_PART_CODES}, {".scale", PC_PART_COMPANION}, {".zero", PC_PART_COMPANION},
    {".nbits", PC_PART_COMPANION}, {".group_size", PC_PART_COMPANION}, {".axis", PC_PART_COMPANION},
    {".shape", PC_PART_COMPANION}, {".packing", PC_PART_COMPANION}, {".unpack_view_dtype", PC_PART_COMPANION},
    {".view_as_float", PC_PART_COMPANION}, {".compute_dtype", PC_PART_COMPANION}, {".quant_scale", PC_PART_COMPANION},
    {".quant_zero", PC_PART_COMPANION}, {".offload_meta", PC_PART_COMPANION}, {".encoded_state_dict", PC_PART_COMPANION},
    {".stores_quant_config", PC_PART_COMPANION}, {".channel_wise", PC_PART_COMPANION}, {".optimize", PC_PART_COMPANION},
    {".round_zero", PC_PART_COMPANION}, {NULL, 0},
};

extern const pc_bench_entry pc_hqq_bench[];
const pc_format pc_format_hqq = {.name = "hqq", .parts = k_format_parts, .detect = hqq_detect, .check = hqq_check,
                                 .decode = hqq_decode, .decode_rows = hqq_decode_rows, .decode_rows_free = hqq_rows_free, .module_free = free, .diag_params = hqq_diag_params,
                                 .bench = pc_hqq_bench};
