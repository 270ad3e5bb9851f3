/* Diagnosis simulations on hand-built modules, checked against FORMATS.md's worked vectors, and
 * dg_diagnose naming each bug from its own output. No format module needed. */
#include "harness/diagnose.h"
#include "harness/equiv_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

typedef struct fixture { dg_module m; uint8_t *codes; float *w; } fixture;

/* The layout data the real format reports for a module of `layout` (pc_format.diag_params, no input). */
static void layout_from_format(dg_module *m, const char *layout)
{
    static const struct { const char *prefix, *fmt; } k_map[] = {{"gptq", "gptq"}, {"awq", "awq"}, {"gguf", "gguf-blocks"}, {"nvfp4", "nvfp4"}, {"ct-", "ct"}, {"mlx", "mlx"}};
    for (size_t j = 0; j < sizeof k_map / sizeof k_map[0]; j++) {
        if (strncmp(layout, k_map[j].prefix, strlen(k_map[j].prefix))) continue;
        for (const pc_format *const *f = pc_formats; *f; f++) {
            if (strcmp((*f)->name, k_map[j].fmt)) continue;
            pc_module pm = {.prefix = (char *)"m", .layout = layout, .fmt = *f, .ndim = 2, .shape = {m->N, m->K}, .numel = m->numel, .bits = m->bits};
            CHECK((*f)->diag_params(NULL, &pm, false, &m->p) == 0, "%s describes %s", k_map[j].fmt, layout);
        }
    }
}

/* A module with codes from f(n, k), per-element scale 0.5 + n/8 and zero point zq. */
static void make(fixture *x, const char *layout, unsigned bits, uint64_t N, uint64_t K, unsigned (*f)(uint64_t, uint64_t), int zq, bool fp4)
{
    memset(x, 0, sizeof *x);
    size_t n = (size_t)(N * K);
    x->codes = malloc(n);
    x->w = malloc(n * sizeof *x->w);
    dg_module *m = &x->m;
    m->prefix = "m";
    m->layout = layout;
    m->bits = bits;
    m->E = 1;
    m->N = N;
    m->K = K;
    m->numel = n;
    layout_from_format(m, layout);
    CHECK(fp4 == (m->p.kind == PC_DIAG_E2M1), "%s: the format's weight formula", layout);
    m->p.s = malloc(n * sizeof *m->p.s);
    m->p.zq = malloc(n * sizeof *m->p.zq);
    for (uint64_t r = 0; r < N; r++)
        for (uint64_t k = 0; k < K; k++) {
            size_t i = (size_t)(r * K + k);
            x->codes[i] = (uint8_t)f(r, k);
            m->p.s[i] = 0.5f + (float)r / 8;
            m->p.zq[i] = (int16_t)zq;
            if (fp4) {
                static const float e[8] = {0, .5f, 1, 1.5f, 2, 3, 4, 6};
                float v = e[x->codes[i] & 7];
                x->w[i] = (x->codes[i] & 8 ? -v : v) * m->p.s[i];
            } else {
                x->w[i] = (float)(x->codes[i] - zq) * m->p.s[i];
            }
        }
    m->codes = x->codes;
    m->weights = x->w;
}

static void drop(fixture *x) { dg_module_free(&x->m); free(x->codes); free(x->w); }

static unsigned pat16(uint64_t n, uint64_t k) { return (unsigned)((n * 7 + k * 3) % 16); }
static unsigned col(uint64_t n, uint64_t k) { (void)k; return (unsigned)(n % 8); }
static unsigned halves(uint64_t n, uint64_t k) { (void)n; return (unsigned)(k % 32 < 16 ? k % 16 : 15 - k % 16); }
static unsigned ct3(uint64_t n, uint64_t k) { return n == 0 ? (unsigned)(k < 8 ? k : k - 8) : 7; }
static unsigned all15(uint64_t n, uint64_t k) { (void)n; (void)k; return 15; }

static const pc_weight_compare exact = {PC_ROUND_F32, {PC_TOL_EXACT, 0, false}, false};

