#include "compare.h"

#include "kernels/oracle/round.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pc_tolerance_parse(const char *s, pc_tolerance *t)
{
    static const struct { const char *pfx; pc_tol_kind kind; } k[] = {{"ulp:", PC_TOL_ULP}, {"abs:", PC_TOL_ABS}, {"rel:", PC_TOL_REL}};
    memset(t, 0, sizeof *t);
    t->given = true;
    if (!strcmp(s, "exact") || !strcmp(s, "0")) return 0;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        size_t n = strlen(k[i].pfx);
        if (strncmp(s, k[i].pfx, n)) continue;
        char *end = NULL;
        double v = strtod(s + n, &end);
        if (end == s + n || *end || !isfinite(v) || v < 0) return -1;
        if (k[i].kind == PC_TOL_ULP && (v != floor(v) || v > 2147483647.0)) return -1;
        t->kind = k[i].kind;
        t->value = v;
        return 0;
    }
    return -1;
}

const char *pc_tolerance_str(const pc_tolerance *t)
{
    static char buf[64];
    switch (t->kind) {
    case PC_TOL_ULP: snprintf(buf, sizeof buf, "ulp:%.0f", t->value); break;
    case PC_TOL_ABS: snprintf(buf, sizeof buf, "abs:%g", t->value); break;
    case PC_TOL_REL: snprintf(buf, sizeof buf, "rel:%g", t->value); break;
    default: snprintf(buf, sizeof buf, "exact"); break;
    }
    return buf;
}

uint32_t pc_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Floats in the integer order of their values (+0 and -0 both map to 0): ULP distance is a
 * difference of these. */
static int64_t f32_ordered(float f)
{
    uint32_t u = pc_f32_bits(f);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

uint64_t pc_ulp_distance(float a, float b)
{
    int64_t d = f32_ordered(a) - f32_ordered(b);
    return (uint64_t)(d < 0 ? -d : d);
}

bool pc_tolerance_within(const pc_tolerance *t, float a, float b)
{
    if (pc_f32_bits(a) == pc_f32_bits(b)) return true;
    if (isnan(a) || isnan(b)) return false;
    switch (t->kind) {
    case PC_TOL_ULP: return pc_ulp_distance(a, b) <= (uint64_t)t->value;
    case PC_TOL_ABS: return fabs((double)a - (double)b) <= t->value;
    case PC_TOL_REL: return fabs((double)a - (double)b) <= t->value * fmax(fabs((double)a), fabs((double)b));
    default: return false;
    }
}

static const char *const depth_names[] = {"helper", "loader", "compute"};

const char *pc_depth_name(pc_depth d) { return d <= PC_DEPTH_COMPUTE ? depth_names[d] : "helper"; }

int pc_depth_parse(const char *s, pc_depth *d)
{
    for (int i = 0; i <= PC_DEPTH_COMPUTE; i++)
        if (!strcmp(s, depth_names[i])) { *d = (pc_depth)i; return 0; }
    return -1;
}

const char *pc_precision_name(pc_round_t p) { return p == PC_ROUND_BF16 ? "bf16" : p == PC_ROUND_F16 ? "f16" : "f32"; }

float pc_reference_at(const pc_weight_compare *c, float want) { return pc_oracle_round_to(want, c->precision); }

bool pc_weight_close(const pc_weight_compare *c, float got, float want)
{
    float ref = pc_reference_at(c, want);
    if (c->any_zero_sign && got == 0.0f && ref == 0.0f) return true;
    /* A NaN's payload is not an answer: NaN answers NaN unless the comparison is bit for bit at f32. */
    if (isnan(got) && isnan(ref) && (c->precision != PC_ROUND_F32 || c->tol.kind != PC_TOL_EXACT)) return true;
    return pc_tolerance_within(&c->tol, got, ref);
}
