/* HQQ oracle, written literally from hqq 0.2.8's BitPack.unpack_* and Quantizer.dequantize: each
 * element found by its row block and slot, each operation rounded into T arithmetically. */
#include "kernels.h"
#include "kernels/oracle/round.h"

PC_ORACLE_FN void pc_hqq_unpack_ref(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    size_t P = pc_hqq_packed_rows(b, R);
    unsigned S = pc_hqq_slots(b), unit = b == 3 ? 4 : 1, top = b == 3 ? 30 : 8;
    for (size_t r = 0; r < R; r++) {
        size_t p = r % P, j = r / P; /* packed row, slot */
        for (size_t c = 0; c < C; c++) {
            const uint8_t *u = src + (p * C + c) * unit;
            uint32_t v = unit == 4 ? (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24 : u[0];
            unsigned shift = top - b * (unsigned)(j + 1);
            codes[r * C + c] = (uint8_t)((v >> shift) & ((1u << b) - 1));
        }
    }
    (void)S;
}

PC_ORACLE_FN void pc_hqq_dequant_ref(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero,
                                     const float *scale, pc_round_t t, float *out)
{
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++) {
            size_t g = axis == 1 ? r : c;
            float d = pc_oracle_round_to((float)codes[r * C + c] - zero[g], t);
            out[r * C + c] = pc_oracle_round_to(d * scale[g], t);
        }
}
