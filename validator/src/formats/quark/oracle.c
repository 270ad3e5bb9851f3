/* AMD Quark literal oracle: each field decoded as the format describes it (kernels.h). */
#include "kernels.h"

#include <math.h>

PC_ORACLE_FN float pc_qk_elem_value_ref(pc_qk_elem k, uint8_t code)
{
    unsigned ebits = k == PC_QK_FP4 ? 2 : k == PC_QK_E2M3 ? 2 : 3;
    unsigned mbits = pc_qk_elem_bits(k) - 1 - ebits;
    unsigned bias = (1u << (ebits - 1)) - 1;
    unsigned sign = (code >> (ebits + mbits)) & 1u;
    unsigned e = (code >> mbits) & ((1u << ebits) - 1);
    unsigned m = code & ((1u << mbits) - 1);
    float mag = e == 0 ? ldexpf((float)m, 1 - (int)bias - (int)mbits)                     /* subnormal */
                       : ldexpf((float)((1u << mbits) + m), (int)e - (int)bias - (int)mbits); /* normal */
    return sign ? -mag : mag;
}

PC_ORACLE_FN void pc_qk_mx_dequant_ref(const uint8_t *codes, size_t rows, size_t K, pc_qk_elem k, const uint8_t *e8m0, float *out)
{
    size_t S = (K + 31) / 32;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < K; c++) {
            uint8_t e = e8m0[r * S + c / 32];
            float scale = ldexpf(1.0f, (int)e - 127);
            out[r * K + c] = pc_qk_elem_value_ref(k, codes[r * K + c]) * scale;
        }
}

PC_ORACLE_FN void pc_qk_int4_unpack_ref(const uint8_t *src, size_t K, size_t N, bool reorder, uint8_t *codes)
{
    size_t W = (N + 7) / 8;
    for (size_t kk = 0; kk < K; kk++)
        for (size_t c = 0; c < W; c++) {
            const uint8_t *w = src + 4 * (kk * W + c);
            uint32_t word = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
            for (unsigned i = 0; i < 8; i++) {
                size_t n = 8 * c + pc_qk_slot_elem(reorder, i);
                if (n < N) codes[n * K + kk] = (uint8_t)((word >> (4 * i)) & 15u);
            }
        }
}

PC_ORACLE_FN void pc_qk_int4_dequant_ref(const uint8_t *codes, size_t N, size_t K, size_t g, bool is_signed,
                                         const float *scale, const int8_t *zero, float *out)
{
    size_t G = K / g;
    for (size_t n = 0; n < N; n++)
        for (size_t k = 0; k < K; k++) {
            int q = codes[n * K + k];
            if (is_signed && q >= 8) q -= 16;
            size_t j = n * G + k / g;
            out[n * K + k] = ((float)q - (float)zero[j]) * scale[j];
        }
}
