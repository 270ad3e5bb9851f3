/* The GGUF block types' fast entry points (kernels/simd.h's convention): the AVX2 path where the
 * type has one, else the portable one. */
#include "kernels.h"

#define BLOCK_PICK(type)                                                                             \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights) \
    {                                                                                                \
        PC_PICK(pc_##type##_decode_scalar, pc_##type##_decode_avx2)(src, nblocks, codes, weights);   \
    }
#define BLOCK_PORTABLE(type)                                                                         \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights) \
    {                                                                                                \
        pc_##type##_decode_scalar(src, nblocks, codes, weights);                                     \
    }

BLOCK_PICK(q4_0)
BLOCK_PICK(q8_0)
BLOCK_PICK(q4_1)
BLOCK_PICK(q5_0)
BLOCK_PICK(q5_1)
BLOCK_PICK(q2_k)
BLOCK_PICK(q3_k)
BLOCK_PICK(q4_k)
BLOCK_PICK(q5_k)
BLOCK_PICK(q6_k)
BLOCK_PICK(iq4_nl)
BLOCK_PICK(iq4_xs)
BLOCK_PICK(mxfp4)
BLOCK_PICK(tq1_0)
BLOCK_PICK(tq2_0)
BLOCK_PORTABLE(iq2_xxs)
BLOCK_PORTABLE(iq2_xs)
BLOCK_PORTABLE(iq2_s)
BLOCK_PORTABLE(iq3_xxs)
BLOCK_PORTABLE(iq3_s)
BLOCK_PORTABLE(iq1_s)
BLOCK_PORTABLE(iq1_m)
