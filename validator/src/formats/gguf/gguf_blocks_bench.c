/* GGUF block-type kernels for `packcheck bench`: codes and f32 of each type, on random blocks whose
 * fp16 scales are finite (d = 0.5 .. 2). Block sizes: ggml's type traits (ggml-common.h). */
#include "formats/format.h"

#include "kernels.h"
#include "kernels/simd.h"

/* Q4_0: 18-byte blocks of 32. */
static size_t q4_in(unsigned b, size_t n) { (void)b; return n / 32 * 18; }
static void q4_fill(uint8_t *src, size_t n)
{
    for (size_t i = 0; i + 18 <= n; i += 18) { src[i] = (uint8_t)(i * 7); src[i + 1] = (uint8_t)(0x38 + (i / 18) % 8); }
}
static void q4_codes_run(const pc_bench_case *c, pc_impl impl) { pc_q4_0_fn_for(impl)(c->src, c->count / 32, c->out, NULL); }
static void q4_f32_run(const pc_bench_case *c, pc_impl impl) { pc_q4_0_fn_for(impl)(c->src, c->count / 32, NULL, c->out); }

/* The other types: `nscales` fp16 scales from byte `at` of each block made finite. */
static void gq_fill(uint8_t *src, size_t n, size_t bytes, unsigned nscales, size_t at)
{
    for (size_t i = 0; i + bytes <= n; i += bytes)
        for (unsigned f = 0; f < nscales; f++) {
            src[i + at + 2 * f] = (uint8_t)(i * 7);
            src[i + at + 2 * f + 1] = (uint8_t)(0x38 + (i / bytes) % 8);
        }
}
#define GQ_BENCH(type, elems, bytes, nscales, at)                                                                         \
    static size_t type##_in(unsigned b, size_t n) { (void)b; return n / elems * bytes; }                                  \
    static void type##_fill(uint8_t *src, size_t n) { gq_fill(src, n, bytes, nscales, at); }                            \
    static void type##_codes_run(const pc_bench_case *c, pc_impl impl)                                                    \
    { (impl == PC_IMPL_REF ? pc_##type##_decode_ref : pc_##type##_decode_fast)(c->src, c->count / elems, c->out, NULL); } \
    static void type##_f32_run(const pc_bench_case *c, pc_impl impl)                                                      \
    { (impl == PC_IMPL_REF ? pc_##type##_decode_ref : pc_##type##_decode_fast)(c->src, c->count / elems, NULL, c->out); }
GQ_BENCH(q8_0, 32, 34, 1, 0)
GQ_BENCH(q4_1, 32, 20, 2, 0)
GQ_BENCH(q5_0, 32, 22, 1, 0)
GQ_BENCH(q5_1, 32, 24, 2, 0)
GQ_BENCH(q4_k, 256, 144, 2, 0)
GQ_BENCH(q6_k, 256, 210, 1, 208)
GQ_BENCH(q5_k, 256, 176, 2, 0)
GQ_BENCH(iq4_nl, 32, 18, 1, 0)
GQ_BENCH(iq4_xs, 256, 136, 1, 0)
GQ_BENCH(mxfp4, 32, 17, 0, 0)
GQ_BENCH(q2_k, 256, 84, 2, 80)
GQ_BENCH(q3_k, 256, 110, 1, 108)
GQ_BENCH(tq1_0, 256, 54, 1, 52)
GQ_BENCH(tq2_0, 256, 66, 1, 64)
GQ_BENCH(iq2_xxs, 256, 66, 1, 0)
GQ_BENCH(iq2_xs, 256, 74, 1, 0)
GQ_BENCH(iq2_s, 256, 82, 1, 0)
GQ_BENCH(iq3_xxs, 256, 98, 1, 0)
GQ_BENCH(iq3_s, 256, 110, 1, 0)
GQ_BENCH(iq1_s, 256, 50, 1, 0)
GQ_BENCH(iq1_m, 256, 56, 0, 0) /* scale words left random: timing only */
GQ_BENCH(gguf_nvfp4, 64, 36, 0, 0) /* UE4M3 scale bytes random: every byte decodes */
GQ_BENCH(q1_0, 128, 18, 1, 0)
GQ_BENCH(q2_0, 64, 18, 1, 0)
#define GQ_ENTRIES(type, bits, elems)                                                  \
    {#type, #type, bits, 1, type##_in, type##_codes_run, 0.80, 0, elems, type##_fill}, \
    {#type "-f32", #type, bits, 4, type##_in, type##_f32_run, 0.80, 0, elems, type##_fill} /* GB/s of f32 output */

const pc_bench_entry pc_gguf_blocks_bench[] = {
    {"q4_0", "q4_0", 4, 1, q4_in, q4_codes_run, 0.90, 100, 32, q4_fill},
    {"q4_0-f32", "q4_0", 4, 4, q4_in, q4_f32_run, 0.50, 0, 32, q4_fill}, /* GB/s of f32 output */
    GQ_ENTRIES(q8_0, 8, 32), GQ_ENTRIES(q4_1, 4, 32), GQ_ENTRIES(q5_0, 5, 32), GQ_ENTRIES(q5_1, 5, 32),
    GQ_ENTRIES(q4_k, 4, 256), GQ_ENTRIES(q6_k, 6, 256), GQ_ENTRIES(q5_k, 5, 256),
    GQ_ENTRIES(iq4_nl, 4, 32), GQ_ENTRIES(iq4_xs, 4, 256), GQ_ENTRIES(mxfp4, 4, 32),
    GQ_ENTRIES(q2_k, 2, 256), GQ_ENTRIES(q3_k, 3, 256), GQ_ENTRIES(tq1_0, 2, 256), GQ_ENTRIES(tq2_0, 2, 256),
    GQ_ENTRIES(iq2_xxs, 8, 256), GQ_ENTRIES(iq2_xs, 8, 256), GQ_ENTRIES(iq2_s, 8, 256), GQ_ENTRIES(iq3_xxs, 8, 256),
    GQ_ENTRIES(iq3_s, 8, 256), GQ_ENTRIES(iq1_s, 8, 256), GQ_ENTRIES(iq1_m, 8, 256),
    GQ_ENTRIES(gguf_nvfp4, 4, 64), GQ_ENTRIES(q1_0, 1, 128), GQ_ENTRIES(q2_0, 2, 64),
    {0},
};

/* The grid i-quants' codes against the row-load reference (avx2_grid.c): with the AVX2 kernels
 * active only, as those are what it bounds. */
#ifdef PC_HAVE_X86_KERNELS
#define GRID_BOUND(type, elems)                                                                 \
    static bool type##_bound(const pc_bench_case *c)                                            \
    {                                                                                           \
        if (pc_simd_active() < PC_SIMD_AVX2) return false;                                      \
        pc_##type##_rows_bound_avx2(c->src, c->count / (elems), c->out);                        \
        return true;                                                                            \
    }
#else
#define GRID_BOUND(type, elems) \
    static bool type##_bound(const pc_bench_case *c) { (void)c; return false; }
#endif
GRID_BOUND(iq2_xxs, 256)
GRID_BOUND(iq2_xs, 256)
GRID_BOUND(iq2_s, 256)
GRID_BOUND(iq3_xxs, 256)
GRID_BOUND(iq3_s, 256)
GRID_BOUND(iq1_s, 256)
GRID_BOUND(iq1_m, 256)
#define ROWS8 "per 32 codes: the kernel's index work, four 8-byte grid-row loads joined into one register, one 32-byte store; no signs"
#define ROWS4 "per 32 codes: the kernel's index work, eight 4-byte grid-row loads joined into one register, one 32-byte store; no signs"
const pc_bench_bound pc_gguf_blocks_bounds[] = {
    {"iq2_xxs", iq2_xxs_bound, ROWS8}, {"iq2_xs", iq2_xs_bound, ROWS8}, {"iq2_s", iq2_s_bound, ROWS8},
    {"iq3_xxs", iq3_xxs_bound, ROWS4}, {"iq3_s", iq3_s_bound, ROWS4},
    {"iq1_s", iq1_s_bound, ROWS8 " (IQ1's codes have none: the kernel is this loop)"},
    {"iq1_m", iq1_m_bound, ROWS8 " (IQ1's codes have none: the kernel is this loop)"},
    {0},
};
