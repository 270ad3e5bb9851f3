/* Property test: every fast kernel, in every implementation this CPU runs (avx2, scalar), against
 * its oracle, on random shapes, at every misalignment of the source and destination pointers and
 * every tail length. Source buffers are sized exactly (ASan catches a read one byte past them) and
 * also placed against a PROT_NONE page (catches it without ASan); destinations carry a canary. */
#include "kernels/kernels.h"
#include "formats/awq/kernels.h"
#include "formats/bnb/kernels.h"
#include "formats/gguf/kernels.h"
#include "formats/gptq/kernels.h"
#include "formats/mlx/kernels.h"

#include <math.h>
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

/* ------------------------------------------------------------------------------------------------
 * The other layouts (GPTQ, AWQ, Q4_0, NVFP4 dequantisation) through the public fast entry points
 * against their oracles, for every implementation.
 * --------------------------------------------------------------------------------------------- */

/* An exact-size copy at a misalignment (ASan catches any read past it). */
static uint8_t *exact_copy(const void *p, size_t n, size_t mis, uint8_t **base)
{
    *base = malloc(mis + n + 1);
    if (!*base) exit(2);
    memcpy(*base + mis, p, n);
    return *base + mis;
}

static void layout_fail(const char *what, size_t a, size_t b2, size_t c)
{
    if (g_fail < 40) fprintf(stderr, "FAIL %s %s (%zu, %zu, %zu)\n", pc_kernels_name(), what, a, b2, c);
    g_fail++;
}

/* Every source and destination misalignment (0..31 each) for one shape per layout, with tails. */
static void layouts_every_misalignment(void)
{
    enum { K = 64, N = 40, AR = 3, AN = 24, NB = 5, NR = 2, NC = 48 };
    uint8_t in[K * 8 / 32 * N * 4], want[K * N * 4], *base, *ob;
    float wf[NB * 32], gf[NB * 32], gs[NR * NC / 16], nw[NR * NC], ng[NR * NC];
    fill(in, sizeof in, 0);
    for (size_t k = 0; k < NB; k++) { in[18 * k] = (uint8_t)(k * 41); in[18 * k + 1] = 0x3c; }
    for (size_t g = 0; g < NR * NC / 16; g++) gs[g] = 0.25f * (float)(g + 1);
    for (size_t ms = 0; ms < 32; ms++)
        for (size_t md = 0; md < 32; md++) {
            unsigned b = (unsigned[]){2, 3, 4, 8}[(ms + md) % 4];
            size_t nin = K * b / 32 * N * 4;
            uint8_t *src = exact_copy(in, nin, ms, &base);
            ob = malloc(md + K * N);
            pc_gptq_unpack_ref(in, b, K, N, want);
            pc_gptq_unpack_fast(src, b, K, N, ob + md);
            if (memcmp(ob + md, want, K * N)) layout_fail("gptq (misaligned)", b, ms, md); else g_pass++;
            free(base); free(ob);

            src = exact_copy(in, AR * AN / 2, ms, &base);
            ob = malloc(md + AR * AN);
            pc_awq_unpack_ref(in, AR, AN, want);
            pc_awq_unpack_fast(src, AR, AN, ob + md);
            if (memcmp(ob + md, want, AR * AN)) layout_fail("awq (misaligned)", ms, md, 0); else g_pass++;
            free(base); free(ob);

            src = exact_copy(in, 18 * NB, ms, &base);
            ob = malloc(md + 32 * NB);
            pc_q4_0_decode_ref(in, NB, want, wf);
            pc_q4_0_decode_fast(src, NB, ob + md, gf);
            if (memcmp(ob + md, want, 32 * NB) || memcmp(gf, wf, sizeof wf)) layout_fail("q4_0 (misaligned)", ms, md, 0); else g_pass++;
            free(base); free(ob);

            src = exact_copy(in, NR * NC, ms, &base);
            pc_nvfp4_dequant_ref(in, NR, NC, gs, nw);
            pc_nvfp4_dequant_fast(src, NR, NC, gs, ng);
            if (memcmp(ng, nw, sizeof nw)) layout_fail("nvfp4 (misaligned)", ms, md, 0); else g_pass++;
            free(base);
        }
}

