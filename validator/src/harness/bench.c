/* packcheck bench: see bench.h. Method (PERFORMANCE.md 6): verify each fast kernel against its
 * oracle first; spin ~0.5 s so the clock has ramped up; calibrate each contender's repetitions to
 * one sample length; then alternate memcpy, fast and oracle samples (rotating which goes first) and
 * report medians of the per-sample GB/s and of the per-sample ratios, with their min and max. An entry
 * whose format declares a bound (pc_format.bench_bounds: the kernel's loads and stores without its
 * arithmetic) has it as a fourth contender: fast_vs_bound, bound_vs_memcpy.
 * GB = 1e9 bytes of output: one byte per code, four per f32 value. */
#include "bench.h"

#include "formats/format.h"

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

/* The entries come from the formats (pc_format.bench, formats/<name>_bench.c): each knows its
 * input size and how to call its fast kernel and its oracle. */

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

typedef struct kernel_arg { const pc_bench_entry *e; pc_bench_case c; pc_impl impl; } kernel_arg;
static void call_kernel(void *a) { kernel_arg *k = a; k->e->run(&k->c, k->impl); }
typedef struct bound_arg { const pc_bench_bound *bd; pc_bench_case c; } bound_arg;
static void call_bound(void *a) { bound_arg *k = a; (void)k->bd->run(&k->c); }

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

/* The contenders of one entry: memcpy, fast, oracle, and the entry's bound when it has one. */
enum { C_MEMCPY, C_FAST, C_REF, C_BOUND, C_MAX };

static void add_ratio(cJSON *j, const char *key, double *const g[], int num, int den, double *r, int n)
{
    for (int s = 0; s < n; s++) r[s] = g[den][s] > 0 ? g[num][s] / g[den][s] : 0;
    add_stat(j, key, stats(r, n), true);
}

static cJSON *bench_entry_run(const pc_bench_entry *e, const pc_bench_bound *bd, const pc_bench_opts *o, int *mismatch)
{
    cJSON *j = cJSON_CreateObject();
    size_t count = o->out_bytes / e->out_elem;
    if (e->unit) count = (count < e->unit ? 1 : count / e->unit) * e->unit;
    size_t out_bytes = count * e->out_elem;
    size_t in_bytes = e->in_size(e->b, count);
    uint8_t *src = alloc64(in_bytes), *of = alloc64(out_bytes),
            *orf = alloc64(out_bytes), *ms = alloc64(out_bytes),
            *md = alloc64(out_bytes), *ob = alloc64(out_bytes);
    double *g[C_MAX] = {0}, *r = NULL;
    cJSON_AddStringToObject(j, "name", e->name);
    cJSON_AddStringToObject(j, "layout", e->layout);
    cJSON_AddNumberToObject(j, "bits", e->b);
    cJSON_AddNumberToObject(j, "in_bytes", (double)in_bytes);
    cJSON_AddNumberToObject(j, "out_bytes", (double)out_bytes);
    if (!src || !of || !orf || !ms || !md || !ob) { cJSON_AddStringToObject(j, "error", "out of memory"); goto out; }
    fill_random(src, in_bytes);
    if (e->fill) e->fill(src, in_bytes);
    fill_random(ms, out_bytes);
    kernel_arg kf = {e, {src, in_bytes, count, e->b, of}, PC_IMPL_FAST};
    kernel_arg kr = {e, {src, in_bytes, count, e->b, orf}, PC_IMPL_REF};
    bound_arg kb = {bd, {src, in_bytes, count, e->b, ob}};
    call_kernel(&kf);
    call_kernel(&kr);
    if (memcmp(of, orf, out_bytes)) {
        cJSON_AddStringToObject(j, "error", "fast output differs from the oracle");
        ++*mismatch;
        goto out;
    }
    int k = bd && bd->run(&kb.c) ? C_MAX : C_BOUND; /* a bound that cannot run here is left out */
    copy_arg ca = {md, ms, out_bytes};
    contender cs[C_MAX] = {{call_memcpy, &ca, (double)out_bytes, 0}, {call_kernel, &kf, (double)out_bytes, 0},
                           {call_kernel, &kr, (double)out_bytes, 0}, {call_bound, &kb, (double)out_bytes, 0}};
    for (int c = 0; c < k; c++) calibrate(&cs[c], o->sample_sec / o->bursts);
    r = calloc((size_t)o->samples, sizeof *r);
    for (int c = 0; c < k; c++) g[c] = calloc((size_t)o->samples, sizeof *g[c]);
    for (int c = 0; c < k; c++)
        if (!g[c]) r = (free(r), NULL);
    if (!r) { cJSON_AddStringToObject(j, "error", "out of memory"); goto out; }
    alternate(cs, k, o->samples, o->bursts, g);
    add_stat(j, "fast_gbps", stats(g[C_FAST], o->samples), false);
    add_stat(j, "ref_gbps", stats(g[C_REF], o->samples), false);
    add_stat(j, "memcpy_gbps", stats(g[C_MEMCPY], o->samples), false);
    add_ratio(j, "fast_vs_memcpy", g, C_FAST, C_MEMCPY, r, o->samples);
    double fm = cJSON_GetObjectItem(j, "fast_vs_memcpy")->valuedouble;
    add_ratio(j, "fast_vs_ref", g, C_FAST, C_REF, r, o->samples);
    double fr = cJSON_GetObjectItem(j, "fast_vs_ref")->valuedouble;
    if (k == C_MAX) {
        cJSON_AddStringToObject(j, "bound", bd->what);
        add_stat(j, "bound_gbps", stats(g[C_BOUND], o->samples), false);
        add_ratio(j, "bound_vs_memcpy", g, C_BOUND, C_MEMCPY, r, o->samples);
        add_ratio(j, "fast_vs_bound", g, C_FAST, C_BOUND, r, o->samples);
    }
    cJSON_AddNumberToObject(j, "target_fast_vs_memcpy", e->target_memcpy);
    if (e->target_ref > 0) cJSON_AddNumberToObject(j, "target_fast_vs_ref", e->target_ref);
    cJSON_AddBoolToObject(j, "meets_target", fm >= e->target_memcpy && (e->target_ref <= 0 || fr >= e->target_ref));
out:
    for (int c = 0; c < C_MAX; c++) free(g[c]);
    free(r);
    free(src); free(of); free(orf); free(ms); free(md); free(ob);
    return j;
}

