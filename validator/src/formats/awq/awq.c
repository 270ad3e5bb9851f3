/* Format module: AWQ GEMM (AutoAWQ version "gemm"), FORMATS.md section 6.
 *
 * Per module M: M.qweight I32 [K, N/8] packed along N (8 outputs per word, slot order
 * 0,2,4,6,1,3,5,7), M.qzeros I32 [K/gs, N/8] with the same interleave and no offset (stored
 * zero = zero, 0..15), M.scales float [K/gs, N], optional M.bias [N]; never M.g_idx.
 * Config: quant_method "awq" (or AutoAWQ's legacy quant_config.json), bits / w_bit = 4,
 * group_size / q_group_size, version "gemm" (any case; absent = gemm, the AutoAWQ default).
 * zero_point does not change the layout: AutoAWQ's and vLLM's loaders read qzeros whatever it says
 * (AWQ-003), so zero_point false (GPTQModel's symmetric export) only asks that every zero be 8. GEMV, GEMV-fast, Marlin and other versions are different layouts: named as
 * unsupported by AWQ-002, never decoded as GEMM.
 *
 * Logical view (CONTRACT 3): codes [N, K] = the stored nibble transposed; weight
 * w = f32(q - z) * f32(scales[k // gs, n]). */
#include "../row_decode.h"
#include "../qlinear.h"
#include "../ql_strip.h"
#include "../autoround/autoround.h"

#include "../../core/arith.h"
#include "formats/diag_util.h"
#include "../../core/util.h"
#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const pc_format pc_format_awq;

typedef struct awq_cfg {
    bool ok;
    bool symmetric;     /* zero_point false: the qzeros should all be 2^(bits-1) (AWQ-003) */
    long long group_size;
    const char *src;
    const char *layout; /* "awq-gemm"; AutoRound's auto_round:auto_awq "autoround-awq" */
    bool ar;            /* an AutoRound config: per-layer schemes from extra_config */
} awq_cfg;

typedef struct awq_mod {
    const pc_tensor *qweight, *qzeros, *scales;
    uint64_t K, N, G, gs;
} awq_mod;

/* ---- config ---------------------------------------------------------------------------- */

/* AutoAWQ's legacy names first are synonyms of the transformers names (FORMATS.md 1.2, 6.4). */
static bool cfg_int2(const cJSON *qc, const char *a, const char *b, long long *out, bool *present)
{
    if (cJSON_GetObjectItemCaseSensitive(qc, a)) return ql_cfg_int(qc, a, out, present);
    return ql_cfg_int(qc, b, out, present);
}

/* AutoRound's auto_round:auto_awq: AutoAWQ's GEMM packer (export/export_to_awq/utils.py WQLinear_GEMM) under
 * auto-round's own config keys; AWQ-001 still asks for 4 bits, per layer too. */
static void read_autoround_config(const pc_input *in, pc_ctx *cx, awq_cfg *c)
{
    ar_scheme s;
    c->ar = true;
    c->layout = "autoround-awq";
    c->ok = pc_ar_base_scheme(in, &s, cx);
    c->group_size = s.group_size;
    c->symmetric = s.sym;
    pc_eval(cx, "AWQ-001");
    if (c->ok && s.bits != 4) {
        pc_report(cx, "AWQ-001", c->src, -1, "bits %u under packing_format auto_round:auto_awq: the AWQ GEMM packer holds 4-bit weights only", s.bits);
        c->ok = false;
    }
}

/* The layer's own scheme under an AutoRound config; false when the module is not decoded here. */
static bool layer_config(const pc_input *in, const char *prefix, awq_cfg *c, pc_ctx *cx)
{
    if (!c->ar) return true;
    ar_scheme base = {.bits = 4, .group_size = c->group_size, .sym = c->symmetric}, s;
    int r = pc_ar_layer_scheme(in, prefix, &base, &s, cx);
    if (r == 0) {
        const pc_tensor *q = ql_sibling(in, prefix, ".qweight");
        pc_report(cx, "AR-003", q->name, (int64_t)q->offset, "the config keeps %s unquantized (bits %u), but it holds packed "
                  "tensors: auto-round's loader builds a float layer there and never reads them", prefix, s.bits);
    }
    if (r != 1 || s.bits != 4) return false;
    c->group_size = s.group_size;
    c->symmetric = s.sym;
    return true;
}

