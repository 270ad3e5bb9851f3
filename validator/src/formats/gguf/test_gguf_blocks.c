/* GGUF block types beside Q4_0 (Q8_0, Q4_1, Q5_0, Q5_1), and Q4_0 through the same skeleton:
 * hand-worked blocks through each oracle; every fast kernel set against the oracle on random blocks
 * (fp16 d and m steered to subnormal, zero, inf and NaN), at every source misalignment 0..31 and
 * output offsets, with NULL outputs, and never writing past the output; GQ-001 by driving the module
 * directly (a GGUF file cannot reach it: GGUF-023/024 see the geometry first). */
#include "formats/format.h"
#include "kernels.h"
#include "iq_grids.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

typedef struct bt { const char *name; int ggml_type; size_t bytes, elems; unsigned nscales, scale_at; pc_block_fn ref, fast; } bt;
static const bt k_types[] = {
    {"Q4_0", 2, 18, 32, 1, 0, pc_q4_0_decode_ref, pc_q4_0_decode_fast},
    {"Q8_0", 8, 34, 32, 1, 0, pc_q8_0_decode_ref, pc_q8_0_decode_fast},
    {"Q4_1", 3, 20, 32, 2, 0, pc_q4_1_decode_ref, pc_q4_1_decode_fast},
    {"Q5_0", 6, 22, 32, 1, 0, pc_q5_0_decode_ref, pc_q5_0_decode_fast},
    {"Q5_1", 7, 24, 32, 2, 0, pc_q5_1_decode_ref, pc_q5_1_decode_fast},
    {"Q4_K", 12, 144, 256, 2, 0, pc_q4_k_decode_ref, pc_q4_k_decode_fast},
    {"Q6_K", 14, 210, 256, 1, 208, pc_q6_k_decode_ref, pc_q6_k_decode_fast},
    {"Q5_K", 13, 176, 256, 2, 0, pc_q5_k_decode_ref, pc_q5_k_decode_fast},
    {"IQ4_NL", 20, 18, 32, 1, 0, pc_iq4_nl_decode_ref, pc_iq4_nl_decode_fast},
    {"IQ4_XS", 23, 136, 256, 1, 0, pc_iq4_xs_decode_ref, pc_iq4_xs_decode_fast},
    {"MXFP4", 39, 17, 32, 0, 0, pc_mxfp4_decode_ref, pc_mxfp4_decode_fast},
    {"Q2_K", 10, 84, 256, 2, 80, pc_q2_k_decode_ref, pc_q2_k_decode_fast},
    {"Q3_K", 11, 110, 256, 1, 108, pc_q3_k_decode_ref, pc_q3_k_decode_fast},
    {"TQ1_0", 34, 54, 256, 1, 52, pc_tq1_0_decode_ref, pc_tq1_0_decode_fast},
    {"TQ2_0", 35, 66, 256, 1, 64, pc_tq2_0_decode_ref, pc_tq2_0_decode_fast},
    {"IQ2_XXS", 16, 66, 256, 1, 0, pc_iq2_xxs_decode_ref, pc_iq2_xxs_decode_fast},
    {"IQ2_XS", 17, 74, 256, 1, 0, pc_iq2_xs_decode_ref, pc_iq2_xs_decode_fast},
    {"IQ2_S", 22, 82, 256, 1, 0, pc_iq2_s_decode_ref, pc_iq2_s_decode_fast},
    {"IQ3_XXS", 18, 98, 256, 1, 0, pc_iq3_xxs_decode_ref, pc_iq3_xxs_decode_fast},
    {"IQ3_S", 21, 110, 256, 1, 0, pc_iq3_s_decode_ref, pc_iq3_s_decode_fast},
    {"IQ1_S", 19, 50, 256, 1, 0, pc_iq1_s_decode_ref, pc_iq1_s_decode_fast},
    {"IQ1_M", 29, 56, 256, 1, 48, pc_iq1_m_decode_ref, pc_iq1_m_decode_fast}, /* steers the scale words' low byte */
    {"NVFP4", 40, 36, 64, 0, 0, pc_gguf_nvfp4_decode_ref, pc_gguf_nvfp4_decode_fast}, /* every scale byte, bit 7 included */
    {"Q1_0", 41, 18, 128, 1, 0, pc_q1_0_decode_ref, pc_q1_0_decode_fast},
    {"Q2_0", 42, 18, 64, 1, 0, pc_q2_0_decode_ref, pc_q2_0_decode_fast},
};
#define NTYPES (sizeof k_types / sizeof *k_types)

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }

