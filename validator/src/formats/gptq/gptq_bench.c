/* GPTQ kernel for `packcheck bench`: [K, N] codes from [K*b/32, N] words, N = 256 columns (an
 * nn.Linear's out side). */
#include "formats/format.h"

#include "kernels.h"

enum { GPTQ_N = 256 };
static size_t gptq_in(unsigned b, size_t n) { return n / GPTQ_N * b / 32 * GPTQ_N * 4; }
static void gptq_run(const pc_bench_case *c, pc_impl impl) { pc_gptq_unpack_fn(impl)(c->src, c->b, c->count / GPTQ_N, GPTQ_N, c->out); }

#define GPTQ(bits) {"gptq-" #bits, "gptq", bits, 1, gptq_in, gptq_run, 0.50, 0, 32 * GPTQ_N, NULL}
const pc_bench_entry pc_gptq_bench[] = {GPTQ(2), GPTQ(3), GPTQ(4), GPTQ(8), {0}};
