/* packcheck bench: see bench.h. Method (PERFORMANCE.md 6): verify each fast kernel against its
 * oracle first; spin ~0.5 s so the clock has ramped up; calibrate each contender's repetitions to
 * one sample length; then alternate memcpy, fast and oracle samples (rotating which goes first) and
 * report medians of the per-sample GB/s and of the per-sample ratios, with their min and max.
 * GB = 1e9 bytes of output: one byte per code, four per f32 value. */
#include "bench.h"

#include "../core/sha256.h"
#include "../kernels/kernels.h"

#include <math.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#ifndef PC_BUILD_FLAGS
#define PC_BUILD_FLAGS "unknown"
#endif
#ifndef PC_BUILD_TYPE
#define PC_BUILD_TYPE "unknown"
#endif

/* ------------------------------------------------------------------------------------------------
 * The entries: one per kernel and width. Each knows its input size and how to call both versions.
 * --------------------------------------------------------------------------------------------- */

typedef struct bench_case {
    const uint8_t *src;
    size_t in_bytes;
    size_t count;   /* elements per call (codes or f32 values) */
    unsigned b;
    void *out;
} bench_case;

typedef struct bench_entry {
    const char *name;
    const char *layout;
    unsigned b;
    size_t out_elem;                                   /* output bytes per element */
    size_t (*in_size)(unsigned b, size_t count);
    void (*run)(const bench_case *c, pc_impl impl);
    double target_memcpy, target_ref;                  /* the targets (reviewed, never asserted) */
    size_t unit;                                       /* count is a multiple of this (0: 1) */
    void (*fill)(uint8_t *src, size_t n);              /* input bytes (NULL: random) */
} bench_entry;

static size_t stream_in(unsigned b, size_t n) { return n / 8 * b + ((n % 8) * b + 7) / 8; }
static size_t word_in(unsigned b, size_t n) { return (n + 32 / b - 1) / (32 / b) * 4; }
static void stream_run(const bench_case *c, pc_impl impl) { pc_stream_fn(impl)(c->src, c->b, c->count, c->out); }
static void word_run(const bench_case *c, pc_impl impl) { pc_wordalign_fn(impl)(c->src, c->b, c->count, c->out); }

/* GPTQ: [K, N] codes from [K*b/32, N] words, N = 256 columns (an nn.Linear's out side). */
enum { GPTQ_N = 256, AWQ_N = 256 };
static size_t gptq_in(unsigned b, size_t n) { return n / GPTQ_N * b / 32 * GPTQ_N * 4; }
static void gptq_run(const bench_case *c, pc_impl impl) { pc_gptq_unpack_fn(impl)(c->src, c->b, c->count / GPTQ_N, GPTQ_N, c->out); }
static size_t awq_in(unsigned b, size_t n) { (void)b; return n / 2; }
static void awq_run(const bench_case *c, pc_impl impl) { pc_awq_unpack_fn(impl)(c->src, c->count / AWQ_N, AWQ_N, c->out); }
/* Q4_0: 18-byte blocks of 32; finite scales (d = 0.5 .. 2). */
static size_t q4_in(unsigned b, size_t n) { (void)b; return n / 32 * 18; }
static void q4_fill(uint8_t *src, size_t n)
{
    for (size_t i = 0; i + 18 <= n; i += 18) { src[i] = (uint8_t)(i * 7); src[i + 1] = (uint8_t)(0x38 + (i / 18) % 8); }
}
static void q4_codes_run(const bench_case *c, pc_impl impl) { pc_q4_0_fn_for(impl)(c->src, c->count / 32, c->out, NULL); }
static void q4_f32_run(const bench_case *c, pc_impl impl) { pc_q4_0_fn_for(impl)(c->src, c->count / 32, NULL, c->out); }

static void fill_random_bytes(uint8_t *p, size_t n)
{
    uint64_t r = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; p[i] = (uint8_t)(r >> 24); }
}

