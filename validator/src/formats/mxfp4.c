/* Format module: MXFP4 under the gpt-oss / transformers naming (rules: family MX).
 *
 *   mxfp4-gptoss  `quant_method: "mxfp4"`; each fused MoE weight P is two tensors
 *                 (huggingface/transformers integrations/mxfp4.py, _convert_moe_packed_tensors):
 *                 P_blocks U8 [E, R, G, 16]: 32 E2M1 codes per block, element 2i in the low nibble
 *                 of byte i; P_scales U8 [E, R, G]: one E8M0 exponent per block, 2^(s - 127).
 *                 The checkpoint's stored orientation is [E, R, K = 32 G]: transformers transposes
 *                 its dequantized result to [E, K, R] for its own parameter, the logical view
 *                 keeps [E, R, K] (CONTRACT 3: [E, out, in]).
 *
 * Codes: the E2M1 nibble; weights: f32(e2m1(code) * 2^(s - 127)), which is exact in f32 except
 * where it overflows to infinity (transformers' torch.ldexp gives the same). Scale byte 255 (E8M0
 * NaN) is rejected. The nibble stream is the little-endian 4-bit stream and the E2M1 table is
 * NVFP4's, so the stream and NVFP4 kernels (oracle and fast) decode it with the scale of each
 * 32-block given to both 16-halves. compressed-tensors' mxfp4-pack-quantized stays recognise-only
 * (formats/known_fp8_int8_mxfp4.c). */
#include "packcheck.h"

#include "../core/arith.h"
#include "../core/scan.h"
#include "../core/diag_util.h"
#include "../core/util.h"
#include "../kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MX_LIMIT (1ull << 29) /* bytes of one _blocks tensor we decode */

extern const pc_format pc_format_mxfp4;

static const char k_layout[] = "mxfp4-gptoss";

typedef struct mx_module {
    const pc_tensor *blocks, *scales;
} mx_module;

/* P for a tensor named P_blocks, else NULL (caller frees). */
static char *blocks_prefix(const char *name)
{
    size_t n = strlen(name);
    if (n <= 7 || strcmp(name + n - 7, "_blocks")) return NULL;
    return pc_strndup(name, n - 7);
}

static const pc_tensor *scales_of(const pc_input *in, const char *prefix)
{
    char *n = pc_asprintf("%s_scales", prefix);
    const pc_tensor *t = n ? pc_input_find(in, n) : NULL;
    free(n);
    return t;
}

static bool configured(const pc_input *in)
{
    const char *qm = pc_input_qconfig_str(in, "quant_method");
    return qm && !strcmp(qm, "mxfp4");
}

/* The first P_blocks with a P_scales beside it. */
static const pc_tensor *fingerprint(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++) {
        char *p = blocks_prefix(in->tensors[i].name);
        bool hit = p && scales_of(in, p);
        free(p);
        if (hit) return &in->tensors[i];
    }
    return NULL;
}

/* MX-001: blocks U8 [E, R, G, 16] with E, R, G > 0; scales U8 (or F8_E8M0) [E, R, G]. */
static bool check_shapes(const pc_tensor *b, const pc_tensor *s, pc_ctx *cx)
{
    if (b->dtype != PC_DT_U8 || b->ndim != 4 || b->shape[3] != 16 || !b->shape[0] || !b->shape[1] || !b->shape[2]) {
        pc_report(cx, "MX-001", b->name, (int64_t)b->offset, "blocks are %s of rank %d; gpt-oss MXFP4 wants U8 [E, R, G, 16]",
                  pc_dtype_name(b->dtype), b->ndim);
        return false;
    }
    bool ok = (s->dtype == PC_DT_U8 || s->dtype == PC_DT_F8_E8M0) && s->ndim == 3;
    for (int i = 0; ok && i < 3; i++) ok = s->shape[i] == b->shape[i];
    if (!ok) {
        pc_report(cx, "MX-001", s->name, (int64_t)s->offset, "scales are %s of rank %d [%llu, %llu, %llu]; want U8 [%llu, %llu, %llu] (the blocks' shape without its 16)",
                  pc_dtype_name(s->dtype), s->ndim, (unsigned long long)(s->ndim > 0 ? s->shape[0] : 0),
                  (unsigned long long)(s->ndim > 1 ? s->shape[1] : 0), (unsigned long long)(s->ndim > 2 ? s->shape[2] : 0),
                  (unsigned long long)b->shape[0], (unsigned long long)b->shape[1], (unsigned long long)b->shape[2]);
        return false;
    }
    return true;
}