/* Worked blocks, values computed by hand from ggml's block structs. */
static void worked(void)
{
    uint8_t b8[34] = {0x00, 0x3c}; /* d = 1.0 */
    b8[2] = 0x80; b8[3] = 0xff; b8[4] = 0x7f; b8[5] = 0x01;
    uint8_t c[32];
    float w[32];
    pc_q8_0_decode_ref(b8, 1, c, w);
    CHECK(c[0] == 0x80 && c[1] == 0xff && w[0] == -128.0f && w[1] == -1.0f && w[2] == 127.0f && w[3] == 1.0f && w[4] == 0.0f,
          "Q8_0: %g %g %g %g", w[0], w[1], w[2], w[3]);

    uint8_t b41[20] = {0x00, 0x38, 0x00, 0xbc}; /* d = 0.5, m = -1.0 */
    b41[4] = 0xf3;                              /* element 0: 3, element 16: 15 */
    pc_q4_1_decode_ref(b41, 1, c, w);
    CHECK(c[0] == 3 && c[16] == 15 && w[0] == 0.5f && w[16] == 6.5f && w[1] == -1.0f, "Q4_1: %g %g %g", w[0], w[16], w[1]);

    uint8_t b50[22] = {0x00, 0x40}; /* d = 2.0 */
    b50[2 + 2] = 0x02;              /* qh bit 17: element 17's fifth bit */
    b50[6 + 1] = 0x50;              /* byte 1: element 1 low = 0, element 17 high = 5 */
    pc_q5_0_decode_ref(b50, 1, c, w);
    CHECK(c[1] == 0 && c[17] == 21 && w[1] == -32.0f && w[17] == 10.0f, "Q5_0: %u %u %g %g", c[1], c[17], w[1], w[17]);

    uint8_t b51[24] = {0x00, 0x3c, 0x00, 0x3c}; /* d = 1, m = 1 */
    b51[4] = 0x01;                              /* qh bit 0 */
    b51[8] = 0x0f;                              /* element 0 low nibble 15 */
    pc_q5_1_decode_ref(b51, 1, c, w);
    CHECK(c[0] == 31 && w[0] == 32.0f && c[1] == 0 && w[1] == 1.0f, "Q5_1: %u %g", c[0], w[0]);

    /* Q4_K sub-block 5 (the j >= 4 branch of get_scale_min_k4): scale = low nibble of byte 9 | top
     * two bits of byte 1 << 4 = 10 | 48; min from byte 9's high nibble | byte 5's top bits << 4. */
    static uint8_t bk[144];
    bk[1] = 0x3c;                               /* d = 1 */
    bk[3] = 0x3c;                               /* dmin = 1 */
    bk[4 + 1] = 0xc0;                           /* sub 1: scale 0, top bits 11 for sub 5's scale */
    bk[4 + 5] = 0x40;                           /* sub 1: min 0, top bits 01 for sub 5's min */
    bk[4 + 9] = 0x2a;                           /* sub 5: scale low 0xa, min low 0x2 */
    bk[16 + 64] = 0x30;                         /* element 160 (sub 5, first): q = 3 */
    uint8_t ck[256];
    float wk[256];
    pc_q4_k_decode_ref(bk, 1, ck, wk);
    CHECK(ck[160] == 3 && wk[160] == 58.0f * 3 - 18.0f && wk[32] == 0.0f, "Q4_K j >= 4 scale/min: %g", wk[160]);

    /* MXFP4: every E8M0 exponent, including 0 and 1 (f32 subnormal scales) and 255 (2^127). */
    uint8_t bx[17] = {0};
    bx[1] = 0x71; /* element 0: code 1 (0.5 * 2), element 16: code 7 (6 * 2) */
    int okx = 1;
    for (unsigned e = 0; e < 256; e++) {
        bx[0] = (uint8_t)e;
        float wx[32], want = 1.0f;
        for (unsigned i = e; i < 128; i++) want *= 0.5f;
        for (unsigned i = 128; i < e; i++) want *= 2.0f;
        pc_mxfp4_decode_ref(bx, 1, NULL, wx);
        float fx[32];
        pc_mxfp4_decode_fast(bx, 1, NULL, fx);
        okx &= wx[0] == want && wx[16] == 12.0f * want && !memcmp(wx, fx, sizeof wx);
    }
    CHECK(okx, "MXFP4: every E8M0 exponent");

    /* The product of a 5-bit q and an 11-bit fp16 significand is exact in f32, so only the add
     * rounds: w = f32(q * d + m) whether or not a compiler fuses it. */
    uint8_t bm[20] = {0x01, 0x3c, 0x01, 0x00}; /* d = 1 + 2^-10, m = 2^-24 (below half an ulp of 15) */
    memset(bm + 4, 0xff, 16);
    pc_q4_1_decode_ref(bm, 1, c, w);
    CHECK(w[0] == 15.0f * (1.0f + 1.0f / 1024), "Q4_1: m below half an ulp rounds away: %.9g", w[0]);

    /* Grid types, by hand from the structs and gguf-py's grids (iq3s_grid row 0 = 1,1,1,1, row 1 =
     * 3,1,1,1; iq1s_grid row 0 all -1). IQ3_S: d = 2, scales[0] low nibble 1 (db = 2 * 3 = 6), sign
     * byte 0 bit 0; qs[1] = 1 puts row 1 in elements 4..7. */
    uint8_t g3[110] = {0x00, 0x40};
    g3[3] = 1;      /* qs[1] */
    g3[74] = 0x01;  /* signs[0] bit 0 */
    g3[106] = 0x01; /* scales[0] */
    int8_t gc[256];
    float gw[256];
    pc_iq3_s_decode_ref(g3, 1, (uint8_t *)gc, gw);
    CHECK(gc[0] == -1 && gc[1] == 1 && gc[4] == 3 && gw[0] == -6.0f && gw[4] == 18.0f && gw[32] == 2.0f,
          "IQ3_S: %d %d %g %g %g", gc[0], gc[4], gw[0], gw[4], gw[32]);
    /* IQ1_M: no d field; scale words 0, 0, 0xc000, 0x3000 assemble fp16 0x3c00 = 1; sub-scales 0
     * (dl = 1); qh[0] bit 3 makes group 0's delta -0.125: w = 1 * (-1 - 0.125). */
    uint8_t g1[56] = {0};
    g1[32] = 0x08;
    g1[53] = 0xc0;
    g1[55] = 0x30;
    pc_iq1_m_decode_ref(g1, 1, (uint8_t *)gc, gw);
    CHECK(gc[0] == -1 && gw[0] == -1.125f && gw[8] == -0.875f, "IQ1_M: %d %g %g", gc[0], gw[0], gw[8]);
}

