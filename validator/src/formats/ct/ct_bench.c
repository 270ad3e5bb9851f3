/* compressed-tensors kernels for `packcheck bench`: the dense bit stream (>= 0.18) and the legacy
 * word-aligned layout (<= 0.17), codes out (one byte each). */
#include "formats/format.h"

#include "../../kernels/kernels.h"

static size_t stream_in(unsigned b, size_t n) { return n / 8 * b + ((n % 8) * b + 7) / 8; }
static size_t word_in(unsigned b, size_t n) { return (n + 32 / b - 1) / (32 / b) * 4; }
static void stream_run(const pc_bench_case *c, pc_impl impl) { pc_stream_fn(impl)(c->src, c->b, c->count, c->out); }
static void word_run(const pc_bench_case *c, pc_impl impl) { pc_wordalign_fn(impl)(c->src, c->b, c->count, c->out); }

#define CT_DENSE(bits, tm, tr) {"ct-dense-" #bits, "stream", bits, 1, stream_in, stream_run, tm, tr, 0, NULL}
#define CT_LEGACY(bits, tm) {"ct-legacy-" #bits, "wordalign", bits, 1, word_in, word_run, tm, 0, 0, NULL}

const pc_bench_entry pc_ct_bench[] = {
    CT_DENSE(1, 0.60, 0), CT_DENSE(2, 0.60, 0), CT_DENSE(3, 0.70, 50), CT_DENSE(4, 0.90, 100),
    CT_DENSE(5, 0.60, 0), CT_DENSE(6, 0.60, 0), CT_DENSE(7, 0.60, 0), CT_DENSE(8, 0.60, 0),
    CT_LEGACY(3, 0.70), CT_LEGACY(5, 0.60), CT_LEGACY(6, 0.60), CT_LEGACY(7, 0.60),
    {0},
};
