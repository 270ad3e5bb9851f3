/* Fast scalar Q4_0 decoder: the fp16 scale by bit manipulation, the 16 code bytes split into low
 * and high halves in a local array, and w = f32(q - 8) * d (the contract's single rounding) in
 * loops the compiler can vectorise. */
#include "../../kernels/fast/half.h"
#include "kernels.h"

#include <string.h>

void pc_q4_0_decode_scalar(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++, src += 18) {
        /* Local copies: the compiler may not assume the byte arrays do not alias, and would
         * otherwise keep every loop scalar. */
        uint8_t qs[16], q[32];
        memcpy(qs, src + 2, 16);
        for (int j = 0; j < 16; j++) {
            q[j] = qs[j] & 15u;
            q[j + 16] = qs[j] >> 4;
        }
        if (codes) memcpy(codes + 32 * b, q, 32);
        if (weights) {
            const float d = pc_half_to_f32(pc_le16_at(src));
            float w[32];
            for (int j = 0; j < 32; j++) w[j] = (float)((int)q[j] - 8) * d;
            memcpy(weights + 32 * b, w, sizeof w);
        }
    }
}