/* dg_diagnose must name `want` when fed the simulation of `want`. */
static void names_itself(const dg_module *m, pc_bug want, int variant)
{
    dg_out o;
    int rc = dg_simulate(m, want, variant, &o);
    CHECK(rc == 0, "%s simulates on %s", pc_bug_id(want), m->layout);
    if (rc) return;
    cJSON *d = dg_diagnose(m, o.codes, o.weights, o.K, &exact);
    const char *got = d ? cJSON_GetObjectItem(d, "bug")->valuestring : "(none)";
    CHECK(d && !strcmp(got, pc_bug_id(want)), "diagnosis of %s on %s said %s", pc_bug_id(want), m->layout, got);
    cJSON_Delete(d);
    if (o.weights) {
        d = dg_diagnose(m, NULL, o.weights, o.K, &exact); /* a reader that writes only weights */
        CHECK(d != NULL, "weights-only diagnosis of %s on %s", pc_bug_id(want), m->layout);
        cJSON_Delete(d);
    }
    dg_out_free(&o);
}

static void test_awq_order(void)
{
    /* FORMATS 6.5: columns 0..7 holding 0..7 pack to 0x75316420; a reader that skips the
     * interleave reads slot i as column i, i.e. column i gets ORDER[i]. */
    fixture x;
    make(&x, "awq-gemm", 4, 16, 8, col, 3, false);
    dg_out o;
    CHECK(dg_simulate(&x.m, PC_BUG_AWQ_ORDER, 0, &o) == 0, "awq-order applies");
    static const unsigned want[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (int n = 0; n < 8; n++) CHECK(o.codes[n * 8] == want[n], "awq column %d got %u", n, o.codes[n * 8]);
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_AWQ_ORDER, 0);
    names_itself(&x.m, PC_BUG_PACK_AXIS, 0);
    drop(&x);
}

static void test_sign_ext(void)
{
    fixture x;
    make(&x, "gptq-v2", 4, 8, 16, all15, 8, false);
    dg_out o;
    CHECK(dg_simulate(&x.m, PC_BUG_SIGN_EXT, 0, &o) == 0, "sign-extension applies");
    CHECK(o.codes[7] == 0xff && o.codes[6] == 15 && o.codes[15] == 0xff, "top slot sign-extended: %u %u", o.codes[7], o.codes[6]);
    CHECK(o.weights[7] == (float)(-1 - 8) * x.m.p.s[7], "sign-extended weight %g", (double)o.weights[7]);
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_SIGN_EXT, 0);
    drop(&x);
}

static void test_q4_0_and_fp4(void)
{
    fixture x;
    make(&x, "gguf", 4, 2, 64, halves, 8, false);
    dg_out o;
    if (dg_simulate(&x.m, PC_BUG_NIBBLE_SWAP, 0, &o)) { CHECK(0, "q4_0 nibble swap applies"); drop(&x); return; }
    CHECK(o.codes[0] == x.codes[16] && o.codes[16] == x.codes[0] && o.codes[33] == x.codes[49], "q4_0 halves swapped");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_NIBBLE_SWAP, 0);
    CHECK(dg_simulate(&x.m, PC_BUG_ZERO_OFF_BY_ONE, 0, &o) == 1, "q4_0 has no zero point to get wrong");
    drop(&x);

    make(&x, "nvfp4-ct", 4, 4, 32, pat16, 0, true);
    x.m.p.alt_s[PC_ALT_GLOBAL_OTHER] = malloc(x.m.numel * sizeof(float));
    for (size_t i = 0; i < x.m.numel; i++) x.m.p.alt_s[PC_ALT_GLOBAL_OTHER][i] = x.m.p.s[i] * 4;
    CHECK(dg_simulate(&x.m, PC_BUG_NIBBLE_SWAP, 0, &o) == 0, "nvfp4 nibble swap applies");
    CHECK(o.codes[0] == x.codes[1] && o.codes[1] == x.codes[0], "nvfp4 pairs swapped");
    CHECK(signbit(o.weights[0]) == signbit(x.w[1]), "fp4 sign follows the code");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_NIBBLE_SWAP, 0);
    names_itself(&x.m, PC_BUG_GLOBAL_SCALE_MUL, 0);
    CHECK(dg_simulate(&x.m, PC_BUG_GLOBAL_SCALE_RECIP, 0, &o) == 1, "no reciprocal scales: nothing to simulate");
    x.m.p.alt_s[PC_ALT_GLOBAL_RECIP] = malloc(x.m.numel * sizeof(float));
    for (size_t i = 0; i < x.m.numel; i++) x.m.p.alt_s[PC_ALT_GLOBAL_RECIP][i] = nextafterf(x.m.p.s[i], 10.0f); /* one ulp off */
    names_itself(&x.m, PC_BUG_GLOBAL_SCALE_RECIP, 0);
    drop(&x);
}

