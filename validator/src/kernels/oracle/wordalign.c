/* Oracle: compressed-tensors 0.5 .. 0.17.x word-aligned packing, read the way that writer laid it
 * out: pf = floor(32 / b) whole fields per little-endian int32 word, field j in word j / pf at bit
 * (j % pf) * b, never straddling; the top 32 - pf*b bits of every word are padding (FORMATS.md 3.4).
 * One field at a time, words assembled byte by byte and kept unsigned. */
#include "../kernels.h"

static uint32_t word_at(const uint8_t *src, size_t w)
{
    return (uint32_t)src[w * 4] | ((uint32_t)src[w * 4 + 1] << 8) | ((uint32_t)src[w * 4 + 2] << 16) |
           ((uint32_t)src[w * 4 + 3] << 24);
}

PC_ORACLE_FN void pc_wordalign_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    unsigned pf = 32 / b;
    uint32_t mask = (1u << b) - 1;
    for (size_t j = 0; j < count; j++) {
        size_t word = j / pf;
        unsigned off = (unsigned)(j % pf) * b; /* off + b <= pf*b <= 32: no straddle */
        out[j] = (uint8_t)((word_at(src, word) >> off) & mask);
    }
}
