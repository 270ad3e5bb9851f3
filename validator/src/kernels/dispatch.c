/* Run-time CPU dispatch for the fast kernels. The shipped build has no -march: SIMD code is compiled
 * with function-level target attributes and only called once the CPU has reported the features, so
 * one binary runs on any x86-64 (and the x86 code compiles away elsewhere, or with
 * PACKCHECK_NO_SIMD). The choice is made once per process; PACKCHECK_KERNELS=scalar|avx2 overrides
 * it (to exercise the fallback in CI), pc_kernels_force/select let tests and bench switch. */
#include "fast/kernel_set.h"

#ifdef PC_HAVE_X86_KERNELS
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const pc_kernel_set *const k_sets[] = {
#ifdef PC_HAVE_X86_KERNELS
    &pc_kernels_avx2,
#endif
    &pc_kernels_scalar,
};
enum { N_SETS = sizeof k_sets / sizeof *k_sets };

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const pc_kernel_set *g_auto;   /* chosen once */
static const pc_kernel_set *g_forced; /* accessed atomically */

#ifdef PC_HAVE_X86_KERNELS
/* F16C: CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports does not know "f16c"). The OS
 * saving YMM state is covered by the avx2 check, which tests XGETBV. */
static bool cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}
#endif

static bool set_runs_here(const pc_kernel_set *s)
{
#ifdef PC_HAVE_X86_KERNELS
    if (s == &pc_kernels_avx2) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && cpu_has_f16c();
    }
#endif
    return s == &pc_kernels_scalar;
}

static const pc_kernel_set *set_named(const char *name)
{
    for (size_t i = 0; i < N_SETS; i++)
        if (!strcmp(k_sets[i]->name, name) && set_runs_here(k_sets[i])) return k_sets[i];
    return NULL;
}

static void choose_once(void)
{
#ifdef PC_HAVE_X86_KERNELS
    pc_avx2_plans_init();
#endif
    const pc_kernel_set *pick = NULL;
    const char *env = getenv("PACKCHECK_KERNELS");
    if (env && *env) pick = set_named(env); /* an unknown or unsupported name falls back to the best */
    for (size_t i = 0; !pick && i < N_SETS; i++)
        if (set_runs_here(k_sets[i])) pick = k_sets[i];
    g_auto = pick;
}

const pc_kernel_set *pc_kernels_active(void)
{
    pthread_once(&g_once, choose_once);
    const pc_kernel_set *f = __atomic_load_n(&g_forced, __ATOMIC_ACQUIRE);
    return f ? f : g_auto;
}

void pc_kernels_force(const pc_kernel_set *set)
{
    pthread_once(&g_once, choose_once);
    __atomic_store_n(&g_forced, set, __ATOMIC_RELEASE);
}

const char *pc_kernels_name(void) { return pc_kernels_active()->name; }

const char *pc_kernels_available(size_t i)
{
    for (size_t k = 0; k < N_SETS; k++)
        if (set_runs_here(k_sets[k]) && i-- == 0) return k_sets[k]->name;
    return NULL;
}

int pc_kernels_select(const char *name)
{
    const pc_kernel_set *s = set_named(name);
    if (!s) return -1;
    pc_kernels_force(s);
    return 0;
}

/* The public entry points: one indirect call; a NULL slot means "use the scalar set's". */
void pc_stream_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b < 1 || b > 8 || count == 0) return;
    const pc_kernel_set *s = pc_kernels_active();
    (s->stream[b] ? s->stream[b] : pc_kernels_scalar.stream[b])(src, count, out);
}

void pc_wordalign_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    if (b < 1 || b > 8 || count == 0) return;
    const pc_kernel_set *s = pc_kernels_active();
    (s->wordalign[b] ? s->wordalign[b] : pc_kernels_scalar.wordalign[b])(src, count, out);
}

void pc_gptq_unpack_fast(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out)
{
    const pc_kernel_set *s = pc_kernels_active();
    (s->gptq ? s->gptq : pc_kernels_scalar.gptq)(src, b, K, N, out);
}

void pc_awq_unpack_fast(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    const pc_kernel_set *s = pc_kernels_active();
    (s->awq ? s->awq : pc_kernels_scalar.awq)(src, rows, N, out);
}

void pc_q4_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    const pc_kernel_set *s = pc_kernels_active();
    (s->q4_0 ? s->q4_0 : pc_kernels_scalar.q4_0)(src, nblocks, codes, weights);
}

void pc_nvfp4_dequant_fast(const uint8_t *codes, size_t rows, size_t cols, const float *group_scale, float *out)
{
    const pc_kernel_set *s = pc_kernels_active();
    (s->nvfp4_dequant ? s->nvfp4_dequant : pc_kernels_scalar.nvfp4_dequant)(codes, rows, cols, group_scale, out);
}

/* The other GGUF block types: the active set's, else the scalar set's. */
#define BLOCK_ENTRY(type)                                                                            \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights) \
    {                                                                                                \
        const pc_kernel_set *s = pc_kernels_active();                                                \
        (s->type ? s->type : pc_kernels_scalar.type)(src, nblocks, codes, weights);                  \
    }
BLOCK_ENTRY(q8_0)
BLOCK_ENTRY(q4_1)
BLOCK_ENTRY(q5_0)
BLOCK_ENTRY(q5_1)
BLOCK_ENTRY(q4_k)
BLOCK_ENTRY(q6_k)
BLOCK_ENTRY(q5_k)
BLOCK_ENTRY(iq4_nl)
BLOCK_ENTRY(iq4_xs)
BLOCK_ENTRY(mxfp4)
BLOCK_ENTRY(q2_k)
BLOCK_ENTRY(q3_k)
BLOCK_ENTRY(tq1_0)
BLOCK_ENTRY(tq2_0)
BLOCK_ENTRY(gguf_nvfp4)
BLOCK_ENTRY(q1_0)
BLOCK_ENTRY(q2_0)
BLOCK_ENTRY(iq2_xxs)
BLOCK_ENTRY(iq2_xs)
BLOCK_ENTRY(iq2_s)
BLOCK_ENTRY(iq3_xxs)
BLOCK_ENTRY(iq3_s)
BLOCK_ENTRY(iq1_s)
BLOCK_ENTRY(iq1_m)
