/* Streamed f32 outputs (kernels/fast/nt.h): every f32 kernel whose output is large enough to stream
 * (every GGUF block type, FP8, INT8, bitsandbytes int8 and NF4, NVFP4, MLX affine, HQQ, Quark MX and int4) gives the oracle's
 * bits under each kernel set, with the output page-aligned (streams), 32-byte aligned inside a page
 * (streams), and 4 bytes off (does not), on shapes that cut rows into column chunks (a row longer
 * than the tile, scale blocks longer than the tile), with every input ending at a PROT_NONE page
 * (an over-read faults without ASan). pc_nt_taken() proves each aligned case took the streaming
 * path and the misaligned one did not, nor a result whose pages were never touched. */
#include "formats/bnb/kernels.h"
#include "formats/gguf/kernels.h"
#include "formats/hqq/kernels.h"
#include "formats/mlx/kernels.h"
#include "formats/quark/kernels.h"
#include "kernels/fast/nt.h"
#include "kernels/kernels.h"
#include "kernels/simd.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "testlib.h"

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }
static void fill(uint8_t *p, size_t n) { for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd(); }

/* Input that ends exactly at a PROT_NONE page. */
#define GUARD_SPAN ((size_t)4 << 20)
static uint8_t *g_guard_end;
static const uint8_t *guarded(const uint8_t *in, size_t n)
{
    if (n > GUARD_SPAN) { printf("FAIL input of %zu bytes exceeds the guard span\n", n); exit(2); }
    memcpy(g_guard_end - n, in, n);
    return g_guard_end - n;
}

/* Three placements of an output of n floats: page-aligned, 32 bytes into a page, 4 bytes off. */
static const size_t k_offsets[3] = {0, 32, 4};
static float *placed(uint8_t *page, unsigned k) { return (float *)(void *)(page + k_offsets[k]); }

typedef void (*run_fn)(const void *ctx, const uint8_t *in, float *out);
/* Runs the fast kernel at each placement and compares with want; `streams` says whether a
 * page-aligned output of this size must stream. */
static void check_placements(const char *what, run_fn run, const void *ctx, const uint8_t *in, const float *want, size_t n)
{
    size_t bytes = n * sizeof(float);
    uint8_t *page = aligned_alloc(4096, (bytes + 64 + 4095) / 4096 * 4096);
    if (!page) exit(2);
#ifdef PC_NT_X86
    bool streams = bytes >= PC_NT_MIN_BYTES;
#else
    bool streams = false; /* a build without streaming stores (PC_NO_SIMD, not x86-64) */
#endif
    for (unsigned k = 0; k < 3; k++) {
        float *out = placed(page, k);
        memset(out, 0xA5, bytes);
        size_t before = pc_nt_taken();
        run(ctx, in, out);
        bool took = pc_nt_taken() != before;
        if (getenv("NT_DEBUG") && memcmp(out, want, bytes))
            for (size_t i = 0; i < n; i++)
                if (memcmp(&out[i], &want[i], 4)) { uint32_t a, b; memcpy(&a, &out[i], 4); memcpy(&b, &want[i], 4); printf("  first diff at %zu: %08x want %08x\n", i, a, b); break; }
        CHECK(!memcmp(out, want, bytes), "%s [%s] offset %zu: fast differs from the oracle", what, pc_kernels_name(), k_offsets[k]);
        CHECK(took == (streams && k_offsets[k] % 32 == 0), "%s [%s] offset %zu: streamed %d, expected %d", what,
              pc_kernels_name(), k_offsets[k], took, streams && k_offsets[k] % 32 == 0);
    }
    free(page);
}

