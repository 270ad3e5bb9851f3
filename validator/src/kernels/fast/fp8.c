/* FP8 E4M3 / INT8 fast path, portable part: the walk over the scale grid (each row is cut into
 * runs of bw columns sharing one scale) and the scalar runs. E4M3 -> f32 without a table: for a
 * normal byte (exponent e >= 1) the 7 magnitude bits shifted to f32 bits 20..26 plus 120 in the f32
 * exponent field are exactly 2^(e-7) * (1 + m/8); a subnormal byte (e = 0) is m * 2^-9, converted
 * from the integer m (exact). No f32 subnormal is ever formed, so no microcode assist slows the
 * AVX2 runs (an earlier version multiplied f32 subnormals by 2^120: 20x slower on such bytes).
 * 0x7F / 0xFF become NaN. Then one rounding by the scale, as the oracle. The AVX2 runs
 * (fast/fp8_avx2.c) do the same eight lanes at a time; kernels/simd.c chooses. */
#include "../kernels.h"

#include <string.h>

#include "nt.h"

static inline float e4m3_bits(uint8_t v)
{
    uint32_t mag = v & 0x7F, u;
    float f;
    if (mag == 0x7F) u = 0x7FC00000u;
    else if (mag < 8) { f = (float)mag * 0x1p-9f; memcpy(&u, &f, 4); }
    else u = (mag << 20) + (120u << 23);
    u |= (uint32_t)(v & 0x80) << 24;
    memcpy(&f, &u, 4);
    return f;
}

void pc_fp8_run_scalar(const uint8_t *w, size_t n, float s, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = e4m3_bits(w[i]) * s;
}

void pc_int8_run_scalar(const uint8_t *w, size_t n, int zp, float s, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = (float)((int8_t)w[i] - zp) * s;
}

static size_t grid_cols(size_t cols, size_t bw) { return cols / bw + (cols % bw != 0); }

typedef struct grid_job {
    const uint8_t *w;
    size_t cols, bh, bw;
    const float *scale;
    const int8_t *zero; /* int8 only */
} grid_job;

/* Columns [c0, c0 + nc) of row n as runs of one scale each (a run is cut where a scale block ends). */
static void fp8_runs(const grid_job *g, size_t n, size_t c0, size_t nc, float *out)
{
    pc_fp8_run_fn run = PC_PICK(pc_fp8_run_scalar, pc_fp8_run_avx2);
    const float *srow = g->scale + (n / g->bh) * grid_cols(g->cols, g->bw);
    for (size_t k = c0; k < c0 + nc;) {
        size_t len = g->bw - k % g->bw;
        if (len > c0 + nc - k) len = c0 + nc - k;
        run(g->w + n * g->cols + k, len, srow[k / g->bw], out + (k - c0));
        k += len;
    }
}

/* Rows [r, r + nr), columns [c0, c0 + nc), densely into out. AVX2 has a row kernel (one call per
 * row, whole scale blocks from c0); the portable path and a chunk inside a block go run by run. */
static void fp8_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *out)
{
    const grid_job *g = ctx;
    pc_fp8_row_fn row = PC_PICK((pc_fp8_row_fn)NULL, pc_fp8_row_avx2);
    size_t gc = grid_cols(g->cols, g->bw);
    for (size_t n = r; n < r + nr; n++, out += nc) {
        if (row && c0 % g->bw == 0) row(g->w + n * g->cols + c0, nc, g->bw, g->scale + (n / g->bh) * gc + c0 / g->bw, out);
        else fp8_runs(g, n, c0, nc, out);
    }
}

void pc_fp8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out)
{
    grid_job g = {w, cols, bh, bw, scale, NULL};
    pc_f32_streamed(rows, cols, bw, fp8_part, &g, out);
}

static void int8_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *out)
{
    const grid_job *g = ctx;
    pc_int8_run_fn run = PC_PICK(pc_int8_run_scalar, pc_int8_run_avx2);
    size_t gc = grid_cols(g->cols, g->bw);
    for (size_t n = r; n < r + nr; n++, out += nc) {
        size_t g0 = (n / g->bh) * gc;
        for (size_t k = c0; k < c0 + nc;) {
            size_t len = g->bw - k % g->bw, j = g0 + k / g->bw;
            if (len > c0 + nc - k) len = c0 + nc - k;
            run(g->w + n * g->cols + k, len, g->zero ? g->zero[j] : 0, g->scale[j], out + (k - c0));
            k += len;
        }
    }
}

void pc_int8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                          const int8_t *zero, float *out)
{
    grid_job g = {w, cols, bh, bw, scale, zero};
    pc_f32_streamed(rows, cols, bw, int8_part, &g, out);
}
