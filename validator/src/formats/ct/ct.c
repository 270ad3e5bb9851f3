/* Format module: compressed-tensors int pack-quantized (FORMATS.md 3), layouts ct-dense
 * (>= 0.18.0: one LE bit stream per row, fields straddle words) and ct-legacy (0.5 .. 0.17.x:
 * floor(32/b) whole fields per int32 word, top bits zero).
 *
 * A module is a tensor-name prefix M with M.weight_packed whose scheme (from config.json's
 * quantization_config, see ct_config.c) has format pack-quantized. NVFP4 modules
 * (nvfp4-pack-quantized, U8 weight_packed) belong to nvfp4.c and are left alone here.
 *
 * check() evaluates every CT rule on every module and keeps the modules that break no MUST rule
 * for decode(), which writes the logical view (CONTRACT 3): codes u as stored, and
 * w = f32(q - zp) * f32(scale) with q = u - 2^(b-1). */
#include "ct.h"

#include "../../core/arith.h"
#include "../../core/scan.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "../../kernels/kernels.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Companion tensors are small next to the weight; refuse to load one above this. */
#define CT_AUX_MAX_BYTES (256ull << 20)
/* Rows of weight_packed are scanned in chunks of about this many bytes. */
#define CT_SCAN_CHUNK (1u << 20)

extern const pc_format pc_format_ct;

typedef struct ct_mod {
    ct_scheme s;
    unsigned b;
    ct_layout layout;
    int ndim;                  /* 2, or 3 for [E, N, K] */
    uint64_t E, N, K, W;       /* E = 1 for 2-D; W = packed words per row */
    uint64_t G;                /* last dim of the scale: groups (group), 1 (channel), blocks (block) */
    uint64_t scale_rows;       /* scale's row count per expert: N, or ceil(N / bh) for block */
    uint64_t zpW;              /* packed zero-point rows (group, channel) */
    const pc_tensor *packed, *scale, *zp, *gidx;
} ct_mod;

static const char *layout_name(ct_layout l) { return l == CT_LAYOUT_DENSE ? "ct-dense" : "ct-legacy"; }

/* Packed words per row of `count` fields; false when count*b overflows. */
static bool row_words(ct_layout l, unsigned b, uint64_t count, uint64_t *w)
{
    uint64_t bits;
    if (l == CT_LAYOUT_LEGACY) { *w = pc_ceil_div(count, 32 / b); return true; }
    if (!pc_mul_u64(count, b, &bits)) return false;
    *w = pc_ceil_div(bits, 32);
    return true;
}

static size_t fail_count(const pc_ctx *cx)
{
    size_t n = 0;
    for (size_t i = 0; i < cx->nfindings; i++) n += cx->findings[i].status == PC_STATUS_FAIL;
    return n;
}

static char *tname(const char *prefix, const char *suffix) { return pc_asprintf("%s.%s", prefix, suffix); }

static bool is_int_dtype(pc_dtype d)
{
    return d == PC_DT_I8 || d == PC_DT_I16 || d == PC_DT_I32 || d == PC_DT_I64 || d == PC_DT_U8 || d == PC_DT_U16 ||
           d == PC_DT_U32 || d == PC_DT_U64;
}

/* Element i of an integer tensor's raw bytes, sign- or zero-extended. */
static int64_t int_at(pc_dtype d, const uint8_t *p, uint64_t i)
{
    switch (d) {
    case PC_DT_I8: return (int8_t)p[i];
    case PC_DT_U8: return p[i];
    case PC_DT_I16: return (int16_t)pc_le16(p + 2 * i);
    case PC_DT_U16: return pc_le16(p + 2 * i);
    case PC_DT_I32: return (int32_t)pc_le32(p + 4 * i);
    case PC_DT_U32: return pc_le32(p + 4 * i);
    case PC_DT_I64: return (int64_t)pc_le64(p + 8 * i);
    default: { uint64_t v = pc_le64(p + 8 * i); return v > INT64_MAX ? -1 : (int64_t)v; } /* U64 */
    }
}

static bool scale_dtype_ok(pc_dtype d)
{
    return d == PC_DT_F32 || d == PC_DT_F16 || d == PC_DT_BF16 || d == PC_DT_F64 || d == PC_DT_F8_E4M3 || d == PC_DT_F8_E5M2;
}

/* Element i of a floating tensor as f32 (exact except F64, which rounds to nearest). */
static float float_at(pc_dtype d, const uint8_t *p, uint64_t i)
{
    switch (d) {
    case PC_DT_F32: { uint32_t u = pc_le32(p + 4 * i); float f; memcpy(&f, &u, 4); return f; }
    case PC_DT_F16: return pc_f16_to_f32(pc_le16(p + 2 * i));
    case PC_DT_BF16: return pc_bf16_to_f32(pc_le16(p + 2 * i));
    case PC_DT_F64: { uint64_t u = pc_le64(p + 8 * i); double f; memcpy(&f, &u, 8); return (float)f; }
    case PC_DT_F8_E4M3: return pc_f8e4m3_to_f32(p[i]);
    default: return pc_f16_to_f32((uint16_t)(p[i] << 8)); /* F8_E5M2 is the top byte of an f16 */
    }
}

static bool shape_is(const pc_tensor *t, int ndim, const uint64_t *dims)
{
    if (t->ndim != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (t->shape[i] != dims[i]) return false;
    return true;
}

static void shape_str(char *buf, size_t n, int ndim, const uint64_t *dims)
{
    size_t at = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && at < n; i++) at += (size_t)snprintf(buf + at, n - at, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    if (at < n) snprintf(buf + at, n - at, "]");
}

/* ------------------------------------------------------------------------------------------------
 * CT-004: weight_shape, and the packed tensor's leading dimensions
 * --------------------------------------------------------------------------------------------- */

static bool check_weight_shape(const pc_input *in, const char *prefix, ct_mod *m, pc_ctx *cx)
{
    char *name = tname(prefix, "weight_shape");
    const pc_tensor *t = name ? pc_input_find(in, name) : NULL;
    bool ok = false;
    uint8_t raw[24];
    int64_t v[3];
    pc_eval(cx, "CT-004");
    if (!name) { cx->oom = true; return false; }
    if (!t) pc_report(cx, "CT-004", name, -1, "weight_shape is missing: the logical shape cannot be known");
    else if (!is_int_dtype(t->dtype)) pc_report(cx, "CT-004", name, (int64_t)t->offset, "weight_shape is %s, not an integer tensor", pc_dtype_name(t->dtype));
    else if (t->ndim != 1 || (t->shape[0] != 2 && t->shape[0] != 3))
        pc_report(cx, "CT-004", name, (int64_t)t->offset, "weight_shape must hold 2 or 3 entries (rank 1), not rank %d", t->ndim);
    else if (pc_tensor_read(t, 0, raw, (size_t)t->nbytes)) pc_io_error(cx, "%s: cannot read", name);
    else {
        ok = true;
        m->ndim = (int)t->shape[0];
        for (int i = 0; i < m->ndim && ok; i++) {
            v[i] = int_at(t->dtype, raw, (uint64_t)i);
            if (v[i] <= 0) {
                pc_report(cx, "CT-004", name, (int64_t)t->offset, "weight_shape[%d] = %lld is not positive", i, (long long)v[i]);
                ok = false;
            }
        }
        if (ok) {
            m->E = m->ndim == 3 ? (uint64_t)v[0] : 1;
            m->N = (uint64_t)v[m->ndim - 2];
            m->K = (uint64_t)v[m->ndim - 1];
        }
    }
    free(name);
    return ok;
}

/* CT-011 (dtype, rank) and CT-004 (rows and experts agree with weight_shape). */
static bool check_packed_dims(const char *pname, const pc_tensor *p, ct_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "CT-011");
    if (p->dtype != PC_DT_I32) {
        pc_report(cx, "CT-011", pname, (int64_t)p->offset, "weight_packed is %s, not I32", pc_dtype_name(p->dtype));
        return false;
    }
    if (p->ndim != m->ndim) {
        pc_report(cx, "CT-011", pname, (int64_t)p->offset, "weight_packed has rank %d but weight_shape has %d entries", p->ndim, m->ndim);
        return false;
    }
    if (m->ndim == 3 && p->shape[0] != m->E) {
        pc_report(cx, "CT-004", pname, (int64_t)p->offset, "weight_packed holds %llu experts, weight_shape says %llu",
                  (unsigned long long)p->shape[0], (unsigned long long)m->E);
        return false;
    }
    if (p->shape[m->ndim - 2] != m->N) {
        pc_report(cx, "CT-004", pname, (int64_t)p->offset, "weight_packed has %llu rows, weight_shape says %llu",
                  (unsigned long long)p->shape[m->ndim - 2], (unsigned long long)m->N);
        return false;
    }
    uint64_t en, numel;
    if (!pc_mul_u64(m->E, m->N, &en) || !pc_mul_u64(en, m->K, &numel)) {
        pc_report(cx, "CT-004", pname, (int64_t)p->offset, "weight_shape's element count overflows 64 bits");
        return false;
    }
    m->W = p->shape[m->ndim - 1];
    return true;
}