static void fill_blocks(uint8_t *src, size_t nb, const bt *t)
{
    for (size_t i = 0; i < nb * t->bytes; i++) src[i] = (uint8_t)rnd();
    for (size_t b = 0; b < nb; b++)
        for (unsigned f = 0; f < t->nscales; f++) {
            uint8_t *h = src + b * t->bytes + t->scale_at + 2 * f;
            uint64_t r = rnd() % 8; /* steer some scales to the edge cases */
            if (r == 0) h[1] &= 0x83;          /* subnormal or zero exponent */
            if (r == 1) h[1] |= 0x7c;          /* inf / NaN exponent */
            if (r == 2) h[0] = 0, h[1] &= 0x80; /* +-0 */
        }
}

/* One comparison: oracle on an aligned copy, fast on a copy at offset ms, outputs at offset md. */
static int compare_once(const bt *t, const uint8_t *in, size_t nb, size_t ms, size_t md, int mode)
{
    int bad = 0;
    size_t ne = t->elems * nb;
    uint8_t *src = malloc(nb * t->bytes + ms + 1), *rc = malloc(ne + 1), *fc = malloc(ne + md + 1);
    float *rw = malloc(sizeof(float) * (ne + 1)), *fw = malloc(sizeof(float) * (ne + 8 + 1));
    if (!src || !rc || !fc || !rw || !fw) { free(src); free(rc); free(fc); free(rw); free(fw); return 1; }
    memcpy(src + ms, in, nb * t->bytes);
    memset(fc, 0x55, ne + md + 1);
    float sentinel = -12345.0f;
    fw[md % 8 + ne] = sentinel;
    t->ref(in, nb, mode == 2 ? NULL : rc, mode == 1 ? NULL : rw);
    t->fast(src + ms, nb, mode == 2 ? NULL : fc + md, mode == 1 ? NULL : fw + md % 8);
    if (mode != 2 && (memcmp(rc, fc + md, ne) || fc[md + ne] != 0x55)) bad++;
    if (mode != 1 && (memcmp(rw, fw + md % 8, sizeof(float) * ne) || fw[md % 8 + ne] != sentinel)) bad++;
    free(src); free(rc); free(fc); free(rw); free(fw);
    return bad;
}

