/* Shared by formats/gptq.c and formats/awq.c: module ownership and small readers (qlinear.h). */
#include "qlinear.h"

#include "autoround/autoround.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const QWEIGHT = ".qweight";

ql_method ql_config_method(const pc_input *in)
{
    const cJSON *qc = in->qconfig;
    if (!cJSON_IsObject(qc)) return QL_NONE;
    const char *m = ql_cfg_str(qc, "quant_method");
    if (m) {
        switch (pc_ar_packing(in)) { /* AutoRound packs like GPTQ or AWQ (formats/autoround) */
        case AR_PACK_GPTQ_ZP: case AR_PACK_GPTQ: return QL_GPTQ;
        case AR_PACK_AWQ: return QL_AWQ;
        case AR_PACK_OTHER: return QL_OTHER;
        case AR_PACK_NONE: break;
        }
        if (!strcasecmp(m, "gptq")) return QL_GPTQ;
        if (!strcasecmp(m, "awq")) return QL_AWQ;
        return QL_OTHER;
    }
    /* AutoAWQ's legacy quant_config.json has no quant_method (FORMATS.md 1.2, 6.4). */
    if (cJSON_GetObjectItemCaseSensitive(qc, "w_bit") || cJSON_GetObjectItemCaseSensitive(qc, "q_group_size"))
        return QL_AWQ;
    /* Early AutoGPTQ quantize_config.json: bits, group_size, desc_act, sym and no method. */
    if (cJSON_GetObjectItemCaseSensitive(qc, "bits") &&
        (cJSON_GetObjectItemCaseSensitive(qc, "desc_act") || cJSON_GetObjectItemCaseSensitive(qc, "sym")))
        return QL_GPTQ;
    return QL_OTHER;
}

char *ql_prefix(const char *name)
{
    size_t n = strlen(name), m = strlen(QWEIGHT);
    if (n <= m || strcmp(name + n - m, QWEIGHT)) return NULL;
    return pc_strndup(name, n - m);
}

const pc_tensor *ql_sibling(const pc_input *in, const char *prefix, const char *suffix)
{
    char *name = pc_asprintf("%s%s", prefix, suffix);
    const pc_tensor *t = name ? pc_input_find(in, name) : NULL;
    free(name);
    return t;
}

ql_method ql_module_owner(const pc_input *in, const char *qweight_name)
{
    ql_method m = ql_config_method(in);
    if (m == QL_GPTQ || m == QL_AWQ || m == QL_OTHER) return m == QL_OTHER ? QL_NONE : m;
    char *prefix = ql_prefix(qweight_name);
    if (!prefix) return QL_NONE;
    bool has_gidx = ql_sibling(in, prefix, ".g_idx") != NULL;
    free(prefix);
    return has_gidx ? QL_GPTQ : QL_AWQ;
}

bool ql_any_module(const pc_input *in, ql_method who)
{
    if (in->is_gguf) return false;
    for (size_t i = 0; i < in->ntensors; i++) {
        const char *name = in->tensors[i].name;
        size_t n = strlen(name), m = strlen(QWEIGHT);
        if (n > m && !strcmp(name + n - m, QWEIGHT) && ql_module_owner(in, name) == who) return true;
    }
    return false;
}

bool ql_cfg_int(const cJSON *cfg, const char *key, long long *out, bool *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    if (present) *present = v != NULL;
    if (!cJSON_IsNumber(v)) return false;
    double d = v->valuedouble;
    if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != floor(d)) return false;
    *out = (long long)d;
    return true;
}

bool ql_cfg_bool(const cJSON *cfg, const char *key, bool *out, bool *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    if (present) *present = v != NULL;
    if (!cJSON_IsBool(v)) return false;
    *out = cJSON_IsTrue(v);
    return true;
}

