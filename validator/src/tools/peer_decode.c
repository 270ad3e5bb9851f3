/* packcheck-peer-decode: packcheck's side of scripts/bench-peers.sh (a benchmark, never a test).
 * A worker that stays up so the driver can interleave it with the peers' workers without paying
 * a process start per repetition. One request per stdin line:
 *   KERNEL INPUT ROWS COLS THREADS [OUT]
 * decodes the packed tensor in INPUT (the same file every contender reads) once with the fast
 * kernels, rows split over THREADS threads, and prints the wall and the process CPU seconds of
 * that decode alone (CPU time rides out a shared machine's preemption for one-thread rows).
 * Footing (the input is already in memory either way):
 *   default   "equal": a fresh output buffer is allocated inside the timing, its pages faulted in
 *             by the decode itself, and freed after the clock stops, as every peer does (numpy and
 *             torch allocate their result inside the call);
 *   --reuse   "reused-buffer": one output buffer, faulted in once outside the timing and reused by
 *             every request; a lower bound that no loader gets, reported beside, labelled;
 *   --touch   "limit": no decode at all: the fresh output is allocated as in the default and memset
 *             (zeros written by the rows' threads); what any decoder that allocates its result with this
 *             allocator cannot beat (first-touch page faults plus one write of every byte), beside.
 * With OUT, the output is also written there (after the timing) for the driver's identity check.
 * KERNEL (input layout):
 *   q4_0, q4_0-f32      ROWS*COLS/32 GGUF Q4_0 blocks of 18 bytes; codes (u8) or f32 weights
 *   ct-dense-B          ROWS rows of ceil(COLS*B/32) LE int32 words (compressed-tensors >= 0.18)
 *   ct-legacy-B         ROWS rows of ceil(COLS/floor(32/B)) words (compressed-tensors <= 0.17)
 *   awq-4               [ROWS, COLS/8] int32 (AutoAWQ GEMM qweight), codes in [ROWS, COLS]
 *   nvfp4-f32           ROWS*COLS/2 packed E2M1 bytes, then ROWS*COLS/16 f32 group scales
 *   TYPE-f32            ROWS*COLS/E GGUF blocks of TYPE (q8_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k, q2_k,
 *                       q3_k, iq4_nl, iq4_xs, mxfp4, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m,
 *                       tq1_0, tq2_0), E elements each; f32 weights */
#define _POSIX_C_SOURCE 200809L
#include "core/pagebuf.h"
#include "kernels/kernels.h"
#include "formats/awq/kernels.h"
#include "formats/bnb/kernels.h"
#include "formats/gguf/kernels.h"
#include "formats/gptq/kernels.h"
#include "formats/mlx/kernels.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct job {
    const char *kernel;
    unsigned b;
    const uint8_t *in;
    uint8_t *out;
    size_t rows, cols, r0, r1;
} job;

/* The GGUF block types with a fast kernel: elements and bytes per block (ggml's type traits). */
typedef void (*gq_fn)(const uint8_t *, size_t, uint8_t *, float *);
typedef struct gq_kernel { const char *name; size_t elems, bytes; gq_fn fn; } gq_kernel;
static const gq_kernel k_gq[] = {
    {"q8_0-f32", 32, 34, pc_q8_0_decode_fast},     {"q4_1-f32", 32, 20, pc_q4_1_decode_fast},
    {"q5_0-f32", 32, 22, pc_q5_0_decode_fast},     {"q5_1-f32", 32, 24, pc_q5_1_decode_fast},
    {"q4_k-f32", 256, 144, pc_q4_k_decode_fast},   {"q5_k-f32", 256, 176, pc_q5_k_decode_fast},
    {"q6_k-f32", 256, 210, pc_q6_k_decode_fast},   {"q2_k-f32", 256, 84, pc_q2_k_decode_fast},
    {"q3_k-f32", 256, 110, pc_q3_k_decode_fast},   {"iq4_nl-f32", 32, 18, pc_iq4_nl_decode_fast},
    {"iq4_xs-f32", 256, 136, pc_iq4_xs_decode_fast}, {"mxfp4-f32", 32, 17, pc_mxfp4_decode_fast},
    {"iq2_xxs-f32", 256, 66, pc_iq2_xxs_decode_fast}, {"iq2_xs-f32", 256, 74, pc_iq2_xs_decode_fast},
    {"iq2_s-f32", 256, 82, pc_iq2_s_decode_fast},   {"iq3_xxs-f32", 256, 98, pc_iq3_xxs_decode_fast},
    {"iq3_s-f32", 256, 110, pc_iq3_s_decode_fast},  {"iq1_s-f32", 256, 50, pc_iq1_s_decode_fast},
    {"iq1_m-f32", 256, 56, pc_iq1_m_decode_fast},   {"tq1_0-f32", 256, 54, pc_tq1_0_decode_fast},
    {"tq2_0-f32", 256, 66, pc_tq2_0_decode_fast},
};
static const gq_kernel *gq_find(const char *k)
{
    for (size_t i = 0; i < sizeof k_gq / sizeof *k_gq; i++)
        if (!strcmp(k, k_gq[i].name)) return &k_gq[i];
    return NULL;
}

