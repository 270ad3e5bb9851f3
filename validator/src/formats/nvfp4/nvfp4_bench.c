/* NVFP4 kernels for `packcheck bench`: E2M1 codes are the 4-bit stream; f32 from codes (one per byte)
 * and one f32 scale per 16, as the module hands them to the dequantiser. */
#include "formats/format.h"

#include "../../kernels/kernels.h"

#include <string.h>

static size_t codes_in(unsigned b, size_t n) { return n / 8 * b + ((n % 8) * b + 7) / 8; }
static void codes_run(const pc_bench_case *c, pc_impl impl) { pc_stream_fn(impl)(c->src, c->b, c->count, c->out); }

static size_t f32_in(unsigned b, size_t n) { (void)b; return n + n / 16 * 4; }
static void f32_fill(uint8_t *src, size_t n)
{
    size_t count = n / 5 * 4; /* n = count + count/4 */
    for (size_t g = 0; g < count / 16; g++) {
        float s = 0.25f + (float)(g % 7) * 0.125f;
        memcpy(src + count + 4 * g, &s, 4);
    }
}
static void f32_run(const pc_bench_case *c, pc_impl impl)
{
    /* the scales follow the codes in src (4-aligned: count is a multiple of 64) */
    pc_nvfp4_dequant(impl)(c->src, c->count / 16, 16, (const float *)(const void *)(c->src + c->count), c->out);
}

const pc_bench_entry pc_nvfp4_bench[] = {
    {"nvfp4", "stream", 4, 1, codes_in, codes_run, 0.90, 100, 0, NULL},
    {"nvfp4-f32", "nvfp4", 4, 4, f32_in, f32_run, 0.50, 0, 64, f32_fill}, /* GB/s of f32 output */
    {0},
};