static void property(void)
{
    enum { MAXB = 67 };
    uint8_t *in = malloc(MAXB * 210);
    if (!in) { CHECK(0, "oom"); return; }
    for (size_t s = 0; pc_kernels_available(s); s++) {
        const char *set = pc_kernels_available(s);
        CHECK(pc_kernels_select(set) == 0, "select %s", set);
        /* the avx512 set twice: its IQ3 kernels by byte permutes (VBMI, where the CPU has it), then by row loads */
        for (int vbmi = 1; vbmi >= (strcmp(set, "avx512") ? 1 : 0); vbmi--) {
#ifdef PC_HAVE_X86_KERNELS
            pc_iq3_vbmi_allow(vbmi);
#endif
            for (size_t k = 0; k < NTYPES; k++) {
                const bt *t = &k_types[k];
                int bad = 0;
                for (size_t ms = 0; ms < 32; ms++)
                    for (size_t md = 0; md < 32; md += 3) {
                        size_t nb = rnd() % (t->elems == 256 ? 9 : MAXB);
                        fill_blocks(in, nb, t);
                        bad += compare_once(t, in, nb, ms, md, (int)(rnd() % 3));
                    }
                CHECK(bad == 0, "%s fast (%s%s) differs from the oracle in %d runs", t->name, set, vbmi ? "" : ", no VBMI", bad);
            }
        }
    }
#ifdef PC_HAVE_X86_KERNELS
    pc_iq3_vbmi_allow(1);
#endif
    pc_kernels_reset();
    free(in);
}

/* TQ1_0 codes for every byte value in every position (block v: byte (v + i) mod 256 at qs/qh
 * position i), each kernel set against the oracle: the AVX2 set's trit planes are compares on
 * biased bytes, so the thresholds 85/86 and 170/171 must come out as ggml's. */
static void tq1_0_every_byte(void)
{
    enum { NB = 256 };
    uint8_t *src = malloc(NB * 54), *want = malloc(NB * 256), *got = malloc(NB * 256);
    if (!src || !want || !got) { CHECK(0, "oom"); return; }
    for (size_t v = 0; v < NB; v++) {
        for (size_t i = 0; i < 52; i++) src[54 * v + i] = (uint8_t)(v + i);
        src[54 * v + 52] = 0, src[54 * v + 53] = 0x3c; /* d = 1 */
    }
    pc_tq1_0_decode_ref(src, NB, want, NULL);
    for (size_t s = 0; pc_kernels_available(s); s++) {
        const char *set = pc_kernels_available(s);
        CHECK(pc_kernels_select(set) == 0, "select %s", set);
        memset(got, 0xEE, NB * 256);
        pc_tq1_0_decode_fast(src, NB, got, NULL);
        CHECK(!memcmp(got, want, NB * 256), "TQ1_0 (%s): codes of every byte value differ from the oracle", set);
    }
    pc_kernels_reset();
    free(src); free(want); free(got);
}

/* GQ-001 on ne0 = 48 (not a multiple of 32) and on a byte size that is not the type's. */
extern const pc_format pc_format_gguf_blocks;
static void geometry(void)
{
    pc_tensor ts[2] = {
        {.name = "a.weight", .dtype = PC_DT_GGML, .ggml_type = 8, .ndim = 2, .shape = {1, 48}, .numel = 48, .nbytes = 34},
        {.name = "b.weight", .dtype = PC_DT_GGML, .ggml_type = 3, .ndim = 2, .shape = {1, 32}, .numel = 32, .nbytes = 18},
    };
    for (int i = 0; i < 2; i++) {
        pc_input in = {.tensors = &ts[i], .ntensors = 1, .is_gguf = true};
        pc_ctx cx;
        pc_ctx_init(&cx, PC_PROFILE_STRICT);
        CHECK(pc_format_gguf_blocks.detect(&in), "%s not detected", ts[i].name);
        pc_format_gguf_blocks.check(&in, &cx);
        CHECK(pc_rule_status(&cx, pc_rule_find("GQ-001")) == PC_STATUS_FAIL && in.nmodules == 0, "GQ-001 on %s", ts[i].name);
        CHECK(pc_rule_status(&cx, pc_rule_find("Q40-001")) == PC_STATUS_SKIP, "no Q40 rules without a Q4_0 tensor");
        pc_ctx_free(&cx);
        free(in.modules);
    }
}

