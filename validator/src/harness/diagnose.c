/* Diagnosis: simulate the known reader bugs on the reference view and name the one a reader's
 * output equals. See diagnose.h for the model. Which bugs a module admits, and how its bytes are
 * laid out, come from its format (pc_format.diag_params): this file names no format. */
#include "diagnose.h"
#include "equiv_rows.h"

#include "../core/arith.h"
#include "formats/diag_util.h"
#include "../core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const float k_e2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

const char *pc_bug_id(pc_bug b) { return b < PC_BUG_COUNT ? dg_bugs[b].id : "?"; }
const char *pc_bug_title(pc_bug b) { return b < PC_BUG_COUNT ? dg_bugs[b].title : "?"; }
int pc_bug_variants(pc_bug b) { return b < PC_BUG_COUNT ? dg_bugs[b].variants : 0; }

int pc_bug_parse(const char *id)
{
    for (int i = 0; i < PC_BUG_COUNT; i++)
        if (!strcmp(id, dg_bugs[i].id)) return i;
    return -1;
}

/* ---- the weight formula ---- */

/* The code's value before the scale: (v - zq) for integers, the element of a float or codebook. */
static float unscaled(const dg_module *m, int v, int zq)
{
    switch (m->p.kind) {
    case PC_DIAG_TABLE: return m->p.table[v & 15];
    case PC_DIAG_E2M1: return v & 8 ? -k_e2m1[v & 7] : k_e2m1[v & 7];
    case PC_DIAG_E4M3: return pc_f8e4m3_to_f32((uint8_t)v);
    default: return (float)(v - zq);
    }
}

/* Affine: the format's formula with the bias as the reader applies it (sign -1: subtracted). */
static float affine_weight(const dg_module *m, size_t i, int v, float s, float sign)
{
    return m->p.affine((uint8_t)v, s, sign * m->p.bias[i], m->p.scale_type);
}

/* Weight of code v at output position i with scale s and zero point zq. */
static float weight_of(const dg_module *m, size_t i, int v, float s, int zq)
{
    if (m->p.kind == PC_DIAG_AFFINE && m->p.bias && m->p.affine) return affine_weight(m, i, v, s, 1.0f);
    return unscaled(m, v, zq) * s;
}

float dg_weight(const dg_module *m, size_t i, int v) { return weight_of(m, i, v, m->p.s[i], m->p.zq[i]); }

static bool same_bits(float a, float b)
{
    return !memcmp(&a, &b, sizeof a);
}

/* ---- loading a module ---- */

/* The parameters are trusted only if they reproduce the reference weights exactly. */
static bool params_reproduce(dg_module *m)
{
    for (size_t i = 0; i < m->numel; i++)
        if (!same_bits(weight_of(m, i, m->codes[i], m->p.s[i], m->p.zq[i]), m->weights[i])) {
            snprintf(m->note, sizeof m->note, "re-derived weights differ from the reference at element %zu", i);
            return false;
        }
    return true;
}

int dg_module_load(const pc_input *in, const pc_module *pm, const uint8_t *codes, const float *weights, dg_module *m)
{
    memset(m, 0, sizeof *m);
    m->prefix = pm->prefix;
    m->layout = pm->layout ? pm->layout : "";
    m->bits = pm->bits;
    m->E = pm->ndim == 3 ? pm->shape[0] : 1;
    m->N = pm->shape[pm->ndim - 2];
    m->K = pm->shape[pm->ndim - 1];
    m->numel = (size_t)pm->numel;
    m->codes = codes;
    m->weights = weights;
    bool shape_ok = pm->ndim >= 2 && pm->ndim <= 3 && m->bits >= 1 && m->bits <= 8;
    bool small = pm->numel <= PC_DIAG_MAX_ELEMS && weights;
    if (!pm->fmt || !pm->fmt->diag_params) { snprintf(m->note, sizeof m->note, "layout %s has no weight-level diagnosis", m->layout); return 0; }
    if (!shape_ok) { snprintf(m->note, sizeof m->note, "module shape or bits not understood"); return 0; }
    int rc = pm->fmt->diag_params(in, pm, small, &m->p);
    if (rc < 0) { pc_diag_params_free(&m->p); return -1; }
    if (!small) snprintf(m->note, sizeof m->note, "module too large for weight-level diagnosis");
    else if (rc > 0 || !m->p.s) snprintf(m->note, sizeof m->note, "%s", *m->p.note ? m->p.note : "parameters not re-derivable");
    if (!small || rc > 0 || !m->p.s || !params_reproduce(m)) pc_diag_params_free(&m->p);
    return 0;
}