/* ---- GGUF block types ---- */
typedef struct gq { const char *name; size_t bytes, elems; pc_block_fn ref, fast; size_t nblocks; } gq;
static const gq k_gq[] = {
    {"q4_0", 18, 32, pc_q4_0_decode_ref, pc_q4_0_decode_fast, 0},
    {"q8_0", 34, 32, pc_q8_0_decode_ref, pc_q8_0_decode_fast, 0},
    {"q4_1", 20, 32, pc_q4_1_decode_ref, pc_q4_1_decode_fast, 0},
    {"q5_0", 22, 32, pc_q5_0_decode_ref, pc_q5_0_decode_fast, 0},
    {"q5_1", 24, 32, pc_q5_1_decode_ref, pc_q5_1_decode_fast, 0},
    {"q2_k", 84, 256, pc_q2_k_decode_ref, pc_q2_k_decode_fast, 0},
    {"q3_k", 110, 256, pc_q3_k_decode_ref, pc_q3_k_decode_fast, 0},
    {"q4_k", 144, 256, pc_q4_k_decode_ref, pc_q4_k_decode_fast, 0},
    {"q5_k", 176, 256, pc_q5_k_decode_ref, pc_q5_k_decode_fast, 0},
    {"q6_k", 210, 256, pc_q6_k_decode_ref, pc_q6_k_decode_fast, 0},
    {"iq4_nl", 18, 32, pc_iq4_nl_decode_ref, pc_iq4_nl_decode_fast, 0},
    {"iq4_xs", 136, 256, pc_iq4_xs_decode_ref, pc_iq4_xs_decode_fast, 0},
    {"mxfp4", 17, 32, pc_mxfp4_decode_ref, pc_mxfp4_decode_fast, 0},
    {"tq1_0", 54, 256, pc_tq1_0_decode_ref, pc_tq1_0_decode_fast, 0},
    {"tq2_0", 66, 256, pc_tq2_0_decode_ref, pc_tq2_0_decode_fast, 0},
    {"gguf_nvfp4", 36, 64, pc_gguf_nvfp4_decode_ref, pc_gguf_nvfp4_decode_fast, 0},
    {"q1_0", 18, 128, pc_q1_0_decode_ref, pc_q1_0_decode_fast, 0},
    {"q2_0", 18, 64, pc_q2_0_decode_ref, pc_q2_0_decode_fast, 0},
    {"iq2_xxs", 66, 256, pc_iq2_xxs_decode_ref, pc_iq2_xxs_decode_fast, 0},
    {"iq2_xs", 74, 256, pc_iq2_xs_decode_ref, pc_iq2_xs_decode_fast, 0},
    {"iq2_s", 82, 256, pc_iq2_s_decode_ref, pc_iq2_s_decode_fast, 0},
    {"iq3_xxs", 98, 256, pc_iq3_xxs_decode_ref, pc_iq3_xxs_decode_fast, 0},
    {"iq3_s", 110, 256, pc_iq3_s_decode_ref, pc_iq3_s_decode_fast, 0},
    {"iq1_s", 50, 256, pc_iq1_s_decode_ref, pc_iq1_s_decode_fast, 0},
    {"iq1_m", 56, 256, pc_iq1_m_decode_ref, pc_iq1_m_decode_fast, 0},
};
#define NGQ (sizeof k_gq / sizeof *k_gq)

typedef struct gq_job { const gq *t; size_t nblocks; uint8_t *codes; } gq_job;
static void gq_run(const void *ctx, const uint8_t *in, float *out)
{
    const gq_job *j = ctx;
    j->t->fast(in, j->nblocks, j->codes, out);
}

/* Random blocks (random fp16 scales: zero, subnormal, inf and NaN included, each block taking
 * whichever path its scale sends it down); an odd block count past 1 MiB so the tile has a tail. */
