/* Oracles: the GGUF legacy block types beside Q4_0 (Q8_0, Q4_1, Q5_0, Q5_1), read literally off
 * ggml's block structs (ggml src/ggml-common.h block_q8_0, block_q4_1, block_q5_0, block_q5_1), one
 * element at a time, in the operation order of ggml's reference dequantize_row_<type>
 * (src/ggml-quants.c): w = f32(x * d) for Q8_0 and Q5_0, w = f32(f32(x * d) + m) for Q4_1 and Q5_1,
 * where x is the integer quant converted to f32 exactly. All fp16 fields are little-endian. */
#include "kernels.h"
#include "../../kernels/oracle/half.h"

static unsigned half_at(const uint8_t *p) { return (unsigned)p[0] | ((unsigned)p[1] << 8); }

/* The 4-bit quant of element e of a 32-element block whose nibbles start at qs: byte e % 16,
 * low nibble for e < 16, high nibble for e >= 16 (the layout of Q4_0, Q4_1, Q5_0, Q5_1). */
static unsigned nibble(const uint8_t *qs, unsigned e) { return e < 16 ? (qs[e] & 15u) : (qs[e - 16] >> 4); }

/* Bit e of the little-endian 32-bit qh field: the fifth bit of element e (Q5_0, Q5_1). */
static unsigned high_bit(const uint8_t *qh, unsigned e) { return (qh[e / 8] >> (e % 8)) & 1u; }

/* block_q8_0: fp16 d, int8 qs[32]. codes = the int8 byte as stored (unsigned); w = f32(qs) * d. */
PC_ORACLE_FN void pc_q8_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 34 * b;
        float d = pc_oracle_half(half_at(block));
        for (unsigned e = 0; e < 32; e++) {
            uint8_t byte = block[2 + e];
            int x = byte < 128 ? (int)byte : (int)byte - 256;
            if (codes) codes[32 * b + e] = byte;
            if (weights) weights[32 * b + e] = (float)x * d;
        }
    }
}

/* block_q4_1: fp16 d, fp16 m, qs[16]. codes = the nibble; w = f32(f32(q) * d) + m. */
PC_ORACLE_FN void pc_q4_1_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 20 * b;
        float d = pc_oracle_half(half_at(block)), m = pc_oracle_half(half_at(block + 2));
        for (unsigned e = 0; e < 32; e++) {
            unsigned q = nibble(block + 4, e);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) {
                float dq = (float)q * d;
                weights[32 * b + e] = dq != dq ? dq : dq + m; /* NaN: the product's (kernels.h) */
            }
        }
    }
}

/* block_q5_0: fp16 d, qh[4], qs[16]. codes = q = nibble | high bit << 4 (0..31);
 * w = f32(q - 16) * d. */
PC_ORACLE_FN void pc_q5_0_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 22 * b;
        float d = pc_oracle_half(half_at(block));
        for (unsigned e = 0; e < 32; e++) {
            unsigned q = nibble(block + 6, e) | (high_bit(block + 2, e) << 4);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) weights[32 * b + e] = (float)((int)q - 16) * d;
        }
    }
}

/* block_q5_1: fp16 d, fp16 m, qh[4], qs[16]. codes = q (0..31); w = f32(f32(q) * d) + m. */
PC_ORACLE_FN void pc_q5_1_decode_ref(const uint8_t *src, size_t nblocks, uint8_t *codes, float *weights)
{
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *block = src + 24 * b;
        float d = pc_oracle_half(half_at(block)), m = pc_oracle_half(half_at(block + 2));
        for (unsigned e = 0; e < 32; e++) {
            unsigned q = nibble(block + 8, e) | (high_bit(block + 4, e) << 4);
            if (codes) codes[32 * b + e] = (uint8_t)q;
            if (weights) {
                float dq = (float)q * d;
                weights[32 * b + e] = dq != dq ? dq : dq + m; /* NaN: the product's (kernels.h) */
            }
        }
    }
}