static void read_config(const pc_input *in, pc_ctx *cx, awq_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->ok = true;
    c->src = in->qconfig_source ? in->qconfig_source : "config";
    c->layout = "awq-gemm";
    if (pc_ar_packing(in) == AR_PACK_AWQ) { read_autoround_config(in, cx, c); return; }
    pc_eval(cx, "CFG-002");
    if (ql_config_method(in) != QL_AWQ) {
        pc_report(cx, "CFG-002", "", -1,
                  "AWQ tensors (qweight, qzeros, scales, no g_idx) without an AWQ quantization config: the group size and "
                  "the AWQ version (GEMM or another layout) cannot be read from the tensors");
        c->ok = false;
        return;
    }
    const cJSON *qc = in->qconfig;
    long long bits = 0;
    bool present;
    pc_eval(cx, "AWQ-001");
    if (!cfg_int2(qc, "w_bit", "bits", &bits, &present) || bits != 4) {
        pc_report(cx, "AWQ-001", c->src, -1, present ? "bits (w_bit) must be 4: AutoAWQ packs only 4-bit GEMM weights"
                                                      : "bits (w_bit) is missing");
        c->ok = false;
    }
    pc_eval(cx, "AWQ-002");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(qc, "version");
    if (ver && (!cJSON_IsString(ver) || strcasecmp(ver->valuestring, "gemm"))) {
        pc_report(cx, "AWQ-002", c->src, -1,
                  "AWQ version \"%.32s\" is not supported: only GEMM is decoded (GEMV packs along K as [N, K/8], GEMV-fast "
                  "stores int16 words and fp16 zeros, Marlin uses tile order); a GEMM reader would decode it wrongly",
                  cJSON_IsString(ver) ? ver->valuestring : "?");
        c->ok = false;
    }
    pc_eval(cx, "AWQ-003");
    bool zp = true;
    if (!ql_cfg_bool(qc, "zero_point", &zp, &present) && present) zp = false;
    c->symmetric = !zp; /* checked against the stored qzeros per module (check_symmetric_zeros) */
    pc_eval(cx, "AWQ-004");
    if (!cfg_int2(qc, "q_group_size", "group_size", &c->group_size, &present) || (c->group_size != -1 && c->group_size <= 0)) {
        pc_report(cx, "AWQ-004", c->src, -1, present ? "group_size (q_group_size) must be -1 or a positive integer"
                                                      : "group_size (q_group_size) is missing");
        c->ok = false;
    }
}

/* ---- tensors --------------------------------------------------------------------------- */

static bool want_tensor(const pc_tensor *t, const char *prefix, const char *suffix, int ndim, bool floating, pc_ctx *cx)
{
    return ql_want_tensor("AWQ-005", t, prefix, suffix, ndim, floating, cx);
}

static bool check_tensor_set(const pc_input *in, const char *prefix, awq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "AWQ-005");
    m->qweight = ql_sibling(in, prefix, ".qweight");
    m->qzeros = ql_sibling(in, prefix, ".qzeros");
    m->scales = ql_sibling(in, prefix, ".scales");
    const pc_tensor *bias = ql_sibling(in, prefix, ".bias"), *gidx = ql_sibling(in, prefix, ".g_idx");
    bool ok = want_tensor(m->qweight, prefix, ".qweight", 2, false, cx);
    ok &= want_tensor(m->qzeros, prefix, ".qzeros", 2, false, cx);
    ok &= want_tensor(m->scales, prefix, ".scales", 2, true, cx);
    if (bias) ok &= want_tensor(bias, prefix, ".bias", 1, true, cx);
    if (gidx) {
        pc_report(cx, "AWQ-005", gidx->name, (int64_t)gidx->offset,
                  "%s is present: AWQ GEMM has no act-order index (a GPTQ module under an AWQ config?)", gidx->name);
        ok = false;
    }
    return ok;
}