const char *ql_cfg_str(const cJSON *cfg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool ql_float_dtype(pc_dtype d) { return d == PC_DT_F16 || d == PC_DT_BF16 || d == PC_DT_F32; }

float *ql_load_f32(const pc_tensor *t, uint64_t count, uint64_t limit)
{
    unsigned sz = t->dtype == PC_DT_F32 ? 4 : 2;
    if (!ql_float_dtype(t->dtype) || count > limit / sz || t->nbytes != count * sz) return NULL;
    uint8_t *raw = pc_tensor_load(t, limit);
    float *f = raw ? malloc(count ? (size_t)count * sizeof *f : 1) : NULL;
    for (size_t i = 0; f && i < (size_t)count; i++) {
        const uint8_t *p = raw + i * sz;
        if (t->dtype == PC_DT_F32) {
            uint32_t u = pc_le32(p);
            memcpy(&f[i], &u, 4);
        } else {
            f[i] = t->dtype == PC_DT_F16 ? pc_f16_to_f32(pc_le16(p)) : pc_bf16_to_f32(pc_le16(p));
        }
    }
    free(raw);
    return f;
}

/* One 8 x 8 byte block: dst[c * ds + r] = src[r * ss + c]. Eight 8-byte rows are transposed in
 * registers in three steps (swap bytes, then byte pairs, then 4-byte halves between rows 1, 2 and 4
 * apart): 16 loads and stores instead of 64 of each. Little-endian byte numbering. */
static void transpose8(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds)
{
    uint64_t x[8];
    for (int i = 0; i < 8; i++) memcpy(&x[i], src + (size_t)i * ss, 8);
    static const uint64_t k_mask[3] = {0x00FF00FF00FF00FFull, 0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull};
    for (unsigned step = 0, d = 1; step < 3; step++, d *= 2)
        for (unsigned i = 0; i < 8; i++) {
            if (i & d) continue;
            uint64_t t = ((x[i] >> (8 * d)) ^ x[i + d]) & k_mask[step];
            x[i + d] ^= t;
            x[i] ^= t << (8 * d);
        }
    for (int i = 0; i < 8; i++) memcpy(dst + (size_t)i * ds, &x[i], 8);
}

void ql_transpose_u8(const uint8_t *src, size_t rows, size_t cols, uint8_t *dst)
{
    size_t r8 = 0, c8 = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    r8 = rows / 8 * 8;
    c8 = cols / 8 * 8;
    /* Columns outside: each output row is written 8 bytes at a time, front to back. Writing across
     * output rows instead (32 x 32 scalar tiles before) puts every store of a tile in one L1 set
     * when rows is a multiple of 4096 (GPTQ's K): 59 % of a GPTQ unpack went there. */
    for (size_t c = 0; c < c8; c += 8)
        for (size_t r = 0; r < r8; r += 8) transpose8(src + r * cols + c, cols, dst + c * rows + r, rows);
#endif
    for (size_t c = 0; c < cols; c++) /* the edges: columns past c8, rows past r8 */
        for (size_t r = c < c8 ? r8 : 0; r < rows; r++) dst[c * rows + r] = src[r * cols + c];
}

size_t ql_fail_count(const pc_ctx *cx)
{
    size_t n = 0;
    for (size_t i = 0; i < cx->nfindings; i++) n += cx->findings[i].status == PC_STATUS_FAIL;
    return n;
}

bool ql_want_tensor(const char *rule, const pc_tensor *t, const char *prefix, const char *suffix, int ndim, bool floating, pc_ctx *cx)
{
    if (!t) {
        pc_report(cx, rule, prefix, -1, "%s%s is missing", prefix, suffix);
        return false;
    }
    bool dt_ok = floating ? ql_float_dtype(t->dtype) : t->dtype == PC_DT_I32;
    if (!dt_ok || t->ndim != ndim) {
        pc_report(cx, rule, t->name, (int64_t)t->offset, "%s is %s with %d dims; expected %s with %d", t->name,
                  pc_dtype_name(t->dtype), t->ndim, floating ? "F16, BF16 or F32" : "I32", ndim);
        return false;
    }
    return true;
}
