/* Oracle: GPTQ qweight, written literally from the seed article's unpack_bits, one field at a time.
 * Column n of the [K*b/32, N] word matrix is one little-endian stream of 32-bit words; field k
 * is at bit k*b: word k*b // 32, offset k*b % 32, and when offset + b > 32 the field continues
 * in the next word of the same column ("some values straddle two words"). Words are assembled
 * byte by byte and shifted as unsigned, so the sign bit of an int32 word never smears. */
#include "kernels.h"

/* Word w of column n: row w of the I32 matrix, little-endian, taken as unsigned. */
static uint32_t column_word(const uint8_t *src, size_t N, size_t w, size_t n)
{
    const uint8_t *p = src + (w * N + n) * 4;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

void pc_gptq_unpack_ref(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out)
{
    const uint32_t mask = (1u << b) - 1;
    for (size_t n = 0; n < N; n++) {
        for (size_t i = 0; i < K; i++) {
            size_t w = i * b / 32;
            unsigned off = (unsigned)(i * b % 32);
            uint32_t v = column_word(src, N, w, n) >> off;
            if (off + b > 32) /* value straddles two words */
                v |= column_word(src, N, w + 1, n) << (32 - off);
            out[i * N + n] = (uint8_t)(v & mask);
        }
    }
}