/* ------------------------------------------------------------------------------------------------
 * Which layout: version first, else the packed width (CT-004, CT-012, CT-013; FORMATS.md 3.5)
 * --------------------------------------------------------------------------------------------- */

/* When K's two widths coincide, a packed zero point (group, channel) may still tell: its stream runs
 * over N, whose widths can differ (FORMATS.md 3.5). */
static bool zero_point_hint(const pc_input *in, const char *prefix, const ct_mod *m, ct_layout *out)
{
    uint64_t nd, nl;
    if (m->s.symmetric || (m->s.strategy != CT_STRAT_GROUP && m->s.strategy != CT_STRAT_CHANNEL)) return false;
    if (!row_words(CT_LAYOUT_DENSE, m->b, m->N, &nd) || !row_words(CT_LAYOUT_LEGACY, m->b, m->N, &nl) || nd == nl) return false;
    char *name = tname(prefix, "weight_zero_point");
    const pc_tensor *t = name ? pc_input_find(in, name) : NULL;
    free(name);
    if (!t || t->dtype != PC_DT_I32 || t->ndim != m->ndim) return false;
    uint64_t wn = t->shape[m->ndim - 2];
    if (wn != nd && wn != nl) return false; /* CT-019 will say why */
    *out = wn == nd ? CT_LAYOUT_DENSE : CT_LAYOUT_LEGACY;
    return true;
}

static bool decide_layout(const pc_input *in, const char *prefix, const ct_config *c, const char *pname, const pc_tensor *p,
                          ct_mod *m, pc_ctx *cx)
{
    uint64_t wd, wl;
    pc_eval(cx, "CT-012");
    pc_eval(cx, "CT-013");
    if (!row_words(CT_LAYOUT_DENSE, m->b, m->K, &wd) || !row_words(CT_LAYOUT_LEGACY, m->b, m->K, &wl)) {
        pc_report(cx, "CT-004", pname, (int64_t)p->offset, "K = %llu is too large", (unsigned long long)m->K);
        return false;
    }
    if (m->W != wd && m->W != wl) {
        pc_report(cx, "CT-004", pname, (int64_t)p->offset,
                  "packed width %llu does not fit K = %llu at %u bits (ct-dense needs %llu words, ct-legacy %llu)",
                  (unsigned long long)m->W, (unsigned long long)m->K, m->b, (unsigned long long)wd, (unsigned long long)wl);
        return false;
    }
    if (c->version_says == CT_VER_DENSE || c->version_says == CT_VER_LEGACY) {
        ct_layout l = c->version_says == CT_VER_DENSE ? CT_LAYOUT_DENSE : CT_LAYOUT_LEGACY;
        uint64_t want = l == CT_LAYOUT_DENSE ? wd : wl;
        m->layout = l;
        if (m->W != want) {
            pc_report(cx, "CT-012", pname, (int64_t)p->offset,
                      "version \"%s\" means %s (%llu words for K = %llu at %u bits), but the packed width %llu fits only %s",
                      c->version, layout_name(l), (unsigned long long)want, (unsigned long long)m->K, m->b,
                      (unsigned long long)m->W, layout_name(l == CT_LAYOUT_DENSE ? CT_LAYOUT_LEGACY : CT_LAYOUT_DENSE));
            return false;
        }
        return true;
    }
    if (wd == wl && zero_point_hint(in, prefix, m, &m->layout)) return true;
    if (wd == wl) {
        m->layout = CT_LAYOUT_LEGACY;
        if (32 % m->b) /* 3, 5, 6, 7 bits: the layouts differ but the width cannot tell them apart */
            pc_report(cx, "CT-013", pname, (int64_t)p->offset,
                      "layout is ambiguous: %s, and K = %llu at %u bits gives %llu words in both layouts; assumed ct-legacy",
                      c->version_says == CT_VER_ABSENT ? "no version in the config" : "the version predates or may predate 0.18.0's dense packing",
                      (unsigned long long)m->K, m->b, (unsigned long long)m->W);
        return true;
    }
    m->layout = m->W == wd ? CT_LAYOUT_DENSE : CT_LAYOUT_LEGACY;
    return true;
}

/* ------------------------------------------------------------------------------------------------
 * Padding bits (CT-014 row tails, CT-015 legacy top bits)
 * --------------------------------------------------------------------------------------------- */

enum { PAD_TAIL = 1, PAD_TOP = 2 };

/* Word `idx` of a stream of W words holding `count` fields: which padding bits are set. */
static unsigned pad_violation(uint32_t w, uint64_t idx, uint64_t W, uint64_t count, unsigned b, ct_layout l)
{
    unsigned bad = 0;
    if (l == CT_LAYOUT_LEGACY) {
        unsigned pf = 32 / b, fbits = pf * b;
        if (fbits < 32 && (w >> fbits)) bad |= PAD_TOP;
        if (idx == W - 1) {
            unsigned used = (unsigned)(count - (uint64_t)pf * (W - 1)) * b; /* 1..fbits */
            uint32_t fields = fbits >= 32 ? ~0u : (1u << fbits) - 1;
            uint32_t live = used >= 32 ? ~0u : (1u << used) - 1;
            if (w & fields & ~live) bad |= PAD_TAIL;
        }
    } else if (idx == W - 1) {
        uint64_t used = count * b - 32 * (W - 1); /* 1..32; count*b checked by row_words */
        if (used < 32 && (w >> used)) bad |= PAD_TAIL;
    }
    return bad;
}