static size_t in_row_bytes(const char *k, unsigned b, size_t cols)
{
    const gq_kernel *g = gq_find(k);
    if (g) return cols % g->elems ? 0 : cols / g->elems * g->bytes;
    if (!strncmp(k, "q4_0", 4)) return cols / 32 * 18;
    if (!strncmp(k, "ct-dense-", 9)) return (cols * b + 31) / 32 * 4;
    if (!strncmp(k, "ct-legacy-", 10)) return (cols + 32 / b - 1) / (32 / b) * 4;
    if (!strcmp(k, "awq-4")) return cols / 2;
    if (!strcmp(k, "nvfp4-f32")) return cols / 2;
    return 0;
}

static size_t out_elem_bytes(const char *k) { return strstr(k, "-f32") ? 4 : 1; }

/* Decode rows [r0, r1). NVFP4 goes through a row of codes on the stack (the module's own path:
 * the 4-bit stream kernel, then the E2M1 dequant kernel). */
static void *run(void *arg)
{
    job *j = arg;
    size_t irb = in_row_bytes(j->kernel, j->b, j->cols), orb = j->cols * out_elem_bytes(j->kernel);
    const uint8_t *src = j->in + j->r0 * irb;
    uint8_t *dst = j->out + j->r0 * orb;
    size_t n = j->r1 - j->r0;
    const gq_kernel *g = gq_find(j->kernel);
    if (g) g->fn(src, n * j->cols / g->elems, NULL, (float *)(void *)dst);
    else if (!strcmp(j->kernel, "q4_0")) pc_q4_0_decode_fast(src, n * j->cols / 32, dst, NULL);
    else if (!strcmp(j->kernel, "q4_0-f32")) pc_q4_0_decode_fast(src, n * j->cols / 32, NULL, (float *)(void *)dst);
    else if (!strcmp(j->kernel, "awq-4")) pc_awq_unpack_fast(src, n, j->cols, dst);
    else if (!strcmp(j->kernel, "nvfp4-f32")) {
        /* the module's path (the 4-bit stream kernel, then the dequant kernel) over 64-row chunks,
         * so the codes stay in L2 while the f32 output streams out */
        const float *scales = (const float *)(const void *)(j->in + j->rows * irb) + j->r0 * (j->cols / 16);
        static _Thread_local uint8_t codes[64 << 12];
        size_t step = sizeof codes / j->cols;
        for (size_t r = 0; r < n; r += step) {
            size_t m = n - r < step ? n - r : step;
            pc_stream_unpack_fast(src + r * irb, 4, m * j->cols, codes);
            pc_nvfp4_dequant_fast(codes, m, j->cols, scales + r * (j->cols / 16), (float *)(void *)(dst + r * orb));
        }
    } else {
        bool legacy = !strncmp(j->kernel, "ct-legacy-", 10);
        for (size_t r = 0; r < n; r++)
            (legacy ? pc_wordalign_unpack_fast : pc_stream_unpack_fast)(src + r * irb, j->b, j->cols, dst + r * orb);
    }
    return NULL;
}