/* The other GGUF block types (Q8_0 34, Q4_1 20, Q5_0 22, Q5_1 24 bytes per 32): finite d and m. */
static void gq_fill(uint8_t *src, size_t n, size_t bytes, unsigned nscales, size_t at)
{
    fill_random_bytes(src, n);
    for (size_t i = 0; i + bytes <= n; i += bytes)
        for (unsigned f = 0; f < nscales; f++) { src[i + at + 2 * f] = (uint8_t)(i * 7); src[i + at + 2 * f + 1] = (uint8_t)(0x38 + (i / bytes) % 8); }
}
#define GQ_BENCH(type, elems, bytes, nscales, at)                                                                         \
    static size_t type##_in(unsigned b, size_t n) { (void)b; return n / elems * bytes; }                                  \
    static void type##_fill(uint8_t *src, size_t n) { gq_fill(src, n, bytes, nscales, at); }                            \
    static void type##_codes_run(const bench_case *c, pc_impl impl)                                                       \
    { (impl == PC_IMPL_REF ? pc_##type##_decode_ref : pc_##type##_decode_fast)(c->src, c->count / elems, c->out, NULL); } \
    static void type##_f32_run(const bench_case *c, pc_impl impl)                                                         \
    { (impl == PC_IMPL_REF ? pc_##type##_decode_ref : pc_##type##_decode_fast)(c->src, c->count / elems, NULL, c->out); }
GQ_BENCH(q8_0, 32, 34, 1, 0)
GQ_BENCH(q4_1, 32, 20, 2, 0)
GQ_BENCH(q5_0, 32, 22, 1, 0)
GQ_BENCH(q5_1, 32, 24, 2, 0)
GQ_BENCH(q4_k, 256, 144, 2, 0)
GQ_BENCH(q6_k, 256, 210, 1, 208)
GQ_BENCH(q5_k, 256, 176, 2, 0)
GQ_BENCH(iq4_nl, 32, 18, 1, 0)
GQ_BENCH(iq4_xs, 256, 136, 1, 0)
GQ_BENCH(mxfp4, 32, 17, 0, 0)
GQ_BENCH(q2_k, 256, 84, 2, 80)
GQ_BENCH(q3_k, 256, 110, 1, 108)
GQ_BENCH(tq1_0, 256, 54, 1, 52)
GQ_BENCH(tq2_0, 256, 66, 1, 64)
#define GQ_ENTRIES(type, bits, elems)                                                                    \
    {#type, #type, bits, 1, type##_in, type##_codes_run, 0.80, 0, elems, type##_fill},                   \
    {#type "-f32", #type, bits, 4, type##_in, type##_f32_run, 0.80, 0, elems, type##_fill} /* GB/s of f32 output */

/* NVFP4 -> f32: codes (one per byte) and one f32 scale per 16, as the module hands them over. */
static size_t nvfp4_f32_in(unsigned b, size_t n) { (void)b; return n + n / 16 * 4; }
static void nvfp4_fill(uint8_t *src, size_t n)
{
    size_t count = n / 5 * 4; /* n = count + count/4 */
    for (size_t g = 0; g < count / 16; g++) {
        float s = 0.25f + (float)(g % 7) * 0.125f;
        memcpy(src + count + 4 * g, &s, 4);
    }
}
static void nvfp4_f32_run(const bench_case *c, pc_impl impl)
{
    /* the scales follow the codes in src (4-aligned: count is a multiple of 64) */
    pc_nvfp4_dequant(impl)(c->src, c->count / 16, 16, (const float *)(const void *)(c->src + c->count), c->out);
}

/* FP8 E4M3 / INT8 -> f32 over 512-column rows with 128x128 blocks (DeepSeek's grid): the bytes,
 * then the scales (at most count / 128 of them, 4-aligned: count is a multiple of 512). */
enum { F8_COLS = 512 };
static size_t f8_in(unsigned b, size_t n) { (void)b; return n + n / 128 * 4; }
static void f8_fill(uint8_t *src, size_t n)
{
    size_t count = n / 132 * 128; /* n = count + count/32 */
    for (size_t i = 0; i < count; i++) src[i] = (uint8_t)(i * 37 % 127); /* no NaN encodings */
    for (size_t g = 0; g < count / 128; g++) {
        float s = 0.001f + (float)(g % 5) * 0.0005f;
        memcpy(src + count + 4 * g, &s, 4);
    }
}
static void fp8_f32_run(const bench_case *c, pc_impl impl)
{
    pc_fp8_dequant(impl)(c->src, c->count / F8_COLS, F8_COLS, 128, 128, (const float *)(const void *)(c->src + c->count), c->out);
}
static void int8_f32_run(const bench_case *c, pc_impl impl)
{
    pc_int8_dequant(impl)(c->src, c->count / F8_COLS, F8_COLS, 1, F8_COLS, (const float *)(const void *)(c->src + c->count), NULL, c->out);
}

#define CT_DENSE(bits, tm, tr) {"ct-dense-" #bits, "stream", bits, 1, stream_in, stream_run, tm, tr, 0, NULL}
#define CT_LEGACY(bits, tm) {"ct-legacy-" #bits, "wordalign", bits, 1, word_in, word_run, tm, 0, 0, NULL}
#define GPTQ(bits) {"gptq-" #bits, "gptq", bits, 1, gptq_in, gptq_run, 0.50, 0, 32 * GPTQ_N, NULL}

static const bench_entry k_entries[] = {
    CT_DENSE(1, 0.60, 0), CT_DENSE(2, 0.60, 0), CT_DENSE(3, 0.70, 50), CT_DENSE(4, 0.90, 100),
    CT_DENSE(5, 0.60, 0), CT_DENSE(6, 0.60, 0), CT_DENSE(7, 0.60, 0), CT_DENSE(8, 0.60, 0),
    CT_LEGACY(3, 0.70), CT_LEGACY(5, 0.60), CT_LEGACY(6, 0.60), CT_LEGACY(7, 0.60),
    GPTQ(2), GPTQ(3), GPTQ(4), GPTQ(8),
    {"awq-4", "awq-gemm", 4, 1, awq_in, awq_run, 0.90, 0, AWQ_N, NULL}, /* memcpy and the peers carry the claim (issue 18) */
    {"q4_0", "q4_0", 4, 1, q4_in, q4_codes_run, 0.90, 100, 32, q4_fill},
    {"q4_0-f32", "q4_0", 4, 4, q4_in, q4_f32_run, 0.50, 0, 32, q4_fill}, /* GB/s of f32 output */
    {"nvfp4", "stream", 4, 1, stream_in, stream_run, 0.90, 100, 0, NULL}, /* E2M1 codes: the 4-bit stream */
    {"nvfp4-f32", "nvfp4", 4, 4, nvfp4_f32_in, nvfp4_f32_run, 0.50, 0, 64, nvfp4_fill}, /* GB/s of f32 output */
    GQ_ENTRIES(q8_0, 8, 32), GQ_ENTRIES(q4_1, 4, 32), GQ_ENTRIES(q5_0, 5, 32), GQ_ENTRIES(q5_1, 5, 32),
    GQ_ENTRIES(q4_k, 4, 256), GQ_ENTRIES(q6_k, 6, 256), GQ_ENTRIES(q5_k, 5, 256),
    GQ_ENTRIES(iq4_nl, 4, 32), GQ_ENTRIES(iq4_xs, 4, 256), GQ_ENTRIES(mxfp4, 4, 32),
    GQ_ENTRIES(q2_k, 2, 256), GQ_ENTRIES(q3_k, 3, 256), GQ_ENTRIES(tq1_0, 2, 256), GQ_ENTRIES(tq2_0, 2, 256),
    {"fp8-f32", "fp8-deepseek", 8, 4, f8_in, fp8_f32_run, 0.80, 0, F8_COLS, f8_fill},   /* GB/s of f32 output */
    {"int8-f32", "ct-int8", 8, 4, f8_in, int8_f32_run, 0.80, 0, F8_COLS, f8_fill},      /* channel scales */
};

/* ------------------------------------------------------------------------------------------------
 * Timing
 * --------------------------------------------------------------------------------------------- */

static double now_sec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* C11 aligned_alloc wants the size to be a multiple of the alignment; 64 bytes of slack as well. */
static void *alloc64(size_t n) { return aligned_alloc(64, (n + 127) / 64 * 64); }

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
        p[i] = (uint8_t)(g_rng >> 24);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stat3 { double med, min, max; } stat3;
static stat3 stats(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    stat3 s = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
    return s;
}

/* A contender: something that moves `bytes` output bytes per call. */
typedef struct contender {
    void (*call)(void *arg);
    void *arg;
    double bytes;
    long reps;
} contender;

/* memcpy through a volatile pointer so the compiler cannot drop or shrink it. */
typedef struct copy_arg { void *dst; const void *src; size_t n; } copy_arg;
static void *(*volatile g_memcpy)(void *, const void *, size_t) = memcpy;
static void call_memcpy(void *a) { copy_arg *c = a; g_memcpy(c->dst, c->src, c->n); }

typedef struct kernel_arg { const bench_entry *e; bench_case c; pc_impl impl; } kernel_arg;
static void call_kernel(void *a) { kernel_arg *k = a; k->e->run(&k->c, k->impl); }

static double time_reps(const contender *c)
{
    double t0 = now_sec();
    for (long r = 0; r < c->reps; r++) c->call(c->arg);
    return now_sec() - t0;
}

/* The fastest of `bursts` timed runs: an interrupted burst is dropped, not averaged in. */
static double time_sample(const contender *c, int bursts)
{
    double best = time_reps(c);
    for (int b = 1; b < bursts; b++) {
        double t = time_reps(c);
        if (t < best) best = t;
    }
    return best;
}

/* Repetitions so that one burst lasts about `sec`. */
static void calibrate(contender *c, double sec)
{
    c->reps = 1;
    for (;;) {
        double t = time_reps(c);
        if (t >= sec / 4 || c->reps > (1L << 40)) {
            double want = t > 0 ? (double)c->reps * sec / t : (double)c->reps * 2;
            c->reps = want < 1 ? 1 : (long)want;
            return;
        }
        c->reps *= 4;
    }
}

/* Alternate the contenders `n` times; gbps[k][s] = GB/s of contender k in sample s. */
static void alternate(contender *cs, int k, int n, int bursts, double *gbps[])
{
    for (int s = 0; s < n; s++)
        for (int j = 0; j < k; j++) {
            int who = (s + j) % k;
            double t = time_sample(&cs[who], bursts);
            gbps[who][s] = t > 0 ? cs[who].bytes * (double)cs[who].reps / t / 1e9 : 0;
        }
}

static double round4(double x) { return x > 100 ? round(x * 10) / 10 : round(x * 10000) / 10000; }

static void add_stat(cJSON *o, const char *key, stat3 s, bool minmax)
{
    cJSON_AddNumberToObject(o, key, round4(s.med));
    if (!minmax) return;
    char k[64];
    snprintf(k, sizeof k, "%s_min", key);
    cJSON_AddNumberToObject(o, k, round4(s.min));
    snprintf(k, sizeof k, "%s_max", key);
    cJSON_AddNumberToObject(o, k, round4(s.max));
}

/* ------------------------------------------------------------------------------------------------
 * One kernel entry
 * --------------------------------------------------------------------------------------------- */

static cJSON *bench_entry_run(const bench_entry *e, const pc_bench_opts *o, int *mismatch)
{
    cJSON *j = cJSON_CreateObject();
    size_t count = o->out_bytes / e->out_elem;
    if (e->unit) count = (count < e->unit ? 1 : count / e->unit) * e->unit;
    size_t out_bytes = count * e->out_elem;
    size_t in_bytes = e->in_size(e->b, count);
    uint8_t *src = alloc64(in_bytes), *of = alloc64(out_bytes),
            *orf = alloc64(out_bytes), *ms = alloc64(out_bytes),
            *md = alloc64(out_bytes);
    cJSON_AddStringToObject(j, "name", e->name);
    cJSON_AddStringToObject(j, "layout", e->layout);
    cJSON_AddNumberToObject(j, "bits", e->b);
    cJSON_AddNumberToObject(j, "in_bytes", (double)in_bytes);
    cJSON_AddNumberToObject(j, "out_bytes", (double)out_bytes);
    if (!src || !of || !orf || !ms || !md) { cJSON_AddStringToObject(j, "error", "out of memory"); goto out; }
    fill_random(src, in_bytes);
    if (e->fill) e->fill(src, in_bytes);
    fill_random(ms, out_bytes);
    kernel_arg kf = {e, {src, in_bytes, count, e->b, of}, PC_IMPL_FAST};
    kernel_arg kr = {e, {src, in_bytes, count, e->b, orf}, PC_IMPL_REF};
    call_kernel(&kf);
    call_kernel(&kr);
    if (memcmp(of, orf, out_bytes)) {
        cJSON_AddStringToObject(j, "error", "fast output differs from the oracle");
        ++*mismatch;
        goto out;
    }
    copy_arg ca = {md, ms, out_bytes};
    contender cs[3] = {{call_memcpy, &ca, (double)out_bytes, 0}, {call_kernel, &kf, (double)out_bytes, 0},
                       {call_kernel, &kr, (double)out_bytes, 0}};
    for (int k = 0; k < 3; k++) calibrate(&cs[k], o->sample_sec / o->bursts);
    double *g[3], *rm = calloc((size_t)o->samples, sizeof *rm), *rr = calloc((size_t)o->samples, sizeof *rr);
    for (int k = 0; k < 3; k++) g[k] = calloc((size_t)o->samples, sizeof *g[k]);
    if (!g[0] || !g[1] || !g[2] || !rm || !rr) { cJSON_AddStringToObject(j, "error", "out of memory"); goto free_samples; }
    alternate(cs, 3, o->samples, o->bursts, g);
    for (int s = 0; s < o->samples; s++) {
        rm[s] = g[0][s] > 0 ? g[1][s] / g[0][s] : 0;
        rr[s] = g[2][s] > 0 ? g[1][s] / g[2][s] : 0;
    }
    stat3 fm = stats(rm, o->samples), fr = stats(rr, o->samples);
    add_stat(j, "fast_gbps", stats(g[1], o->samples), false);
    add_stat(j, "ref_gbps", stats(g[2], o->samples), false);
    add_stat(j, "memcpy_gbps", stats(g[0], o->samples), false);
    add_stat(j, "fast_vs_memcpy", fm, true);
    add_stat(j, "fast_vs_ref", fr, true);
    cJSON_AddNumberToObject(j, "target_fast_vs_memcpy", e->target_memcpy);
    if (e->target_ref > 0) cJSON_AddNumberToObject(j, "target_fast_vs_ref", e->target_ref);
    cJSON_AddBoolToObject(j, "meets_target", fm.med >= e->target_memcpy && (e->target_ref <= 0 || fr.med >= e->target_ref));
free_samples:
    for (int k = 0; k < 3; k++) free(g[k]);
    free(rm);
    free(rr);
out:
    free(src); free(of); free(orf); free(ms); free(md);
    return j;
}

/* ------------------------------------------------------------------------------------------------
 * SHA-256: our streaming EVP context (what validate --hash does: one context, 16 KiB updates)
 * against what `openssl speed -evp sha256` times (one EVP_Digest per 16 KiB block), same run.
 * --------------------------------------------------------------------------------------------- */

enum { SHA_BLOCK = 16384 };
typedef struct sha_arg { const uint8_t *buf; pc_sha256 *h; const EVP_MD *md; } sha_arg;
static void call_sha_stream(void *a) { sha_arg *s = a; pc_sha256_update(s->h, s->buf, SHA_BLOCK); }
static void call_sha_speed(void *a)
{
    sha_arg *s = a;
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_Digest(s->buf, SHA_BLOCK, d, &n, s->md, NULL);
}

static cJSON *bench_sha256(const pc_bench_opts *o)
{
    cJSON *j = cJSON_CreateObject();
    uint8_t *buf = alloc64(SHA_BLOCK);
    double *g[2] = {calloc((size_t)o->samples, sizeof(double)), calloc((size_t)o->samples, sizeof(double))};
    double *r = calloc((size_t)o->samples, sizeof(double));
    pc_sha256 h;
    if (!buf || !g[0] || !g[1] || !r || pc_sha256_init(&h)) { cJSON_AddStringToObject(j, "error", "out of memory"); goto out; }
    fill_random(buf, SHA_BLOCK);
    sha_arg sa = {buf, &h, EVP_sha256()};
    contender cs[2] = {{call_sha_stream, &sa, SHA_BLOCK, 0}, {call_sha_speed, &sa, SHA_BLOCK, 0}};
    for (int k = 0; k < 2; k++) calibrate(&cs[k], o->sample_sec / o->bursts);
    alternate(cs, 2, o->samples, o->bursts, g);
    char hex[65];
    pc_sha256_final_hex(&h, hex);
    for (int s = 0; s < o->samples; s++) r[s] = g[1][s] > 0 ? g[0][s] / g[1][s] : 0;
    cJSON_AddStringToObject(j, "implementation", "OpenSSL EVP");
    cJSON_AddNumberToObject(j, "block_bytes", SHA_BLOCK);
    add_stat(j, "gbps", stats(g[0], o->samples), false);
    add_stat(j, "openssl_speed_gbps", stats(g[1], o->samples), false);
    stat3 rs = stats(r, o->samples);
    add_stat(j, "vs_openssl_speed", rs, true);
    cJSON_AddNumberToObject(j, "target_vs_openssl_speed", 0.90);
    cJSON_AddBoolToObject(j, "meets_target", rs.med >= 0.90);
out:
    free(buf); free(g[0]); free(g[1]); free(r);
    return j;
}

/* ------------------------------------------------------------------------------------------------
 * Machine and build
 * --------------------------------------------------------------------------------------------- */

static void cpuinfo_field(cJSON *m, FILE *f, const char *field, const char *key)
{
    char line[4096];
    size_t n = strlen(field);
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, n) || (line[n] != ' ' && line[n] != '\t' && line[n] != ':')) continue;
        char *v = strchr(line, ':');
        if (!v) continue;
        v += 1 + (v[1] == ' ');
        v[strcspn(v, "\n")] = 0;
        cJSON_AddStringToObject(m, key, v);
        return;
    }
}

static cJSON *machine_info(void)
{
    cJSON *m = cJSON_CreateObject();
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        cpuinfo_field(m, f, "model name", "cpu");
        cpuinfo_field(m, f, "cpu family", "cpu_family");
        cpuinfo_field(m, f, "model", "cpu_model");
        cpuinfo_field(m, f, "stepping", "cpu_stepping");
        char line[8192];
        rewind(f);
        cJSON *fl = cJSON_AddArrayToObject(m, "isa");
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "flags", 5)) continue;
            static const char *const k_isa[] = {"sse4_2", "avx", "avx2", "bmi2", "f16c", "fma", "sha_ni", "avx512f", "avx512vbmi"};
            for (size_t i = 0; i < sizeof k_isa / sizeof *k_isa; i++) {
                char pat[32];
                snprintf(pat, sizeof pat, " %s", k_isa[i]);
                const char *p = strstr(line, pat);
                size_t l = strlen(pat);
                if (p && (p[l] == ' ' || p[l] == '\n')) cJSON_AddItemToArray(fl, cJSON_CreateString(k_isa[i]));
            }
            break;
        }
        fclose(f);
    }
    cJSON_AddNumberToObject(m, "online_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    f = fopen("/proc/loadavg", "r");
    if (f) {
        char la[128] = "";
        if (fgets(la, sizeof la, f)) { la[strcspn(la, "\n")] = 0; cJSON_AddStringToObject(m, "loadavg_at_start", la); }
        fclose(f);
    }
#ifdef __GLIBC__
    cJSON_AddStringToObject(m, "libc", gnu_get_libc_version());
#endif
    cJSON_AddStringToObject(m, "openssl", OpenSSL_version(OPENSSL_VERSION));
    return m;
}

