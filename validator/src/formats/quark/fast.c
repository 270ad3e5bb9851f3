/* AMD Quark fast path, portable (AVX2 in avx2.c): MX elements through a 64-entry value table and one power-of-two
 * scale per block of 32; int4 words unpacked a whole row of words at a time, dequantised per group
 * through a 16-entry table of (q - z) * s. The same f32 operations as the oracle, so bit-equal.
 * Large outputs of the portable path go through the streaming tile driver (kernels/fast/nt.h); the
 * AVX2 kernels stream by themselves. */
#include "kernels.h"

#include "kernels/fast/nt.h"

#include <pthread.h>
#include <string.h>

/* The value of every code of each kind, built once: per call it cost as much as decoding 16 KiB. */
static float g_values[3][64];
static pthread_once_t g_values_once = PTHREAD_ONCE_INIT;
static unsigned kind_index(pc_qk_elem k) { return k == PC_QK_FP4 ? 0 : k == PC_QK_E2M3 ? 1 : 2; }
static void values_build(void)
{
    static const pc_qk_elem k_kinds[3] = {PC_QK_FP4, PC_QK_E2M3, PC_QK_E3M2};
    for (unsigned i = 0; i < 3; i++)
        for (unsigned c = 0; c < 64; c++) g_values[i][c] = pc_qk_elem_value_ref(k_kinds[i], (uint8_t)c);
}

const float *pc_qk_value_table(pc_qk_elem k)
{
    pthread_once(&g_values_once, values_build);
    return g_values[kind_index(k)];
}

void pc_qk_mx_dequant_scalar(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    const float *t = pc_qk_value_table(k);
    size_t S = (K + 31) / 32;
    unsigned mask = (1u << pc_qk_elem_bits(k)) - 1;
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *cr = codes + r * K;
        float *o = out + r * K;
        for (size_t b = 0; b < S; b++) {
            float s = pc_e8m0_value(e8m0[r * S + b]);
            size_t end = b * 32 + 32 < K ? b * 32 + 32 : K;
            for (size_t c = b * 32; c < end; c++) o[c] = t[cr[c] & mask] * s;
        }
    }
}

typedef struct mx_job {
    const uint8_t *codes, *e8m0;
    size_t K;
    pc_qk_elem k;
} mx_job;

/* Rows [r, r + nr), columns [c0, c0 + nc) densely into tile: c0 is a multiple of 32 (the tile
 * driver's column unit), so the part starts on a block and is itself a row of blocks. */
static void mx_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *tile)
{
    const mx_job *j = ctx;
    size_t S = (j->K + 31) / 32;
    if (c0 == 0 && nc == j->K) {
        pc_qk_mx_dequant_scalar(j->codes + r * j->K, nr, j->K, j->k, j->e8m0 + r * S, tile);
        return;
    }
    for (size_t n = r; n < r + nr; n++, tile += nc)
        pc_qk_mx_dequant_scalar(j->codes + n * j->K + c0, 1, nc, j->k, j->e8m0 + n * S + c0 / 32, tile);
}

void pc_qk_mx_dequant_fast(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    pc_qk_mx_dequant_fn avx2 = PC_PICK((pc_qk_mx_dequant_fn)NULL, pc_qk_mx_dequant_avx2);
    if (avx2) { avx2(codes, rows, K, k, e8m0, out); return; }
    mx_job j = {codes, e8m0, K, k};
    pc_f32_streamed(rows, K, 32, mx_part, &j, out);
}

void pc_qk_int4_unpack_fast(const uint8_t *src, size_t K, size_t N, bool reorder, uint8_t *codes)
{
    size_t W = (N + 7) / 8;
    unsigned map[8];
    for (unsigned i = 0; i < 8; i++) map[i] = pc_qk_slot_elem(reorder, i);
    for (size_t kk = 0; kk < K; kk++) {
        const uint8_t *row = src + 4 * kk * W;
        for (size_t c = 0; c < W; c++) {
            uint32_t word = pc_load_le32(row + 4 * c);
            size_t base = 8 * c;
            if (base + 8 <= N) {
                for (unsigned i = 0; i < 8; i++) codes[(base + map[i]) * K + kk] = (uint8_t)((word >> (4 * i)) & 15u);
            } else {
                for (unsigned i = 0; i < 8; i++)
                    if (base + map[i] < N) codes[(base + map[i]) * K + kk] = (uint8_t)((word >> (4 * i)) & 15u);
            }
        }
    }
}

/* Columns [c0, c0 + nc) of one row (codes c, groups s and z of that row) into o, run by run: a run
 * is cut where a group ends, so a part that starts inside a group is handled too. */
static void int4_row(const uint8_t *c, size_t c0, size_t nc, size_t g, bool is_signed, const float *s, const int8_t *z,
                     float *o)
{
    for (size_t k = c0; k < c0 + nc;) {
        size_t j = k / g, len = g - k % g;
        if (len > c0 + nc - k) len = c0 + nc - k;
        float t[16], zf = (float)z[j];
        for (int q = 0; q < 16; q++) t[q] = ((float)(is_signed && q >= 8 ? q - 16 : q) - zf) * s[j];
        for (size_t i = 0; i < len; i++) o[k - c0 + i] = t[c[k + i] & 15u];
        k += len;
    }
}

void pc_qk_int4_dequant_scalar(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                               const int8_t *zero, float *out)
{
    size_t G = K / g;
    for (size_t n = 0; n < N; n++) int4_row(codes + n * K, 0, K, g, is_signed, scale + n * G, zero + n * G, out + n * K);
}

typedef struct int4_job {
    const uint8_t *codes;
    size_t K, g;
    bool is_signed;
    const float *scale;
    const int8_t *zero;
} int4_job;

static void int4_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *tile)
{
    const int4_job *j = ctx;
    size_t G = j->K / j->g;
    for (size_t n = r; n < r + nr; n++, tile += nc)
        int4_row(j->codes + n * j->K, c0, nc, j->g, j->is_signed, j->scale + n * G, j->zero + n * G, tile);
}

void pc_qk_int4_dequant_fast(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                             const int8_t *zero, float *out)
{
    pc_qk_int4_dequant_fn avx2 = PC_PICK((pc_qk_int4_dequant_fn)NULL, pc_qk_int4_dequant_avx2);
    if (avx2) { avx2(codes, N, K, g, is_signed, scale, zero, out); return; }
    int4_job j = {codes, K, g, is_signed, scale, zero};
    pc_f32_streamed(N, K, g, int4_part, &j, out);
}
