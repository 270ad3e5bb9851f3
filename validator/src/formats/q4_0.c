/* Format module: GGUF Q4_0 (family Q40).
 *
 * Every tensor of ggml type 2 is one module: prefix = the tensor name without a trailing
 * ".weight" (CONTRACT 3), layout "gguf". Tensors of other ggml types (F32, F16, other quant types)
 * are left alone: the container described them, nothing here reads them.
 *
 * Logical shape: ne reversed, so ne = [ne0, ne1] gives [ne1, ne0]. A 1-D tensor is one row
 * [1, ne0]; a 3-D tensor is [ne2, ne1, ne0] (mixture-of-experts [E, out, in]); a 4-D tensor folds
 * its two outer dims into the expert dim, [ne3 * ne2, ne1, ne0], which keeps the element order. */
#include "packcheck.h"

#include "../core/scan.h"
#include "../core/util.h"
#include "../kernels/kernels.h"

#include <stdlib.h>
#include <string.h>

extern const pc_format pc_format_q4_0;

#define Q4_0_TYPE 2
#define Q4_0_BLOCK 32
#define Q4_0_BYTES 18
#define Q4_0_CHUNK 4096 /* blocks per read: 72 KiB */

static bool is_q4_0(const pc_tensor *t) { return t->dtype == PC_DT_GGML && t->ggml_type == Q4_0_TYPE; }

static bool q4_0_detect(const pc_input *in)
{
    for (size_t i = 0; i < in->ntensors; i++)
        if (is_q4_0(&in->tensors[i])) return true;
    return false;
}

static uint64_t ne0_of(const pc_tensor *t) { return t->ndim ? t->shape[t->ndim - 1] : 1; }

/* Q40-001: the geometry the block layout needs. */
static bool check_geometry(const pc_tensor *t, pc_ctx *cx)
{
    uint64_t ne0 = ne0_of(t);
    if (ne0 % Q4_0_BLOCK) {
        pc_report(cx, "Q40-001", t->name, (int64_t)t->offset, "ne[0] = %llu is not a multiple of 32", (unsigned long long)ne0);
        return false;
    }
    if (t->numel % Q4_0_BLOCK || t->nbytes / Q4_0_BYTES != t->numel / Q4_0_BLOCK || t->nbytes % Q4_0_BYTES) {
        pc_report(cx, "Q40-001", t->name, (int64_t)t->offset, "%llu bytes for %llu elements, Q4_0 needs 18 per 32",
                  (unsigned long long)t->nbytes, (unsigned long long)t->numel);
        return false;
    }
    return true;
}

/* Q40-002: every block's fp16 d is finite (exponent field not all ones). The blocks are not read
 * here: a scan joins the input's one streaming pass (core/scan.h), so the data is read once, in
 * bounded windows, split across the cores, and hashed in the same pass under --hash. The report
 * names the first bad block with its absolute offset, and the count. */
typedef struct d_scan {
    const pc_tensor *t;
    uint64_t bad, first;
    uint16_t d;
} d_scan;

static int d_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    d_scan *s = arg;
    for (size_t i = 0; i + Q4_0_BYTES <= n; i += Q4_0_BYTES) {
        uint16_t d = pc_le16(p + i);
        if ((d & 0x7c00u) == 0x7c00u && !s->bad++) {
            s->first = (off + i) / Q4_0_BYTES;
            s->d = d;
        }
    }
    return 0;
}

static void d_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    const d_scan *s = arg;
    if (s->bad)
        pc_report(cx, "Q40-002", s->t->name, (int64_t)(s->t->offset + s->first * Q4_0_BYTES),
                  "block %llu has d = 0x%04x (%s); %llu block(s) in all have a non-finite scale", (unsigned long long)s->first,
                  s->d, (s->d & 0x3ffu) ? "NaN" : "inf", (unsigned long long)s->bad);
}

