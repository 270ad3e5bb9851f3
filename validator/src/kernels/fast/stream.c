/* Scalar fast unpackers (the fallback on CPUs without AVX2, and everywhere off x86): a 64-bit
 * window over the stream, refilled a byte at a time. The SIMD versions live in *_avx2.c; which one
 * runs is decided once in kernels/dispatch.c. */
#include "kernel_set.h"

#include <string.h>

static void stream_unpack_scalar(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    const uint64_t mask = (1u << b) - 1;
    size_t in = 0, i = 0;
    uint64_t acc = 0;
    unsigned have = 0;
    if (b == 8) { memcpy(out, src, count); return; }
    if (b == 4) {
        for (; i + 2 <= count; i += 2, in++) {
            out[i] = src[in] & 15;
            out[i + 1] = src[in] >> 4;
        }
        if (i < count) out[i] = src[in] & 15;
        return;
    }
    for (; i < count; i++) {
        while (have < b) {
            acc |= (uint64_t)src[in++] << have;
            have += 8;
        }
        out[i] = (uint8_t)(acc & mask);
        acc >>= b;
        have -= b;
    }
}

static void wordalign_unpack_scalar(const uint8_t *src, unsigned b, size_t count, uint8_t *out)
{
    const uint32_t mask = (1u << b) - 1;
    const unsigned pf = 32 / b;
    size_t i = 0;
    for (const uint8_t *w = src; i < count; w += 4) {
        uint32_t word = (uint32_t)w[0] | ((uint32_t)w[1] << 8) | ((uint32_t)w[2] << 16) | ((uint32_t)w[3] << 24);
        for (unsigned j = 0; j < pf && i < count; j++, i++) {
            out[i] = (uint8_t)(word & mask);
            word >>= b;
        }
    }
}

const pc_kernel_set pc_kernel_set_scalar = {
    .name = "scalar",
    .stream = stream_unpack_scalar,
    .wordalign = wordalign_unpack_scalar,
};