typedef struct pad_scan {
    const char *tensor;
    const pc_tensor *t;
    uint64_t first_off[3];     /* first offending byte offset per flag, or UINT64_MAX */
    uint64_t count[3];
} pad_scan;

static void pad_note(pad_scan *ps, unsigned bad, uint64_t byte_off)
{
    for (unsigned f = 1; f <= 2; f++)
        if (bad & f) {
            if (ps->count[f]++ == 0) ps->first_off[f] = byte_off;
        }
}

static void pad_report(const pad_scan *ps, const char *what, ct_layout l, unsigned b, pc_ctx *cx)
{
    if (ps->count[PAD_TAIL])
        pc_report(cx, "CT-014", ps->tensor, (int64_t)(ps->t->offset + ps->first_off[PAD_TAIL]),
                  "%llu %s end(s) carry set padding bits past the last field (first at byte %llu of the tensor)",
                  (unsigned long long)ps->count[PAD_TAIL], what, (unsigned long long)ps->first_off[PAD_TAIL]);
    if (ps->count[PAD_TOP])
        pc_report(cx, "CT-015", ps->tensor, (int64_t)(ps->t->offset + ps->first_off[PAD_TOP]),
                  "%llu word(s) have set bits above the %u whole %u-bit fields of %s (first at byte %llu of the tensor)",
                  (unsigned long long)ps->count[PAD_TOP], 32 / b, b, layout_name(l), (unsigned long long)ps->first_off[PAD_TOP]);
}

/* weight_packed: E*N rows of W words, each row a stream of K fields. The rows are not read here:
 * a scan of them joins the input's one streaming pass over each file (core/scan.h), so packed
 * data is read once, in bounded windows, in parallel with the other shards (and hashed in the same
 * pass under --hash). Dense rows whose K*b fills the last word have no padding bits: nothing to
 * read at all. */
typedef struct pad_job {
    pad_scan ps;
    uint64_t W, K;
    unsigned b;
    ct_layout layout;
} pad_job;

/* Legacy: every word's bits above its pf whole fields must be zero. OR-reducing the whole chunk
 * against that mask runs at memory speed (the compiler vectorises it); only a chunk with a set
 * bit is walked word by word to count and locate them. */
static bool legacy_top_clean(const uint8_t *p, size_t n, unsigned b)
{
    unsigned fbits = (32 / b) * b;
    if (fbits == 32) return true;
    uint64_t top32 = 0xFFFFFFFFull & ~((1ull << fbits) - 1), top = top32 | top32 << 32, acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        acc |= v & top;
    }
    if (i < n) acc |= (uint64_t)pc_le32(p + i) & top32; /* n is a multiple of 4 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return false; /* the 8-byte loads above assumed little-endian: take the exact path */
#else
    return acc == 0;
#endif
}

static int pad_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    pad_job *j = arg;
    uint64_t rb = j->W * 4, from = j->W - 1; /* dense rows only have padding in their last word */
    if (j->layout == CT_LAYOUT_LEGACY && !legacy_top_clean(p, n / rb * rb, j->b)) from = 0;
    for (size_t at = 0; at + rb <= n; at += rb)
        for (uint64_t w = from; w < j->W; w++) {
            unsigned bad = pad_violation(pc_le32(p + at + 4 * w), w, j->W, j->K, j->b, j->layout);
            if (bad) pad_note(&j->ps, bad, off + at + 4 * w);
        }
    return 0;
}

static void pad_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    pad_job *j = arg;
    pad_report(&j->ps, "row", j->layout, j->b, cx);
}

/* Rows longer than a scan unit (> 1 MiB): read here in bounded chunks. */
static void check_packed_padding_now(const char *pname, const ct_mod *m, pc_ctx *cx)
{
    pad_scan ps = {pname, m->packed, {0}, {0}};
    uint64_t rows = m->E * m->N, row_bytes = m->W * 4;
    uint64_t per = row_bytes >= CT_SCAN_CHUNK ? 1 : CT_SCAN_CHUNK / row_bytes;
    uint8_t *buf = malloc((size_t)(per * row_bytes));
    if (!buf) { cx->oom = true; return; }
    for (uint64_t r = 0; r < rows; r += per) {
        uint64_t n = rows - r < per ? rows - r : per;
        if (pc_tensor_read(m->packed, r * row_bytes, buf, (size_t)(n * row_bytes))) { pc_io_error(cx, "%s: cannot read", pname); break; }
        for (uint64_t i = 0; i < n; i++) {
            const uint8_t *row = buf + i * row_bytes;
            uint64_t from = m->layout == CT_LAYOUT_LEGACY ? 0 : m->W - 1;
            for (uint64_t w = from; w < m->W; w++) {
                unsigned bad = pad_violation(pc_le32(row + 4 * w), w, m->W, m->K, m->b, m->layout);
                if (bad) pad_note(&ps, bad, (r + i) * row_bytes + 4 * w);
            }
        }
    }
    free(buf);
    pad_report(&ps, "row", m->layout, m->b, cx);
}

static void check_packed_padding(pc_input *in, const char *pname, const ct_mod *m, pc_ctx *cx)
{
    uint64_t rows = m->E * m->N, row_bytes = m->W * 4;
    pc_eval(cx, "CT-014");
    if (m->layout == CT_LAYOUT_LEGACY) pc_eval(cx, "CT-015");
    else if (m->K * m->b == 32 * m->W) return; /* dense, no padding bits */
    if (row_bytes > PC_SCAN_MAX_UNIT) { check_packed_padding_now(pname, m, cx); return; }
    pad_job *j = malloc(sizeof *j);
    if (!j) { cx->oom = true; return; }
    *j = (pad_job){{m->packed->name, m->packed, {0}, {0}}, m->W, m->K, m->b, m->layout};
    uint64_t span = rows * row_bytes <= m->packed->nbytes ? rows * row_bytes : m->packed->nbytes / row_bytes * row_bytes;
    if (pc_scan_add(in, m->packed, 0, span, (size_t)row_bytes, pad_chunk, pad_finish, free, j)) {
        free(j);
        cx->oom = true;
    }
}

/* ------------------------------------------------------------------------------------------------
 * weight_scale (CT-016, CT-017)
 * --------------------------------------------------------------------------------------------- */

/* The scale's shape the strategy implies: [E,] rows, G. Tensor strategy is [1] ([E, 1] for MoE). */
static int expected_scale_shape(const ct_mod *m, uint64_t *dims)
{
    int n = 0;
    if (m->ndim == 3) dims[n++] = m->E;
    if (m->s.strategy == CT_STRAT_TENSOR) { dims[n++] = 1; return n; }
    dims[n++] = m->scale_rows;
    dims[n++] = m->G;
    return n;
}

