/* AWQ GEMM kernel for `packcheck bench`: 4-bit codes of [K, N] from [K, N/8] words, N = 256. */
#include "formats/format.h"

#include "kernels.h"

enum { AWQ_N = 256 };
static size_t awq_in(unsigned b, size_t n) { (void)b; return n / 2; }
static void awq_run(const pc_bench_case *c, pc_impl impl) { pc_awq_unpack_fn(impl)(c->src, c->count / AWQ_N, AWQ_N, c->out); }

const pc_bench_entry pc_awq_bench[] = {
    {"awq-4", "awq-gemm", 4, 1, awq_in, awq_run, 0.90, 0, AWQ_N, NULL}, /* memcpy and the peers carry the claim (issue 18) */
    {0},
};
