/* NVFP4's contract for a converted pair (CONTRACT 7 step 2, rule CT-005): a checkpoint with
 * ModelOpt NVFP4 names on one side and compressed-tensors NVFP4 names on the other (all of its
 * modules, or some: a partly converted checkpoint is "mixed") must be the ModelOpt ->
 * compressed-tensors converter's output: weight_packed holds exactly weight's bytes (no nibble
 * swap), weight_scale is copied, and the global scales are f32 reciprocals. `packcheck equiv` calls
 * it through pc_format.pair_detect / pair_check; the weight comparison itself is generic. */
#include "formats/format.h"

#include "../../core/util.h"
#include "nvfp4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_LOAD_LIMIT (1ull << 29) /* bytes of one tensor compared byte for byte in memory */
/* ModelOpt multiplies by weight_scale_2, compressed-tensors divides by f32(1/weight_scale_2): one
 * rounding apart, observed up to 2 ULP (CONTRACT 7 step 5). */
#define NAMING_PAIR_ULP 4

typedef struct pair {
    const pc_input *in[2]; /* source, target */
    pc_ctx *cx;
} pair;

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}


static const pc_tensor *find2(const pc_input *in, const char *prefix, const char *suffix)
{
    char *n = pc_asprintf("%s.%s", prefix, suffix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

static float read_f32(const pc_tensor *t)
{
    uint8_t b[4] = {0};
    float f = NAN;
    if (t->nbytes >= 4 && pc_tensor_read(t, 0, b, 4) == 0) {
        uint32_t u = pc_le32(b);
        memcpy(&f, &u, 4);
    }
    return f;
}

/* Byte-for-byte copy: `to` holds exactly `from`'s bytes. Names a nibble swap when it sees one. */
static void ct005_bytes(pair *r, const pc_tensor *from, const pc_tensor *to, uint64_t row_bytes)
{
    if (from->dtype != to->dtype || from->nbytes != to->nbytes || from->ndim != to->ndim ||
        memcmp(from->shape, to->shape, sizeof from->shape)) {
        pc_report(r->cx, "CT-005", to->name, (int64_t)to->offset, "%s is %s [%d dims, %llu bytes], %s is %s [%d dims, %llu bytes]: not a copy",
                  to->name, pc_dtype_name(to->dtype), to->ndim, (unsigned long long)to->nbytes, from->name,
                  pc_dtype_name(from->dtype), from->ndim, (unsigned long long)from->nbytes);
        return;
    }
    uint8_t *a = pc_tensor_load(from, PAIR_LOAD_LIMIT), *b = pc_tensor_load(to, PAIR_LOAD_LIMIT);
    if (!a || !b) {
        pc_io_error(r->cx, "%s / %s: cannot read for the byte comparison", from->name, to->name);
    } else {
        for (uint64_t i = 0; i < from->nbytes; i++) {
            if (a[i] == b[i]) continue;
            uint8_t swapped = (uint8_t)((a[i] >> 4) | (a[i] << 4)), x = (uint8_t)(a[i] ^ b[i]);
            /* Codes 0x0 and 0x8 are +0 and -0: the libraries disagree on the sign of an exact zero. */
            bool zero_sign = (x == 0x08 && !(a[i] & 0x07)) || (x == 0x80 && !(a[i] & 0x70));
            pc_report(r->cx, "CT-005", to->name, (int64_t)(to->offset + i),
                      "byte %llu (row %llu, byte %llu) is 0x%02x, %s has 0x%02x%s", (unsigned long long)i,
                      (unsigned long long)(row_bytes ? i / row_bytes : 0), (unsigned long long)(row_bytes ? i % row_bytes : i),
                      b[i], from->name, a[i], b[i] == swapped ? ": the nibbles are swapped (CT-005 forbids a swap)"
                      : zero_sign ? ": not copied unchanged (E2M1 +0 vs -0, the sign of an exact zero)" : ": not copied unchanged");
            break;
        }
    }
    free(a);
    free(b);
}

/* A global scale on the target side must be the f32 reciprocal of the source side's. With
 * `either`, the source's may instead be the reciprocal of the target's: a pair compared against the
 * converter's direction (compressed-tensors as SOURCE) came from either converter. */
static void ct005_inverse(pair *r, const pc_tensor *from, const pc_tensor *to, const char *from_name, const char *to_name,
                          const char *prefix, bool either)
{
    if (!from && !to) return;
    if (!from || !to) {
        pc_report(r->cx, "CT-005", to ? to->name : prefix, to ? (int64_t)to->offset : -1, "%s.%s %s but %s.%s %s", prefix,
                  from_name, from ? "exists" : "is missing", prefix, to_name, to ? "exists" : "is missing");
        return;
    }
    float x = read_f32(from), y = read_f32(to), want = 1.0f / x, back = 1.0f / y;
    if (f32_bits(y) == f32_bits(want) || (either && f32_bits(x) == f32_bits(back))) return;
    pc_report(r->cx, "CT-005", to->name, (int64_t)to->offset, "%s = %.9g (0x%08x), expected f32(1/%s) = %.9g (0x%08x)%s", to_name,
              (double)y, f32_bits(y), from_name, (double)want, f32_bits(want),
              f32_bits(y) == f32_bits(x) ? ": copied without inversion" : "");
}

/* `src` and `dst` are the two sides in the user's order; `mo` says which one has ModelOpt names. */
static void ct005_module(pair *r, const char *prefix, int mo)
{
    const pc_input *in_mo = r->in[mo], *in_ct = r->in[1 - mo];
    const pc_tensor *w = find2(in_mo, prefix, "weight"), *wp = find2(in_ct, prefix, "weight_packed");
    if (!wp) {
        pc_report(r->cx, "CT-005", prefix, -1, "%s.weight_packed is missing on the compressed-tensors side (%s)", prefix,
                  find2(in_ct, prefix, "weight") ? "the weight kept its ModelOpt name" : "module not converted");
        return;
    }
    bool mo_is_source = mo == 0;
    const pc_tensor *src_w = mo_is_source ? w : wp, *dst_w = mo_is_source ? wp : w;
    ct005_bytes(r, src_w, dst_w, w->ndim == 2 ? w->shape[1] : 0);
    const pc_tensor *s_mo = find2(in_mo, prefix, "weight_scale"), *s_ct = find2(in_ct, prefix, "weight_scale");
    if (s_mo && s_ct) ct005_bytes(r, mo_is_source ? s_mo : s_ct, mo_is_source ? s_ct : s_mo, 0);
    static const char *const names[2][2] = {{"weight_scale_2", "weight_global_scale"}, {"input_scale", "input_global_scale"}};
    for (int k = 0; k < 2; k++) {
        const pc_tensor *a = find2(in_mo, prefix, names[k][0]), *b = find2(in_ct, prefix, names[k][1]);
        if (mo_is_source) ct005_inverse(r, a, b, names[k][0], names[k][1], prefix, false);
        else ct005_inverse(r, b, a, names[k][1], names[k][0], prefix, true);
    }
}

static bool has_layout(const pc_input *in, const char *layout)
{
    for (size_t i = 0; i < in->nlayouts; i++)
        if (!strcmp(in->layouts[i], layout)) return true;
    return false;
}

/* The side holding ModelOpt NVFP4 names when the other holds compressed-tensors NVFP4 names; -1
 * when the pair is not a naming pair. */
static int modelopt_side(const pc_input *source, const pc_input *target)
{
    const pc_input *in[2] = {source, target};
    for (int i = 0; i < 2; i++)
        if (!strcmp(pc_input_format(in[i]), "nvfp4-modelopt") && has_layout(in[1 - i], "nvfp4-ct")) return i;
    return -1;
}

bool pc_nvfp4_pair_detect(const pc_input *source, const pc_input *target, unsigned *default_ulp)
{
    if (modelopt_side(source, target) < 0) return false;
    *default_ulp = NAMING_PAIR_ULP;
    return true;
}

void pc_nvfp4_pair_check(const pc_input *source, const pc_input *target, pc_ctx *cx)
{
    int mo = modelopt_side(source, target);
    if (mo < 0) return;
    pair r = {{source, target}, cx};
    pc_eval(cx, "CT-005");
    const pc_input *in = r.in[mo];
    for (size_t i = 0; i < in->nmodules && !cx->io_error; i++) ct005_module(&r, in->modules[i].prefix, mo);
}