static bool check_scale(pc_input *in, const char *prefix, ct_mod *m, pc_ctx *cx)
{
    char *name = tname(prefix, "weight_scale"), sbuf[96], want[96];
    if (!name) { cx->oom = true; return false; }
    const pc_tensor *t = pc_input_find(in, name);
    uint64_t dims[3];
    int nd;
    bool ok = false;
    switch (m->s.strategy) {
    case CT_STRAT_TENSOR: m->scale_rows = 1; m->G = 1; break;
    case CT_STRAT_CHANNEL: m->scale_rows = m->N; m->G = 1; break;
    case CT_STRAT_GROUP: m->scale_rows = m->N; m->G = pc_ceil_div(m->K, (uint64_t)m->s.group_size); break;
    default: m->scale_rows = pc_ceil_div(m->N, (uint64_t)m->s.block[0]); m->G = pc_ceil_div(m->K, (uint64_t)m->s.block[1]); break;
    }
    nd = expected_scale_shape(m, dims);
    shape_str(want, sizeof want, nd, dims);
    pc_eval(cx, "CT-016");
    if (!t) pc_report(cx, "CT-016", name, -1, "weight_scale is missing (strategy %s needs shape %s)", m->s.strategy_name, want);
    else if (!pc_dtype_is_float(t->dtype)) pc_report(cx, "CT-016", name, (int64_t)t->offset, "weight_scale is %s, not a floating dtype", pc_dtype_name(t->dtype));
    else if (!scale_dtype_ok(t->dtype)) pc_report(cx, "CT-016", name, (int64_t)t->offset, "weight_scale dtype %s is not one a pack-quantized scale uses (F32, F16, BF16, F64, F8_E4M3, F8_E5M2)", pc_dtype_name(t->dtype));
    else if (!shape_is(t, nd, dims)) {
        shape_str(sbuf, sizeof sbuf, t->ndim, t->shape);
        pc_report(cx, "CT-016", name, (int64_t)t->offset, "weight_scale has shape %s; strategy %s needs %s", sbuf, m->s.strategy_name, want);
    } else ok = true;
    m->scale = t;
    /* CT-017 through the streaming pass (core/scan_checks.c): count and first non-finite element. */
    if (ok && pc_scan_floats_finite(in, cx, t, "CT-017", false)) cx->oom = true;
    free(name);
    return ok;
}

/* ------------------------------------------------------------------------------------------------
 * weight_zero_point (CT-018, CT-019, and CT-014/CT-015 on its packed columns)
 * --------------------------------------------------------------------------------------------- */

/* Group and channel: I32 [E,] ceil-packed N, G; the stream runs down each column. */
static bool check_packed_zp(const char *name, const pc_tensor *t, ct_mod *m, pc_ctx *cx)
{
    uint64_t dims[3], wn;
    int nd = 0;
    char sbuf[96], want[96];
    if (!row_words(m->layout, m->b, m->N, &wn)) return false;
    if (m->ndim == 3) dims[nd++] = m->E;
    dims[nd++] = wn;
    dims[nd++] = m->G;
    shape_str(want, sizeof want, nd, dims);
    if (t->dtype != PC_DT_I32) {
        pc_report(cx, "CT-019", name, (int64_t)t->offset, "weight_zero_point is %s; strategy %s packs it into I32 along dim 0",
                  pc_dtype_name(t->dtype), m->s.strategy_name);
        return false;
    }
    if (!shape_is(t, nd, dims)) {
        shape_str(sbuf, sizeof sbuf, t->ndim, t->shape);
        pc_report(cx, "CT-019", name, (int64_t)t->offset, "packed weight_zero_point has shape %s; %s needs %s", sbuf, layout_name(m->layout), want);
        return false;
    }
    m->zpW = wn;
    uint8_t *raw = pc_tensor_load(t, CT_AUX_MAX_BYTES);
    if (!raw) { pc_io_error(cx, "%s: cannot load (larger than 256 MiB or unreadable)", name); return false; }
    pad_scan ps = {name, t, {0}, {0}};
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t r = 0; r < wn; r++)
            for (uint64_t g = 0; g < m->G; g++) {
                uint64_t at = ((e * wn + r) * m->G + g) * 4;
                unsigned bad = pad_violation(pc_le32(raw + at), r, wn, m->N, m->b, m->layout);
                if (bad) pad_note(&ps, bad, at);
            }
    free(raw);
    size_t before = fail_count(cx);
    pad_report(&ps, "zero-point column", m->layout, m->b, cx);
    return fail_count(cx) == before;
}

/* Tensor and block: an unpacked integer zero point with the scale's shape, each in the signed
 * b-bit range. */
static bool check_plain_zp(const char *name, const pc_tensor *t, ct_mod *m, pc_ctx *cx)
{
    uint64_t dims[3];
    int nd = expected_scale_shape(m, dims);
    char sbuf[96], want[96];
    shape_str(want, sizeof want, nd, dims);
    if (!is_int_dtype(t->dtype)) {
        pc_report(cx, "CT-019", name, (int64_t)t->offset, "weight_zero_point is %s; strategy %s stores it unpacked as an integer tensor",
                  pc_dtype_name(t->dtype), m->s.strategy_name);
        return false;
    }
    if (!shape_is(t, nd, dims)) {
        shape_str(sbuf, sizeof sbuf, t->ndim, t->shape);
        pc_report(cx, "CT-019", name, (int64_t)t->offset, "weight_zero_point has shape %s; strategy %s needs the scale's shape %s", sbuf, m->s.strategy_name, want);
        return false;
    }
    uint8_t *raw = pc_tensor_load(t, CT_AUX_MAX_BYTES);
    if (!raw) { pc_io_error(cx, "%s: cannot load (larger than 256 MiB or unreadable)", name); return false; }
    int64_t lo = -(1ll << (m->b - 1)), hi = (1ll << (m->b - 1)) - 1;
    bool ok = true;
    for (uint64_t i = 0; i < t->numel && ok; i++) {
        int64_t v = int_at(t->dtype, raw, i);
        if (v < lo || v > hi) {
            pc_report(cx, "CT-019", name, (int64_t)(t->offset + i * pc_dtype_bits(t->dtype) / 8),
                      "zero point %lld at element %llu is outside the signed %u-bit range [%lld, %lld]",
                      (long long)v, (unsigned long long)i, m->b, (long long)lo, (long long)hi);
            ok = false;
        }
    }
    free(raw);
    return ok;
}

static bool check_zero_point(const pc_input *in, const char *prefix, ct_mod *m, pc_ctx *cx)
{
    char *name = tname(prefix, "weight_zero_point");
    if (!name) { cx->oom = true; return false; }
    const pc_tensor *t = pc_input_find(in, name);
    bool ok = true;
    pc_eval(cx, "CT-018");
    if (m->s.symmetric && t) {
        pc_report(cx, "CT-018", name, (int64_t)t->offset, "weight_zero_point is stored but the scheme is symmetric");
        ok = false;
    } else if (!m->s.symmetric && !t) {
        pc_report(cx, "CT-018", name, -1, "weight_zero_point is missing but the scheme is asymmetric");
        ok = false;
    } else if (t) {
        pc_eval(cx, "CT-019");
        bool packed = m->s.strategy == CT_STRAT_GROUP || m->s.strategy == CT_STRAT_CHANNEL;
        ok = packed ? check_packed_zp(name, t, m, cx) : check_plain_zp(name, t, m, cx);
    }
    m->zp = ok ? t : NULL;
    free(name);
    return ok;
}

/* ------------------------------------------------------------------------------------------------
 * weight_g_idx (CT-020)
 * --------------------------------------------------------------------------------------------- */