static void run_layouts(void)
{
    layouts_every_misalignment();
    static const unsigned k_gptq_bits[] = {2, 3, 4, 8};
    for (int it = 0; it < 400; it++) {
        unsigned b = k_gptq_bits[it % 4];
        size_t K = 32 * (1 + rnd() % 6), N = it < 100 ? (size_t)(it % 100) + 1 : 1 + rnd() % 140;
        size_t nin = K * b / 32 * N * 4;
        uint8_t *in = malloc(nin + 1), *want = malloc(K * N + 1), *base, *obase;
        fill(in, nin, it % 9 == 0);
        uint8_t *src = exact_copy(in, nin, rnd() % 32, &base);
        size_t md = rnd() % 32;
        obase = malloc(md + K * N + 1);
        pc_gptq_unpack_ref(in, b, K, N, want);
        pc_gptq_unpack_fast(src, b, K, N, obase + md);
        if (memcmp(obase + md, want, K * N)) layout_fail("gptq", b, K, N); else g_pass++;
        free(in); free(want); free(base); free(obase);
    }
    for (int it = 0; it < 300; it++) {
        size_t rows = 1 + rnd() % 12, N = 8 * (1 + rnd() % 40), nin = rows * N / 2;
        uint8_t *in = malloc(nin + 1), *want = malloc(rows * N + 1), *base, *obase;
        fill(in, nin, it % 7 == 0);
        uint8_t *src = exact_copy(in, nin, rnd() % 32, &base);
        size_t md = rnd() % 32;
        obase = malloc(md + rows * N + 1);
        pc_awq_unpack_ref(in, rows, N, want);
        pc_awq_unpack_fast(src, rows, N, obase + md);
        if (memcmp(obase + md, want, rows * N)) layout_fail("awq", rows, N, 0); else g_pass++;
        free(in); free(want); free(base); free(obase);
    }
    static const uint16_t k_special_d[] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFD55, 0x3C00, 0x7BFF};
    for (int it = 0; it < 300; it++) {
        size_t nb = (size_t)(it % 41), nin = 18 * nb;
        uint8_t *in = malloc(nin + 1), *base, *cw = malloc(32 * nb + 1), *cg = malloc(32 * nb + 1);
        float *ww = malloc(4 * 32 * nb + 4), *wg = malloc(4 * 32 * nb + 4);
        fill(in, nin, 0);
        for (size_t k = 0; k < nb; k++)
            if (rnd() % 3 == 0) { uint16_t d = k_special_d[rnd() % 11]; in[18 * k] = (uint8_t)d; in[18 * k + 1] = (uint8_t)(d >> 8); }
        uint8_t *src = exact_copy(in, nin, rnd() % 32, &base);
        pc_q4_0_decode_ref(in, nb, cw, ww);
        int mode = it % 3; /* both, codes only, weights only */
        pc_q4_0_decode_fast(src, nb, mode == 2 ? NULL : cg, mode == 1 ? NULL : wg);
        if (mode != 2 && memcmp(cg, cw, 32 * nb)) layout_fail("q4_0 codes", nb, (size_t)mode, 0); else g_pass++;
        if (mode != 1 && memcmp(wg, ww, 4 * 32 * nb)) layout_fail("q4_0 weights", nb, (size_t)mode, 0); else g_pass++;
        free(in); free(base); free(cw); free(cg); free(ww); free(wg);
    }
    for (int it = 0; it < 200; it++) {
        size_t rows = 1 + rnd() % 6, cols = 16 * (1 + rnd() % 12), n = rows * cols;
        uint8_t *codes = malloc(n + 1), *base;
        float *gs = malloc(4 * (n / 16) + 4), *want = malloc(4 * n + 4), *got = malloc(4 * n + 4);
        fill(codes, n, 0);
        for (size_t g = 0; g < n / 16; g++) {
            uint32_t bits = (uint32_t)rnd();
            if (g % 5) bits = (bits & 0x807FFFFFu) | (uint32_t)((100 + rnd() % 60) << 23); /* mostly normal */
            memcpy(&gs[g], &bits, 4);
        }
        uint8_t *cs = exact_copy(codes, n, rnd() % 32, &base);
        pc_nvfp4_dequant_ref(codes, rows, cols, gs, want);
        pc_nvfp4_dequant_fast(cs, rows, cols, gs, got);
        if (memcmp(got, want, 4 * n)) layout_fail("nvfp4 dequant", rows, cols, 0); else g_pass++;
        free(codes); free(base); free(gs); free(want); free(got);
    }
}

int main(void)
{
    int nimpl = 0;
    for (size_t i = 0; pc_kernels_available(i); i++, nimpl++) {
        const char *impl = pc_kernels_available(i);
        if (pc_kernels_select(impl)) { fprintf(stderr, "FAIL cannot select %s\n", impl); g_fail++; continue; }
        int before = g_fail;
        run_impl(impl);
        run_layouts();
        printf("%s: %s\n", impl, g_fail == before ? "all kernels agree with the oracle" : "MISMATCHES");
    }
    if (nimpl == 0 || pc_kernels_select("no-such-impl") != -1) { fprintf(stderr, "FAIL dispatch\n"); g_fail++; }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
