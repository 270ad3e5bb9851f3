/* AVX2 unpacker of HQQ's byte packings (1, 2, 4, 8 bits; 3-bit words take the portable path): slot j
 * of every byte is one 16-bit shift and a byte mask per 32 bytes. Same rules as
 * kernels/fast/stream_avx2.c: target attributes, run only after the CPU reported AVX2 (kernels/simd.c),
 * any alignment, never a byte outside the stated sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

static AVX2_FN void slot_run(const uint8_t *src, size_t n, unsigned shift, unsigned mask, uint8_t *out)
{
    const __m256i m = _mm256_set1_epi8((char)mask);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_and_si256(_mm256_srl_epi16(v, sh), m));
    }
    for (; i < n; i++) out[i] = (uint8_t)((src[i] >> shift) & mask);
}

AVX2_FN void pc_hqq_unpack_avx2(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    if (b == 3) { pc_hqq_unpack_scalar(src, b, R, C, codes); return; }
    unsigned S = 8 / b;
    size_t P = R / S;
    for (unsigned j = 0; j < S; j++) slot_run(src, P * C, 8 - b * (j + 1), (1u << b) - 1, codes + (size_t)j * P * C);
}

#endif /* PC_HAVE_X86_KERNELS */
