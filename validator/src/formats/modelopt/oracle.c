/* ModelOpt INT4 AWQ oracle, written literally from pack_int4_in_uint8's inverse: element (n, k) is
 * found in byte (n / 2, k), low nibble for even n; the nibble read as two's complement, times its
 * group's scale. */
#include "kernels.h"

static PC_ORACLE_FN uint8_t nibble_of(const uint8_t *packed, size_t K, size_t n, size_t k)
{
    uint8_t byte = packed[(n / 2) * K + k];
    return n % 2 == 0 ? (uint8_t)(byte & 0x0F) : (uint8_t)(byte >> 4);
}

PC_ORACLE_FN void pc_mo_int4_unpack_ref(const uint8_t *packed, size_t N, size_t K, uint8_t *codes)
{
    for (size_t n = 0; n < N; n++)
        for (size_t k = 0; k < K; k++) codes[n * K + k] = nibble_of(packed, K, n, k);
}

PC_ORACLE_FN void pc_mo_int4_dequant_ref(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out)
{
    size_t G = K / g;
    for (size_t n = 0; n < N; n++)
        for (size_t k = 0; k < K; k++) {
            int q = nibble_of(packed, K, n, k);
            if (q >= 8) q -= 16;
            out[n * K + k] = (float)q * scale[n * G + k / g];
        }
}
