/* HQQ kernels for `packcheck bench`: the row-block unpackers (4-bit: halves in the two nibbles;
 * 3-bit: ten row blocks per int32 word) and f32 weights in f16 (w = rT(rT(q - z) * s)), one zero
 * and scale per row of 64. */
#include "formats/format.h"

#include "kernels.h"

#include <string.h>

enum { HQQ_C = 64 };
static size_t rows_of(size_t count) { return count / HQQ_C; }
static size_t codes_in(unsigned b, size_t n) { return pc_hqq_packed_rows(b, rows_of(n)) * HQQ_C * (b == 3 ? 4 : 1); }
static void codes_run(const pc_bench_case *c, pc_impl impl) { pc_hqq_unpack(impl)(c->src, c->b, rows_of(c->count), HQQ_C, c->out); }

/* codes (one per byte), then a zero and a scale per row (exact f16 values) */
static size_t f16_in(unsigned b, size_t n) { (void)b; return n + rows_of(n) * 8; }
static void f16_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / (HQQ_C + 8) * HQQ_C, rows = rows_of(count);
    for (size_t i = 0; i < count; i++) src[i] &= 15;
    for (size_t r = 0; r < rows; r++) {
        float z = (float)(r % 15) + 0.5f, s = (1.0f + (float)(r % 7) / 8) * 0x1p-6f;
        memcpy(src + count + 4 * r, &z, 4);
        memcpy(src + count + 4 * (rows + r), &s, 4);
    }
}
static void f16_run(const pc_bench_case *c, pc_impl impl)
{
    size_t rows = rows_of(c->count);
    const float *z = (const float *)(const void *)(c->src + c->count), *s = z + rows;
    pc_hqq_dequant(impl)(c->src, rows, HQQ_C, 1, z, s, PC_ROUND_F16, c->out);
}

const pc_bench_entry pc_hqq_bench[] = {
    {"hqq-4", "hqq", 4, 1, codes_in, codes_run, 0.80, 0, 2 * HQQ_C, NULL},
    {"hqq-3", "hqq", 3, 1, codes_in, codes_run, 0.80, 0, 10 * HQQ_C, NULL},
    {"hqq-f16", "hqq", 4, 4, f16_in, f16_run, 0.80, 0, HQQ_C, f16_fill},
    {0},
};