/* The bound a format declares for entry e (NULL: none). */
static const pc_bench_bound *bound_of(const pc_format *f, const pc_bench_entry *e)
{
    for (const pc_bench_bound *b = f->bench_bounds; b && b->entry; b++)
        if (!strcmp(b->entry, e->name)) return b;
    return NULL;
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

static void print_entry(FILE *f, const pc_bench_entry *e, const cJSON *j)
{
    const cJSON *err = cJSON_GetObjectItem(j, "error");
    if (err) fprintf(f, "%-14s ERROR %s\n", e->name, err->valuestring);
    else
        fprintf(f, "%-14s fast %7.2f GB/s  oracle %7.3f GB/s  memcpy %7.2f GB/s  fast/memcpy %5.2f  fast/oracle %7.1f\n",
                e->name, cJSON_GetObjectItem(j, "fast_gbps")->valuedouble, cJSON_GetObjectItem(j, "ref_gbps")->valuedouble,
                cJSON_GetObjectItem(j, "memcpy_gbps")->valuedouble, cJSON_GetObjectItem(j, "fast_vs_memcpy")->valuedouble,
                cJSON_GetObjectItem(j, "fast_vs_ref")->valuedouble);
    const cJSON *fb = cJSON_GetObjectItem(j, "fast_vs_bound");
    if (fb)
        fprintf(f, "%-14s   row-load bound %7.2f GB/s  bound/memcpy %5.2f  fast/bound %5.2f\n", "",
                cJSON_GetObjectItem(j, "bound_gbps")->valuedouble, cJSON_GetObjectItem(j, "bound_vs_memcpy")->valuedouble,
                fb->valuedouble);
    fflush(f);
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
                            "median over alternated samples (memcpy, fast, oracle, and the entry's bound where it has one; rotating order); ratios are medians of per-sample ratios");
    cJSON_AddStringToObject(method, "bound",
                            "where a format declares one (pc_format.bench_bounds): a reference loop with the fast kernel's data-dependent loads "
                            "and output stores per output byte but none of its arithmetic, timed in the same alternation; bound_vs_memcpy says "
                            "what those loads allow on this machine, fast_vs_bound how close the kernel comes to it");
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
    for (const pc_format *const *f = pc_formats; *f; f++)
        for (const pc_bench_entry *e = (*f)->bench; e && e->name; e++) {
            if (o->only && !strstr(e->name, o->only)) continue;
            cJSON *j = bench_entry_run(e, bound_of(*f, e), o, mismatch);
            cJSON_AddItemToArray(ks, j);
            if (o->progress) print_entry(o->progress, e, j);
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
