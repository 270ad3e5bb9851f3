/* ModelOpt INT4 AWQ fast path, portable: one packed row gives two output rows (low nibbles, high
 * nibbles), plain loops for the auto-vectoriser; AVX2 in avx2.c. */
#include "kernels.h"

#include "kernels/fast/nt.h"

void pc_mo_int4_unpack_scalar(const uint8_t *restrict packed, size_t N, size_t K, uint8_t *restrict codes)
{
    for (size_t j = 0; j < N / 2; j++) {
        const uint8_t *p = packed + j * K;
        uint8_t *lo = codes + 2 * j * K, *hi = lo + K;
        for (size_t k = 0; k < K; k++) lo[k] = (uint8_t)(p[k] & 0x0F);
        for (size_t k = 0; k < K; k++) hi[k] = (uint8_t)(p[k] >> 4);
    }
}

/* One output row from one nibble half: q = ((byte << shift) as int8) >> 4 sign-extends the nibble. */
void pc_mo_int4_half_scalar(const uint8_t *restrict p, size_t K, size_t g, unsigned shift, const float *restrict s, float *restrict o)
{
    for (size_t k0 = 0; k0 < K; k0 += g) {
        float sc = s[k0 / g];
        for (size_t k = k0; k < k0 + g; k++) o[k] = (float)((int8_t)(uint8_t)(p[k] << shift) >> 4) * sc;
    }
}

void pc_mo_int4_dequant_scalar(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out)
{
    size_t G = K / g;
    for (size_t j = 0; j < N / 2; j++) {
        pc_mo_int4_half_scalar(packed + j * K, K, g, 4, scale + 2 * j * G, out + 2 * j * K);
        pc_mo_int4_half_scalar(packed + j * K, K, g, 0, scale + (2 * j + 1) * G, out + (2 * j + 1) * K);
    }
}

void pc_mo_int4_unpack_fast(const uint8_t *packed, size_t N, size_t K, uint8_t *codes)
{
    PC_PICK(pc_mo_int4_unpack_scalar, pc_mo_int4_unpack_avx2)(packed, N, K, codes);
}

typedef struct mo_job {
    const uint8_t *packed;
    size_t K, g;
    const float *scale;
} mo_job;

/* Output rows [r, r + nr), columns [c0, c0 + nc) (c0 a multiple of g) into tile: whole row pairs by
 * the pair kernel (each packed byte read once), else row by row from its nibble half. */
static void mo_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *tile)
{
    const mo_job *j = ctx;
    size_t G = j->K / j->g;
    if (r % 2 == 0 && nr % 2 == 0 && nc == j->K) {
        PC_PICK(pc_mo_int4_dequant_scalar, pc_mo_int4_dequant_avx2)(j->packed + r / 2 * j->K, nr, j->K, j->g, j->scale + r * G, tile);
        return;
    }
    for (size_t n = r; n < r + nr; n++, tile += nc)
        PC_PICK(pc_mo_int4_half_scalar, pc_mo_int4_half_avx2)(j->packed + n / 2 * j->K + c0, nc, j->g, n % 2 ? 0 : 4,
                                                               j->scale + n * G + c0 / j->g, tile);
}

/* A DRAM-sized output whose pages are backed streams through a tile (kernels/fast/nt.h). */
void pc_mo_int4_dequant_fast(const uint8_t *packed, size_t N, size_t K, size_t g, const float *scale, float *out)
{
    mo_job j = {packed, K, g, scale};
    pc_f32_streamed(N, K, g, mo_part, &j, out);
}
