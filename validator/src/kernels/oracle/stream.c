/* Oracle: the seed's unpack_bits, one bit at a time. Obviously correct, deliberately slow.
 * Bit k of the stream is bit (k % 8) of byte k / 8: the LE stream of int32 words is the LE stream
 * of their bytes (FORMATS.md conventions). */
#include "../kernels.h"

void pc_stream_unpack_ref(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    for (size_t i = 0; i < count; i++) {
        unsigned v = 0;
        for (unsigned j = 0; j < b; j++) {
            size_t bit = i * b + j;
            v |= (unsigned)((src[bit / 8] >> (bit % 8)) & 1u) << j;
        }
        out[i] = (uint8_t)v;
    }
}
