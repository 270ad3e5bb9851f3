/* bitsandbytes 4-bit and LLM.int8: the oracle and the fast unpack/dequantize held equal (odd and even element
 * counts, every blocksize, partial last blocks), the nibble order and the FP4 table pinned, and the
 * BNB-006 limit on a sparse file. The library-written cases live in fixtures/bnb. */
#include "core/util.h"
#include "kernels.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void) { return test_xorshift(&g_rng); }

/* Every kernel set this CPU runs against the oracle: odd and even n, every blocksize bitsandbytes
 * takes and odd ones (vector tails inside a block), packed bytes at +ms, codes and outputs at +md,
 * exactly sized buffers; and one case past the non-temporal threshold. */
static void one_case(size_t n, size_t bs, bool fp4, size_t ms, size_t md, const char *impl)
{
    size_t nb = (n + bs - 1) / bs, nbytes = (n + 1) / 2;
    uint8_t *sb = malloc(ms + nbytes), *c1 = malloc(n), *cb = malloc(md + n);
    float *am = malloc(nb * 4), *w1 = malloc(n * 4), *wb = malloc((md + n) * 4);
    uint8_t *src = sb + ms, *c2 = cb + md;
    float *w2 = wb + md;
    for (size_t i = 0; i < nbytes; i++) src[i] = (uint8_t)rnd();
    for (size_t j = 0; j < nb; j++) am[j] = (float)(rnd() % 100000) / 997.0f * (rnd() % 2 ? 1.0f : 0x1p-130f);
    pc_bnb4_unpack_ref(src, n, c1);
    pc_bnb4_unpack_fast(src, n, c2);
    CHECK(!memcmp(c1, c2, n), "%s: unpack n=%zu src+%zu differs", impl, n, ms);
    CHECK(c1[0] == src[0] >> 4, "element 0 is the high nibble");
    const float *t = pc_bnb4_table(fp4);
    pc_bnb4_dequant_ref(c1, n, t, am, bs, w1);
    pc_bnb4_dequant_fast(c2, n, t, am, bs, w2);
    CHECK(!memcmp(w1, w2, n * 4), "%s: dequant n=%zu bs=%zu %s out+%zu differs", impl, n, bs, fp4 ? "fp4" : "nf4", md);
    /* codes with bits above 3 set: both read code & 15 */
    for (size_t i = 0; i < n; i++) c1[i] = c2[i] = (uint8_t)rnd();
    pc_bnb4_dequant_ref(c1, n, t, am, bs, w1);
    pc_bnb4_dequant_fast(c2, n, t, am, bs, w2);
    CHECK(!memcmp(w1, w2, n * 4), "%s: dequant of wide codes n=%zu differs", impl, n);
    free(sb); free(c1); free(cb); free(am); free(w1); free(wb);
}

static void oracle_vs_fast(void)
{
    static const size_t bss[] = {32, 64, 128, 256, 512, 1024, 2048, 4096, 1, 7, 9, 24};
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int iter = 0; iter < 300; iter++)
            one_case(1 + rnd() % 5000, bss[rnd() % 12], iter % 2, rnd() % 32, rnd() % 8, impl);
        one_case(1u << 19, 64, false, 0, 0, impl); /* 2 MiB of f32: streamed stores */
        one_case((1u << 19) + 3, 64, true, 1, 1, impl);
    }
    pc_kernels_reset();
}

static void tables(void)
{
    const float *fp4 = pc_bnb4_table(true), *nf4 = pc_bnb4_table(false);
    CHECK(fp4[1] == (float)(1.0 / 192) && fp4[2] == (float)(2.0 / 3) && fp4[6] == (float)(1.0 / 6), "FP4 is bitsandbytes' table, not E2M1");
    CHECK(fp4[8] == 0.0f && !signbit(fp4[8]) && signbit(fp4[9]), "FP4 code 8 is +0.0, 9..15 negative");
    CHECK(nf4[0] == -1.0f && nf4[7] == 0.0f && nf4[15] == 1.0f, "NF4 ends and zero");
    for (int k = 1; k < 16; k++) CHECK(nf4[k] > nf4[k - 1], "NF4 ascending at %d", k);
}

