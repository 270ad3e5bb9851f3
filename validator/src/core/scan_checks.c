/* Ready-made data scans: see scan.h. Float checks look at exponent bits only (no conversion), so a
 * scan runs at memory speed. */
#include "scan.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

typedef struct elem_scan {
    const pc_tensor *t;
    const char *rule;
    pc_dtype dt;
    unsigned size;          /* bytes per element */
    bool is_float;
    bool positive;          /* floats: also > 0 */
    int64_t lo, hi;         /* ints */
    uint64_t bad, first;    /* count, byte offset in the tensor of the first */
} elem_scan;

/* Non-finite (or, with pos, also <= 0) for each float encoding. */
static bool float_bad(pc_dtype dt, const uint8_t *p, bool pos)
{
    switch (dt) {
    case PC_DT_F64: {
        uint64_t v = pc_le64(p);
        return (v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull || (pos && ((v >> 63) || !(v << 1)));
    }
    case PC_DT_F32: {
        uint32_t v = pc_le32(p);
        return (v & 0x7F800000u) == 0x7F800000u || (pos && ((v >> 31) || !(v << 1)));
    }
    case PC_DT_F16: {
        uint16_t v = pc_le16(p);
        return (v & 0x7C00) == 0x7C00 || (pos && ((v >> 15) || !(uint16_t)(v << 1)));
    }
    case PC_DT_BF16: {
        uint16_t v = pc_le16(p);
        return (v & 0x7F80) == 0x7F80 || (pos && ((v >> 15) || !(uint16_t)(v << 1)));
    }
    case PC_DT_F8_E4M3: /* fn: no infinities, NaN = S.1111.111 */
        return (p[0] & 0x7F) == 0x7F || (pos && ((p[0] >> 7) || !(p[0] & 0x7F)));
    case PC_DT_F8_E5M2:
        return (p[0] & 0x7C) == 0x7C || (pos && ((p[0] >> 7) || !(p[0] & 0x7F)));
    case PC_DT_F8_E4M3FNUZ: case PC_DT_F8_E5M2FNUZ: /* the only NaN is 0x80, no negative zero */
        return p[0] == 0x80 || (pos && ((p[0] >> 7) || !p[0]));
    case PC_DT_F8_E8M0: /* exponent only, always positive; 0xFF is NaN */
        return p[0] == 0xFF;
    default:
        return false;
    }
}

static int64_t int_at(pc_dtype dt, const uint8_t *p)
{
    switch (dt) {
    case PC_DT_I8: return (int8_t)p[0];
    case PC_DT_U8: return p[0];
    case PC_DT_I16: return (int16_t)pc_le16(p);
    case PC_DT_U16: return pc_le16(p);
    case PC_DT_I32: return (int32_t)pc_le32(p);
    case PC_DT_U32: return pc_le32(p);
    case PC_DT_I64: return (int64_t)pc_le64(p);
    default: { uint64_t v = pc_le64(p); return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v; } /* U64 */
    }
}

static int float_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    elem_scan *s = arg;
    for (size_t i = 0; i + s->size <= n; i += s->size)
        if (float_bad(s->dt, p + i, s->positive) && s->bad++ == 0) s->first = off + i;
    return 0;
}

static int int_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    elem_scan *s = arg;
    for (size_t i = 0; i + s->size <= n; i += s->size) {
        int64_t v = int_at(s->dt, p + i);
        if ((v < s->lo || v > s->hi) && s->bad++ == 0) s->first = off + i;
    }
    return 0;
}

static void elem_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)in;
    (void)complete; /* an incomplete pass is already an I/O error on cx */
    elem_scan *s = arg;
    if (!s->bad) return;
    uint64_t idx = s->first / s->size;
    if (!s->is_float)
        pc_report(cx, s->rule, s->t->name, (int64_t)(s->t->offset + s->first),
                  "%llu element(s) outside [%lld, %lld] (first: element %llu)", (unsigned long long)s->bad,
                  (long long)s->lo, (long long)s->hi, (unsigned long long)idx);
    else
        pc_report(cx, s->rule, s->t->name, (int64_t)(s->t->offset + s->first), "%llu element(s) %s (first: element %llu)",
                  (unsigned long long)s->bad, s->positive ? "not finite and positive" : "not finite", (unsigned long long)idx);
}

static int add_elem_scan(pc_input *in, const pc_tensor *t, elem_scan *s, pc_scan_chunk_fn chunk)
{
    elem_scan *h = malloc(sizeof *h);
    if (!h) return -1;
    *h = *s;
    uint64_t n = t->nbytes / h->size * h->size;
    if (pc_scan_add(in, t, 0, n, h->size, chunk, elem_finish, free, h)) { free(h); return -1; }
    return 0;
}

int pc_scan_floats_finite(pc_input *in, pc_ctx *cx, const pc_tensor *t, const char *rule_id, bool positive)
{
    pc_eval(cx, rule_id);
    if (!pc_dtype_is_float(t->dtype) || t->dtype == PC_DT_GGML) return 0;
    unsigned bits = pc_dtype_bits(t->dtype);
    if (bits < 8) return 0; /* F4/F6: no non-finite encodings */
    elem_scan s = {t, rule_id, t->dtype, bits / 8, true, positive, 0, 0, 0, 0};
    return add_elem_scan(in, t, &s, float_chunk);
}

int pc_scan_ints_in_range(pc_input *in, pc_ctx *cx, const pc_tensor *t, const char *rule_id, int64_t lo, int64_t hi)
{
    pc_eval(cx, rule_id);
    switch (t->dtype) {
    case PC_DT_I8: case PC_DT_U8: case PC_DT_I16: case PC_DT_U16: case PC_DT_I32: case PC_DT_U32:
    case PC_DT_I64: case PC_DT_U64: break;
    default: return 0;
    }
    elem_scan s = {t, rule_id, t->dtype, pc_dtype_bits(t->dtype) / 8, false, false, lo, hi, 0, 0};
    return add_elem_scan(in, t, &s, int_chunk);
}