static bool check_dims(const pc_input *in, const char *prefix, const awq_cfg *c, awq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "AWQ-007");
    m->K = m->qweight->shape[0];
    m->N = m->scales->shape[1];
    m->gs = c->group_size == -1 ? m->K : (uint64_t)c->group_size;
    if (m->K == 0 || m->N == 0 || m->N % 8 || m->K % m->gs) {
        pc_report(cx, "AWQ-007", m->scales->name, (int64_t)m->scales->offset,
                  "out_features N = %llu must be a positive multiple of 8 and in_features K = %llu a positive multiple of "
                  "group_size %llu", (unsigned long long)m->N, (unsigned long long)m->K, (unsigned long long)m->gs);
        return false;
    }
    pc_eval(cx, "AWQ-006");
    m->G = m->K / m->gs;
    bool ok = true;
    struct { const pc_tensor *t; uint64_t d0, d1; } want[] = {
        {m->qweight, m->K, m->N / 8}, {m->qzeros, m->G, m->N / 8}, {m->scales, m->G, m->N},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const pc_tensor *t = want[i].t;
        if (t->shape[0] != want[i].d0 || t->shape[1] != want[i].d1) {
            pc_report(cx, "AWQ-006", t->name, (int64_t)t->offset, "%s has shape [%llu, %llu]; K = %llu, N = %llu and %llu "
                      "groups need [%llu, %llu]", t->name, (unsigned long long)t->shape[0], (unsigned long long)t->shape[1],
                      (unsigned long long)m->K, (unsigned long long)m->N, (unsigned long long)m->G,
                      (unsigned long long)want[i].d0, (unsigned long long)want[i].d1);
            ok = false;
        }
    }
    const pc_tensor *bias = ql_sibling(in, prefix, ".bias");
    if (bias && bias->shape[0] != m->N) {
        pc_report(cx, "AWQ-006", bias->name, (int64_t)bias->offset, "bias has %llu entries, out_features is %llu",
                  (unsigned long long)bias->shape[0], (unsigned long long)m->N);
        ok = false;
    }
    return ok;
}

static bool check_limits(const awq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "AWQ-010");
    uint64_t numel;
    const pc_tensor *ts[] = {m->qweight, m->qzeros, m->scales};
    for (size_t i = 0; i < 3; i++)
        if (ts[i]->nbytes > QL_TENSOR_LIMIT) {
            pc_report(cx, "AWQ-010", ts[i]->name, (int64_t)ts[i]->offset, "%s holds %llu bytes; packcheck reads at most 1 GiB per tensor",
                      ts[i]->name, (unsigned long long)ts[i]->nbytes);
            return false;
        }
    if (!pc_mul_u64(m->K, m->N, &numel) || numel > PC_LOGICAL_MAX_ELEMS) {
        pc_report(cx, "AWQ-010", m->qweight->name, (int64_t)m->qweight->offset, "K x N exceeds the logical-view limit of 2^30 elements");
        return false;
    }
    return true;
}

static void check_scales(const awq_mod *m, pc_ctx *cx)
{
    pc_eval(cx, "AWQ-008");
    pc_eval(cx, "AWQ-009");
    uint64_t n = m->G * m->N;
    float *s = ql_load_f32(m->scales, n, QL_TENSOR_LIMIT);
    if (!s) { pc_io_error(cx, "%s: cannot read", m->scales->name); return; }
    unsigned esz = m->scales->dtype == PC_DT_F32 ? 4 : 2;
    bool warned = false;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(s[i])) {
            pc_report(cx, "AWQ-008", m->scales->name, (int64_t)(m->scales->offset + esz * i),
                      "scales[%zu, %zu] is %s", i / (size_t)m->N, i % (size_t)m->N, isnan(s[i]) ? "NaN" : "infinite");
            break;
        }
        if (!(s[i] > 0) && !warned) {
            pc_report(cx, "AWQ-009", m->scales->name, (int64_t)(m->scales->offset + esz * i),
                      "scales[%zu, %zu] = %g: AutoAWQ's quantizer clamps max - min to at least 1e-5, so a scale is positive",
                      i / (size_t)m->N, i % (size_t)m->N, (double)s[i]);
            warned = true;
        }
    }
    free(s);
}