static void check_gguf(void)
{
    for (size_t t = 0; t < NGQ; t++) {
        const gq *T = &k_gq[t];
        size_t nb = PC_NT_MIN_BYTES / 4 / T->elems + 3, n = nb * T->elems;
        uint8_t *in = malloc(nb * T->bytes), *wc = malloc(n), *gc = malloc(n);
        float *want = malloc(n * sizeof(float));
        if (!in || !wc || !gc || !want) exit(2);
        fill(in, nb * T->bytes);
        T->ref(in, nb, wc, want);
        for (size_t i = 0; pc_kernels_available(i); i++) {
            pc_kernels_select(pc_kernels_available(i));
            gq_job j = {T, nb, gc};
            check_placements(T->name, gq_run, &j, guarded(in, nb * T->bytes), want, n);
            CHECK(!memcmp(gc, wc, n), "%s [%s]: codes beside streamed weights differ", T->name, pc_kernels_name());
            float small[2 * 256]; /* far below the threshold: plain stores */
            size_t before = pc_nt_taken();
            T->fast(guarded(in, 2 * T->bytes), 2, NULL, small);
            CHECK(pc_nt_taken() == before && !memcmp(small, want, 2 * T->elems * sizeof(float)), "%s [%s]: two blocks",
                  T->name, pc_kernels_name());
            /* codes only, 1..5 blocks ending at the guard page: the grid kernels build the next block's
             * row indices a block ahead, and their codes-only copies must stop at the last block */
            for (size_t k = 1; k <= 5; k++) {
                memset(gc, 0x5a, n);
                T->fast(guarded(in, k * T->bytes), k, gc, NULL);
                CHECK(!memcmp(gc, wc, k * T->elems) && gc[k * T->elems] == 0x5a, "%s [%s]: codes only, %zu blocks",
                      T->name, pc_kernels_name(), k);
            }
        }
        pc_kernels_reset();
        free(in); free(wc); free(gc); free(want);
    }
}

/* ---- FP8 / INT8 grids and bitsandbytes int8 rows ---- */
typedef struct grid { size_t rows, cols, bh, bw; } grid;
static const grid k_grids[] = {
    {300, 1000, 1, 64},  /* rows fit the tile: several whole rows per tile */
    {70, 4160, 2, 128},  /* a row is longer than the tile: chunks of whole scale blocks */
    {60, 6000, 3, 5000}, /* a scale block is longer than the tile: chunks inside a block */
    {129, 2056, 1, 2056}, /* per-row scales, cols not a multiple of 16: the runs' scalar tails */
};
#define NGRIDS (sizeof k_grids / sizeof *k_grids)

typedef struct grid_job { const grid *g; const float *scale; const int8_t *zero; int kind; } grid_job;
static void grid_run(const void *ctx, const uint8_t *in, float *out)
{
    const grid_job *j = ctx;
    const grid *g = j->g;
    if (j->kind == 0) pc_fp8_dequant_fast(in, g->rows, g->cols, g->bh, g->bw, j->scale, out);
    else if (j->kind == 1) pc_int8_dequant_fast(in, g->rows, g->cols, g->bh, g->bw, j->scale, j->zero, out);
    else pc_bnb8_dequant_fast(in, g->rows, g->cols, j->scale, out);
}

static void check_grids(void)
{
    static const char *k_kind[3] = {"fp8", "int8", "bnb8"};
    for (size_t gi = 0; gi < NGRIDS; gi++) {
        const grid *g = &k_grids[gi];
        size_t n = g->rows * g->cols, gc = (g->cols + g->bw - 1) / g->bw, ns = ((g->rows + g->bh - 1) / g->bh) * gc;
        if (ns < g->rows) ns = g->rows; /* bnb8: one SCB per row */
        uint8_t *in = malloc(n);
        float *scale = malloc(ns * sizeof(float)), *want = malloc(n * sizeof(float));
        int8_t *zero = malloc(ns);
        if (!in || !scale || !want || !zero) exit(2);
        fill(in, n);
        for (size_t s = 0; s < ns; s++) {
            /* mostly ordinary scales, one in 7 at 2^121 (FP8's other path), one in 11 any bits */
            scale[s] = s % 7 == 3 ? 0x1p121f : 0.001f * (float)(1 + rnd() % 1000);
            if (s % 11 == 5) { uint32_t u = (uint32_t)rnd(); memcpy(&scale[s], &u, 4); }
            zero[s] = (int8_t)rnd();
        }
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 0) pc_fp8_dequant_ref(in, g->rows, g->cols, g->bh, g->bw, scale, want);
            else if (kind == 1) pc_int8_dequant_ref(in, g->rows, g->cols, g->bh, g->bw, scale, zero, want);
            else pc_bnb8_dequant_ref(in, g->rows, g->cols, scale, want);
            grid_job j = {g, scale, zero, kind};
            char what[64];
            snprintf(what, sizeof what, "%s %zux%zu blocks %zux%zu", k_kind[kind], g->rows, g->cols, g->bh, g->bw);
            for (size_t i = 0; pc_kernels_available(i); i++) {
                pc_kernels_select(pc_kernels_available(i));
                check_placements(what, grid_run, &j, guarded(in, n), want, n);
            }
            pc_kernels_reset();
        }
        free(in); free(scale); free(want); free(zero);
    }
}