void dg_module_free(dg_module *m) { pc_diag_params_free(&m->p); }

void dg_out_free(dg_out *o)
{
    free(o->codes);
    free(o->weights);
    o->codes = NULL;
    o->weights = NULL;
}

/* ---- simulations ---- */

/* Code-level bugs are a map: output element i takes the code `src[i]` reads (an index into the
 * reference, or -1 for a field that reads as 0) or a different value `val[i]` (sign extension).
 * Weights follow with the parameters of the output position (the reader applies scales where it
 * believes the value is). */
typedef struct remap { int64_t *src; int16_t *val; } remap;

static size_t idx(const dg_module *m, uint64_t e, uint64_t n, uint64_t k) { return (size_t)((e * m->N + n) * m->K + k); }

/* Which element of its word-group slot f holds (the format's slot order, or plain). */
static unsigned slot_elem(const pc_diag_layout *l, unsigned f) { return l->slot_order ? l->slot_order[f] : f; }
static unsigned elem_slot(const pc_diag_layout *l, unsigned e)
{
    unsigned f = 0;
    while (l->slot_order && f + 1 < l->slots && l->slot_order[f] != e) f++;
    return l->slot_order ? f : e;
}

/* Words along K ([K/pf, N]) read as packed along N: flat word w = r*N + n holds T[r*pf + f][n];
 * the reader puts field f of word w at (k' = w / (N/pf), n' = (w % (N/pf))*pf + f). */
static bool axis_from_k(const dg_module *m, uint64_t pf, int64_t *src)
{
    uint64_t N = m->N, K = m->K;
    if (K % pf || N % pf) return false;
    for (uint64_t w = 0; w < K / pf * N; w++)
        for (uint64_t f = 0; f < pf; f++) {
            uint64_t r = w / N, n = w % N, k2 = w / (N / pf), n2 = (w % (N / pf)) * pf + f;
            src[idx(m, 0, n2, k2)] = (int64_t)idx(m, 0, n, r * pf + f);
        }
    return true;
}

/* Words along N ([K, N/pf], slot order applied) read as packed along K in plain order: flat word
 * w = k*(N/pf) + c holds column pf*c + order[f] in slot f; the reader puts it at
 * (k' = pf*(w / N) + f, n' = w % N). */
static bool axis_from_n(const dg_module *m, uint64_t pf, int64_t *src)
{
    uint64_t N = m->N, K = m->K;
    if (K % pf || N % pf) return false;
    for (uint64_t w = 0; w < K * (N / pf); w++)
        for (uint64_t f = 0; f < pf; f++) {
            uint64_t k = w / (N / pf), c = w % (N / pf), k2 = pf * (w / N) + f, n2 = w % N;
            src[idx(m, 0, n2, k2)] = (int64_t)idx(m, 0, pf * c + slot_elem(&m->p.lay, (unsigned)f), k);
        }
    return true;
}

/* Whole-slot words: 32/b fields, and a slot order (if any) that covers exactly one word. */
static uint64_t word_slots(const dg_module *m)
{
    const pc_diag_layout *l = &m->p.lay;
    if (l->word_bits != 32 || 32 % m->bits) return 0;
    uint64_t pf = 32 / m->bits;
    return l->slot_order && l->slots != pf ? 0 : pf;
}