/* zero_point false labels a symmetric export (GPTQModel 7.7.0 looper/awq_processor.py:1837 stores
 * zeros of 2^(bits-1)); the loaders still subtract the stored zeros, so other values are decoded as
 * stored but contradict the label. Every nibble 8 = every word 0x88888888, whatever the slot order. */
static void check_symmetric_zeros(const awq_mod *m, pc_ctx *cx)
{
    uint8_t *z = pc_tensor_load(m->qzeros, QL_TENSOR_LIMIT);
    if (!z) { pc_io_error(cx, "%s: cannot read", m->qzeros->name); return; }
    for (uint64_t i = 0; i < m->qzeros->nbytes; i++) {
        if (z[i] == 0x88) continue;
        uint64_t word = i / 4, per_row = m->N / 8;
        pc_report(cx, "AWQ-003", m->qzeros->name, (int64_t)(m->qzeros->offset + i),
                  "zero_point is false (symmetric) but qzeros[%llu, %llu] is 0x%02x%02x%02x%02x, not 0x88888888 (every zero 8): "
                  "readers subtract the stored zeros, so the file is decoded as stored and the label is wrong",
                  (unsigned long long)(word / per_row), (unsigned long long)(word % per_row),
                  z[word * 4 + 3], z[word * 4 + 2], z[word * 4 + 1], z[word * 4]);
        break;
    }
    free(z);
}

static void check_module(pc_input *in, const char *prefix, const awq_cfg *c0, pc_ctx *cx)
{
    awq_cfg cfg = *c0;
    const awq_cfg *c = &cfg;
    if (!layer_config(in, prefix, &cfg, cx)) return;
    awq_mod m = {0};
    size_t fails = ql_fail_count(cx);
    if (!check_tensor_set(in, prefix, &m, cx) || !check_dims(in, prefix, c, &m, cx) || !check_limits(&m, cx)) return;
    check_scales(&m, cx);
    if (c->symmetric) check_symmetric_zeros(&m, cx);
    if (cx->oom || cx->io_error || ql_fail_count(cx) != fails) return;
    pc_module *pm = pc_module_add_with(in, &pc_format_awq, prefix, c->layout, &m, sizeof m, cx);
    if (!pm) return;
    pc_module_set_matrix(pm, m.N, m.K, 4);
    pc_module_claim_parts(in, pm->fmt, prefix, pm->layout);
}

static bool awq_detect(const pc_input *in) { return ql_any_module(in, QL_AWQ); }

static void awq_check(pc_input *in, pc_ctx *cx)
{
    awq_cfg c;
    read_config(in, cx, &c);
    pc_input_note_layout(in, c.layout);
    if (!c.ok) return;
    if (c.ar) pc_ar_check_pinned_layers(in, cx);
    for (size_t i = 0; i < in->ntensors; i++) {
        char *prefix = ql_prefix(in->tensors[i].name);
        if (prefix && ql_module_owner(in, in->tensors[i].name) == QL_AWQ) check_module(in, prefix, &c, cx);
        free(prefix);
        if (cx->oom || cx->io_error) return;
    }
}

