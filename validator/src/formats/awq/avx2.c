/* AVX2 unpacker of AWQ GEMM qweight/qzeros (PERFORMANCE.md 3.4). Same rules as kernels/fast/stream_avx2.c: target attributes, run only after the
 * CPU reported AVX2, BMI2 and F16C (kernels/simd.c), any alignment, never a byte outside the stated sizes. */
#include "kernels.h"

#ifdef PC_HAVE_X86_KERNELS

#include "kernels/fast/avx2_inline.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------
 * AWQ GEMM: each row is N/8 whole words, so the tensor is one nibble stream; slot i of a word holds
 * column 8c + ORDER[i] (ORDER = 0,2,4,6,1,3,5,7). Undo the interleave in-register: stream order
 * nibbles, then one vpshufb per 32 codes puts slot INV[j] = 0,4,1,5,2,6,3,7 at column j.
 * --------------------------------------------------------------------------------------------- */

AVX2_FN void pc_awq_unpack_avx2(const uint8_t *src, size_t rows, size_t N, uint8_t *out)
{
    const __m256i inv = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
                                         0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    size_t count = rows * N, i = 0;
    __m256i a, c;
    for (; i + 64 <= count; i += 64) {
        nibble_pair(src + i / 2, &a, &c);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_shuffle_epi8(a, inv));
        _mm256_storeu_si256((__m256i *)(out + i + 32), _mm256_shuffle_epi8(c, inv));
    }
    if (i < count) { /* N % 8 == 0, so the tail is whole words: bounce them */
        uint8_t tin[32] = {0}, tout[64];
        memcpy(tin, src + i / 2, (count - i) / 2);
        nibble_pair(tin, &a, &c);
        _mm256_storeu_si256((__m256i *)tout, _mm256_shuffle_epi8(a, inv));
        _mm256_storeu_si256((__m256i *)(tout + 32), _mm256_shuffle_epi8(c, inv));
        memcpy(out + i, tout, count - i);
    }
}


#endif /* PC_HAVE_X86_KERNELS */
