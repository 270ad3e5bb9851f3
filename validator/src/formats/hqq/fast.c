/* HQQ fast path, portable: one pass per packed row, every slot of a unit written in turn (plain
 * loops for the auto-vectoriser; AVX2 in avx2.c); the dequantisation rounds into T by bit manipulation. */
#include "kernels.h"
#include "kernels/fast/nt.h"
#include "kernels/fast/round.h"

static void unpack_u8(const uint8_t *restrict src, unsigned b, size_t R, size_t C, uint8_t *restrict codes)
{
    size_t P = R / (8 / b);
    unsigned S = 8 / b, mask = (1u << b) - 1;
    for (unsigned j = 0; j < S; j++) {
        unsigned shift = 8 - b * (j + 1);
        uint8_t *o = codes + (size_t)j * P * C;
        for (size_t i = 0; i < P * C; i++) o[i] = (uint8_t)((src[i] >> shift) & mask);
    }
}

static void unpack_3bit(const uint8_t *restrict src, size_t R, size_t C, uint8_t *restrict codes)
{
    size_t P = (R + 9) / 10;
    for (unsigned j = 0; j < 10; j++) {
        unsigned shift = 27 - 3 * j;
        size_t rows = R > j * P ? R - j * P : 0;
        if (rows > P) rows = P;
        uint8_t *o = codes + (size_t)j * P * C;
        for (size_t i = 0; i < rows * C; i++) o[i] = (uint8_t)((pc_load_le32(src + 4 * i) >> shift) & 7u);
    }
}

void pc_hqq_unpack_scalar(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    if (b == 3) unpack_3bit(src, R, C, codes);
    else unpack_u8(src, b, R, C, codes);
}

void pc_hqq_unpack_fast(const uint8_t *src, unsigned b, size_t R, size_t C, uint8_t *codes)
{
    PC_PICK(pc_hqq_unpack_scalar, pc_hqq_unpack_avx2)(src, b, R, C, codes);
}

/* One row of C codes against its zero and scale (axis 1: one pair for the row) or the columns'
 * (axis 0), rounded into T after each operation: one plain loop per case for the vectoriser. */
#define HQQ_ROWS(T, RT)                                                                                \
    static void row_##T(const uint8_t *restrict q, size_t C, float z, float s, float *restrict o)      \
    {                                                                                                  \
        for (size_t c = 0; c < C; c++) o[c] = RT(RT((float)q[c] - z) * s);                             \
    }                                                                                                  \
    static void cols_##T(const uint8_t *restrict q, size_t C, const float *restrict z,                 \
                         const float *restrict s, float *restrict o)                                   \
    {                                                                                                  \
        for (size_t c = 0; c < C; c++) o[c] = RT(RT((float)q[c] - z[c]) * s[c]);                       \
    }
static inline float keep_f32(float x) { return x; }
HQQ_ROWS(f32, keep_f32)
HQQ_ROWS(bf16, pc_round_bf16)
HQQ_ROWS(f16, pc_round_f16)

void pc_hqq_dequant_scalar(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                           pc_round_t t, float *out)
{
    for (size_t r = 0; r < R; r++) {
        const uint8_t *q = codes + r * C;
        float *o = out + r * C;
        if (axis == 1) (t == PC_ROUND_F16 ? row_f16 : t == PC_ROUND_BF16 ? row_bf16 : row_f32)(q, C, zero[r], scale[r], o);
        else (t == PC_ROUND_F16 ? cols_f16 : t == PC_ROUND_BF16 ? cols_bf16 : cols_f32)(q, C, zero, scale, o);
    }
}

/* The fast entry: the active set's dequantisation through the streaming tile driver (kernels/fast/nt.h),
 * on whole rows or, for rows longer than the tile, on column windows of one row (axis 0's zeros and
 * scales move with the window). */
typedef struct hqq_job {
    const uint8_t *codes;
    size_t C;
    int axis;
    const float *zero, *scale;
    pc_round_t t;
} hqq_job;

static void hqq_part(const void *ctx, size_t r, size_t nr, size_t c0, size_t nc, float *out)
{
    const hqq_job *j = ctx;
    size_t g = j->axis == 1 ? r : c0;
    const uint8_t *q = j->codes + r * j->C + c0;
    pc_hqq_dequant_fn fn = PC_PICK(pc_hqq_dequant_scalar, pc_hqq_dequant_avx2);
    if (nc == j->C) fn(q, nr, nc, j->axis, j->zero + g, j->scale + g, j->t, out);
    else
        for (size_t i = 0; i < nr; i++, out += nc) fn(q + i * j->C, 1, nc, j->axis, j->zero + g + (j->axis == 1) * i, j->scale + g + (j->axis == 1) * i, j->t, out);
}

void pc_hqq_dequant_fast(const uint8_t *codes, size_t R, size_t C, int axis, const float *zero, const float *scale,
                         pc_round_t t, float *out)
{
    hqq_job j = {codes, C, axis, zero, scale, t};
    pc_f32_streamed(R, C, 8, hqq_part, &j, out);
}
