/* The GGUF block types' fast entry points (kernels/simd.h's convention): the AVX2 path where the
 * type has one, else the portable one. f32 outputs large enough to stream (kernels/fast/nt.h) are
 * decoded a tile of blocks at a time and streamed out; Q4_0 streams from inside its AVX2 kernel. */
#include "kernels.h"

#include "kernels/fast/nt.h"

typedef struct blocks_job {
    pc_block_fn fn;
    const uint8_t *src;
    size_t bytes, elems; /* per block */
    uint8_t *codes;
} blocks_job;

/* Blocks [r, r + nr): the codes straight to their place, the weights to the tile. */
static void blocks_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *tile)
{
    const blocks_job *j = ctx;
    (void)c0, (void)nc;
    j->fn(j->src + r * j->bytes, nr, j->codes ? j->codes + r * j->elems : NULL, tile);
}

static void decode_blocks(pc_block_fn fn, size_t bytes, size_t elems, const uint8_t *src, size_t nblocks, uint8_t *codes,
                          float *weights)
{
    if (!weights) { fn(src, nblocks, codes, NULL); return; }
    blocks_job j = {fn, src, bytes, elems, codes};
    pc_f32_streamed(nblocks, elems, elems, blocks_part, &j, weights);
}

#define BLOCK_PICK(type, elems, bytes)                                                                               \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)                 \
    {                                                                                                                \
        decode_blocks(PC_PICK(pc_##type##_decode_scalar, pc_##type##_decode_avx2), bytes, elems, src, nblocks, codes, \
                      weights);                                                                                      \
    }
/* A type whose avx512 set has its own kernel (avx512_grid.c). */
#define BLOCK_PICK3(type, elems, bytes)                                                                                   \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)                     \
    {                                                                                                                    \
        decode_blocks(PC_PICK3(pc_##type##_decode_scalar, pc_##type##_decode_avx2, pc_##type##_decode_avx512), bytes, \
                      elems, src, nblocks, codes, weights);                                                             \
    }
#define BLOCK_PORTABLE(type, elems, bytes)                                                           \
    void pc_##type##_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights) \
    {                                                                                                \
        decode_blocks(pc_##type##_decode_scalar, bytes, elems, src, nblocks, codes, weights);        \
    }

void pc_q4_0_decode_fast(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    pc_block_fn fn = PC_PICK(pc_q4_0_decode_scalar, pc_q4_0_decode_avx2);
    if (fn == pc_q4_0_decode_scalar) decode_blocks(fn, 18, 32, src, nblocks, codes, weights);
    else fn(src, nblocks, codes, weights); /* streams by itself */
}

/* Elements and bytes per block: ggml's type traits (ggml-common.h), as kernels.h states them. */
BLOCK_PICK(q8_0, 32, 34)
BLOCK_PICK(q4_1, 32, 20)
BLOCK_PICK(q5_0, 32, 22)
BLOCK_PICK(q5_1, 32, 24)
BLOCK_PICK(q2_k, 256, 84)
BLOCK_PICK(q3_k, 256, 110)
BLOCK_PICK(q4_k, 256, 144)
BLOCK_PICK(q5_k, 256, 176)
BLOCK_PICK(q6_k, 256, 210)
BLOCK_PICK(iq4_nl, 32, 18)
BLOCK_PICK(iq4_xs, 256, 136)
BLOCK_PICK(mxfp4, 32, 17)
BLOCK_PICK(tq1_0, 256, 54)
BLOCK_PICK(tq2_0, 256, 66)
BLOCK_PICK(gguf_nvfp4, 64, 36)
BLOCK_PICK(q1_0, 128, 18)
BLOCK_PICK(q2_0, 64, 18)
BLOCK_PICK3(iq2_xxs, 256, 66)
BLOCK_PICK3(iq2_xs, 256, 74)
BLOCK_PICK3(iq2_s, 256, 82)
BLOCK_PICK3(iq3_xxs, 256, 98)
BLOCK_PICK3(iq3_s, 256, 110)
BLOCK_PICK(iq1_s, 256, 50)
BLOCK_PICK(iq1_m, 256, 56)