static bool check_g_idx(const pc_input *in, const char *prefix, ct_mod *m, pc_ctx *cx)
{
    char *name = tname(prefix, "weight_g_idx");
    if (!name) { cx->oom = true; return false; }
    const pc_tensor *t = pc_input_find(in, name);
    bool want = m->s.actorder == CT_ACT_GROUP, ok = true;
    uint64_t dims[2];
    int nd = 0;
    if (m->ndim == 3) dims[nd++] = m->E;
    dims[nd++] = m->K;
    pc_eval(cx, "CT-020");
    if (want && !t) { pc_report(cx, "CT-020", name, -1, "actorder group needs weight_g_idx"); ok = false; }
    else if (!want && t) { pc_report(cx, "CT-020", name, (int64_t)t->offset, "weight_g_idx is stored but actorder is not group"); ok = false; }
    else if (t && (t->dtype != PC_DT_I32 || !shape_is(t, nd, dims))) {
        pc_report(cx, "CT-020", name, (int64_t)t->offset, "weight_g_idx must be I32 of shape [%s%llu]", m->ndim == 3 ? "E, " : "", (unsigned long long)m->K);
        ok = false;
    } else if (t) {
        uint8_t *raw = pc_tensor_load(t, CT_AUX_MAX_BYTES);
        if (!raw) { pc_io_error(cx, "%s: cannot load", name); ok = false; }
        for (uint64_t i = 0; raw && i < t->numel && ok; i++) {
            int64_t g = (int32_t)pc_le32(raw + 4 * i);
            if (g < 0 || (uint64_t)g >= m->G) {
                pc_report(cx, "CT-020", name, (int64_t)(t->offset + 4 * i), "g_idx[%llu] = %lld is not a group in 0..%llu",
                          (unsigned long long)i, (long long)g, (unsigned long long)m->G - 1);
                ok = false;
            }
        }
        free(raw);
    }
    m->gidx = ok ? t : NULL;
    free(name);
    return ok;
}

/* ------------------------------------------------------------------------------------------------
 * CT-021: no stray companions (a dense weight next to weight_packed, unknown weight_* tensors)
 * --------------------------------------------------------------------------------------------- */

static bool check_companions(const pc_input *in, const char *prefix, const ct_mod *m, pc_ctx *cx)
{
    static const char *const known[] = {"weight_packed", "weight_shape", "weight_scale", "weight_zero_point", "weight_g_idx", NULL};
    size_t plen = strlen(prefix), first, n;
    bool ok = true;
    pc_eval(cx, "CT-021");
    char *dotted = pc_asprintf("%s.", prefix);
    if (!dotted) return false;
    n = pc_input_prefixed(in, dotted, &first); /* sorted names: M's tensors are one run */
    free(dotted);
    for (size_t i = first; i < first + n; i++) {
        const pc_tensor *t = &in->tensors[i];
        const char *s = t->name + plen + 1;
        if (strchr(s, '.')) continue; /* a child module's tensor */
        bool known_s = false;
        for (const char *const *k = known; *k && !known_s; k++) known_s = !strcmp(s, *k);
        bool stray = (!strncmp(s, "weight", 6) && !known_s) ||
                     (!strcmp(s, "input_global_scale") && !m->s.input_tensor_group);
        if (stray) {
            pc_report(cx, "CT-021", t->name, (int64_t)t->offset, "%s does not belong to a pack-quantized module%s", s,
                      !strcmp(s, "weight") ? " (a dense weight next to weight_packed: readers disagree on which wins)" : "");
            ok = false;
        }
    }
    return ok;
}

/* ------------------------------------------------------------------------------------------------
 * One module
 * --------------------------------------------------------------------------------------------- */

/* Which modules are ours: the format the config gives M (group's, else top level's). */
typedef enum { OWN_NOT, OWN_YES, OWN_BROKEN } ownership;

static ownership module_owner(const ct_config *c, const char *prefix, const pc_tensor *packed, const ct_scheme **s, pc_ctx *cx)
{
    bool ignored;
    const ct_group *g = ct_config_match(c, prefix, &ignored, cx);
    const char *fmt = ct_group_format(c, g);
    bool i32 = packed->dtype == PC_DT_I32;
    pc_eval(cx, "CFG-023");
    if (fmt && strcmp(fmt, "pack-quantized") && strcmp(fmt, "mixed-precision")) {
        if (!i32 || strstr(fmt, "fp4") || strstr(fmt, "mxfp")) return OWN_NOT; /* NVFP4/MXFP: nvfp4.c */
        pc_report(cx, "CFG-023", packed->name, (int64_t)packed->offset,
                  "%s holds an int32 weight_packed but its format is \"%s\", not pack-quantized", prefix, fmt);
        return OWN_BROKEN;
    }
    if (!fmt || !strcmp(fmt, "mixed-precision")) {
        if (!i32) return OWN_NOT;
        pc_report(cx, "CFG-023", packed->name, (int64_t)packed->offset, "no format (top level or config group) says pack-quantized for %s", prefix);
        return OWN_BROKEN;
    }
    pc_eval(cx, "CFG-027");
    if (ignored) {
        pc_report(cx, "CFG-027", packed->name, (int64_t)packed->offset, "%s is in the ignore list but holds packed weights", prefix);
        return OWN_BROKEN;
    }
    if (!g || !g->has_weights) {
        pc_report(cx, "CFG-027", packed->name, (int64_t)packed->offset, "no config group with weights targets %s", prefix);
        return OWN_BROKEN;
    }
    if (!g->valid) return OWN_BROKEN; /* already reported as CFG-02x */
    if (!g->w.is_int) {
        pc_report(cx, "CFG-023", packed->name, (int64_t)packed->offset, "config group %s has float weights; pack-quantized packs int codes", g->name);
        return OWN_BROKEN;
    }
    if (g->w.strategy == CT_STRAT_UNSUPPORTED) {
        pc_report(cx, "CFG-022", packed->name, (int64_t)packed->offset, "config group %s: strategy %s is not one pack-quantized weights use (tensor, channel, group, block)",
                  g->name, g->w.strategy_name);
        return OWN_BROKEN;
    }
    *s = &g->w;
    return OWN_YES;
}

static void check_module(pc_input *in, const ct_config *c, const ct_scheme *s, const char *prefix, const pc_tensor *packed, pc_ctx *cx)
{
    size_t fails = fail_count(cx);
    ct_mod *m = calloc(1, sizeof *m);
    if (!m) { cx->oom = true; return; }
    m->s = *s;
    m->packed = packed;
    pc_eval(cx, "CT-001");
    if (s->num_bits < 1 || s->num_bits > 8) {
        pc_report(cx, "CT-001", packed->name, (int64_t)packed->offset, "num_bits %lld is outside 1..8 (codes must fit int8)", (long long)s->num_bits);
        free(m);
        return;
    }
    m->b = (unsigned)s->num_bits;
    bool ok = check_weight_shape(in, prefix, m, cx) && check_packed_dims(packed->name, packed, m, cx) &&
              decide_layout(in, prefix, c, packed->name, packed, m, cx);
    if (!ok) {
        if (c->version_says == CT_VER_DENSE || c->version_says == CT_VER_LEGACY)
            pc_input_note_layout(in, layout_name(c->version_says == CT_VER_DENSE ? CT_LAYOUT_DENSE : CT_LAYOUT_LEGACY));
        check_companions(in, prefix, m, cx);
        free(m);
        return;
    }
    pc_eval(cx, "CT-002");
    pc_eval(cx, m->layout == CT_LAYOUT_DENSE || 32 % m->b == 0 ? "CT-003" : "CT-010");
    check_packed_padding(in, packed->name, m, cx);
    if (check_scale(in, prefix, m, cx)) {
        check_zero_point(in, prefix, m, cx);
        check_g_idx(in, prefix, m, cx);
    }
    check_companions(in, prefix, m, cx);
    if (fail_count(cx) != fails || cx->oom || cx->io_error) {
        pc_input_note_layout(in, layout_name(m->layout));
        free(m);
        return;
    }
    pc_module *pm = pc_module_add(in, &pc_format_ct, prefix, layout_name(m->layout));
    if (!pm) { cx->oom = true; free(m); return; }
    pm->ndim = m->ndim;
    if (m->ndim == 3) { pm->shape[0] = m->E; pm->shape[1] = m->N; pm->shape[2] = m->K; }
    else { pm->shape[0] = m->N; pm->shape[1] = m->K; }
    pm->numel = m->E * m->N * m->K;
    pm->bits = m->b;
    pm->priv = m;
    pc_module_claim_parts(in, pm->fmt, prefix, pm->layout);
}