static bool remap_pack_axis(const dg_module *m, int64_t *src)
{
    uint64_t pf = word_slots(m);
    if (!m->p.lay.axis_misread || m->E != 1 || !pf) return false;
    return m->p.lay.pack_dim == 'K' ? axis_from_k(m, pf, src) : m->p.lay.pack_dim == 'N' && axis_from_n(m, pf, src);
}

static bool remap_slot_order(const dg_module *m, int64_t *src)
{
    const pc_diag_layout *l = &m->p.lay;
    if (!l->order_misread || !l->slot_order || l->pack_dim != 'N' || m->N % l->slots) return false;
    for (uint64_t n = 0; n < m->N; n++)
        for (uint64_t k = 0; k < m->K; k++) src[idx(m, 0, n, k)] = (int64_t)idx(m, 0, n - n % l->slots + slot_elem(l, (unsigned)(n % l->slots)), k);
    return true;
}

/* The element a nibble swap puts at (e, n, k), or -1 when it reads past the tensor. */
static int64_t nibble_partner(const dg_module *m, uint64_t e, uint64_t n, uint64_t k)
{
    const pc_diag_layout *l = &m->p.lay;
    size_t i = idx(m, e, n, k);
    if (l->nibble == PC_NIB_FORMAT) {
        int64_t j = l->nibble_partner(l, m->N, m->K, e, n, k);
        return j >= 0 && (uint64_t)j < m->numel ? j : -1;
    }
    if (l->nibble == PC_NIB_FLAT_XOR) return (i ^ l->nib_xor) < m->numel ? (int64_t)(i ^ l->nib_xor) : -1;
    if (l->nibble == PC_NIB_K_XOR) return (k ^ l->nib_xor) < m->K ? (int64_t)idx(m, e, n, k ^ l->nib_xor) : -1;
    uint64_t S = l->slots, n2 = n - n % S + slot_elem(l, elem_slot(l, (unsigned)(n % S)) ^ 1u); /* PC_NIB_SLOT */
    return n2 < m->N ? (int64_t)idx(m, e, n2, k) : -1;
}

static bool remap_nibble_swap(const dg_module *m, int64_t *src)
{
    const pc_diag_layout *l = &m->p.lay;
    if (l->nibble == PC_NIB_NONE || (l->nibble == PC_NIB_SLOT && (!l->slot_order || l->slots < 2)) ||
        (l->nibble == PC_NIB_FORMAT && !l->nibble_partner))
        return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) src[idx(m, e, n, k)] = nibble_partner(m, e, n, k);
    return true;
}

/* The field in the top slot of its int32 word (bits 32-b..31). */
static bool top_slot(const dg_module *m, uint64_t pf, uint64_t n, uint64_t k)
{
    const pc_diag_layout *l = &m->p.lay;
    if (l->pack_dim == 'N') return n % pf == slot_elem(l, (unsigned)pf - 1);
    return k % pf == pf - 1;
}

static bool remap_sign_ext(const dg_module *m, int64_t *src, int16_t *val)
{
    uint64_t pf = word_slots(m);
    if (!m->p.lay.sign_ext || !pf) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) {
                size_t i = idx(m, e, n, k);
                src[i] = (int64_t)i;
                if (top_slot(m, pf, n, k) && m->codes[i] >> (m->bits - 1)) val[i] = (int16_t)(m->codes[i] - (1 << m->bits));
            }
    return true;
}

/* Slots of each K-packed word read from the top bit down: output slot j is stored slot pf-1-j. */
static bool remap_msb_first(const dg_module *m, int64_t *src)
{
    uint64_t pf = word_slots(m);
    if (!m->p.lay.msb_first || m->p.lay.pack_dim != 'K' || !pf || m->K % pf) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++) src[idx(m, e, n, k)] = (int64_t)idx(m, e, n, k - k % pf + (pf - 1 - k % pf));
    return true;
}