/* A module of 2^31 elements (1 GiB of packed bytes, sparse): BNB-006 before any data read. */
static void limit_sparse(void)
{
    char dir[256], p[512], cp[512];
    test_tmpdir(dir, sizeof dir, "bnb");
    const char *js = "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": [65536, 32768]}";
    size_t jl = strlen(js);
    uint64_t n = 1ull << 31, wb = n / 2, ab = n / 64 * 4;
    char hdr[1024];
    int h = snprintf(hdr, sizeof hdr,
                     "{\"m.weight\":{\"dtype\":\"U8\",\"shape\":[%llu,1],\"data_offsets\":[%zu,%llu]},"
                     "\"m.weight.absmax\":{\"dtype\":\"F32\",\"shape\":[%llu],\"data_offsets\":[%llu,%llu]},"
                     "\"m.weight.quant_map\":{\"dtype\":\"F32\",\"shape\":[16],\"data_offsets\":[%llu,%llu]},"
                     "\"m.weight.quant_state.bitsandbytes__nf4\":{\"dtype\":\"U8\",\"shape\":[%zu],\"data_offsets\":[0,%zu]}}",
                     (unsigned long long)wb, jl, (unsigned long long)(jl + wb), (unsigned long long)(n / 64),
                     (unsigned long long)(jl + wb), (unsigned long long)(jl + wb + ab), (unsigned long long)(jl + wb + ab),
                     (unsigned long long)(jl + wb + ab + 64), jl, jl);
    while (h % 8) hdr[h++] = ' ';
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    uint8_t len[8] = {(uint8_t)h, (uint8_t)(h >> 8), 0, 0, 0, 0, 0, 0};
    bool ok = fd >= 0 && write(fd, len, 8) == 8 && write(fd, hdr, (size_t)h) == h && write(fd, js, jl) == (ssize_t)jl &&
              !ftruncate(fd, (off_t)(8 + (uint64_t)h + jl + wb + ab + 64));
    if (fd >= 0) close(fd);
    snprintf(cp, sizeof cp, "%s/config.json", dir);
    FILE *f = fopen(cp, "w");
    if (f) { fputs("{\"quantization_config\": {\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true}}\n", f); fclose(f); }
    CHECK(ok && f, "write the sparse checkpoint");
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    CHECK(in && pc_rule_status(&cx, pc_rule_find("BNB-006")) == PC_STATUS_FAIL, "BNB-006 fails on a 2^31-element module");
    CHECK(in && pc_rule_status(&cx, pc_rule_find("BNB-003")) == PC_STATUS_PASS, "the tensors agree with the state");
    pc_input_free(in);
    pc_ctx_free(&cx);
    unlink(p);
    unlink(cp);
    rmdir(dir);
}

/* LLM.int8: fast vs oracle on every kernel set, random shapes (rows longer and shorter than the
 * fast path's table threshold), misaligned buffers, every int8 byte, SCB from 0 to huge and
 * subnormal; and the formula pinned on worked values (two f32 roundings, q * SCB first). */
static void int8_case(size_t rows, size_t cols, size_t ms, size_t md, const char *impl)
{
    size_t n = rows * cols;
    uint8_t *sb = malloc(ms + n + 1), *c1 = malloc(n + 1), *cb = malloc(md + n + 1);
    float *scb = malloc(rows * 4 + 4), *w1 = malloc(n * 4 + 4), *wb = malloc((md + n) * 4 + 4);
    uint8_t *src = sb + ms, *c2 = cb + md;
    float *w2 = wb + md;
    for (size_t i = 0; i < n; i++) src[i] = (uint8_t)rnd();
    for (size_t r = 0; r < rows; r++)
        scb[r] = r % 7 == 0 ? 0.0f : (float)(rnd() % 1000000) / 977.0f * (r % 5 == 1 ? 0x1p-135f : r % 5 == 2 ? 0x1p100f : 1.0f);
    pc_bnb8_dequant_ref(src, rows, cols, scb, w1);
    pc_bnb8_dequant_fast(src, rows, cols, scb, w2);
    CHECK(!memcmp(w1, w2, n * 4), "%s: int8 dequant %zux%zu src+%zu out+%zu differs", impl, rows, cols, ms, md);
    pc_bnb8_codes_ref(src, n, c1);
    pc_bnb8_codes_fast(src, n, c2);
    CHECK(!memcmp(c1, c2, n), "%s: int8 codes n=%zu differ", impl, n);
    free(sb); free(c1); free(cb); free(scb); free(w1); free(wb);
}

static void int8_kernels(void)
{
    for (size_t k = 0; pc_kernels_available(k); k++) {
        const char *impl = pc_kernels_available(k);
        CHECK(pc_kernels_select(impl) == 0, "select %s", impl);
        for (int iter = 0; iter < 200; iter++)
            int8_case(1 + rnd() % 40, 1 + rnd() % (iter % 2 ? 3000 : 200), rnd() % 32, rnd() % 8, impl);
        int8_case(64, 4096, 1, 3, impl);
    }
    pc_kernels_reset();
    /* q = -128 (byte 0x80) is code 0, q = 127 code 255, q = 0 code 128 */
    uint8_t src[4] = {0x80, 0x7f, 0x00, 0xff}, codes[4];
    pc_bnb8_codes_ref(src, 4, codes);
    CHECK(codes[0] == 0 && codes[1] == 255 && codes[2] == 128 && codes[3] == 127, "codes are q + 128");
    /* w = (q * SCB) * (1/127 as f32): q * SCB rounds first, so the product with 1/127 differs from
     * q * (SCB / 127) for some SCB; 127 * SCB / 127 recovers SCB only up to those two roundings */
    float scb = 0x1.8p+3f, w[4];
    pc_bnb8_dequant_ref(src, 1, 4, &scb, w);
    volatile float a = 127.0f * scb, c = PC_BNB8_RECIP;
    CHECK(w[1] == a * c && w[2] == 0.0f && w[0] == (-128.0f * scb) * c, "w = f32(f32(q * SCB) * 0x1.020408p-7f)");
    CHECK(PC_BNB8_RECIP == (float)7.874015718698502e-3 && (double)PC_BNB8_RECIP == 7.874015718698502e-3,
          "bitsandbytes' constant is exactly an f32");
}

int main(void)
{
    oracle_vs_fast();
    int8_kernels();
    tables();
    limit_sparse();
    return test_finish();
}