static double clock_sec(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = n > 0 ? pc_page_alloc((size_t)n) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = p ? (size_t)n : 0;
    return p;
}

static bool g_reuse; /* --reuse: the reused-buffer footing */
static bool g_touch; /* --touch: the first-touch limit (allocate and memset, no decode) */

static void *touch(void *arg)
{
    job *j = arg;
    size_t orb = j->cols * out_elem_bytes(j->kernel);
    memset(j->out + j->r0 * orb, 0, (j->r1 - j->r0) * orb);
    return NULL;
}

/* One request; -1 on a bad request (the driver treats it as a failed contender). */
static int request(char *line, char **cached_path, uint8_t **in, size_t *in_len, uint8_t **out, size_t *out_cap)
{
    char kernel[32], path[4096], opath[4096] = "";
    size_t rows, cols, threads;
    if (sscanf(line, "%31s %4095s %zu %zu %zu %4095s", kernel, path, &rows, &cols, &threads, opath) < 5) return -1;
    unsigned b = 4;
    if (!strncmp(kernel, "ct-", 3)) sscanf(strrchr(kernel, '-') + 1, "%u", &b);
    size_t irb = in_row_bytes(kernel, b, cols);
    if (!irb || b < 1 || b > 8 || !rows || cols % 32 || cols > (1u << 16) || threads < 1 || threads > 64) return -1;
    if (!*cached_path || strcmp(*cached_path, path)) {
        free(*in);
        free(*cached_path);
        *in = load(path, in_len);
        *cached_path = *in ? strdup(path) : NULL;
        if (!*in) return -1;
    }
    size_t need = rows * irb + (!strcmp(kernel, "nvfp4-f32") ? rows * cols / 16 * 4 : 0);
    if (*in_len < need) return -1;
    size_t on = rows * cols * out_elem_bytes(kernel);
    if (g_reuse && on > *out_cap) {
        free(*out);
        *out = pc_page_alloc(on);
        *out_cap = *out ? on : 0;
        if (!*out) return -1;
        memset(*out, 0, on); /* reused-buffer footing: faulted in once, outside the timing */
    }
    job jobs[64];
    pthread_t tid[64];
    double t0 = clock_sec(CLOCK_MONOTONIC), c0 = clock_sec(CLOCK_PROCESS_CPUTIME_ID);
    if (!g_reuse) { /* equal footing: the result is allocated (and first touched) inside the timing */
        *out = pc_page_alloc(on);
        if (!*out) return -1;
    }
    for (size_t t = 0; t < threads; t++)
        jobs[t] = (job){kernel, b, *in, *out, rows, cols, rows * t / threads, rows * (t + 1) / threads};
    void *(*work)(void *) = g_touch ? touch : run;
    for (size_t t = 1; t < threads; t++) pthread_create(&tid[t], NULL, work, &jobs[t]);
    work(&jobs[0]);
    for (size_t t = 1; t < threads; t++) pthread_join(tid[t], NULL);
    double dt = clock_sec(CLOCK_MONOTONIC) - t0, dc = clock_sec(CLOCK_PROCESS_CPUTIME_ID) - c0;
    int rc = 0;
    if (*opath) {
        FILE *f = fopen(opath, "wb");
        if (!f || fwrite(*out, 1, on, f) != on) rc = -1;
        if (f) fclose(f);
    }
    if (!g_reuse) { free(*out); *out = NULL; }
    if (rc) return -1;
    printf("%.9f %.9f\n", dt, dc);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    g_reuse = argc > 1 && !strcmp(argv[1], "--reuse");
    g_touch = argc > 1 && !strcmp(argv[1], "--touch");
    char line[8192], *cached = NULL;
    uint8_t *in = NULL, *out = NULL;
    size_t in_len = 0, out_cap = 0;
    while (fgets(line, sizeof line, stdin))
        if (request(line, &cached, &in, &in_len, &out, &out_cap)) { printf("error\n"); fflush(stdout); }
    free(in);
    free(out);
    free(cached);
    return 0;
}