static int awq_decode(const pc_input *in, const pc_module *pm, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const awq_mod *m = pm->priv;
    size_t K = (size_t)m->K, N = (size_t)m->N, G = (size_t)m->G, gs = (size_t)m->gs;
    uint8_t *rq = pc_tensor_load(m->qweight, QL_TENSOR_LIMIT), *rz = pc_tensor_load(m->qzeros, QL_TENSOR_LIMIT);
    uint8_t *q = malloc(K * N), *z = malloc(G * N);
    float *s = ql_load_f32(m->scales, m->G * m->N, QL_TENSOR_LIMIT);
    int rc = -1;
    if (!rq || !rz || !q || !z || !s || m->qweight->nbytes != K * N / 2 || m->qzeros->nbytes != G * N / 2) {
        pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix);
        goto out;
    }
    pc_awq_unpack_fn(impl)(rq, K, N, q);
    pc_awq_unpack_fn(impl)(rz, G, N, z);
    if (codes) ql_transpose_u8(q, K, N, codes);
    for (size_t k = 0; weights && k < K; k++) {
        size_t grp = k / gs * N;
        for (size_t n = 0; n < N; n++)
            weights[n * K + k] = (float)((int)q[k * N + n] - (int)z[grp + n]) * s[grp + n];
    }
    rc = 0;
out:
    free(rq); free(rz); free(q); free(z); free(s);
    return rc;
}


/* ---- unpack's row slices (pc_format.decode_rows) ---- */

/* View row n of [N, K] is column n of qweight [K, N / 8]: a nibble of word column n / 8 in every
 * stored row. A slice of view rows reads the strip of word columns that covers it (ql_strip.h: a
 * window of columns kept between slices), unpacks it with the same kernel (each word unpacks on its
 * own, so a strip of words gives the columns the whole decode gives), transposes it and keeps the
 * slice's columns; a slice that starts or ends inside a word takes part of that word. Zero points
 * and scales are unpacked once per module. */
typedef struct awq_rows {
    ql_strip strip;
    uint8_t *z;
    float *s;
    uint8_t *buf;    /* packed strip, unpacked [K, 8w], transposed [8w, K] */
    size_t cap;
} awq_rows;

static void awq_rows_free(void *p)
{
    awq_rows *r = p;
    if (r) { ql_strip_free(&r->strip); free(r->z); free(r->s); free(r->buf); }
    free(r);
}

static awq_rows *awq_rows_state(const pc_module *pm, pc_impl impl, void **state, pc_ctx *cx)
{
    const awq_mod *m = pm->priv;
    awq_rows *r = *state;
    if (r) return r;
    if (!(r = *state = calloc(1, sizeof *r))) { cx->oom = true; return NULL; }
    r->strip = (ql_strip){.t = m->qweight, .rows = m->K, .row_bytes = m->N / 2};
    uint8_t *rz = pc_tensor_load(m->qzeros, QL_TENSOR_LIMIT);
    r->z = malloc((size_t)(m->G * m->N));
    r->s = ql_load_f32(m->scales, m->G * m->N, QL_TENSOR_LIMIT);
    bool ok = rz && r->z && r->s && m->qweight->nbytes == m->K * m->N / 2 && m->qzeros->nbytes == m->G * m->N / 2;
    if (ok) pc_awq_unpack_fn(impl)(rz, (size_t)m->G, (size_t)m->N, r->z);
    free(rz);
    if (!ok) { pc_io_error(cx, "%s: cannot read or allocate the module", pm->prefix); return NULL; }
    return r;
}

static int awq_decode_rows(const pc_input *in, const pc_module *pm, pc_impl impl, void **state, uint64_t r0, uint64_t n,
                           uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const awq_mod *m = pm->priv;
    awq_rows *st = awq_rows_state(pm, impl, state, cx);
    if (!st) return -1;
    uint64_t w0 = r0 / 8, w1 = (r0 + n + 7) / 8, off = r0 - 8 * w0; /* word columns covering the slice */
    size_t K = (size_t)m->K, N = (size_t)m->N, gs = (size_t)m->gs, nc = (size_t)(8 * (w1 - w0));
    size_t pb = (size_t)(m->K * (w1 - w0) * 4), cnt = nc * K; /* <= (n + 14) * K */
    if (!pc_rows_buf(&st->buf, &st->cap, pb + 2 * cnt, cx)) return -1;
    uint8_t *q = st->buf + pb, *t = q + cnt, *c = t + off * K;
    if (ql_strip_get(&st->strip, w0 * 4, (w1 - w0) * 4, st->buf, cx)) return -1;
    pc_awq_unpack_fn(impl)(st->buf, K, nc, q);
    ql_transpose_u8(q, K, nc, t);
    if (codes) memcpy(codes, c, (size_t)n * K);
    for (size_t j = 0; weights && j < (size_t)n; j++) {
        size_t col = (size_t)r0 + j;
        const uint8_t *cj = c + j * K;
        float *wj = weights + j * K;
        for (size_t k0 = 0; k0 < K; k0 += gs) { /* one group: one zero point and scale */
            size_t grp = k0 / gs * N, k1 = K - k0 < gs ? K : k0 + gs;
            int zero = (int)st->z[grp + col];
            float sc = st->s[grp + col];
            for (size_t k = k0; k < k1; k++) wj[k] = (float)((int)cj[k] - zero) * sc; /* the whole decode's arithmetic */
        }
    }
    return 0;
}