/* ------------------------------------------------------------------------------------------------
 * detect / check
 * --------------------------------------------------------------------------------------------- */

static const char k_packed_suffix[] = ".weight_packed";

/* M for a tensor named M.weight_packed, else NULL (caller frees). */
static char *packed_prefix(const char *name)
{
    size_t n = strlen(name), s = sizeof k_packed_suffix - 1;
    if (n <= s || strcmp(name + n - s, k_packed_suffix)) return NULL;
    return pc_strndup(name, n - s);
}

static bool has_sibling(const pc_input *in, const char *prefix, const char *suffix)
{
    char *n = tname(prefix, suffix);
    bool r = n && pc_input_find(in, n);
    free(n);
    return r;
}

/* Cheap: a compressed-tensors config with an int32 weight_packed or a pack-quantized format, or no
 * quantization config at all and the CT fingerprint (I32 weight_packed next to weight_shape). */
static bool ct_detect(const pc_input *in)
{
    /* Another method's config (or {}) does not hide the fingerprint: CFG-028 then rejects. */
    bool ct = in->qconfig && ct_config_is_ct(in);
    const cJSON *f = ct ? cJSON_GetObjectItemCaseSensitive((const cJSON *)in->qconfig, "format") : NULL;
    bool says_pack = cJSON_IsString(f) && !strcmp(f->valuestring, "pack-quantized");
    for (size_t i = 0; i < in->ntensors; i++) {
        char *p = packed_prefix(in->tensors[i].name);
        bool hit = p && (says_pack || (in->tensors[i].dtype == PC_DT_I32 && (ct || has_sibling(in, p, "weight_shape"))));
        free(p);
        if (hit) return true;
    }
    return false;
}

/* CFG-028: the fingerprint with no compressed-tensors config claiming it; say what the config is. */
static void report_no_config(const pc_input *in, const pc_tensor *first, size_t n, pc_ctx *cx)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    char said[160];
    if (!in->qconfig) snprintf(said, sizeof said, "there is no quantization config");
    else if (qm) snprintf(said, sizeof said, "%s's quantization config has quant_method \"%.80s\", not \"compressed-tensors\"", in->qconfig_source, qm);
    else snprintf(said, sizeof said, "%s's quantization config names no quant_method", in->qconfig_source);
    pc_report(cx, "CFG-028", first->name, (int64_t)first->offset,
              "%zu compressed-tensors packed weight(s) (I32 weight_packed beside weight_shape), but %s: num_bits and the scheme are unknown, nothing is decoded",
              n, said);
}

static void ct_check(pc_input *in, pc_ctx *cx)
{
    ct_config c;
    if (ct_config_parse(in, &c, cx)) { cx->oom = true; ct_config_free(&c); return; }
    size_t owned = 0;
    const pc_tensor *first = NULL;
    pc_eval(cx, "CFG-028");
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        const pc_tensor *t = &in->tensors[i];
        char *prefix = packed_prefix(t->name);
        if (!prefix) continue;
        if (!c.present) {
            if (t->dtype == PC_DT_I32 && has_sibling(in, prefix, "weight_shape") && owned++ == 0)
                first = t;
            free(prefix);
            continue;
        }
        const ct_scheme *s = NULL;
        ownership own = module_owner(&c, prefix, t, &s, cx);
        if (own == OWN_YES) check_module(in, &c, s, prefix, t, cx);
        owned += own != OWN_NOT;
        free(prefix);
    }
    if (first) report_no_config(in, first, owned, cx);
    if (c.present && owned) {
        pc_eval(cx, "CFG-026");
        if (c.status && strcmp(c.status, "compressed"))
            pc_report(cx, "CFG-026", c.source, -1, "quantization_status is \"%s\" but the checkpoint holds packed weights (expected \"compressed\")", c.status);
    }
    ct_config_free(&c);
}

/* ------------------------------------------------------------------------------------------------
 * decode: codes and f32 weights (CONTRACT 3)
 * --------------------------------------------------------------------------------------------- */

/* What every slice of one module's decode needs: the packed-row read buffer and, for weights, the
 * scales, zero points and g_idx loaded once (decode() is one slice of every row; unpack's sliced
 * writer asks for many, pc_format.decode_rows). */
typedef struct ct_dec {
    uint8_t *buf;      /* `per` packed rows */
    uint64_t per;
    float *scale;      /* NULL until weights are asked for */
    int32_t *zp, *gidx;
} ct_dec;

static void dec_free(void *p)
{
    ct_dec *d = p;
    if (!d) return;
    free(d->buf);
    free(d->scale);
    free(d->zp);
    free(d->gidx);
    free(d);
}

/* Unpack packed rows [r0, r0 + n) (of E*N) into codes[n*K]. */
static int unpack_rows(const ct_mod *m, pc_impl impl, ct_dec *d, uint64_t r0, uint64_t rows, uint8_t *codes, pc_ctx *cx)
{
    pc_unpack_fn fn = m->layout == CT_LAYOUT_DENSE ? pc_stream_fn(impl) : pc_wordalign_fn(impl);
    uint64_t row_bytes = m->W * 4;
    for (uint64_t r = 0; r < rows; r += d->per) {
        uint64_t n = rows - r < d->per ? rows - r : d->per;
        if (pc_tensor_read(m->packed, (r0 + r) * row_bytes, d->buf, (size_t)(n * row_bytes))) {
            pc_io_error(cx, "%s: cannot read", m->packed->name);
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) fn(d->buf + i * row_bytes, m->b, (size_t)m->K, codes + (r + i) * m->K);
    }
    return 0;
}

