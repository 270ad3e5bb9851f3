/* ggml's side of scripts/bench-peers.sh: the same line protocol as packcheck-peer-decode
 * (KERNEL INPUT ROWS COLS THREADS [OUT] -> wall and CPU seconds), decoding with ggml's own type traits
 * (ggml_get_type_traits(type)->to_float, which is dequantize_row_<type> in ggml-quants.c), one
 * call per row as llama.cpp's get_rows/dup paths call it, rows split over THREADS threads.
 * Footing as packcheck-peer-decode: by default ("equal") the f32 output is malloc'd inside the
 * timing and freed after it; with --reuse one buffer, faulted in outside the timing, is reused.
 * Built by bench-peers.sh against the ggml CPU library; not part of packcheck. */
#define _POSIX_C_SOURCE 200809L
#include <ggml.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct job { ggml_to_float_t f; const uint8_t *in; float *out; size_t rb, cols, r0, r1; } job;

static void *run(void *a)
{
    job *j = a;
    for (size_t r = j->r0; r < j->r1; r++) j->f(j->in + r * j->rb, j->out + r * j->cols, (int64_t)j->cols);
    return NULL;
}

/* The kernel names of packcheck-peer-decode's GGUF f32 kernels, as ggml types. */
static const struct { const char *name; enum ggml_type type; } k_types[] = {
    {"q4_0-f32", GGML_TYPE_Q4_0}, {"q8_0-f32", GGML_TYPE_Q8_0}, {"q4_1-f32", GGML_TYPE_Q4_1}, {"q5_0-f32", GGML_TYPE_Q5_0},
    {"q5_1-f32", GGML_TYPE_Q5_1}, {"q4_k-f32", GGML_TYPE_Q4_K}, {"q5_k-f32", GGML_TYPE_Q5_K}, {"q6_k-f32", GGML_TYPE_Q6_K},
    {"q2_k-f32", GGML_TYPE_Q2_K}, {"q3_k-f32", GGML_TYPE_Q3_K}, {"iq4_nl-f32", GGML_TYPE_IQ4_NL},
    {"iq4_xs-f32", GGML_TYPE_IQ4_XS}, {"mxfp4-f32", GGML_TYPE_MXFP4},
    {"iq2_xxs-f32", GGML_TYPE_IQ2_XXS}, {"iq2_xs-f32", GGML_TYPE_IQ2_XS}, {"iq2_s-f32", GGML_TYPE_IQ2_S},
    {"iq3_xxs-f32", GGML_TYPE_IQ3_XXS}, {"iq3_s-f32", GGML_TYPE_IQ3_S}, {"iq1_s-f32", GGML_TYPE_IQ1_S},
    {"iq1_m-f32", GGML_TYPE_IQ1_M}, {"tq1_0-f32", GGML_TYPE_TQ1_0}, {"tq2_0-f32", GGML_TYPE_TQ2_0},
};

static int type_of(const char *k)
{
    for (size_t i = 0; i < sizeof k_types / sizeof *k_types; i++)
        if (!strcmp(k, k_types[i].name)) return (int)k_types[i].type;
    return -1;
}

static double clk(clockid_t id) { struct timespec t; clock_gettime(id, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv)
{
    int reuse = argc > 1 && !strcmp(argv[1], "--reuse");
    char line[8192], kernel[32], path[4096], opath[4096], cached[4096] = "";
    uint8_t *in = NULL;
    float *out = NULL;
    size_t cap = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t rows, cols, threads;
        opath[0] = 0;
        if (sscanf(line, "%31s %4095s %zu %zu %zu %4095s", kernel, path, &rows, &cols, &threads, opath) < 5 ||
            type_of(kernel) < 0 || threads < 1 || threads > 64) { puts("error"); fflush(stdout); continue; }
        enum ggml_type type = (enum ggml_type)type_of(kernel);
        size_t rb = ggml_row_size(type, (int64_t)cols);
        if (strcmp(cached, path)) {
            FILE *f = fopen(path, "rb");
            free(in);
            in = malloc(rows * rb);
            if (!f || !in || fread(in, 1, rows * rb, f) != rows * rb) { puts("error"); fflush(stdout); if (f) fclose(f); cached[0] = 0; continue; }
            fclose(f);
            snprintf(cached, sizeof cached, "%s", path);
        }
        if (reuse && rows * cols > cap) { free(out); cap = rows * cols; out = malloc(cap * 4); if (out) memset(out, 0, cap * 4); }
        job jobs[64];
        pthread_t tid[64];
        double t0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
        if (!reuse) out = malloc(rows * cols * 4);
        if (!out) { puts("error"); fflush(stdout); cap = 0; continue; }
        for (size_t t = 0; t < threads; t++)
            jobs[t] = (job){ggml_get_type_traits(type)->to_float, in, out, rb, cols, rows * t / threads, rows * (t + 1) / threads};
        for (size_t t = 1; t < threads; t++) pthread_create(&tid[t], NULL, run, &jobs[t]);
        run(&jobs[0]);
        for (size_t t = 1; t < threads; t++) pthread_join(tid[t], NULL);
        double dt = clk(CLOCK_MONOTONIC) - t0, dc = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (opath[0]) { FILE *f = fopen(opath, "wb"); if (f) { fwrite(out, 4, rows * cols, f); fclose(f); } }
        if (!reuse) { free(out); out = NULL; }
        printf("%.9f %.9f\n", dt, dc);
        fflush(stdout);
    }
    return 0;
}