/* Dense <-> word-aligned stream: re-pack each row in its true layout, read it back in the other. */
static bool remap_stream_alt(const dg_module *m, int16_t *val, int64_t *src)
{
    unsigned b = m->bits;
    const pc_diag_layout *l = &m->p.lay;
    if (!l->stream || 32 % b == 0) return false;
    bool aligned = l->stream_aligned;
    uint64_t W = l->stream_words ? l->stream_words : aligned ? pc_ceil_div(m->K, 32 / b) : pc_ceil_div(m->K * b, 32);
    uint32_t *row = malloc((size_t)W * sizeof *row);
    int64_t *wide = malloc((size_t)W * sizeof *wide);
    if (!row || !wide) { free(row); free(wide); return false; }
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++) {
            memset(row, 0, (size_t)W * sizeof *row);
            for (uint64_t k = 0; k < m->K; k++) pc_diag_stream_put(row, W, k, b, aligned, m->codes[idx(m, e, n, k)]);
            for (uint64_t w = 0; w < W; w++) wide[w] = row[w];
            for (uint64_t k = 0; k < m->K; k++) {
                size_t i = idx(m, e, n, k);
                src[i] = (int64_t)i;
                val[i] = (int16_t)pc_diag_stream_get(wide, 1, W, k, b, !aligned);
            }
        }
    free(row);
    free(wide);
    return true;
}

/* A converter that permutes rows of a block-scaled module: here the first two row blocks trade
 * places in every expert; apply_remap then uses the scale of each output position, i.e. the scale
 * rows stay where they were. */
static bool remap_row_swap(const dg_module *m, int64_t *src)
{
    uint64_t rb = m->p.lay.row_block;
    if (!rb || m->N / 2 < rb) return false;
    for (uint64_t e = 0; e < m->E; e++)
        for (uint64_t n = 0; n < m->N; n++)
            for (uint64_t k = 0; k < m->K; k++)
                src[idx(m, e, n, k)] = (int64_t)idx(m, e, n < rb ? n + rb : n < 2 * rb ? n - rb : n, k);
    return true;
}

static int apply_remap(const dg_module *m, const remap *r, dg_out *out)
{
    const float *s = m->p.s;
    out->K = m->K;
    out->codes = malloc(m->numel ? m->numel : 1);
    out->weights = s ? malloc((m->numel ? m->numel : 1) * sizeof *out->weights) : NULL;
    if (!out->codes || (s && !out->weights)) return -1;
    for (size_t i = 0; i < m->numel; i++) {
        int v = r->val && r->val[i] != INT16_MIN ? r->val[i] : r->src[i] < 0 ? 0 : m->codes[r->src[i]];
        out->codes[i] = (uint8_t)v;
        if (out->weights) out->weights[i] = weight_of(m, i, v, s[i], m->p.zq[i]);
    }
    return 0;
}

static bool remap_for(const dg_module *m, dg_sim sim, remap *r)
{
    switch (sim) {
    case DG_SIM_PACK_AXIS: return remap_pack_axis(m, r->src);
    case DG_SIM_SLOT_ORDER: return remap_slot_order(m, r->src);
    case DG_SIM_NIBBLE: return remap_nibble_swap(m, r->src);
    case DG_SIM_SIGN_EXT: return remap_sign_ext(m, r->src, r->val);
    case DG_SIM_MSB_FIRST: return remap_msb_first(m, r->src);
    case DG_SIM_ROW_SWAP: return remap_row_swap(m, r->src);
    default: return remap_stream_alt(m, r->val, r->src);
    }
}

