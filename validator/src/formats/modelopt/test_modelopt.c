/* ModelOpt INT4 AWQ kernels: the packing checked on hand-packed bytes (pack_int4_in_uint8 puts row
 * 2j in the low nibble, 2j + 1 in the high one, along N), and the oracle, the portable path and the
 * dispatched fast path held equal on random shapes and groups. The library-written cases live in
 * fixtures/modelopt. */
#include "kernels.h"
#include "kernels/fast/nt.h"
#include <stdbool.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) { return test_xorshift(&g_rng); }

/* N = 4, K = 2: bytes (0, k) hold rows 0 (low) and 1 (high), bytes (1, k) rows 2 and 3. */
static void hand_packed(void)
{
    const uint8_t packed[4] = {0x81, 0x7F, 0x2E, 0x90};
    const uint8_t want[8] = {0x1, 0xF, 0x8, 0x7, 0xE, 0x0, 0x2, 0x9};
    const float scale[4] = {1.0f, 0.5f, 2.0f, 0.25f}; /* one group of 2 per row */
    const float wantf[8] = {1, -1, -4, 3.5f, -4, 0, 0.5f, -1.75f};
    uint8_t got[8];
    float f[8];
    pc_mo_int4_unpack_ref(packed, 4, 2, got);
    CHECK(!memcmp(got, want, 8), "oracle: rows paired along N, low nibble first");
    pc_mo_int4_unpack_fast(packed, 4, 2, got);
    CHECK(!memcmp(got, want, 8), "fast: the same");
    pc_mo_int4_dequant_ref(packed, 4, 2, 2, scale, f);
    CHECK(!memcmp(f, wantf, sizeof f), "oracle: two's-complement nibble times its row's scale");
    pc_mo_int4_dequant_fast(packed, 4, 2, 2, scale, f);
    CHECK(!memcmp(f, wantf, sizeof f), "fast: the same");
}

static void random_case(size_t N, size_t K, size_t g)
{
    size_t n = N * K, G = K / g;
    uint8_t *p = malloc(n / 2), *a = malloc(n), *b = malloc(n), *c = malloc(n);
    float *s = malloc(N * G * sizeof *s), *x = malloc(n * 4), *y = malloc(n * 4), *z = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    for (size_t i = 0; i < n / 2; i++) p[i] = (uint8_t)rnd();
    for (size_t i = 0; i < N * G; i++) s[i] = ldexpf((float)(rnd() | 1u), -(int)(rnd() % 60) - 10);
    pc_mo_int4_unpack_ref(p, N, K, a);
    pc_mo_int4_unpack_scalar(p, N, K, b);
    pc_mo_int4_unpack_fast(p, N, K, c);
    CHECK(!memcmp(a, b, n) && !memcmp(a, c, n), "unpack: oracle = portable = fast (N=%zu K=%zu)", N, K);
    pc_mo_int4_dequant_ref(p, N, K, g, s, x);
    pc_mo_int4_dequant_scalar(p, N, K, g, s, y);
    pc_mo_int4_dequant_fast(p, N, K, g, s, z);
    CHECK(!memcmp(x, y, n * 4) && !memcmp(x, z, n * 4), "dequant: oracle = portable = fast (N=%zu K=%zu g=%zu)", N, K, g);
    /* into backed pages: an output of 1 MiB or more streams through the tile (kernels/fast/nt.h) */
    memset(z, 0xA5, n * 4);
    size_t before = pc_nt_taken();
    pc_mo_int4_dequant_fast(p, N, K, g, s, z);
    CHECK(!memcmp(x, z, n * 4), "dequant, streamed: oracle = fast (N=%zu K=%zu g=%zu)", N, K, g);
#ifdef PC_NT_X86
    bool large = n * 4 >= PC_NT_MIN_BYTES;
#else
    bool large = false; /* no streaming stores in this build */
#endif
    CHECK((pc_nt_taken() > before) == large, "dequant N=%zu K=%zu: streamed exactly when 1 MiB or more", N, K);
    free(p); free(a); free(b); free(c); free(s); free(x); free(y); free(z);
}

int main(void)
{
    /* the last four write 1 MiB or more: whole row pairs per tile, one row per tile, column chunks of
     * a row longer than the tile (K 8192), and a group that is not a multiple of 8 */
    static const size_t shapes[][3] = {{2, 128, 128}, {6, 256, 128}, {4, 96, 32}, {8, 60, 20}, {2, 33, 11}, {10, 512, 64}, {4, 200, 8},
                                       {256, 1024, 128}, {64, 4096, 128}, {34, 8192, 64}, {64, 5000, 20}};
    for (size_t impl = 0; pc_kernels_available(impl); impl++) { /* every kernel set this CPU has */
        const char *name = pc_kernels_available(impl);
        if (pc_kernels_select(name)) continue;
        hand_packed();
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) random_case(shapes[i][0], shapes[i][1], shapes[i][2]);
    }
    pc_kernels_reset();
    return test_finish();
}
