/* Oracle: GGUF Q4_0, read literally off the block layout (FORMATS.md 7.5), one element at a time.
 * The fp16 scale is decoded from its fields with exact power-of-two arithmetic, independently of
 * the fast path's bit manipulation. */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

void pc_q4_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 18 * b;
        float d = pc_oracle_half((unsigned)block[0] | ((unsigned)block[1] << 8));
        for (unsigned e = 0; e < 32; e++) {
            unsigned byte = block[2 + e % 16];
            unsigned q = e < 16 ? (byte & 15u) : (byte >> 4);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) weights[32 * b + e] = (float)((int)q - 8) * d;
        }
    }
}
