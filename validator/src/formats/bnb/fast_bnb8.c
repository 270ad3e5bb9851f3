/* bitsandbytes LLM.int8 fast path, portable part: per row, a 256-entry table of the row's 256
 * possible weights f32(f32(q * SCB[r]) * 0x1.020408p-7f), built with the oracle's two roundings,
 * then one lookup per element; rows shorter than the table are computed directly (same two
 * roundings). Codes: int8 q + 128 is the byte with its top bit flipped, eight bytes per word. The
 * AVX2 version (fast/bnb8_avx2.c) computes directly; the entry points pick the active set's. */
#include "kernels.h"

#include <string.h>

#include "kernels/fast/nt.h"

static void row_direct(const uint8_t *src, size_t cols, float s, float *out)
{
    for (size_t c = 0; c < cols; c++) {
        float a = (float)(int8_t)src[c] * s;
        out[c] = a * PC_BNB8_RECIP;
    }
}

static void row_table(const uint8_t *src, size_t cols, float s, float *out)
{
    float t[256];
    for (int b = 0; b < 256; b++) {
        float a = (float)(int8_t)(uint8_t)b * s;
        t[b] = a * PC_BNB8_RECIP;
    }
    for (size_t c = 0; c < cols; c++) out[c] = t[src[c]];
}

void pc_bnb8_dequant_scalar(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out)
{
    for (size_t r = 0; r < rows; r++)
        (cols >= 1024 ? row_table : row_direct)(src + r * cols, cols, scb[r], out + r * cols);
}

void pc_bnb8_codes_scalar(const uint8_t *src, size_t n, uint8_t *out)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        w ^= 0x8080808080808080ull;
        memcpy(out + i, &w, 8);
    }
    for (; i < n; i++) out[i] = (uint8_t)(src[i] ^ 0x80);
}

typedef struct bnb8_job { const uint8_t *src; size_t cols; const float *scb; } bnb8_job;

/* Rows [r, r + nr), columns [c0, c0 + nc): the kernel on that window of each row (one SCB per row). */
static void bnb8_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *out)
{
    const bnb8_job *j = ctx;
    pc_bnb8_dequant_fn fn = PC_PICK(pc_bnb8_dequant_scalar, pc_bnb8_dequant_avx2);
    if (c0 == 0 && nc == j->cols) { fn(j->src + r * j->cols, nr, j->cols, j->scb + r, out); return; }
    for (size_t n = r; n < r + nr; n++, out += nc) fn(j->src + n * j->cols + c0, 1, nc, j->scb + n, out);
}

void pc_bnb8_dequant_fast(const uint8_t *src, size_t rows, size_t cols, const float *scb, float *out)
{
    bnb8_job j = {src, cols, scb};
    pc_f32_streamed(rows, cols, 1, bnb8_part, &j, out);
}

void pc_bnb8_codes_fast(const uint8_t *src, size_t n, uint8_t *out)
{
    PC_PICK(pc_bnb8_codes_scalar, pc_bnb8_codes_avx2)(src, n, out);
}
