/* bitsandbytes 4-bit oracle (FORMATS-2.md E), written literally: element i is nibble i of the byte
 * stream, the even one high; each weight is the codebook value times its block's absmax. */
#include "kernels.h"

/* The f32 values of bitsandbytes.functional.get_4bit_type (0.50.2), as the library builds them and
 * saves them in quant_map: FP4 code 8 is +0.0 (see kernels.h). */
static const float k_nf4[16] = {
    -1.0f, -0x1.647362p-1f, -0x1.0cd66p-1f, -0x1.94654p-2f, -0x1.23449ap-2f, -0x1.7a6a7ep-3f, -0x1.74f0e2p-4f, 0.0f,
    0x1.45f5fep-4f, 0x1.4995c6p-3f, 0x1.f809bap-3f, 0x1.5a0674p-2f, 0x1.c3497p-2f, 0x1.200f56p-1f, 0x1.722766p-1f, 1.0f,
};
static const float k_fp4[16] = {
    0.0f, 0x1.555556p-8f, 0x1.555556p-1f, 1.0f, 0x1.555556p-2f, 0.5f, 0x1.555556p-3f, 0.25f,
    0.0f, -0x1.555556p-8f, -0x1.555556p-1f, -1.0f, -0x1.555556p-2f, -0.5f, -0x1.555556p-3f, -0.25f,
};

const float *pc_bnb4_table(bool fp4) { return fp4 ? k_fp4 : k_nf4; }

PC_ORACLE_FN void pc_bnb4_unpack_ref(const uint8_t *src, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t byte = src[i / 2];
        out[i] = i % 2 == 0 ? (uint8_t)(byte >> 4) : (uint8_t)(byte & 15);
    }
}

PC_ORACLE_FN void pc_bnb4_dequant_ref(const uint8_t *codes, size_t n, const float *table, const float *absmax, size_t blocksize,
                                      float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = table[codes[i] & 15] * absmax[i / blocksize];
}