static void test_ct_layout_and_pad(void)
{
    /* FORMATS 3.8: legacy 3-bit 2x12 read by 0.18.0's dense unpacker gives
     * q = [-4,-3,-2,-1,0,1,2,3,-4,-3,-4,1] and [3 x10, 0, 3], i.e. u = q + 4. */
    fixture x;
    make(&x, "ct-legacy", 3, 2, 12, ct3, 4, false);
    x.m.p.lay.stream_words = 2;
    dg_out o;
    CHECK(dg_simulate(&x.m, PC_BUG_CT_LAYOUT, 0, &o) == 0, "ct-layout applies to 3-bit");
    static const unsigned r0[12] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 0, 5}, r1[12] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 4, 7};
    for (int k = 0; k < 12; k++) CHECK(o.codes[k] == r0[k] && o.codes[12 + k] == r1[k], "legacy read as dense, column %d: %u %u", k, o.codes[k], o.codes[12 + k]);
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_CT_LAYOUT, 0);
    drop(&x);

    make(&x, "ct-dense", 4, 3, 12, pat16, 8, false);
    x.m.p.lay.stream_words = 2; /* ceil(12*4/32): room for 16 columns */
    CHECK(dg_simulate(&x.m, PC_BUG_CT_LAYOUT, 0, &o) == 1, "4-bit layouts are identical");
    CHECK(dg_simulate(&x.m, PC_BUG_PAD_NOT_SLICED, 0, &o) == 0 && o.K == 16, "pad: 16 columns");
    CHECK(o.codes[12] == 0 && o.codes[16] == x.codes[12], "pad columns are zero, rows shift");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_PAD_NOT_SLICED, 0);
    names_itself(&x.m, PC_BUG_NIBBLE_SWAP, 0);
    drop(&x);
}

static void test_params_bugs(void)
{
    fixture x;
    make(&x, "gptq-v1", 4, 8, 32, pat16, 8, false);
    x.m.p.alt_s[PC_ALT_NO_GIDX] = malloc(x.m.numel * sizeof(float));
    x.m.p.alt_zq[PC_ALT_NO_GIDX] = malloc(x.m.numel * sizeof(int16_t));
    for (size_t i = 0; i < x.m.numel; i++) { x.m.p.alt_s[PC_ALT_NO_GIDX][i] = x.m.p.s[i] * 2; x.m.p.alt_zq[PC_ALT_NO_GIDX][i] = 7; }
    dg_out o;
    CHECK(dg_simulate(&x.m, PC_BUG_ZERO_OFF_BY_ONE, 0, &o) == 0, "zero -1 applies");
    CHECK(o.weights[0] == (float)(x.codes[0] - 7) * x.m.p.s[0] && !memcmp(o.codes, x.codes, x.m.numel), "zero -1: codes kept, weights shift");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_ZERO_OFF_BY_ONE, 0);
    names_itself(&x.m, PC_BUG_ZERO_OFF_BY_ONE, 1);
    names_itself(&x.m, PC_BUG_G_IDX_IGNORED, 0);
    names_itself(&x.m, PC_BUG_PACK_AXIS, 0);
    names_itself(&x.m, PC_BUG_SIGN_EXT, 0);
    CHECK(dg_simulate(&x.m, PC_BUG_ZERO_WRAP, 0, &o) == 1, "zero-wrap needs a stored 2^b - 1");
    for (size_t i = 0; i < x.m.numel; i += 5) x.m.p.zq[i] = 16; /* v1 stored 15 (a zero point of 0 wrapped) */
    for (size_t i = 0; i < x.m.numel; i++) x.w[i] = (float)(x.codes[i] - x.m.p.zq[i]) * x.m.p.s[i];
    CHECK(dg_simulate(&x.m, PC_BUG_ZERO_WRAP, 0, &o) == 0 && o.weights[0] == (float)x.codes[0] * x.m.p.s[0], "zero-wrap decodes 16 as 0");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_ZERO_WRAP, 0);
    /* 8x8 4-bit GPTQ read along N is the transpose. */
    drop(&x);
    make(&x, "gptq-v2", 4, 8, 8, pat16, 8, false);
    CHECK(dg_simulate(&x.m, PC_BUG_PACK_AXIS, 0, &o) == 0, "pack-axis applies");
    bool transposed = true;
    for (int n = 0; n < 8; n++)
        for (int k = 0; k < 8; k++) transposed &= o.codes[n * 8 + k] == x.codes[k * 8 + n];
    CHECK(transposed, "8x8 GPTQ read along N is the transpose");
    dg_out_free(&o);
    /* An output nobody's bug explains. */
    uint8_t *junk = calloc(x.m.numel, 1);
    cJSON *d = dg_diagnose(&x.m, junk, NULL, x.m.K, &exact);
    CHECK(d == NULL, "all-zero output matches no bug");
    cJSON_Delete(d);
    free(junk);
    drop(&x);
}