/* ---- kernels with their own streaming variant: NVFP4/MXFP4 E2M1, bnb NF4/FP4, MLX affine ---- */
typedef struct own_job { int kind; size_t rows, cols; const float *a, *b; } own_job;
static void own_run(const void *ctx, const uint8_t *in, float *out)
{
    const own_job *j = ctx;
    static const float nf4[16] = {-1.0f, -0.6962f, -0.5251f, -0.3949f, -0.2844f, -0.1848f, -0.0911f, 0.0f,
                                  0.0796f, 0.1609f, 0.2461f, 0.3379f, 0.4407f, 0.5626f, 0.7230f, 1.0f};
    if (j->kind == 0) pc_nvfp4_dequant_fast(in, j->rows, j->cols, j->a, out);
    else if (j->kind == 1) pc_bnb4_dequant_fast(in, j->rows * j->cols, nf4, j->a, 64, out);
    else pc_mlx_affine_fast(in, j->rows, j->cols, 64, j->a, j->b, (pc_mlx_t)(j->kind - 2), out);
}

static void check_own(void)
{
    static const float nf4[16] = {-1.0f, -0.6962f, -0.5251f, -0.3949f, -0.2844f, -0.1848f, -0.0911f, 0.0f,
                                  0.0796f, 0.1609f, 0.2461f, 0.3379f, 0.4407f, 0.5626f, 0.7230f, 1.0f};
    size_t rows = 70, cols = 4160, n = rows * cols, ng = n / 16;
    uint8_t *codes = malloc(n);
    float *a = malloc(ng * sizeof(float)), *b = malloc(ng * sizeof(float)), *want = malloc(n * sizeof(float));
    if (!codes || !a || !b || !want) exit(2);
    fill(codes, n);
    for (size_t i = 0; i < n; i++) codes[i] &= 15; /* codes as the unpackers give them */
    for (size_t g = 0; g < ng; g++) { a[g] = 0.01f * (float)(1 + rnd() % 300); b[g] = -0.005f * (float)(rnd() % 300); }
    static const char *k_name[5] = {"nvfp4 dequant", "bnb4 dequant", "mlx affine f32", "mlx affine bf16", "mlx affine f16"};
    for (int kind = 0; kind < 5; kind++) {
        if (kind == 0) pc_nvfp4_dequant_ref(codes, rows, cols, a, want);
        else if (kind == 1) pc_bnb4_dequant_ref(codes, n, nf4, a, 64, want);
        else pc_mlx_affine_ref(codes, rows, cols, 64, a, b, (pc_mlx_t)(kind - 2), want);
        own_job j = {kind, rows, cols, a, b};
        for (size_t i = 0; pc_kernels_available(i); i++) {
            pc_kernels_select(pc_kernels_available(i));
            /* the portable sets of these four have no streaming variant: only the SIMD sets must stream */
            if (!strcmp(pc_kernels_name(), "scalar")) {
                float *out = malloc(n * sizeof(float));
                if (!out) exit(2);
                own_run(&j, guarded(codes, n), out);
                CHECK(!memcmp(out, want, n * sizeof(float)), "%s [%s]: fast differs from the oracle", k_name[kind], pc_kernels_name());
                free(out);
            } else
                check_placements(k_name[kind], own_run, &j, guarded(codes, n), want, n);
        }
        pc_kernels_reset();
    }
    free(codes); free(a); free(b); free(want);
}

/* ---- HQQ dequantisation (through the tile driver): per-row and per-column groups, each dtype ---- */
typedef struct hqq_case { size_t R, C; int axis; pc_round_t t; const float *z, *s; } hqq_case;
static void hqq_run(const void *ctx, const uint8_t *in, float *out)
{
    const hqq_case *h = ctx;
    pc_hqq_dequant_fast(in, h->R, h->C, h->axis, h->z, h->s, h->t, out);
}

