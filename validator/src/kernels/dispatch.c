/* Run-time CPU dispatch for the fast kernels. The shipped build has no -march: SIMD code is compiled
 * with function-level target attributes and only called once the CPU has reported the features, so
 * one binary runs on any x86-64 (and the x86 code compiles away elsewhere). The choice is made once
 * per process; PACKCHECK_KERNELS=scalar|avx2 overrides it (to exercise the fallback in CI), and
 * pc_kernels_select() lets tests and bench switch between the implementations this CPU runs. */
#include "fast/kernel_set.h"

#ifdef PC_HAVE_X86_KERNELS
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const pc_kernel_set *const k_sets[] = {
#ifdef PC_HAVE_X86_KERNELS
    &pc_kernel_set_avx2,
#endif
    &pc_kernel_set_scalar,
};
enum { N_SETS = sizeof k_sets / sizeof *k_sets };

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const pc_kernel_set *g_active; /* accessed atomically after g_once */

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
    if (s == &pc_kernel_set_avx2) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && cpu_has_f16c();
    }
#endif
    return s == &pc_kernel_set_scalar;
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
    __atomic_store_n(&g_active, pick, __ATOMIC_RELEASE);
}

static const pc_kernel_set *active(void)
{
    pthread_once(&g_once, choose_once);
    return __atomic_load_n(&g_active, __ATOMIC_ACQUIRE);
}

const char *pc_kernels_name(void) { return active()->name; }

const char *pc_kernels_available(size_t i)
{
    active();
    for (size_t k = 0; k < N_SETS; k++)
        if (set_runs_here(k_sets[k]) && i-- == 0) return k_sets[k]->name;
    return NULL;
}

int pc_kernels_select(const char *name)
{
    active();
    const pc_kernel_set *s = set_named(name);
    if (!s) return -1;
    __atomic_store_n(&g_active, s, __ATOMIC_RELEASE);
    return 0;
}

/* The public entry points: one indirect call; a NULL slot in a SIMD table means "use scalar". */
#define PC_DISPATCH(slot, ...)                                                                     \
    do {                                                                                           \
        const pc_kernel_set *s_ = active();                                                        \
        (s_->slot ? s_->slot : pc_kernel_set_scalar.slot)(__VA_ARGS__);                            \
    } while (0)

void pc_stream_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    PC_DISPATCH(stream, src, b, count, out);
}

void pc_wordalign_unpack_fast(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    PC_DISPATCH(wordalign, src, b, count, out);
}