/* The signed zero points laid out like the scale ([E,] rows, G), or NULL (symmetric: all zero). */
static int32_t *load_zero_points(const ct_mod *m, pc_impl impl, pc_ctx *cx)
{
    uint64_t n = m->zp->numel;
    bool packed = m->s.strategy == CT_STRAT_GROUP || m->s.strategy == CT_STRAT_CHANNEL;
    if (packed) n = m->E * m->N * m->G;
    uint8_t *raw = pc_tensor_load(m->zp, CT_AUX_MAX_BYTES);
    int32_t *zp = malloc((size_t)(n ? n : 1) * sizeof *zp);
    uint8_t *col = malloc((size_t)m->zpW * 4 + 1), *u = malloc((size_t)m->N + 1);
    if (!raw || !zp || !col || !u) {
        cx->oom = true;
        free(raw); free(zp); free(col); free(u);
        return NULL;
    }
    if (!packed) {
        for (uint64_t i = 0; i < n; i++) zp[i] = (int32_t)int_at(m->zp->dtype, raw, i);
    } else {
        /* column g of expert e is a stream of N fields down the packed rows */
        pc_unpack_fn fn = m->layout == CT_LAYOUT_DENSE ? pc_stream_fn(impl) : pc_wordalign_fn(impl);
        int32_t half = 1 << (m->b - 1);
        for (uint64_t e = 0; e < m->E; e++)
            for (uint64_t g = 0; g < m->G; g++) {
                for (uint64_t r = 0; r < m->zpW; r++) memcpy(col + 4 * r, raw + ((e * m->zpW + r) * m->G + g) * 4, 4);
                fn(col, m->b, (size_t)m->N, u);
                for (uint64_t k = 0; k < m->N; k++) zp[(e * m->N + k) * m->G + g] = (int32_t)u[k] - half;
            }
    }
    free(raw);
    free(col);
    free(u);
    return zp;
}

static float *load_scales(const ct_mod *m, pc_ctx *cx)
{
    uint8_t *raw = pc_tensor_load(m->scale, CT_AUX_MAX_BYTES);
    float *s = malloc((size_t)(m->scale->numel ? m->scale->numel : 1) * sizeof *s);
    if (!raw || !s) { cx->oom = true; free(raw); free(s); return NULL; }
    for (uint64_t i = 0; i < m->scale->numel; i++) s[i] = float_at(m->scale->dtype, raw, i);
    free(raw);
    return s;
}

/* Index into the scale (and zero point) of element (e, n, k). */
static uint64_t scale_index(const ct_mod *m, const int32_t *gidx, uint64_t e, uint64_t n, uint64_t k)
{
    switch (m->s.strategy) {
    case CT_STRAT_TENSOR: return e;
    case CT_STRAT_CHANNEL: return e * m->N + n;
    case CT_STRAT_GROUP: {
        uint64_t g = gidx ? (uint64_t)gidx[(m->ndim == 3 ? e * m->K : 0) + k] : k / (uint64_t)m->s.group_size;
        return (e * m->N + n) * m->G + g;
    }
    default:
        return (e * m->scale_rows + n / (uint64_t)m->s.block[0]) * m->G + k / (uint64_t)m->s.block[1];
    }
}

/* Scales, zero points and g_idx, once per module. */
static int dec_load_aux(const ct_mod *m, pc_impl impl, ct_dec *d, pc_ctx *cx)
{
    d->scale = load_scales(m, cx);
    d->zp = m->zp && d->scale ? load_zero_points(m, impl, cx) : NULL;
    uint8_t *graw = m->gidx && d->scale ? pc_tensor_load(m->gidx, CT_AUX_MAX_BYTES) : NULL;
    d->gidx = graw ? malloc((size_t)m->gidx->numel * sizeof *d->gidx) : NULL;
    int rc = 0;
    if (!d->scale || (m->zp && !d->zp) || (m->gidx && !d->gidx)) { cx->oom = true; rc = -1; }
    for (uint64_t i = 0; rc == 0 && d->gidx && i < m->gidx->numel; i++) d->gidx[i] = (int32_t)pc_le32(graw + 4 * i);
    free(graw);
    if (rc) { free(d->scale); free(d->zp); free(d->gidx); d->scale = NULL; d->zp = d->gidx = NULL; }
    return rc;
}

/* Columns per run of one scale index along a row: the whole row (tensor, channel), a group or a
 * block's width; 1 with g_idx (any column may name any group). */
static uint64_t scale_run(const ct_mod *m, const int32_t *gidx)
{
    switch (m->s.strategy) {
    case CT_STRAT_TENSOR:
    case CT_STRAT_CHANNEL: return m->K;
    case CT_STRAT_GROUP: return gidx ? 1 : (uint64_t)m->s.group_size;
    default: return (uint64_t)m->s.block[1];
    }
}

/* Weights of rows [r0, r0 + n) from their codes (both slice-relative arrays of n*K). The scale and
 * zero point are looked up once per run of columns that share them (scale_run); the arithmetic per
 * element is the same, so the result is too, and the inner loop vectorises. */
static void dequantize(const ct_mod *m, const ct_dec *d, uint64_t r0, uint64_t rows, const uint8_t *codes, float *w)
{
    int32_t half = 1 << (m->b - 1);
    uint64_t run = scale_run(m, d->gidx);
    if (!run) run = 1;
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t e = (r0 + r) / m->N, n = (r0 + r) % m->N, row = r * m->K;
        for (uint64_t k0 = 0; k0 < m->K; k0 += run) {
            uint64_t si = scale_index(m, d->gidx, e, n, k0), end = m->K - k0 < run ? m->K : k0 + run;
            int32_t off = half + (d->zp ? d->zp[si] : 0);
            float s = d->scale[si];
            const uint8_t *c = codes + row;
            float *o = w + row;
            for (uint64_t k = k0; k < end; k++) o[k] = (float)((int32_t)c[k] - off) * s; /* one rounding: the int is exact in f32 */
        }
    }
}

static int ct_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                          uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const ct_mod *m = pm->priv;
    ct_dec *d = *state;
    if (!d) {
        uint64_t row_bytes = m->W * 4;
        if (!(d = calloc(1, sizeof *d))) { cx->oom = true; return -1; }
        *state = d;
        d->per = row_bytes >= CT_SCAN_CHUNK ? 1 : CT_SCAN_CHUNK / row_bytes;
        if (!(d->buf = malloc((size_t)(d->per * row_bytes)))) { cx->oom = true; return -1; }
    }
    if (weights && !d->scale && dec_load_aux(m, impl, d, cx)) return -1;
    uint64_t cnt = n * m->K; /* <= numel */
    uint8_t *c = codes ? codes : malloc((size_t)(cnt ? cnt : 1));
    if (!c) { cx->oom = true; return -1; }
    int rc = unpack_rows(m, impl, d, r0, n, c, cx);
    if (rc == 0 && weights) dequantize(m, d, r0, n, c, weights);
    if (!codes) free(c);
    return rc;
}

static int ct_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    const ct_mod *m = pm->priv;
    void *state = NULL;
    int rc = ct_decode_rows(in, pm, impl, &state, 0, m->E * m->N, codes, weights, cx);
    dec_free(state);
    return rc;
}

static void ct_module_free(void *priv) { free(priv); }


/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* weight_scale by strategy (tensor, channel, group, block), an optional weight_zero_point (packed
 * along dim 0 for group/channel, raw for tensor/block) and weight_g_idx. */
typedef struct ct_grid { uint64_t rows, cols, bh, bw; } ct_grid;

