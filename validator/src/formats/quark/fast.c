/* AMD Quark fast path, portable (AVX2 in avx2.c): MX elements through a 64-entry value table and one power-of-two
 * scale per block of 32; int4 words unpacked a whole row of words at a time, dequantised per group
 * through a 16-entry table of (q - z) * s. The same f32 operations as the oracle, so bit-equal. */
#include "kernels.h"

#include <string.h>

static void value_table(pc_qk_elem k, float t[64])
{
    unsigned n = 1u << pc_qk_elem_bits(k);
    for (unsigned c = 0; c < n; c++) t[c] = pc_qk_elem_value_ref(k, (uint8_t)c);
}

void pc_qk_mx_dequant_scalar(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    float t[64];
    value_table(k, t);
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

void pc_qk_mx_dequant_fast(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    PC_PICK(pc_qk_mx_dequant_scalar, pc_qk_mx_dequant_avx2)(codes, rows, K, k, e8m0, out);
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

void pc_qk_int4_dequant_scalar(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                               const int8_t *zero, float *out)
{
    size_t G = K / g;
    for (size_t n = 0; n < N; n++)
        for (size_t j = 0; j < G; j++) {
            float s = scale[n * G + j], z = (float)zero[n * G + j], t[16];
            for (int q = 0; q < 16; q++) t[q] = ((float)(is_signed && q >= 8 ? q - 16 : q) - z) * s;
            const uint8_t *c = codes + n * K + j * g;
            float *o = out + n * K + j * g;
            for (size_t i = 0; i < g; i++) o[i] = t[c[i] & 15u];
        }
}

void pc_qk_int4_dequant_fast(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed, const float *scale,
                             const int8_t *zero, float *out)
{
    pc_qk_int4_dequant_scalar(codes, N, K, g, is_signed, scale, zero, out); /* an AVX2 table lookup measured slower */
}
