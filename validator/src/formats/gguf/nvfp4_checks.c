/* GGUF NVFP4 (type 40) checks beyond geometry: its UE4M3 sub-block scale bytes (GQ-004, GQ-005) and
 * llama.cpp's per-tensor `.scale` companion (GQ-006). The scale bytes are read by one scan joining the
 * input's streaming pass, as gguf_blocks.c's fp16 scan; the companion is at most one F32 per expert,
 * read in bounded chunks. */
#include "nvfp4_checks.h"

#include "../../core/scan.h"
#include "../../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NV_BLOCK 36u /* d[4] then qs[32] (ggml-common.h block_nvfp4) */

typedef struct nv_scan {
    const pc_tensor *t;
    uint64_t sign, nan, first_sign, first_nan; /* counts, and the byte offset (in the tensor) of the first */
    uint8_t sign_byte;
} nv_scan;

static int nv_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    nv_scan *s = arg;
    for (size_t i = 0; i + NV_BLOCK <= n; i += NV_BLOCK)
        for (unsigned k = 0; k < 4; k++) {
            uint8_t x = p[i + k];
            if ((x & 0x80u) && !s->sign++) { s->first_sign = off + i + k; s->sign_byte = x; }
            if (x == 0x7F && !s->nan++) s->first_nan = off + i + k;
        }
    return 0;
}

static void nv_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)complete; /* an incomplete pass is an I/O error on cx already */
    (void)in;
    const nv_scan *s = arg;
    if (s->sign)
        pc_report(cx, "GQ-004", s->t->name, (int64_t)(s->t->offset + s->first_sign),
                  "block %llu sub-block %u has scale byte 0x%02x with bit 7 set (not a UE4M3 value: ggml's CPU decode ignores the bit, "
                  "CUDA's reads a negative E4M3); %llu such byte(s) in all",
                  (unsigned long long)(s->first_sign / NV_BLOCK), (unsigned)(s->first_sign % NV_BLOCK), s->sign_byte,
                  (unsigned long long)s->sign);
    if (s->nan)
        pc_report(cx, "GQ-005", s->t->name, (int64_t)(s->t->offset + s->first_nan),
                  "block %llu sub-block %u has scale byte 0x7F (E4M3 NaN), which ggml decodes as 0: 16 weights are zero; %llu such byte(s) in all",
                  (unsigned long long)(s->first_nan / NV_BLOCK), (unsigned)(s->first_nan % NV_BLOCK), (unsigned long long)s->nan);
}

bool pc_gguf_nvfp4_scan(pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    nv_scan *s = calloc(1, sizeof *s);
    if (!s) { cx->oom = true; return false; }
    s->t = t;
    if (pc_scan_add(in, t, 0, t->nbytes, NV_BLOCK, nv_chunk, nv_finish, free, s)) { free(s); cx->oom = true; return false; }
    return true;
}

/* The companion: the weight's name with its trailing ".weight" replaced by ".scale" (llama.cpp's
 * converter: new_name.replace(".weight", ".scale")), found by the input's sorted-name lookup; NULL
 * when absent or when the name has no such suffix. */
static const pc_tensor *companion_of(const pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    size_t n = strlen(t->name), k = strlen(".weight");
    if (n <= k || strcmp(t->name + n - k, ".weight")) return NULL;
    char *prefix = pc_strndup(t->name, n - k);
    if (!prefix) { cx->oom = true; return NULL; }
    const pc_tensor *s = pc_input_find_part(in, prefix, ".scale");
    free(prefix);
    return s;
}

/* Values a companion must hold: one per expert of a 3-D weight (ne2; a 4-D one folds ne3 * ne2, as its
 * logical view does), else one. */
static uint64_t expected_count(const pc_tensor *w)
{
    if (w->ndim == 3) return w->shape[0];
    if (w->ndim == 4) return w->shape[0] * w->shape[1]; /* fits: the container bounds the element count */
    return 1;
}

/* Index of the first non-finite F32 among the companion's values, count when all are finite, or -1 on a
 * read error (already reported). */
static int64_t first_nonfinite(const pc_tensor *s, uint64_t count, pc_ctx *cx)
{
    float buf[1024];
    for (uint64_t at = 0; at < count; at += 1024) {
        size_t n = count - at < 1024 ? (size_t)(count - at) : 1024;
        if (pc_tensor_read(s, at * 4, buf, n * 4)) {
            pc_io_error(cx, "%s: cannot read tensor data at byte %llu", s->name, (unsigned long long)(s->offset + at * 4));
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, &buf[i], 4); /* little-endian file, little-endian host (the GGUF reader's premise) */
            if ((u & 0x7f800000u) == 0x7f800000u) return (int64_t)(at + i);
        }
    }
    return (int64_t)count;
}

void pc_gguf_nvfp4_companion(const pc_input *in, const pc_tensor *t, pc_ctx *cx)
{
    const pc_tensor *s = companion_of(in, t, cx);
    if (!s) return;
    uint64_t want = expected_count(t);
    if (s->dtype != PC_DT_GGML || s->ggml_type != 0) {
        pc_report(cx, "GQ-006", s->name, (int64_t)s->offset, "the .scale companion of NVFP4 tensor %s is %s, not F32", t->name,
                  s->dtype == PC_DT_GGML && pc_ggml_type_name(s->ggml_type) ? pc_ggml_type_name(s->ggml_type) : "not a GGUF type");
        return;
    }
    if (s->numel != want || s->ndim > 1) {
        pc_report(cx, "GQ-006", s->name, (int64_t)s->offset,
                  "the .scale companion of NVFP4 tensor %s holds %llu value(s) in %d dim(s); llama.cpp loads it with shape [%llu]", t->name,
                  (unsigned long long)s->numel, s->ndim, (unsigned long long)want);
        return;
    }
    int64_t bad = first_nonfinite(s, want, cx);
    if (bad >= 0 && (uint64_t)bad < want)
        pc_report(cx, "GQ-006", s->name, (int64_t)(s->offset + (uint64_t)bad * 4), "value %lld of the .scale companion of %s is not finite",
                  (long long)bad, t->name);
}
