/* MLX affine kernels for `packcheck bench`: the codes are the LE bit stream over the U32 words
 * (mlx-4, mlx-3: 3-bit fields straddle words), and f32 weights from codes (one per byte) with one
 * scale and one bias per 64 codes, widened to f32 as the module hands them over; the three
 * entries differ in T, the dtype mlx rounds into twice (w = rT(rT(s*q) + b)). */
#include "formats/format.h"

#include "kernels.h"

#include <string.h>

enum { MLX_COLS = 512, MLX_GROUP = 64 };
static size_t codes_in(unsigned b, size_t n) { return (n * b + 7) / 8; }
static void codes_run(const pc_bench_case *c, pc_impl impl) { pc_stream_fn(impl)(c->src, c->b, c->count, c->out); }

/* codes, then count/64 scales, then as many biases (4-aligned: count is a multiple of 512) */
static size_t f32_in(unsigned b, size_t n) { (void)b; return n + n / MLX_GROUP * 8; }
static void f32_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / 9 * 8, ng = count / MLX_GROUP;
    for (size_t i = 0; i < count; i++) src[i] &= 15;
    for (size_t g = 0; g < ng; g++) {
        /* exact in bf16 and f16: the values a 4-bit group of small weights gets */
        float s = (1.0f + (float)(g % 7) / 8) * 0x1p-7f * (g % 2 ? -1.0f : 1.0f), b = -(1.0f + (float)(g % 5) / 4) * 0x1p-3f;
        memcpy(src + count + 4 * g, &s, 4);
        memcpy(src + count + 4 * (ng + g), &b, 4);
    }
}
static void run_t(const pc_bench_case *c, pc_impl impl, pc_mlx_t t)
{
    const float *s = (const float *)(const void *)(c->src + c->count), *b = s + c->count / MLX_GROUP;
    pc_mlx_affine(impl)(c->src, c->count / MLX_COLS, MLX_COLS, MLX_GROUP, s, b, t, c->out);
}
static void f32_run(const pc_bench_case *c, pc_impl impl) { run_t(c, impl, PC_MLX_T_F32); }
static void bf16_run(const pc_bench_case *c, pc_impl impl) { run_t(c, impl, PC_MLX_T_BF16); }
static void f16_run(const pc_bench_case *c, pc_impl impl) { run_t(c, impl, PC_MLX_T_F16); }

const pc_bench_entry pc_mlx_bench[] = {
    {"mlx-4", "mlx-affine", 4, 1, codes_in, codes_run, 0.80, 0, 8, NULL},
    {"mlx-3", "mlx-affine", 3, 1, codes_in, codes_run, 0.80, 0, 32, NULL},
    /* GB/s of f32 output; T = the scales' dtype */
    {"mlx-f32", "mlx-affine", 4, 4, f32_in, f32_run, 0.80, 0, MLX_COLS, f32_fill},
    {"mlx-bf16", "mlx-affine", 4, 4, f32_in, bf16_run, 0.80, 0, MLX_COLS, f32_fill},
    {"mlx-f16", "mlx-affine", 4, 4, f32_in, f16_run, 0.80, 0, MLX_COLS, f32_fill},
    {0},
};
