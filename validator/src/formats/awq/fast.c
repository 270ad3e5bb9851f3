/* Fast scalar AWQ GEMM unpacker: one word gives eight codes. Column 8c + j sits in nibble REV[j],
 * REV = 0,4,1,5,2,6,3,7 (the inverse of the writer's 0,2,4,6,1,3,5,7), i.e. shifts 0,16,4,20,8,24,
 * 12,28; here all eight are split with two masks and reordered as bytes of one 64-bit word (SWAR).
 * Unsigned shifts and masks: no sign extension from the top slot. */
#include "kernels.h"

#include <string.h>

/* Eight codes of one word, in column order, as eight bytes. lo holds slots 0,2,4,6 (columns 0,4,1,5)
 * in its bytes, hi slots 1,3,5,7 (columns 2,6,3,7); (hi << 32 | lo) is columns 0,4,1,5,2,6,3,7 and two
 * byte-swap steps put them in order. */
static inline uint64_t awq_word_codes(uint32_t w)
{
    uint64_t x = (uint64_t)(w & 0x0F0F0F0Fu) | (uint64_t)((w >> 4) & 0x0F0F0F0Fu) << 32;
    uint64_t t = (x ^ (x >> 8)) & 0x0000FF000000FF00ull; /* swap bytes 1,2 and 5,6 */
    x ^= t ^ (t << 8);
    t = (x ^ (x >> 16)) & 0x00000000FFFF0000ull;        /* swap byte pairs 2-3 and 4-5 */
    return x ^ t ^ (t << 16);
}

void pc_awq_unpack_scalar(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    const size_t total = rows * (N / 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t i = 0; i < total; i++) {
        uint64_t codes = awq_word_codes(pc_load_le32(src + 4 * i));
        memcpy(out + 8 * i, &codes, 8);
    }
#else
    for (size_t i = 0; i < total; i++) {
        uint64_t codes = awq_word_codes(pc_load_le32(src + 4 * i));
        for (unsigned j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(codes >> (8 * j));
    }
#endif
}

void pc_awq_unpack_fast(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    PC_PICK(pc_awq_unpack_scalar, pc_awq_unpack_avx2)(src, rows, N, out);
}
