/* AMD Quark kernels for `packcheck bench`: MXFP6 (E2M3) and MXFP4 elements to f32 with one E8M0 byte
 * per block of 32, and int4 per-group dequantisation (g 32) to f32, from codes one per byte. */
#include "formats/format.h"

#include "kernels.h"

#include <string.h>

enum { QK_K = 256, QK_G = 32 };

/* codes, then one E8M0 byte per 32 */
static size_t mx_in(unsigned b, size_t n) { (void)b; return n + n / 32; }
static void mx_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / 33 * 32;
    for (size_t i = 0; i < count; i++) src[i] &= 63;
    for (size_t j = 0; j < count / 32; j++) src[count + j] = (uint8_t)(120 + j % 12);
}
static void mx_run(const pc_bench_case *c, pc_impl impl, pc_qk_elem k)
{
    pc_qk_mx_dequant(impl)(c->src, c->count / QK_K, QK_K, k, c->src + c->count, c->out);
}
static void mx6_run(const pc_bench_case *c, pc_impl impl) { mx_run(c, impl, PC_QK_E2M3); }
static void mx4_run(const pc_bench_case *c, pc_impl impl) { mx_run(c, impl, PC_QK_FP4); }

/* codes, then per group an f32 scale and an int8 zero point */
static size_t int4_in(unsigned b, size_t n) { (void)b; return n + n / QK_G * 5; }
static void int4_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / (QK_G + 5) * QK_G, groups = count / QK_G;
    for (size_t i = 0; i < count; i++) src[i] &= 15;
    for (size_t j = 0; j < groups; j++) {
        float s = (1.0f + (float)(j % 7) / 8) * 0x1p-6f;
        memcpy(src + count + 4 * j, &s, 4);
        src[count + 4 * groups + j] = (uint8_t)(j % 3);
    }
}
static void int4_run(const pc_bench_case *c, pc_impl impl)
{
    size_t groups = c->count / QK_G;
    const float *s = (const float *)(const void *)(c->src + c->count);
    const int8_t *z = (const int8_t *)(c->src + c->count + 4 * groups);
    pc_qk_int4_dequant(impl)(c->src, c->count / QK_K, QK_K, QK_G, true, s, z, c->out);
}

const pc_bench_entry pc_quark_bench[] = {
    {"quark-mxfp6-f32", "quark-mx", 6, 4, mx_in, mx6_run, 0.80, 0, QK_K, mx_fill},
    {"quark-mxfp4-f32", "quark-mx", 4, 4, mx_in, mx4_run, 0.80, 0, QK_K, mx_fill},
    {"quark-int4-f32", "quark-int4", 4, 4, int4_in, int4_run, 0.80, 0, QK_K, int4_fill},
    {0},
};
