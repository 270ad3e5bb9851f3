/* The CPU-feature choice behind PC_PICK (kernels/simd.h). */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_names[] = {"scalar", "avx2", "avx512"};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pc_simd g_auto;
static int g_forced = -1; /* a pc_simd, or -1: accessed atomically */

#ifdef PC_HAVE_X86_KERNELS
/* F16C: CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports does not know "f16c"). The OS
 * saving YMM state is covered by the avx2 check, which tests XGETBV. */
static bool cpu_has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}
#endif

static bool runs_here(pc_simd s)
{
#ifdef PC_HAVE_X86_KERNELS
    __builtin_cpu_init();
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && cpu_has_f16c();
    if (s == PC_SIMD_AVX2) return avx2;
    /* libgcc's avx512 bits also require the OS to save the ZMM and mask state (XGETBV) */
    if (s == PC_SIMD_AVX512)
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
#endif
    return s == PC_SIMD_SCALAR;
}

static int named(const char *name)
{
    for (int s = 0; s < (int)(sizeof k_names / sizeof *k_names); s++)
        if (name && !strcmp(k_names[s], name) && runs_here((pc_simd)s)) return s;
    return -1;
}

static void choose_once(void)
{
#ifdef PC_HAVE_X86_KERNELS
    pc_avx2_plans_init();
#endif
    int pick = named(getenv("PACKCHECK_KERNELS")); /* unknown or unsupported: the best one */
    for (int s = PC_SIMD_AVX512; pick < 0; s--)
        if (runs_here((pc_simd)s)) pick = s;
    g_auto = (pc_simd)pick;
}

pc_simd pc_simd_active(void)
{
    pthread_once(&g_once, choose_once);
    int f = __atomic_load_n(&g_forced, __ATOMIC_ACQUIRE);
    return f >= 0 ? (pc_simd)f : g_auto;
}

const char *pc_kernels_name(void) { return k_names[pc_simd_active()]; }

const char *pc_kernels_available(size_t i)
{
    for (int s = PC_SIMD_AVX512; s >= PC_SIMD_SCALAR; s--)
        if (runs_here((pc_simd)s) && i-- == 0) return k_names[s];
    return NULL;
}

int pc_kernels_select(const char *name)
{
    pthread_once(&g_once, choose_once);
    int s = named(name);
    if (s < 0) return -1;
    __atomic_store_n(&g_forced, s, __ATOMIC_RELEASE);
    return 0;
}

void pc_kernels_reset(void)
{
    pthread_once(&g_once, choose_once);
    __atomic_store_n(&g_forced, -1, __ATOMIC_RELEASE);
}