static void check_hqq(void)
{
    static const size_t k_shape[2][2] = {{600, 512}, {70, 4500}}; /* whole rows per tile; rows longer than it */
    for (int sh = 0; sh < 4; sh++) { /* shapes 2, 3: codes below 16, which AVX2 rows of 512 look up by table */
        size_t R = k_shape[sh % 2][0], C = k_shape[sh % 2][1], n = R * C, ng = R > C ? R : C;
        uint8_t *q = malloc(n);
        float *z = malloc(ng * sizeof(float)), *s = malloc(ng * sizeof(float)), *want = malloc(n * sizeof(float));
        if (!q || !z || !s || !want) exit(2);
        fill(q, n);
        if (sh >= 2)
            for (size_t i = 0; i < n; i++) q[i] &= 15;
        for (size_t g = 0; g < ng; g++) { z[g] = 0.37f * (float)(rnd() % 300); s[g] = 0.001f * (float)(1 + rnd() % 5000); }
        z[ng / 2] = 1.0f / 0.0f, z[ng / 3] = 1.0f / 0.0f, s[ng / 3] = 0.0f; /* inf results, and NaN ones (the portable path redoes that row) */
        for (int axis = 0; axis < 2; axis++)
            for (int t = 0; t < 3; t++) {
                pc_hqq_dequant_ref(q, R, C, axis, z, s, (pc_round_t)t, want);
                hqq_case h = {R, C, axis, (pc_round_t)t, z, s};
                char what[64];
                snprintf(what, sizeof what, "hqq %zux%zu axis %d T %d", R, C, axis, t);
                for (size_t i = 0; pc_kernels_available(i); i++) {
                    pc_kernels_select(pc_kernels_available(i));
                    check_placements(what, hqq_run, &h, guarded(q, n), want, n);
                }
                pc_kernels_reset();
            }
        free(q); free(z); free(s); free(want);
    }
}

/* ---- HQQ 3-bit words (codes out, not f32): the AVX2 set's 32-word steps read the input up to its
 * last byte and no further; the words end at the guard page ---- */
static void check_hqq_unpack3(void)
{
    static const size_t k_shape[][2] = {{10, 32}, {19, 64}, {641, 33}, {2048, 64}, {7, 1000}};
    for (size_t k = 0; k < sizeof k_shape / sizeof *k_shape; k++) {
        size_t R = k_shape[k][0], C = k_shape[k][1], bytes = pc_hqq_packed_rows(3, R) * C * 4, n = R * C;
        uint8_t *in = malloc(bytes), *want = malloc(n), *got = malloc(n);
        if (!in || !want || !got) exit(2);
        fill(in, bytes);
        pc_hqq_unpack_ref(in, 3, R, C, want);
        for (size_t i = 0; pc_kernels_available(i); i++) {
            pc_kernels_select(pc_kernels_available(i));
            pc_hqq_unpack_fast(guarded(in, bytes), 3, R, C, got);
            CHECK(!memcmp(got, want, n), "hqq 3-bit %zux%zu [%s]: codes differ from the oracle", R, C, pc_kernels_name());
        }
        pc_kernels_reset();
        free(in); free(want); free(got);
    }
}

/* ---- AMD Quark MX (E2M1, E2M3, E3M2 x E8M0) and int4 per-group affine ---- */
typedef struct qk_case { size_t rows, K, g; } qk_case; /* g: the int4 group (MX blocks are 32) */
static const qk_case k_qk[] = {
    {300, 1000, 40},  /* whole rows per tile; MX rows end in a partial block */
    {70, 4160, 64},   /* a row is longer than the tile: chunks of whole blocks / groups */
    {60, 6000, 6000}, /* an int4 group longer than the tile: chunks inside a group */
    {129, 2044, 28},  /* K and g not multiples of 8: AVX2 keeps plain stores, the tile driver streams */
};
typedef struct qk_job { const qk_case *c; int kind; const uint8_t *e8m0; const float *s; const int8_t *z; } qk_job;
static const pc_qk_elem k_qk_elem[3] = {PC_QK_FP4, PC_QK_E2M3, PC_QK_E3M2};
static void qk_run(const void *ctx, const uint8_t *in, float *out)
{
    const qk_job *j = ctx;
    if (j->kind < 3) pc_qk_mx_dequant_fast(in, j->c->rows, j->c->K, k_qk_elem[j->kind], j->e8m0, out);
    else pc_qk_int4_dequant_fast(in, j->c->rows, j->c->K, j->c->g, j->kind == 3, j->s, j->z, out);
}