static int sim_remap(const dg_module *m, dg_sim sim, dg_out *out)
{
    remap r = {malloc((m->numel ? m->numel : 1) * sizeof *r.src), malloc((m->numel ? m->numel : 1) * sizeof *r.val)};
    int rc = -1;
    if (!r.src || !r.val) goto done;
    for (size_t i = 0; i < m->numel; i++) r.val[i] = INT16_MIN;
    rc = remap_for(m, sim, &r) ? apply_remap(m, &r, out) : 1;
    /* Readers that skip a slot order skip it on the packed zero points too (one upstream reader's path
     * for an interleaved layout); a reader of the wrong stream layout misreads a packed zero point. */
    const int16_t *zq = sim == DG_SIM_SLOT_ORDER ? m->p.zq : sim == DG_SIM_STREAM_ALT ? m->p.zq_layout : NULL;
    if (!rc && out->weights && zq)
        for (size_t i = 0; i < m->numel; i++)
            out->weights[i] = weight_of(m, i, out->codes[i], m->p.s[i], zq[sim == DG_SIM_SLOT_ORDER ? (size_t)r.src[i] : i]);
done:
    free(r.src);
    free(r.val);
    return rc;
}

/* Parameter-level bugs keep the codes and change the weight formula's inputs. */
typedef struct pbug { const float *s; const int16_t *zq; int dz, wrap; bool divide; float sign; } pbug;

static bool pbug_for(const dg_module *m, const dg_bug_def *d, int variant, pbug *q)
{
    const pc_diag_layout *l = &m->p.lay;
    *q = (pbug){m->p.s, m->p.zq, 0, 0, false, 1.0f};
    switch (d->sim) {
    case DG_SIM_ZERO_SHIFT: q->dz = variant ? 1 : -1; return l->zero_shift && m->p.kind == PC_DIAG_INT;
    case DG_SIM_ALT_SCALE:
        q->s = m->p.alt_s[d->alt];
        if (m->p.alt_zq[d->alt]) q->zq = m->p.alt_zq[d->alt];
        return q->s != NULL;
    case DG_SIM_BIAS_SUB: q->sign = -1.0f; return m->p.kind == PC_DIAG_AFFINE && m->p.bias && m->p.affine;
    case DG_SIM_SCALE_DIV: q->divide = true; return l->scale_divided;
    case DG_SIM_ZERO_WRAP: q->wrap = l->zero_wrap; return l->zero_wrap != 0;
    default: return false;
    }
}

static float pbug_weight(const dg_module *m, const pbug *q, size_t i)
{
    int v = m->codes[i], zq = q->zq[i];
    if (m->p.kind == PC_DIAG_AFFINE && m->p.bias && m->p.affine) return affine_weight(m, i, v, q->s[i], q->sign);
    if (q->divide) return unscaled(m, v, zq) / q->s[i];
    return unscaled(m, v, q->wrap && zq == q->wrap ? 0 : zq + q->dz) * q->s[i];
}

static int sim_params(const dg_module *m, pc_bug b, int variant, dg_out *out)
{
    pbug q;
    if (!m->p.s || !pbug_for(m, &dg_bugs[b], variant, &q)) return 1;
    out->K = m->K;
    out->codes = malloc(m->numel ? m->numel : 1);
    out->weights = malloc((m->numel ? m->numel : 1) * sizeof *out->weights);
    if (!out->codes || !out->weights) return -1;
    memcpy(out->codes, m->codes, m->numel);
    for (size_t i = 0; i < m->numel; i++) out->weights[i] = pbug_weight(m, &q, i);
    return 0;
}

/* Padded columns kept: the reader takes K from the packed width (dense floor(32W/b), aligned
 * floor(32/b)*W); the pad fields are zero, and their weights use the last column's parameters. */
