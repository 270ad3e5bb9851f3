#include "formats/diag_util.h"

#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#define DG_TENSOR_LIMIT (1ull << 30)

const pc_tensor *pc_diag_find(const pc_input *in, const char *prefix, const char *suffix)
{
    if (!suffix) return pc_input_find(in, prefix);
    char *dotted = pc_asprintf(".%s", suffix); /* a suffix is short; the prefix is never copied */
    const pc_tensor *t = dotted ? pc_input_find_part(in, prefix, dotted) : NULL;
    free(dotted);
    return t;
}

/* The tensor's bytes and room for its numel values of `size` bytes each; false when too large,
 * unreadable or out of memory (both freed). */
static bool load_for(const pc_tensor *t, size_t size, uint8_t **raw, void **out)
{
    *raw = NULL; *out = NULL;
    if (!pc_dtype_bits(t->dtype) || t->numel > PC_DIAG_MAX_ELEMS) return false;
    *raw = pc_tensor_load(t, DG_TENSOR_LIMIT);
    *out = *raw ? malloc((size_t)(t->numel ? t->numel : 1) * size) : NULL;
    if (*out) return true;
    free(*raw); *raw = NULL;
    return false;
}

float *pc_diag_load_floats(const pc_tensor *t)
{
    uint8_t *raw; float *f;
    if (!load_for(t, sizeof *f, &raw, (void **)&f)) return NULL;
    unsigned bits = pc_dtype_bits(t->dtype);
    bool ok = true;
    for (uint64_t i = 0; ok && i < t->numel; i++) {
        const uint8_t *p = raw + i * (bits / 8);
        switch (t->dtype) {
        case PC_DT_F32: { uint32_t u = pc_le32(p); memcpy(&f[i], &u, 4); break; }
        case PC_DT_F16: f[i] = pc_f16_to_f32(pc_le16(p)); break;
        case PC_DT_BF16: f[i] = pc_bf16_to_f32(pc_le16(p)); break;
        case PC_DT_F8_E4M3: f[i] = pc_f8e4m3_to_f32(p[0]); break;
        case PC_DT_F64: { uint64_t u = pc_le64(p); double d; memcpy(&d, &u, 8); f[i] = (float)d; break; }
        default: ok = false;
        }
    }
    free(raw);
    if (!ok) { free(f); return NULL; }
    return f;
}

int64_t *pc_diag_load_ints(const pc_tensor *t)
{
    uint8_t *raw; int64_t *v;
    if (!load_for(t, sizeof *v, &raw, (void **)&v)) return NULL;
    unsigned bits = pc_dtype_bits(t->dtype);
    bool ok = true;
    for (uint64_t i = 0; ok && i < t->numel; i++) {
        const uint8_t *p = raw + i * (bits / 8);
        switch (t->dtype) {
        case PC_DT_I8: v[i] = (int8_t)p[0]; break;
        case PC_DT_U8: v[i] = p[0]; break;
        case PC_DT_I16: v[i] = (int16_t)pc_le16(p); break;
        case PC_DT_I32: v[i] = (int32_t)pc_le32(p); break;
        case PC_DT_U32: v[i] = pc_le32(p); break;
        case PC_DT_I64: v[i] = (int64_t)pc_le64(p); break;
        default: ok = false;
        }
    }
    free(raw);
    if (!ok) { free(v); return NULL; }
    return v;
}

static void stream_pos(uint64_t j, unsigned b, bool aligned, uint64_t *word, uint64_t *off)
{
    if (aligned) { unsigned pf = 32 / b; *word = j / pf; *off = (j % pf) * b; }
    else { *word = j * b / 32; *off = j * b % 32; }
}

uint32_t pc_diag_stream_get(const int64_t *base, size_t stride, uint64_t nwords, uint64_t j, unsigned b, bool aligned)
{
    uint64_t word, off;
    stream_pos(j, b, aligned, &word, &off);
    uint64_t lo = word < nwords ? (uint32_t)base[word * stride] : 0;
    uint64_t hi = !aligned && off + b > 32 && word + 1 < nwords ? (uint32_t)base[(word + 1) * stride] : 0;
    return (uint32_t)(((lo | (hi << 32)) >> off) & ((1u << b) - 1));
}

void pc_diag_stream_put(uint32_t *w, uint64_t nwords, uint64_t j, unsigned b, bool aligned, uint32_t v)
{
    uint64_t word, off;
    stream_pos(j, b, aligned, &word, &off);
    uint64_t both = (uint64_t)v << off;
    if (word < nwords) w[word] |= (uint32_t)both;
    if (word + 1 < nwords) w[word + 1] |= (uint32_t)(both >> 32);
}

int pc_diag_alloc(pc_diag_params *p, size_t n, int alt)
{
    size_t c = n ? n : 1;
    p->s = malloc(c * sizeof *p->s);
    p->zq = calloc(c, sizeof *p->zq);
    if (alt >= 0 && pc_diag_alloc_alt(p, n, (pc_diag_alt)alt)) return -1;
    return p->s && p->zq ? 0 : -1;
}

int pc_diag_alloc_alt(pc_diag_params *p, size_t n, pc_diag_alt alt)
{
    free(p->alt_s[alt]);
    p->alt_s[alt] = malloc((n ? n : 1) * sizeof *p->alt_s[alt]);
    return p->alt_s[alt] ? 0 : -1;
}

void pc_diag_params_free(pc_diag_params *p)
{
    free(p->s); free(p->zq); free(p->bias); free(p->zq_layout);
    for (int a = 0; a < PC_ALT_COUNT; a++) { free(p->alt_s[a]); free(p->alt_zq[a]); }
    pc_diag_layout lay = p->lay;
    memset(p, 0, sizeof *p);
    p->lay = lay;
}

/* The first shard of a split fused layer a loader fuses this module with, or NULL: k_proj / v_proj
 * with q_proj, up_proj with gate_proj, w3 with w1 (vLLM's MergedColumnParallelLinear /
 * QKVParallelLinear and its fused-MoE w13; #54150 reused the first shard's weight_scale_2). */
char *pc_diag_shard_sibling(const char *prefix)
{
    static const char *const pairs[][2] = {{"k_proj", "q_proj"}, {"v_proj", "q_proj"}, {"up_proj", "gate_proj"}, {"w3", "w1"}};
    size_t n = strlen(prefix);
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        size_t m = strlen(pairs[i][0]);
        if (n > m && prefix[n - m - 1] == '.' && !strcmp(prefix + n - m, pairs[i][0]))
            return pc_asprintf("%.*s%s", (int)(n - m), prefix, pairs[i][1]);
    }
    return NULL;
}