static void check_module(pc_input *in, const char *prefix, const pc_tensor *b, pc_ctx *cx)
{
    const pc_tensor *s = scales_of(in, prefix);
    pc_input_note_layout(in, k_layout);
    if (!check_shapes(b, s, cx)) return;
    /* MX-002: E8M0 255 is NaN; a U8 tensor holds E8M0 bits, never a linear value */
    if (pc_scan_ints_in_range(in, cx, s, "MX-002", 0, 254) || pc_scan_floats_finite(in, cx, s, "MX-002", false)) {
        cx->oom = true;
        return;
    }
    pc_module *m = pc_module_add(in, &pc_format_mxfp4, prefix, k_layout);
    mx_module *d = m ? malloc(sizeof *d) : NULL;
    if (!d) { cx->oom = true; return; }
    d->blocks = b;
    d->scales = s;
    m->priv = d;
    m->ndim = 3;
    m->shape[0] = b->shape[0];
    m->shape[1] = b->shape[1];
    m->shape[2] = b->shape[2] * 32; /* G * 32 <= 2 * nbytes, which fits */
    m->numel = b->nbytes * 2;
    m->bits = 4;
    pc_tensor_claim(in, b, k_layout);
    pc_tensor_claim(in, s, k_layout);
}

static bool mx_detect(const pc_input *in) { return configured(in) || fingerprint(in); }

static void mx_check(pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "MX-003");
    if (!configured(in)) {
        const pc_tensor *t = fingerprint(in);
        pc_input_note_layout(in, k_layout);
        pc_report(cx, "MX-003", t->name, (int64_t)t->offset,
                  "gpt-oss MXFP4 tensors (*_blocks beside *_scales) but no quantization config with quant_method \"mxfp4\": a loader reads them as plain bytes");
        return;
    }
    pc_eval(cx, "MX-001");
    pc_eval(cx, "MX-002");
    for (size_t i = 0; i < in->ntensors && !cx->oom; i++) {
        char *p = blocks_prefix(in->tensors[i].name);
        if (p && scales_of(in, p)) check_module(in, p, &in->tensors[i], cx);
        free(p);
    }
}

static int mx_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const mx_module *d = m->priv;
    size_t n = (size_t)m->numel, nblk = n / 32;
    uint8_t *packed = pc_tensor_load(d->blocks, MX_LIMIT);
    uint8_t *e = packed ? pc_tensor_load(d->scales, MX_LIMIT) : NULL;
    uint8_t *c = codes ? codes : malloc(n);
    float *s = weights ? malloc(nblk * 2 * sizeof *s) : NULL;
    int rc = 0;
    if (!packed || !e) {
        pc_io_error(cx, "%s: cannot read the MXFP4 blocks and scales", m->prefix);
        rc = -1;
    } else if (!c || (weights && !s)) {
        cx->oom = true;
        rc = -1;
    } else {
        pc_stream_fn(impl)(packed, 4, n, c);
        if (weights) {
            /* 2^(e - 127) is exact in f32 for e = 0..254 (2^-127 is a subnormal); one per 16-half */
            for (size_t i = 0; i < nblk; i++) s[2 * i] = s[2 * i + 1] = pc_e8m0_value(e[i]);
            pc_nvfp4_dequant(impl)(c, n / 32, 32, s, weights);
        }
    }
    free(packed);
    free(e);
    free(s);
    if (c != codes) free(c);
    return rc;
}

static void mx_module_free(void *priv) { free(priv); }


/* ---- certify's diagnosis (pc_format.diag_params) ---- */

/* One E8M0 byte per 32 codes of a row, 2^(s - 127) (OCP MX spec); a linear reader uses s. */
static int mx_diag_fill(const pc_input *in, const pc_module *pm, pc_diag_params *p)
{
    uint64_t K = pm->shape[pm->ndim - 1];
    char *name = pc_asprintf("%s_scales", pm->prefix);
    const pc_tensor *ts = name ? pc_input_find(in, name) : NULL;
    free(name);
    if (!ts || K % 32 || ts->numel != pm->numel / 32) { snprintf(p->note, sizeof p->note, "MXFP4 scales not found in the expected shape"); return 1; }
    int64_t *e = pc_diag_load_ints(ts);
    if (!e) { snprintf(p->note, sizeof p->note, "MXFP4 scales unreadable"); return 1; }
    if (pc_diag_alloc(p, (size_t)pm->numel, PC_ALT_EXP_LINEAR)) { free(e); return -1; }
    for (size_t i = 0; i < pm->numel; i++) {
        p->s[i] = pc_e8m0_value(e[i / 32]);
        p->alt_s[PC_ALT_EXP_LINEAR][i] = (float)e[i / 32];
    }
    free(e);
    return 0;
}

static int mx_diag_params(const pc_input *in, const pc_module *pm, bool want, pc_diag_params *p)
{
    p->lay = (pc_diag_layout){0};
    p->kind = PC_DIAG_E2M1;
    return want ? mx_diag_fill(in, pm, p) : 0;
}

const pc_format pc_format_mxfp4 = {.name = "mxfp4", .detect = mx_detect, .check = mx_check, .decode = mx_decode, .module_free = mx_module_free, .diag_params = mx_diag_params};