static cJSON *build_info(void)
{
    cJSON *b = cJSON_CreateObject();
#if defined(__clang__)
    cJSON_AddStringToObject(b, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    cJSON_AddStringToObject(b, "compiler", "gcc " __VERSION__);
#else
    cJSON_AddStringToObject(b, "compiler", "unknown");
#endif
    cJSON_AddStringToObject(b, "build_type", PC_BUILD_TYPE);
    cJSON_AddStringToObject(b, "c_flags", PC_BUILD_FLAGS);
    cJSON_AddStringToObject(b, "kernels", pc_kernels_name());
    cJSON_AddStringToObject(b, "dispatch", "run-time CPU detection; SIMD via function target attributes, no -march");
    return b;
}

void pc_bench_defaults(pc_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    /* 41 samples of 10 ms, each the fastest of 8 bursts: under load 15-26 on 2 cores the ratios'
     * min-max spread fell from 0.00-31 (101 single 2 ms samples) to about 0.5-0.9, and two runs'
     * medians agreed within 0.05 (README, bench sampling). */
    o->samples = 41;
    o->sample_sec = 0.010;
    o->bursts = 8;
    o->warmup_sec = 0.5;
    o->out_bytes = 128 * 1024;
}

cJSON *pc_bench_run(const pc_bench_opts *o, int *mismatch)
{
    *mismatch = 0;
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    cJSON_AddStringToObject(doc, "packcheck_version", PACKCHECK_VERSION);
    cJSON_AddItemToObject(doc, "machine", machine_info());
    cJSON_AddItemToObject(doc, "build", build_info());
    cJSON *method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddNumberToObject(method, "samples", o->samples);
    cJSON_AddNumberToObject(method, "sample_sec", o->sample_sec);
    cJSON_AddNumberToObject(method, "bursts", o->bursts);
    cJSON_AddNumberToObject(method, "warmup_sec", o->warmup_sec);
    cJSON_AddNumberToObject(method, "out_bytes", (double)o->out_bytes);
    cJSON_AddStringToObject(method, "statistic",
                            "median over alternated samples (memcpy, fast, oracle; rotating order); ratios are medians of per-sample ratios");
    /* Clock warm-up: the first ~0.5 s of a process runs at a lower frequency. */
    {
        size_t n = 1 << 20;
        uint8_t *a = malloc(n), *b = malloc(n);
        double t0 = now_sec();
        if (a && b) {
            memset(a, 1, n);
            while (now_sec() - t0 < o->warmup_sec) g_memcpy(b, a, n);
        }
        free(a);
        free(b);
    }
    cJSON *ks = cJSON_AddArrayToObject(doc, "kernels");
    for (size_t i = 0; i < sizeof k_entries / sizeof *k_entries; i++) {
        const bench_entry *e = &k_entries[i];
        if (o->only && !strstr(e->name, o->only)) continue;
        cJSON *j = bench_entry_run(e, o, mismatch);
        cJSON_AddItemToArray(ks, j);
        if (o->progress) {
            cJSON *fm = cJSON_GetObjectItem(j, "fast_vs_memcpy"), *err = cJSON_GetObjectItem(j, "error");
            if (err) fprintf(o->progress, "%-14s ERROR %s\n", e->name, err->valuestring);
            else
                fprintf(o->progress, "%-14s fast %7.2f GB/s  oracle %7.3f GB/s  memcpy %7.2f GB/s  fast/memcpy %5.2f  fast/oracle %7.1f\n",
                        e->name, cJSON_GetObjectItem(j, "fast_gbps")->valuedouble, cJSON_GetObjectItem(j, "ref_gbps")->valuedouble,
                        cJSON_GetObjectItem(j, "memcpy_gbps")->valuedouble, fm->valuedouble,
                        cJSON_GetObjectItem(j, "fast_vs_ref")->valuedouble);
            fflush(o->progress);
        }
    }
    int met = 0, total = 0;
    cJSON *k;
    cJSON_ArrayForEach(k, ks) {
        total++;
        met += cJSON_IsTrue(cJSON_GetObjectItem(k, "meets_target"));
    }
    if (!o->only || strstr("sha256", o->only)) {
        cJSON *s = bench_sha256(o);
        cJSON_AddItemToObject(doc, "sha256", s);
        if (o->progress && cJSON_GetObjectItem(s, "gbps"))
            fprintf(o->progress, "%-14s EVP %6.3f GB/s  openssl-speed-style %6.3f GB/s  ratio %5.3f\n", "sha256",
                    cJSON_GetObjectItem(s, "gbps")->valuedouble, cJSON_GetObjectItem(s, "openssl_speed_gbps")->valuedouble,
                    cJSON_GetObjectItem(s, "vs_openssl_speed")->valuedouble);
        total++;
        met += cJSON_IsTrue(cJSON_GetObjectItem(s, "meets_target"));
    }
    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    cJSON_AddNumberToObject(sum, "entries", total);
    cJSON_AddNumberToObject(sum, "meet_target", met);
    if (o->progress) fprintf(o->progress, "targets met (medians of same-run ratios): %d of %d\n", met, total);
    return doc;
}