/* NVFP4, Q1_0, Q2_0: values from ggml's dequantize_row_* worked by hand (kvalues_fp4 doubled, UE4M3 halved). */
static void worked_lowbit(void)
{
    uint8_t nv[36] = {0x38, 0x00, 0x7f, 0xb8}; /* sub-block scales 0.5, 0, 0 (NaN pattern), 0.5 (bit 7 ignored) */
    nv[4 + 0] = 0x9f;                          /* element 0: code 15 (-12), element 8: code 9 (-1) */
    nv[4 + 8] = 0x19;                          /* element 16: code 9 under scale 0, element 24: code 1 */
    nv[4 + 16] = 0x07;                         /* element 32: code 7 under 0x7F */
    nv[4 + 24] = 0x07;                         /* element 48: code 7 (12) */
    uint8_t c[128];
    float w[128];
    pc_gguf_nvfp4_decode_ref(nv, 1, c, w);
    CHECK(c[0] == 15 && c[8] == 9 && w[0] == -6.0f && w[8] == -0.5f && w[48] == 6.0f && w[32] == 0.0f, "NVFP4: %g %g %g %g", w[0], w[8], w[48], w[32]);
    CHECK(w[16] == 0.0f && signbit(w[16]) && !signbit(w[24]) && w[1] == 0.0f && !signbit(w[1]), "NVFP4: -1 * 0 is -0, code 0 is +0");
    uint8_t q1[18] = {0x00, 0x3c, 0x01};       /* d = 1; element 0 set, 1..7 clear */
    q1[17] = 0x80;                             /* element 127 set */
    pc_q1_0_decode_ref(q1, 1, c, w);
    CHECK(c[0] == 1 && c[1] == 0 && w[0] == 1.0f && w[1] == -1.0f && w[127] == 1.0f && w[120] == -1.0f, "Q1_0: %g %g %g", w[0], w[1], w[127]);
    q1[1] = 0x00;                              /* d = +0: a clear bit gives -0 (ggml's neg_d) */
    pc_q1_0_decode_ref(q1, 1, c, w);
    CHECK(w[1] == 0.0f && signbit(w[1]) && !signbit(w[0]), "Q1_0: d = +0");
    uint8_t q2[18] = {0x00, 0x40, 0xe4};       /* d = 2; elements 0..3 codes 0, 1, 2, 3 */
    pc_q2_0_decode_ref(q2, 1, c, w);
    CHECK(c[0] == 0 && c[3] == 3 && w[0] == -2.0f && w[1] == 0.0f && !signbit(w[1]) && w[2] == 2.0f && w[3] == 4.0f, "Q2_0: %g %g %g %g",
          w[0], w[1], w[2], w[3]);
    q2[1] = 0xc0;                              /* d = -2: code 1 gives 0 * -2 = -0 */
    pc_q2_0_decode_ref(q2, 1, c, w);
    CHECK(w[1] == 0.0f && signbit(w[1]) && w[3] == -4.0f, "Q2_0: d = -2");
}

/* Facts about the grid tables that the AVX2 grid kernels (avx2_grid.c) compute with instead of
 * reading: ksigns_iq2xs[k] = k | parity(k) << 7, and no IQ2 / IQ3 grid byte is 0 (so the oracle's
 * negated f32(db * |g|) equals f32(db * -|g|): no -0 to lose). */
static void grid_tables(void)
{
    int ok = 1;
    for (unsigned k = 0; k < 128; k++) {
        unsigned par = 0;
        for (unsigned x = k; x; x >>= 1) par ^= x & 1u;
        ok &= PC_KSIGNS_IQ2XS[k] == (k | par << 7);
    }
    CHECK(ok, "ksigns_iq2xs is k | parity(k) << 7");
    const struct { const uint8_t *g; size_t n; } grids[] = {
        {PC_IQ2XXS_GRID, 256 * 8}, {PC_IQ2XS_GRID, 512 * 8}, {PC_IQ2S_GRID, 1024 * 8}, {PC_IQ3XXS_GRID, 256 * 4}, {PC_IQ3S_GRID, 512 * 4},
    };
    for (size_t t = 0; t < sizeof grids / sizeof *grids; t++)
        for (size_t i = 0; i < grids[t].n; i++) ok &= grids[t].g[i] != 0 && grids[t].g[i] < 128;
    CHECK(ok, "IQ2 / IQ3 grid bytes are 1..127");
}

int main(void)
{
    grid_tables();
    worked();
    worked_lowbit();
    property();
    tq1_0_every_byte();
    geometry();
    return test_finish();
}