static int sim_pad(const dg_module *m, dg_out *out)
{
    const pc_diag_layout *l = &m->p.lay;
    if (!l->stream || !l->stream_words) return 1;
    uint64_t kp = l->stream_aligned ? l->stream_words * (32 / m->bits) : l->stream_words * 32 / m->bits;
    if (kp <= m->K) return 1;
    uint64_t rows = m->E * m->N, n_out;
    if (!pc_mul_u64(rows, kp, &n_out) || n_out > PC_DIAG_MAX_ELEMS) return 1;
    const float *s = m->p.s;
    out->K = kp;
    out->codes = calloc((size_t)n_out, 1);
    out->weights = s ? malloc((size_t)n_out * sizeof *out->weights) : NULL;
    if (!out->codes || (s && !out->weights)) return -1;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < kp; k++) {
            size_t src = (size_t)(r * m->K + (k < m->K ? k : m->K - 1)), dst = (size_t)(r * kp + k);
            int v = k < m->K ? m->codes[src] : 0;
            out->codes[dst] = (uint8_t)v;
            if (out->weights) out->weights[dst] = weight_of(m, src, v, s[src], m->p.zq[src]);
        }
    return 0;
}

static bool same_as_reference(const dg_module *m, const dg_out *o)
{
    if (o->K != m->K) return false;
    if (memcmp(o->codes, m->codes, m->numel)) return false;
    if (!o->weights) return true;
    for (size_t i = 0; i < m->numel; i++)
        if (!same_bits(o->weights[i], m->weights[i])) return false;
    return true;
}

int dg_simulate(const dg_module *m, pc_bug b, int variant, dg_out *out)
{
    memset(out, 0, sizeof *out);
    if (b >= PC_BUG_COUNT) return 1;
    int rc;
    switch (dg_bugs[b].sim) {
    case DG_SIM_PACK_AXIS: case DG_SIM_SLOT_ORDER: case DG_SIM_NIBBLE: case DG_SIM_SIGN_EXT: case DG_SIM_STREAM_ALT: case DG_SIM_MSB_FIRST:
    case DG_SIM_ROW_SWAP:
        rc = sim_remap(m, dg_bugs[b].sim, out);
        break;
    case DG_SIM_PAD:
        rc = sim_pad(m, out);
        break;
    default:
        rc = sim_params(m, b, variant, out);
    }
    if (rc == 0 && same_as_reference(m, out)) rc = 1;
    if (rc) dg_out_free(out);
    return rc;
}

/* ---- diagnosis ---- */

/* Does the reader's output equal the simulation? Outputs of another width are compared on the
 * columns both have: a padded width keeps the logical columns first, and a reader of the wrong
 * stream layout whose packed width holds fewer columns than weight_shape says truncates (0.17's slice). */
static bool matches(const dg_module *m, pc_bug b, const dg_out *o, const uint8_t *gc, const float *gw, uint64_t got_k, const pc_weight_compare *cmp, bool *weights_checked)
{
    bool narrower = dg_bugs[b].sim == DG_SIM_STREAM_ALT && got_k < o->K && got_k > 0;
    if (o->K != got_k && !narrower) return false;
    uint64_t rows = m->E * m->N, kc = got_k < m->K ? got_k : m->K;
    *weights_checked = false;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < kc; k++) {
            size_t i = (size_t)(r * got_k + k), j = (size_t)(r * o->K + k);
            if (gc && gc[i] != o->codes[j]) return false;
            if (gw && o->weights && !pc_weight_close(cmp, gw[i], o->weights[j])) return false;
        }
    if (gw && !o->weights && !gc) return false; /* nothing could be compared */
    *weights_checked = gw && o->weights;
    return true;
}

/* A reader that permuted rows without their scale rows, recognised by row matching rather than by
 * the simulation's one swap: the output's codes are any non-identity permutation of the reference's
 * rows (per expert), and each output weight is its code dequantized with the parameters of its own
 * position. The moved ranges go into `ranges`. */