/* MLX packs element j of a uint32 at bits j*b (LSB first); an MSB-first reader takes slot 7 - j. */
static void test_msb_first(void)
{
    fixture x;
    make(&x, "mlx-affine", 4, 2, 16, pat16, 0, false);
    free(x.m.p.s); /* codes only: the affine weights need the format's own formula */
    x.m.p.s = NULL;
    dg_out o;
    CHECK(dg_simulate(&x.m, PC_BUG_MLX_MSB_FIRST, 0, &o) == 0, "mlx-msb-first applies to 4-bit");
    bool rev = true;
    for (int k = 0; k < 16; k++) rev &= o.codes[k] == x.codes[k - k % 8 + 7 - k % 8];
    CHECK(rev, "each word's eight slots reversed");
    dg_out_free(&o);
    names_itself(&x.m, PC_BUG_MLX_MSB_FIRST, 0);
    CHECK(dg_simulate(&x.m, PC_BUG_NIBBLE_SWAP, 0, &o) == 1, "no nibble pairing in MLX words");
    drop(&x);
}

static bool close_at(pc_round_t p, const char *tol, bool compute, float got, float want)
{
    pc_weight_compare c = {p, {PC_TOL_EXACT, 0, false}, compute};
    if (pc_tolerance_parse(tol, &c.tol)) return false;
    return pc_weight_close(&c, got, want);
}

/* The comparison certify makes (compare.h): tolerance, precision, the sign of zero. */
static void test_compare(void)
{
    CHECK(close_at(PC_ROUND_F32, "exact", false, 1.0f, 1.0f), "equal");
    CHECK(!close_at(PC_ROUND_F32, "exact", false, 0.0f, -0.0f), "signed zeros differ bit-exactly");
    CHECK(close_at(PC_ROUND_F32, "exact", true, 0.0f, -0.0f), "compute depth: -0.0 answers +0.0");
    CHECK(close_at(PC_ROUND_F32, "ulp:1", false, 0.0f, -0.0f), "signed zeros are neighbours");
    CHECK(close_at(PC_ROUND_F32, "ulp:1", false, 1.0f, nextafterf(1.0f, 2.0f)) && !close_at(PC_ROUND_F32, "ulp:1", false, 1.0f, nextafterf(nextafterf(1.0f, 2.0f), 2.0f)), "one ulp");
    CHECK(close_at(PC_ROUND_F32, "ulp:1", false, NAN, NAN), "NaN == NaN with a tolerance");
    CHECK(close_at(PC_ROUND_F32, "abs:0.5", false, 1.0f, 1.4f) && !close_at(PC_ROUND_F32, "abs:0.5", false, 1.0f, 1.6f), "abs");
    CHECK(close_at(PC_ROUND_F32, "rel:0.1", false, 10.0f, 10.9f) && !close_at(PC_ROUND_F32, "rel:0.01", false, 10.0f, 10.9f), "rel");
    /* 1 + 2^-8 lies halfway between two bf16 values (1 and 1 + 2^-7): ties to even gives 1. */
    float half_bf = 1.0f + ldexpf(1.0f, -8), above = 1.0f + ldexpf(1.0f, -8) + ldexpf(1.0f, -20);
    CHECK(close_at(PC_ROUND_BF16, "exact", false, 1.0f, half_bf), "bf16: a tie rounds to even");
    CHECK(!close_at(PC_ROUND_BF16, "exact", false, 1.0f + ldexpf(1.0f, -7), half_bf), "bf16: a tie never rounds up to odd");
    CHECK(close_at(PC_ROUND_BF16, "exact", false, 1.0f + ldexpf(1.0f, -7), above), "bf16: above the tie rounds up");
    CHECK(!close_at(PC_ROUND_BF16, "exact", false, half_bf, half_bf), "bf16: the unrounded f32 is not a bf16 answer");
    CHECK(close_at(PC_ROUND_F16, "exact", false, INFINITY, 70000.0f), "f16: beyond 65504 rounds to inf");
    CHECK(close_at(PC_ROUND_F16, "exact", false, ldexpf(1.0f, -24), ldexpf(1.0f, -24) * 1.4f), "f16: subnormal quantum 2^-24");
    CHECK(close_at(PC_ROUND_F16, "exact", false, NAN, NAN), "f16: NaN answers NaN");
    CHECK(close_at(PC_ROUND_BF16, "ulp:65536", false, 1.0f + ldexpf(1.0f, -7), 1.0f), "ulp counts f32 steps at any precision");
    pc_depth d;
    CHECK(!pc_depth_parse("compute", &d) && d == PC_DEPTH_COMPUTE && pc_depth_parse("deep", &d) == -1, "depth names");
}