static bool check_scales(pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    d_scan *s = calloc(1, sizeof *s);
    if (!s) { cx->oom = true; return false; }
    s->t = t;
    if (pc_scan_add(in, t, 0, t->nbytes, Q4_0_BYTES, d_chunk, d_finish, free, s)) { free(s); cx->oom = true; return false; }
    return true;
}

static char *module_prefix(const char *name)
{
    size_t n = strlen(name), k = strlen(".weight");
    return n > k && !strcmp(name + n - k, ".weight") ? pc_strndup(name, n - k) : pc_strdup(name);
}

static void set_shape(pc_module *m, const pc_tensor *t)
{
    const uint64_t *s = t->shape;
    switch (t->ndim) {
    case 0: m->ndim = 2; m->shape[0] = 1; m->shape[1] = 1; break;
    case 1: m->ndim = 2; m->shape[0] = 1; m->shape[1] = s[0]; break;
    case 2: m->ndim = 2; m->shape[0] = s[0]; m->shape[1] = s[1]; break;
    case 3: m->ndim = 3; m->shape[0] = s[0]; m->shape[1] = s[1]; m->shape[2] = s[2]; break;
    default: /* 4: the container holds the element count within 63 bits, so s[0]*s[1] fits */
        m->ndim = 3; m->shape[0] = s[0] * s[1]; m->shape[1] = s[2]; m->shape[2] = s[3]; break;
    }
    m->numel = t->numel;
}

static void q4_0_check(pc_input *in, pc_ctx *cx)
{
    pc_eval(cx, "Q40-001");
    pc_eval(cx, "Q40-002");
    pc_eval(cx, "Q40-003");
    pc_input_note_layout(in, "gguf");
    for (size_t i = 0; i < in->ntensors; i++) {
        const pc_tensor *t = &in->tensors[i];
        if (!is_q4_0(t)) continue;
        if (!check_geometry(t, cx) || !check_scales(in, t, cx)) continue;
        char *prefix = module_prefix(t->name);
        if (!prefix) { cx->oom = true; return; }
        bool taken = false;
        for (size_t k = 0; k < in->nmodules && !taken; k++) taken = !strcmp(in->modules[k].prefix, prefix);
        if (taken) {
            pc_report(cx, "Q40-003", t->name, (int64_t)t->offset, "module prefix \"%s\" is already taken by another Q4_0 tensor", prefix);
            free(prefix);
            continue;
        }
        pc_module *m = pc_module_add(in, &pc_format_q4_0, prefix, "gguf");
        free(prefix);
        if (!m) { cx->oom = true; return; }
        set_shape(m, t);
        m->bits = 4;
        m->priv = (void *)t; /* in->tensors does not move once the input is open */
        pc_tensor_claim(in, t, m->layout);
    }
}

static int q4_0_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in;
    const pc_tensor *t = m->priv;
    pc_q4_0_fn decode = pc_q4_0_fn_for(impl);
    uint8_t *buf = malloc((size_t)Q4_0_CHUNK * Q4_0_BYTES);
    if (!buf) { cx->oom = true; return -1; }
    uint64_t nblocks = t->numel / Q4_0_BLOCK;
    for (uint64_t b = 0; b < nblocks; b += Q4_0_CHUNK) {
        size_t n = nblocks - b < Q4_0_CHUNK ? (size_t)(nblocks - b) : Q4_0_CHUNK;
        if (pc_tensor_read(t, b * Q4_0_BYTES, buf, n * Q4_0_BYTES)) {
            pc_io_error(cx, "%s: cannot read tensor data at byte %llu", t->name, (unsigned long long)(t->offset + b * Q4_0_BYTES));
            free(buf);
            return -1;
        }
        size_t at = (size_t)b * Q4_0_BLOCK;
        decode(buf, n, codes ? codes + at : NULL, weights ? weights + at : NULL);
    }
    free(buf);
    return 0;
}

const pc_format pc_format_q4_0 = {.name = "q4_0", .detect = q4_0_detect, .check = q4_0_check, .decode = q4_0_decode};
