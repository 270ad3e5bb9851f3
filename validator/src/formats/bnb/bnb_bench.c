/* bitsandbytes 4-bit kernels for `packcheck bench`: codes from the packed bytes (high nibble
 * first), and f32 weights from codes (one per byte) and one absmax per 64 (the default blocksize),
 * NF4 and bitsandbytes' FP4 table: the 16-entry lookup of the decode's second step. */
#include "formats/format.h"

#include "kernels.h"

#include <string.h>

enum { BNB_BS = 64 };
static size_t codes_in(unsigned b, size_t n) { (void)b; return (n + 1) / 2; }
static void codes_run(const pc_bench_case *c, pc_impl impl) { pc_bnb4_unpack(impl)(c->src, c->count, c->out); }

/* codes, then count/64 absmax (4-aligned: count is a multiple of 64) */
static size_t f32_in(unsigned b, size_t n) { (void)b; return n + n / BNB_BS * 4; }
static void f32_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / 17 * 16;
    for (size_t i = 0; i < count; i++) src[i] &= 15;
    for (size_t j = 0; j < count / BNB_BS; j++) {
        float a = 0.01f + (float)(j % 11) * 0.003f;
        memcpy(src + count + 4 * j, &a, 4);
    }
}
static void run_table(const pc_bench_case *c, pc_impl impl, bool fp4)
{
    pc_bnb4_dequant(impl)(c->src, c->count, pc_bnb4_table(fp4), (const float *)(const void *)(c->src + c->count), BNB_BS, c->out);
}
static void nf4_run(const pc_bench_case *c, pc_impl impl) { run_table(c, impl, false); }
static void fp4_run(const pc_bench_case *c, pc_impl impl) { run_table(c, impl, true); }

const pc_bench_entry pc_bnb_bench[] = {
    {"bnb4", "bnb-4bit", 4, 1, codes_in, codes_run, 0.80, 0, 2, NULL},
    {"bnb-nf4-f32", "bnb-4bit", 4, 4, f32_in, nf4_run, 0.80, 0, BNB_BS, f32_fill}, /* GB/s of f32 output */
    {"bnb-fp4-f32", "bnb-4bit", 4, 4, f32_in, fp4_run, 0.80, 0, BNB_BS, f32_fill},
    {0},
};

/* LLM.int8: f32 weights from int8 rows of 4096 and one SCB per row (the src tail). */
enum { BNB8_COLS = 4096 };
static size_t i8_in(unsigned b, size_t n) { (void)b; return n + n / BNB8_COLS * 4; }
static void i8_fill(uint8_t *src, size_t nbytes)
{
    size_t count = nbytes / (BNB8_COLS + 4) * BNB8_COLS;
    for (size_t r = 0; r < count / BNB8_COLS; r++) {
        float a = 0.5f + (float)(r % 13) * 0.07f;
        memcpy(src + count + 4 * r, &a, 4);
    }
}
static void i8_run(const pc_bench_case *c, pc_impl impl)
{
    pc_bnb8_dequant(impl)(c->src, c->count / BNB8_COLS, BNB8_COLS, (const float *)(const void *)(c->src + c->count), c->out);
}
static void i8_codes_run(const pc_bench_case *c, pc_impl impl) { pc_bnb8_codes(impl)(c->src, c->count, c->out); }
static size_t i8_codes_in(unsigned b, size_t n) { (void)b; return n; }

const pc_bench_entry pc_bnb_int8_bench[] = {
    {"bnb-int8-codes", "bnb-int8", 8, 1, i8_codes_in, i8_codes_run, 0.80, 0, 1, NULL},
    {"bnb-int8-f32", "bnb-int8", 8, 4, i8_in, i8_run, 0.80, 0, BNB8_COLS, i8_fill}, /* GB/s of f32 output */
    {0},
};
