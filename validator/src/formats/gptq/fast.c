/* Fast scalar GPTQ qweight unpacker. The oracle walks one column at a time (strided reads); here
 * the loops are turned round: for each output row k the word row and shift are fixed, and the
 * inner loop runs along N over contiguous words, which compilers vectorise. Words are read as
 * little-endian uint32 (memcpy, byte-swapped on a big-endian host), shifted unsigned. */
#include "kernels.h"

#include <string.h>

/* Output row k: fields inside one word (2, 4, 8 bits, and 30 of 32 rows for 3 bits). */
static void row_in_word(const uint8_t *wrow, unsigned off, uint32_t mask, size_t N, uint8_t *out)
{
    for (size_t n = 0; n < N; n++) out[n] = (uint8_t)((pc_load_le32(wrow + 4 * n) >> off) & mask);
}

/* Output row k whose field straddles word rows w and w + 1 (3 bits: fields 10 and 21 of 32). */
static void row_straddle(const uint8_t *wrow, const uint8_t *next, unsigned off, uint32_t mask, size_t N, uint8_t *out)
{
    for (size_t n = 0; n < N; n++) {
        uint32_t v = (pc_load_le32(wrow + 4 * n) >> off) | (pc_load_le32(next + 4 * n) << (32 - off));
        out[n] = (uint8_t)(v & mask);
    }
}

void pc_gptq_unpack_scalar(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out)
{
    const uint32_t mask = (1u << b) - 1;
    const size_t rowbytes = 4 * N;
    for (size_t k = 0; k < K; k++) {
        size_t bit = k * b, w = bit / 32;
        unsigned off = (unsigned)(bit % 32);
        const uint8_t *wrow = src + w * rowbytes;
        if (off + b > 32) row_straddle(wrow, wrow + rowbytes, off, mask, N, out + k * N);
        else row_in_word(wrow, off, mask, N, out + k * N);
    }
}

void pc_gptq_unpack_fast(const uint8_t *src, unsigned b, size_t K, size_t N, uint8_t *out)
{
    PC_PICK(pc_gptq_unpack_scalar, pc_gptq_unpack_avx2)(src, b, K, N, out);
}
