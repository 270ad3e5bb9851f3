/* FP8 E4M3 / INT8 fast path, portable part: the walk over the scale grid (each row is cut into
 * runs of bw columns sharing one scale) and the scalar runs. E4M3 -> f32 without a table: for a
 * normal byte (exponent e >= 1) the 7 magnitude bits shifted to f32 bits 20..26 plus 120 in the f32
 * exponent field are exactly 2^(e-7) * (1 + m/8); a subnormal byte (e = 0) is m * 2^-9, converted
 * from the integer m (exact). No f32 subnormal is ever formed, so no microcode assist slows the
 * AVX2 runs (an earlier version multiplied f32 subnormals by 2^120: 20x slower on such bytes).
 * 0x7F / 0xFF become NaN. Then one rounding by the scale, as the oracle. The AVX2 runs
 * (fast/fp8_avx2.c) do the same eight lanes at a time; kernels/dispatch.c chooses. */
#include "../kernels.h"

#include <string.h>

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

void pc_fp8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale, float *out)
{
    size_t gc = grid_cols(cols, bw);
    /* AVX2 has a row kernel (one call per row); the portable path runs block by block. */
    pc_fp8_row_fn row = PC_PICK((pc_fp8_row_fn)NULL, pc_fp8_row_avx2);
    if (row) {
        for (size_t n = 0; n < rows; n++) row(w + n * cols, cols, bw, scale + (n / bh) * gc, out + n * cols);
        return;
    }
    pc_fp8_run_fn run = pc_fp8_run_scalar;
    for (size_t n = 0; n < rows; n++) {
        const float *srow = scale + (n / bh) * gc;
        for (size_t j = 0, k = 0; k < cols; j++, k += bw) {
            size_t len = cols - k < bw ? cols - k : bw;
            run(w + n * cols + k, len, srow[j], out + n * cols + k);
        }
    }
}

void pc_int8_dequant_fast(const uint8_t *w, size_t rows, size_t cols, size_t bh, size_t bw, const float *scale,
                          const int8_t *zero, float *out)
{
    pc_int8_run_fn run = PC_PICK(pc_int8_run_scalar, pc_int8_run_avx2);
    size_t gc = grid_cols(cols, bw);
    for (size_t n = 0; n < rows; n++) {
        size_t g0 = (n / bh) * gc;
        for (size_t j = 0, k = 0; k < cols; j++, k += bw) {
            size_t len = cols - k < bw ? cols - k : bw;
            run(w + n * cols + k, len, zero ? zero[g0 + j] : 0, scale[g0 + j], out + n * cols + k);
        }
    }
}
