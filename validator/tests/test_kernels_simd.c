/* Property test: every fast kernel, in every implementation this CPU runs (avx2, scalar), against
 * its oracle, on random shapes, at every misalignment of the source and destination pointers and
 * every tail length. Source buffers are sized exactly (ASan catches a read one byte past them) and
 * also placed against a PROT_NONE page (catches it without ASan); destinations carry a canary. */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int g_pass, g_fail;

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return g_rng;
}

typedef struct layout {
    const char *name;
    void (*ref)(const uint8_t *, unsigned, size_t, uint8_t *);
    void (*fast)(const uint8_t *, unsigned, size_t, uint8_t *);
    size_t (*in_bytes)(unsigned b, size_t count);
    unsigned bmin, bmax;
} layout;

static size_t stream_bytes(unsigned b, size_t n) { return (n * b + 7) / 8; }
static size_t word_bytes(unsigned b, size_t n) { return (n + 32 / b - 1) / (32 / b) * 4; }

static const layout k_layouts[] = {
    {"stream", pc_stream_unpack_ref, pc_stream_unpack_fast, stream_bytes, 1, 8},
    {"wordalign", pc_wordalign_unpack_ref, pc_wordalign_unpack_fast, word_bytes, 1, 8},
};

/* Input filler: random bytes, all ones (sign-extension bugs), or alternating patterns. */
static void fill(uint8_t *p, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++)
        p[i] = kind == 0 ? (uint8_t)rnd() : kind == 1 ? 0xFF : kind == 2 ? 0x00 : (uint8_t)(i * 37 + 11);
}

static void fail(const char *impl, const layout *L, unsigned b, size_t count, size_t ms, size_t md, const char *what)
{
    if (g_fail < 20) fprintf(stderr, "FAIL %s %s b=%u count=%zu src+%zu dst+%zu: %s\n", impl, L->name, b, count, ms, md, what);
    g_fail++;
}

/* One case with exact-size heap buffers at the given misalignments. */
static void check_heap(const char *impl, const layout *L, unsigned b, size_t count, size_t ms, size_t md, int kind)
{
    size_t nin = L->in_bytes(b, count);
    uint8_t *sb = malloc(ms + nin + 1), *want = malloc(count + 1), *ob = malloc(md + count + 64);
    if (!sb || !want || !ob) { fprintf(stderr, "out of memory\n"); exit(2); }
    uint8_t *src = sb + ms, *out = ob + md;
    fill(src, nin, kind);
    /* exact size: copy into a buffer that ends where the input ends */
    uint8_t *exact = malloc(nin ? ms + nin : 1);
    if (!exact) exit(2);
    memcpy(exact + ms, src, nin);
    memset(ob, 0xA5, md + count + 64);
    L->ref(exact + ms, b, count, want);
    L->fast(exact + ms, b, count, out);
    int bad = memcmp(out, want, count) != 0;
    for (size_t i = 0; i < 64; i++) bad |= (out[count + i] != 0xA5) << 1;
    for (size_t i = 0; i < md; i++) bad |= (ob[i] != 0xA5) << 1;
    if (bad & 1) fail(impl, L, b, count, ms, md, "output differs from the oracle");
    else if (bad) fail(impl, L, b, count, ms, md, "wrote outside the output");
    else g_pass++;
    free(exact); free(sb); free(want); free(ob);
}

/* One case with the input ending exactly at a PROT_NONE page: an over-read faults. */
static void check_guard(const char *impl, const layout *L, unsigned b, size_t count, uint8_t *guard_end)
{
    size_t nin = L->in_bytes(b, count);
    uint8_t *src = guard_end - nin, *want = malloc(count + 1), *out = malloc(count + 1);
    if (!want || !out) exit(2);
    fill(src, nin, 0);
    L->ref(src, b, count, want);
    L->fast(src, b, count, out);
    if (memcmp(out, want, count)) fail(impl, L, b, count, (size_t)((uintptr_t)src % 32), 0, "guard-page case differs");
    else g_pass++;
    free(want); free(out);
}

static void run_impl(const char *impl)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t span = 64 * (size_t)page;
    uint8_t *map = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + span, (size_t)page, PROT_NONE)) { perror("mmap"); exit(2); }
    for (size_t l = 0; l < sizeof k_layouts / sizeof *k_layouts; l++) {
        const layout *L = &k_layouts[l];
        for (unsigned b = L->bmin; b <= L->bmax; b++) {
            /* every tail length up to a few vector steps, random misalignments and contents */
            for (size_t count = 0; count <= 520; count++)
                check_heap(impl, L, b, count, rnd() % 32, rnd() % 32, count % 7 == 3 ? 1 : count % 11 == 5 ? 3 : 0);
            /* every misalignment pair on lengths with different tails */
            static const size_t k_counts[] = {1, 31, 64, 97, 130, 389};
            for (size_t c = 0; c < sizeof k_counts / sizeof *k_counts; c++)
                for (size_t ms = 0; ms < 32; ms++)
                    for (size_t md = 0; md < 32; md++) check_heap(impl, L, b, k_counts[c], ms, md, 0);
            /* random larger shapes */
            for (int r = 0; r < 40; r++) check_heap(impl, L, b, (size_t)(rnd() % 20000), rnd() % 64, rnd() % 64, r % 5 == 0);
            /* over-reads without ASan: the input ends at a PROT_NONE page */
            for (size_t count = 0; count <= 300; count++) check_guard(impl, L, b, count, map + span);
            check_guard(impl, L, b, 100000, map + span);
        }
    }
    munmap(map, span + (size_t)page);
}

int main(void)
{
    int nimpl = 0;
    for (size_t i = 0; pc_kernels_available(i); i++, nimpl++) {
        const char *impl = pc_kernels_available(i);
        if (pc_kernels_select(impl)) { fprintf(stderr, "FAIL cannot select %s\n", impl); g_fail++; continue; }
        int before = g_fail;
        run_impl(impl);
        printf("%s: %s\n", impl, g_fail == before ? "all kernels agree with the oracle" : "MISMATCHES");
    }
    if (nimpl == 0 || pc_kernels_select("no-such-impl") != -1) { fprintf(stderr, "FAIL dispatch\n"); g_fail++; }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