static bool rows_kept_match(const dg_module *m, const uint8_t *gc, const float *gw, uint64_t got_k, const pc_weight_compare *cmp, bool *wchk, char *ranges, size_t n)
{
    *wchk = false;
    if (!m->p.lay.row_block || !gc || got_k != m->K) return false;
    pc_row_perm p;
    if (pc_row_perm_find(m->codes, gc, m->E, m->N, m->K, &p)) return false;
    bool hit = p.moved > 0;
    if (hit && gw && m->p.s) {
        for (size_t i = 0; i < m->numel && hit; i++) hit = pc_weight_close(cmp, gw[i], dg_weight(m, i, gc[i]));
        *wchk = hit;
    }
    if (hit) pc_row_perm_ranges(&p, ranges, n);
    pc_row_perm_free(&p);
    return hit;
}

/* Does bug b (direction v) explain the output? Row permutations by row matching, the rest by
 * simulation. Returns 1 yes, 0 no, -1 out of memory. */
static int explains(const dg_module *m, pc_bug b, int v, const uint8_t *gc, const float *gw, uint64_t got_k, const pc_weight_compare *cmp, bool *wchk, char *ranges, size_t n)
{
    *ranges = 0;
    if (dg_bugs[b].sim == DG_SIM_ROW_SWAP && gc) return rows_kept_match(m, gc, gw, got_k, cmp, wchk, ranges, n); /* weights only: the simulation's swap */
    dg_out o;
    int rc = dg_simulate(m, b, v, &o);
    if (rc) return rc < 0 ? -1 : 0;
    bool hit = matches(m, b, &o, gc, gw, got_k, cmp, wchk);
    dg_out_free(&o);
    return hit;
}

static cJSON *new_diagnosis(pc_bug b, int v, bool codes, bool weights, bool wchk, const char *ranges)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "bug", pc_bug_id(b));
    cJSON_AddStringToObject(d, "title", pc_bug_title(b));
    char detail[600];
    if (*ranges)
        snprintf(detail, sizeof detail, "codes are the reference's with rows permuted: %s; %s", ranges,
                 weights ? (wchk ? "each weight uses the scale of its own row, not of the row its code came from" : "weights not re-derivable") : "no weights written");
    else
        snprintf(detail, sizeof detail, "%s%s%s", dg_bugs[b].sim == DG_SIM_ZERO_SHIFT ? (v ? "zero point +1; " : "zero point -1; ") : "",
                 codes ? "codes match the simulation" : "weights match the simulation",
                 codes && weights ? (wchk ? ", weights too" : "; weights not re-derivable") : "");
    cJSON_AddStringToObject(d, "detail", detail);
    cJSON_AddArrayToObject(d, "also");
    return d;
}

/* Every bug (and direction) whose simulation equals the reader's output: the first is named, the
 * others listed, since on some shapes two bugs write the same thing. */
cJSON *dg_diagnose(const dg_module *m, const uint8_t *got_codes, const float *got_weights, uint64_t got_k, const pc_weight_compare *cmp)
{
    cJSON *d = NULL;
    char ranges[400];
    for (int b = 0; b < PC_BUG_COUNT; b++)
        for (int v = 0; v < pc_bug_variants((pc_bug)b); v++) {
            bool wchk;
            int hit = explains(m, (pc_bug)b, v, got_codes, got_weights, got_k, cmp, &wchk, ranges, sizeof ranges);
            if (hit < 0) return d;
            if (!hit) continue;
            if (!d) { d = new_diagnosis((pc_bug)b, v, got_codes, got_weights, wchk, ranges); continue; }
            cJSON *also = cJSON_GetObjectItem(d, "also");
            bool dup = false;
            const cJSON *x;
            cJSON_ArrayForEach(x, also) dup |= !strcmp(x->valuestring, pc_bug_id((pc_bug)b));
            if (!dup && strcmp(pc_bug_id((pc_bug)b), cJSON_GetObjectItem(d, "bug")->valuestring))
                cJSON_AddItemToArray(also, cJSON_CreateString(pc_bug_id((pc_bug)b)));
        }
    return d;
}
