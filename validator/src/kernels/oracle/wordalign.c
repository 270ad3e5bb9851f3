/* Oracle: compressed-tensors <= 0.17 word-aligned packing, one bit at a time. Field j lives in
 * word j / pf at bit (j % pf) * b, pf = floor(32 / b); fields never straddle (FORMATS.md 3.4). */
#include "../kernels.h"

void pc_wordalign_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    unsigned pf = 32 / b;
    for (size_t i = 0; i < count; i++) {
        size_t word = i / pf;
        unsigned v = 0;
        for (unsigned j = 0; j < b; j++) {
            unsigned bit = (unsigned)(i % pf) * b + j; /* bit within the word, < 32 */
            v |= (unsigned)((src[word * 4 + bit / 8] >> (bit % 8)) & 1u) << j;
        }
        out[i] = (uint8_t)v;
    }
}
