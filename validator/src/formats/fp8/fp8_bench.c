/* FP8 E4M3 / INT8 -> f32 kernels for `packcheck bench`, over 512-column rows with 128x128 blocks
 * (DeepSeek's grid): the bytes, then the scales (at most count / 128 of them, 4-aligned: count is
 * a multiple of 512). */
#include "formats/format.h"

#include "../../kernels/kernels.h"

#include <string.h>

enum { F8_COLS = 512 };
static size_t f8_in(unsigned b, size_t n) { (void)b; return n + n / 128 * 4; }
static void f8_fill(uint8_t *src, size_t n)
{
    size_t count = n / 132 * 128; /* n = count + count/32 */
    for (size_t i = 0; i < count; i++) src[i] = (uint8_t)(i * 37 % 127); /* no NaN encodings */
    for (size_t g = 0; g < count / 128; g++) {
        float s = 0.001f + (float)(g % 5) * 0.0005f;
        memcpy(src + count + 4 * g, &s, 4);
    }
}
static const float *f8_scales(const pc_bench_case *c) { return (const float *)(const void *)(c->src + c->count); }
static void fp8_f32_run(const pc_bench_case *c, pc_impl impl)
{
    pc_fp8_dequant(impl)(c->src, c->count / F8_COLS, F8_COLS, 128, 128, f8_scales(c), c->out);
}
static void int8_f32_run(const pc_bench_case *c, pc_impl impl)
{
    pc_int8_dequant(impl)(c->src, c->count / F8_COLS, F8_COLS, 1, F8_COLS, f8_scales(c), NULL, c->out);
}

const pc_bench_entry pc_fp8_bench[] = {
    {"fp8-f32", "fp8-deepseek", 8, 4, f8_in, fp8_f32_run, 0.80, 0, F8_COLS, f8_fill}, /* GB/s of f32 output */
    {"int8-f32", "ct-int8", 8, 4, f8_in, int8_f32_run, 0.80, 0, F8_COLS, f8_fill},    /* channel scales */
    {0},
};