/* Rows permuted without their scale rows: the simulation (row blocks 0 and 1 swapped) names itself,
 * and any other permutation is found by row matching; rows that took their scales along are not
 * this bug, and a module whose scales do not vary by row block is not diagnosed at all. */
static void test_rows_permuted(void)
{
    fixture x;
    make(&x, "rows-test", 8, 8, 4, pat16, 0, false);
    x.m.p.lay.row_block = 2;
    names_itself(&x.m, PC_BUG_ROWS_SCALES_KEPT, 0);
    size_t n = x.m.numel;
    uint8_t *c = malloc(n);
    float *kept = malloc(n * sizeof *kept), *moved = malloc(n * sizeof *moved);
    for (size_t i = 0; i < n; i++) { /* rows reversed */
        size_t from = (7 - i / 4) * 4 + i % 4;
        c[i] = x.codes[from];
        kept[i] = (float)c[i] * x.m.p.s[i];
        moved[i] = x.w[from];
    }
    cJSON *d = dg_diagnose(&x.m, c, kept, 4, &exact);
    const char *bug = d ? cJSON_GetObjectItem(d, "bug")->valuestring : "(none)", *det = d ? cJSON_GetObjectItem(d, "detail")->valuestring : "";
    CHECK(!strcmp(bug, "rows-permuted-scales-kept"), "reversed rows, scales kept: diagnosis %s", bug);
    CHECK(strstr(det, "row 0 holds source row 7") != NULL, "the detail names the moved rows: %s", det);
    cJSON_Delete(d);
    d = dg_diagnose(&x.m, c, moved, 4, &exact);
    CHECK(!d || strcmp(cJSON_GetObjectItem(d, "bug")->valuestring, "rows-permuted-scales-kept"), "rows that took their scales are not scales-kept");
    cJSON_Delete(d);
    x.m.p.lay.row_block = 0;
    d = dg_diagnose(&x.m, c, kept, 4, &exact);
    CHECK(!d, "no row blocks, no row diagnosis");
    cJSON_Delete(d);
    /* The finder: identity first for duplicate rows, a missing row is no permutation. */
    uint8_t a[6] = {1, 1, 2, 2, 1, 1}, b[6] = {2, 2, 1, 1, 1, 1}, z[6] = {2, 2, 1, 1, 3, 3};
    pc_row_perm p;
    CHECK(pc_row_perm_find(a, b, 1, 3, 2, &p) == 0 && p.moved == 2 && p.from[0] == 1 && p.from[1] == 0 && p.from[2] == 2, "duplicate rows pair identity first");
    pc_row_perm_free(&p);
    CHECK(pc_row_perm_find(a, z, 1, 3, 2, &p) == 1, "a row the source lacks: no permutation");
    free(c); free(kept); free(moved);
    drop(&x);
}

int main(void)
{
    test_rows_permuted();
    test_awq_order();
    test_sign_ext();
    test_q4_0_and_fp4();
    test_ct_layout_and_pad();
    test_params_bugs();
    test_msb_first();
    test_compare();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