/* block_structure [rows, cols] anywhere in the quantization config (block strategy). */
static bool diag_config_block(const cJSON *j, uint64_t *bh, uint64_t *bw)
{
    if (!j) return false;
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(j, "block_structure"), *x;
    if (cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(bs, 0)) && cJSON_IsNumber(cJSON_GetArrayItem(bs, 1))) {
        double a = cJSON_GetArrayItem(bs, 0)->valuedouble, b = cJSON_GetArrayItem(bs, 1)->valuedouble;
        if (a >= 1 && b >= 1 && a < 1e9 && b < 1e9) { *bh = (uint64_t)a; *bw = (uint64_t)b; return true; }
    }
    cJSON_ArrayForEach(x, j)
        if ((cJSON_IsObject(x) || cJSON_IsArray(x)) && diag_config_block(x, bh, bw)) return true;
    return false;
}

static bool diag_scale_grid(const pc_tensor *ts, uint64_t E, uint64_t N, uint64_t K, const cJSON *qconfig, ct_grid *g)
{
    uint64_t per = ts->numel / E;
    if (ts->numel % E) return false;
    if (per == 1) { *g = (ct_grid){1, 1, N, K}; return true; }
    if (ts->ndim - (E > 1) != 2) return false;
    g->rows = ts->shape[ts->ndim - 2];
    g->cols = ts->shape[ts->ndim - 1];
    if (!g->rows || !g->cols) return false;
    g->bh = g->rows == N ? 1 : (N % g->rows ? 0 : N / g->rows);
    g->bw = g->cols == 1 ? K : (K % g->cols ? 0 : K / g->cols);
    uint64_t bh, bw;
    if ((!g->bh || !g->bw) && diag_config_block(qconfig, &bh, &bw) && pc_ceil_div(N, bh) == g->rows && pc_ceil_div(K, bw) == g->cols) {
        g->bh = bh; /* a partial last block: the config's block_structure settles it */
        g->bw = bw;
    }
    return g->bh && g->bw;
}

typedef struct ct_diag { const int64_t *zp; const float *sc; uint64_t zr, cols, per; unsigned b; bool legacy; } ct_diag;

/* Scale and zero point (code units) of group column c, row group r, expert e; *zl: the zero point a
 * reader of the other layout sees. */
static float ct_diag_at(const ct_diag *d, uint64_t e, uint64_t r, uint64_t c, int16_t *zq, int16_t *zl)
{
    int half = 1 << (d->b - 1);
    int64_t z = 0;
    const int64_t *col = d->zp ? d->zp + e * d->zr * d->cols + c : NULL;
    if (d->zp && d->zr) z = (int64_t)pc_diag_stream_get(col, d->cols, d->zr, r, d->b, d->legacy) - half;
    else if (d->zp) z = d->zp[e * d->per + r * d->cols + c];
    *zq = (int16_t)(z + half);
    if (zl && d->zr) *zl = (int16_t)pc_diag_stream_get(col, d->cols, d->zr, r, d->b, !d->legacy);
    return d->sc[e * d->per + r * d->cols + c];
}

static int ct_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t E = pm->ndim == 3 ? pm->shape[0] : 1, N = pm->shape[pm->ndim - 2], K = pm->shape[pm->ndim - 1];
    const pc_tensor *ts = pc_diag_find(in, pm->prefix, "weight_scale"), *tz = pc_diag_find(in, pm->prefix, "weight_zero_point");
    const pc_tensor *tg = pc_diag_find(in, pm->prefix, "weight_g_idx");
    ct_grid gr;
    if (!ts || !diag_scale_grid(ts, E, N, K, in->qconfig, &gr)) { snprintf(p->note, sizeof p->note, "weight_scale shape not understood"); return 1; }
    ct_diag d = {.zp = tz ? pc_diag_load_ints(tz) : NULL, .sc = pc_diag_load_floats(ts), .cols = gr.cols, .per = gr.rows * gr.cols,
                 .b = pm->bits, .legacy = !strcmp(pm->layout, "ct-legacy")};
    int64_t *gi = tg ? pc_diag_load_ints(tg) : NULL;
    int rc = 1;
    if (!d.sc || (tz && !d.zp) || (tg && (!gi || tg->numel != E * K))) { snprintf(p->note, sizeof p->note, "weight_scale/zero_point/g_idx unreadable"); goto out; }
    if (tz && tz->numel != ts->numel) { /* packed along dim 0 (group/channel): [Zr, cols] words per expert */
        if (tz->dtype != PC_DT_I32 || tz->numel % (E * gr.cols)) { snprintf(p->note, sizeof p->note, "weight_zero_point shape not understood"); goto out; }
        d.zr = tz->numel / (E * gr.cols);
    }
    rc = -1;
    bool nog = gi && gr.cols > 1;
    if (pc_diag_alloc(p, (size_t)pm->numel, nog ? PC_ALT_NO_GIDX : -1)) goto out;
    if (nog && !(p->alt_zq[PC_ALT_NO_GIDX] = malloc((size_t)pm->numel * sizeof(int16_t)))) goto out;
    if (d.zr && !(p->zq_layout = malloc((size_t)pm->numel * sizeof(int16_t)))) goto out;
    rc = 1;
    for (uint64_t e = 0; e < E; e++)
        for (uint64_t n = 0; n < N; n++)
            for (uint64_t k = 0; k < K; k++) {
                size_t i = (size_t)((e * N + n) * K + k);
                uint64_t r = n / gr.bh, c0 = gr.cols == 1 ? 0 : k / gr.bw, c = gi ? (uint64_t)gi[e * K + k] : c0;
                if (c >= gr.cols) { snprintf(p->note, sizeof p->note, "weight_g_idx[%llu] out of range", (unsigned long long)k); goto out; }
                p->s[i] = ct_diag_at(&d, e, r, c, &p->zq[i], p->zq_layout ? &p->zq_layout[i] : NULL);
                if (nog) p->alt_s[PC_ALT_NO_GIDX][i] = ct_diag_at(&d, e, r, c0, &p->alt_zq[PC_ALT_NO_GIDX][i], NULL);
            }
    rc = 0;
out:
    free((void *)d.zp); free((void *)d.sc); free(gi);
    return rc;
}

/* Rows are a stream of int32 words: dense (fields cross words) or word-aligned; when b | 32 the two
 * agree and the words are plain K-packed words (top slot, nibble pairs k ^ 1). */
static int ct_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    const pc_tensor *tp = in ? pc_diag_find(in, pm->prefix, "weight_packed") : NULL;
    bool whole = 32 % pm->bits == 0;
    p->lay = (pc_diag_layout){.word_bits = whole ? 32 : 0, .pack_dim = 'K', .sign_ext = whole, .nibble = pm->bits == 4 ? PC_NIB_K_XOR : PC_NIB_NONE,
                              .nib_xor = 1, .stream = true, .stream_aligned = !strcmp(pm->layout, "ct-legacy"),
                              .stream_words = tp && tp->ndim >= 2 ? tp->shape[tp->ndim - 1] : 0, .zero_shift = true};
    p->kind = PC_DIAG_INT;
    return want ? ct_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_ct_bench[]; /* ct_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".weight_packed", PC_PART_CODES},
    {".weight_scale", PC_PART_COMPANION},
    {".weight_zero_point", PC_PART_COMPANION},
    {".weight_g_idx", PC_PART_COMPANION},
    {".weight_shape", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_ct = {.parts = k_format_parts, .name = "ct", .detect = ct_detect, .check = ct_check, .decode = ct_decode, .decode_rows = ct_decode_rows, .decode_rows_free = dec_free, .module_free = ct_module_free, .diag_params = ct_diag_params, .bench = pc_ct_bench};
