/* ModelOpt INT4 AWQ kernels for `packcheck bench`: the N-paired nibble unpacker (codes) and the f32
 * weights straight from the packed bytes, one scale per 128 elements of a row (K = 256). */
#include "formats/format.h"

#include "kernels.h"

#include <string.h>

enum { MO_K = 256, MO_G = 128 };
static size_t rows_of(size_t count) { return count / MO_K; }
static size_t codes_in(unsigned b, size_t n) { (void)b; return n / 2; }
static void codes_run(const pc_bench_case *c, pc_impl impl) { pc_mo_int4_unpack(impl)(c->src, rows_of(c->count), MO_K, c->out); }

/* packed bytes, then one f32 scale per group */
static size_t f32_in(unsigned b, size_t n) { (void)b; return n / 2 + n / MO_G * 4; }
static void f32_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / (MO_G / 2 + 4) * MO_G, groups = count / MO_G;
    for (size_t i = 0; i < groups; i++) {
        float s = (1.0f + (float)(i % 7) / 8) * 0x1p-6f;
        memcpy(src + count / 2 + 4 * i, &s, 4);
    }
}
static void f32_run(const pc_bench_case *c, pc_impl impl)
{
    const float *s = (const float *)(const void *)(c->src + c->count / 2);
    pc_mo_int4_dequant(impl)(c->src, rows_of(c->count), MO_K, MO_G, s, c->out);
}

const pc_bench_entry pc_modelopt_bench[] = {
    {"modelopt-int4", "modelopt-int4-awq", 4, 1, codes_in, codes_run, 0.80, 0, 2 * MO_K, NULL},
    {"modelopt-int4-f32", "modelopt-int4-awq", 4, 4, f32_in, f32_run, 0.80, 0, 2 * MO_K, f32_fill},
    {0},
};
