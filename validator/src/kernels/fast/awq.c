/* Fast scalar AWQ GEMM unpacker: one word gives eight codes at fixed shifts. Column 8c + j sits in
 * nibble REV[j], REV = 0,4,1,5,2,6,3,7 (the inverse of the writer's 0,2,4,6,1,3,5,7), i.e. shifts
 * 0,16,4,20,8,24,12,28. Unsigned shifts and a mask: no sign extension from the top slot. */
#include "../kernels.h"

#include <string.h>

static inline uint32_t load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

void pc_awq_unpack_fast(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    const size_t total = rows * (N / 8);
    for (size_t i = 0; i < total; i++) {
        uint32_t w = load_le32(src + 4 * i);
        uint8_t *o = out + 8 * i;
        o[0] = (uint8_t)(w & 15u);
        o[1] = (uint8_t)((w >> 16) & 15u);
        o[2] = (uint8_t)((w >> 4) & 15u);
        o[3] = (uint8_t)((w >> 20) & 15u);
        o[4] = (uint8_t)((w >> 8) & 15u);
        o[5] = (uint8_t)((w >> 24) & 15u);
        o[6] = (uint8_t)((w >> 12) & 15u);
        o[7] = (uint8_t)(w >> 28);
    }
}