static void check_quark(void)
{
    static const char *k_name[5] = {"quark mxfp4", "quark mxfp6 e2m3", "quark mxfp6 e3m2", "quark int4", "quark uint4"};
    for (size_t ci = 0; ci < sizeof k_qk / sizeof *k_qk; ci++) {
        const qk_case *c = &k_qk[ci];
        size_t n = c->rows * c->K, nb = c->rows * ((c->K + 31) / 32), ng = n / c->g;
        uint8_t *in = malloc(n), *e = malloc(nb);
        float *s = malloc(ng * sizeof(float)), *want = malloc(n * sizeof(float));
        int8_t *z = malloc(ng);
        if (!in || !e || !s || !want || !z) exit(2);
        fill(in, n);
        fill(e, nb); /* every E8M0 byte: 255 (inf scale) and 0 (a subnormal one) included */
        for (size_t g = 0; g < ng; g++) { s[g] = 0.001f * (float)(1 + rnd() % 1000); z[g] = (int8_t)rnd(); }
        for (int kind = 0; kind < 5; kind++) {
            if (kind < 3) pc_qk_mx_dequant_ref(in, c->rows, c->K, k_qk_elem[kind], e, want);
            else {
                for (size_t i = 0; i < n; i++) in[i] &= 15; /* int4 codes as the unpacker gives them */
                pc_qk_int4_dequant_ref(in, c->rows, c->K, c->g, kind == 3, s, z, want);
            }
            qk_job j = {c, kind, e, s, z};
            char what[80];
            snprintf(what, sizeof what, "%s %zux%zu g %zu", k_name[kind], c->rows, c->K, c->g);
            for (size_t i = 0; pc_kernels_available(i); i++) {
                pc_kernels_select(pc_kernels_available(i));
                bool whole = kind < 3 ? c->K % 8 == 0 : c->g % 8 == 0; /* AVX2 streams only whole aligned vectors */
                if (whole || !strcmp(pc_kernels_name(), "scalar")) {
                    check_placements(what, qk_run, &j, guarded(in, n), want, n);
                    continue;
                }
                float *out = malloc(n * sizeof(float));
                if (!out) exit(2);
                size_t before = pc_nt_taken();
                qk_run(&j, guarded(in, n), out);
                CHECK(pc_nt_taken() == before && !memcmp(out, want, n * sizeof(float)), "%s [%s]: fast differs from the oracle or streamed",
                      what, pc_kernels_name());
                free(out);
            }
            pc_kernels_reset();
        }
        free(in); free(e); free(s); free(want); free(z);
    }
}

/* A result whose pages were never touched (just mapped) takes plain stores, the same bits. */
static void check_fresh(void)
{
    size_t nb = PC_NT_MIN_BYTES / 128 + 5, n = nb * 32, bytes = n * sizeof(float);
    uint8_t *in = malloc(nb * 34);
    float *want = malloc(bytes);
    if (!in || !want) exit(2);
    fill(in, nb * 34);
    pc_q8_0_decode_ref(in, nb, NULL, want);
    for (size_t i = 0; pc_kernels_available(i); i++) {
        pc_kernels_select(pc_kernels_available(i));
        float *out = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (out == MAP_FAILED) exit(2);
        size_t before = pc_nt_taken();
        pc_q8_0_decode_fast(guarded(in, nb * 34), nb, NULL, out);
        CHECK(pc_nt_taken() == before, "q8_0 [%s]: a fresh result streamed", pc_kernels_name());
        CHECK(!memcmp(out, want, bytes), "q8_0 [%s]: fresh result differs from the oracle", pc_kernels_name());
        munmap(out, bytes);
    }
    pc_kernels_reset();
    free(in); free(want);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, GUARD_SPAN + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + GUARD_SPAN, (size_t)page, PROT_NONE)) { perror("mmap"); return 2; }
    g_guard_end = map + GUARD_SPAN;
    check_gguf();
    check_grids();
    check_own();
    check_hqq();
    check_hqq_unpack3();
    check_quark();
    check_fresh();
    return test_finish();
}