/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* AutoAWQ's GEMM interleave: slot f of a word holds column 8c + k_order[f]. */
static const unsigned k_awq_slots[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/* qweight [K, N/8]: eight 4-bit slots per int32 word along N in the interleaved order; a reader may
 * take them as packed along K, skip the order, or shift arithmetically (slot 7 is on top). */
static void awq_diag_layout(const pc_module *pm, pc_diag_layout *l)
{
    *l = (pc_diag_layout){.word_bits = 32, .pack_dim = 'N', .slot_order = k_awq_slots, .slots = 8, .axis_misread = pm->ndim == 2,
                          .order_misread = pm->ndim == 2, .sign_ext = true, .nibble = PC_NIB_SLOT, .zero_shift = true};
}

/* qzeros [K/gs, N/8] with the same interleave, scales [K/gs, N]. */
static int awq_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t N = pm->shape[0], K = pm->shape[1];
    int64_t *qz = NULL;
    float *sc = NULL;
    int rc = 1;
    const pc_tensor *tz = pc_diag_find(in, pm->prefix, "qzeros"), *ts = pc_diag_find(in, pm->prefix, "scales");
    if (pm->ndim != 2 || pm->bits != 4 || !tz || !ts || ts->ndim != 2 || ts->shape[1] != N || tz->ndim != 2) { snprintf(p->note, sizeof p->note, "qzeros/scales not in the AWQ shapes"); return 1; }
    uint64_t G = ts->shape[0], nz = tz->shape[1];
    if (!G || K % G || tz->shape[0] != G || nz * 8 < N) { snprintf(p->note, sizeof p->note, "qzeros/scales shapes inconsistent"); return 1; }
    qz = pc_diag_load_ints(tz);
    sc = pc_diag_load_floats(ts);
    if (!qz || !sc) { snprintf(p->note, sizeof p->note, "qzeros/scales unreadable"); goto out; }
    if (pc_diag_alloc(p, (size_t)pm->numel, -1)) { rc = -1; goto out; }
    for (uint64_t k = 0; k < K; k++)
        for (uint64_t n = 0; n < N; n++) {
            size_t i = (size_t)(n * K + k);
            unsigned slot = 0;
            while (k_awq_slots[slot] != n % 8) slot++;
            p->s[i] = sc[k / (K / G) * N + n];
            p->zq[i] = (int16_t)(((uint32_t)qz[k / (K / G) * nz + n / 8] >> (4 * slot)) & 15);
        }
    rc = 0;
out:
    free(qz); free(sc);
    return rc;
}

static int awq_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    awq_diag_layout(pm, &p->lay);
    p->kind = PC_DIAG_INT;
    return want ? awq_diag_fill(in, pm, p) : 0;
}

extern const pc_bench_entry pc_awq_bench[]; /* awq_bench.c */
/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".qweight", PC_PART_CODES},
    {".qzeros", PC_PART_COMPANION},
    {".scales", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_awq = {.parts = k_format_parts, .name = "awq", .detect = awq_detect, .check = awq_check, .decode = awq_decode, .decode_rows = awq_decode_rows, .decode_rows_free = awq_rows_free, .module_free = free, .diag_params = awq_diag_params, .bench = pc_awq_bench};
