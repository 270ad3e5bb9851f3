/* GPTQ and AWQ GEMM unpackers: worked vectors (FORMATS.md 5.8, 6.5), the seed's probes (patterned,
 * random, all-max) through an independent packer written here from the seed article, and property
 * tests: the fast path equals the oracle on random shapes and random words. */
#include "kernels/kernels.h"
#include "formats/awq/kernels.h"
#include "formats/bnb/kernels.h"
#include "formats/gguf/kernels.h"
#include "formats/gptq/kernels.h"
#include "formats/mlx/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"


static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd32(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The seed's pack_bits, per GPTQ column: codes q[K, N] -> words [K*b/32, N] (little-endian bytes). */
static void pack_gptq(const uint8_t *q, unsigned b, size_t K, size_t N, uint8_t *words)
{
    size_t rows = K * b / 32;
    memset(words, 0, rows * N * 4);
    for (size_t n = 0; n < N; n++)
        for (size_t i = 0; i < K; i++) {
            size_t w = i * b / 32, off = i * b % 32;
            uint8_t *p = words + (w * N + n) * 4;
            put32(p, get32(p) | (uint32_t)((uint64_t)q[i * N + n] << off));
            if (off + b > 32) { /* value straddles two words */
                uint8_t *p2 = words + ((w + 1) * N + n) * 4;
                put32(p2, get32(p2) | (uint32_t)(q[i * N + n] >> (32 - off)));
            }
        }
}

/* The seed's pack_awq_4bit: codes q[rows, N] -> words [rows, N/8], slot i holds column 8c + ORDER[i]. */
static void pack_awq(const uint8_t *q, size_t rows, size_t N, uint8_t *words)
{
    static const unsigned order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < N / 8; c++) {
            uint32_t w = 0;
            for (unsigned i = 0; i < 8; i++) w |= (uint32_t)q[r * N + 8 * c + order[i]] << (4 * i);
            put32(words + (r * (N / 8) + c) * 4, w);
        }
}

static void worked_vectors(void)
{
    struct { unsigned b; uint32_t w[3]; unsigned nwords; } v[] = {
        {4, {0x76543210u}, 1}, {2, {0xE4E4E4E4u}, 1}, {8, {0x04030201u}, 1},
        {3, {0x88FAC688u, 0xC688FAC6u, 0xFAC688FAu}, 3},
    };
    for (size_t t = 0; t < sizeof v / sizeof *v; t++) {
        unsigned b = v[t].b;
        size_t K = 32u * v[t].nwords / b; /* one column: the words are its stream */
        uint8_t src[12], ref[32], fast[32];
        for (unsigned i = 0; i < v[t].nwords; i++) put32(src + 4 * i, v[t].w[i]);
        pc_gptq_unpack_ref(src, b, K, 1, ref);
        pc_gptq_unpack_fast(src, b, K, 1, fast);
        for (size_t k = 0; k < K; k++) {
            unsigned want = b == 4 ? (unsigned)k : b == 2 ? (unsigned)(k % 4) : b == 8 ? (unsigned)k + 1 : (unsigned)(k % 8);
            CHECK(ref[k] == want && fast[k] == want, "gptq %u-bit worked vector field %zu: ref %u fast %u want %u", b, k, ref[k], fast[k], want);
        }
    }
    /* Symmetric zero patterns (qzeros rows are plain LE streams): v1 7 / v2 8 at 4 bits; 3-bit v2 4 / v1 3. */
    uint8_t z[32], src[12];
    put32(src, 0x77777777u);
    pc_stream_unpack_fast(src, 4, 8, z);
    CHECK(z[0] == 7 && z[7] == 7, "4-bit v1 symmetric zero");
    put32(src, 0x24924924u); put32(src + 4, 0x49249249u); put32(src + 8, 0x92492492u);
    pc_stream_unpack_ref(src, 3, 32, z);
    int all4 = 1;
    for (int i = 0; i < 32; i++) all4 &= z[i] == 4;
    CHECK(all4, "3-bit v2 symmetric zero pattern decodes to 4 everywhere");
    /* AWQ: columns 0..7 holding 0..7 pack to 0x75316420; a single column c of 15 is 0xF << 4*REV[c]. */
    static const unsigned rev[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    uint8_t q[8], out[8], w[4];
    for (unsigned i = 0; i < 8; i++) q[i] = (uint8_t)i;
    pack_awq(q, 1, 8, w);
    CHECK(get32(w) == 0x75316420u, "awq pack of 0..7 is 0x75316420 (got %08x)", get32(w));
    pc_awq_unpack_ref(w, 1, 8, out);
    CHECK(!memcmp(out, q, 8), "awq oracle undoes the interleave");
    pc_awq_unpack_fast(w, 1, 8, out);
    CHECK(!memcmp(out, q, 8), "awq fast undoes the interleave");
    for (unsigned c = 0; c < 8; c++) {
        put32(w, 0xFu << (4 * rev[c]));
        pc_awq_unpack_fast(w, 1, 8, out);
        uint8_t ref[8];
        pc_awq_unpack_ref(w, 1, 8, ref);
        int ok = 1;
        for (unsigned j = 0; j < 8; j++) ok &= out[j] == (j == c ? 15 : 0) && ref[j] == out[j];
        CHECK(ok, "awq single column %u", c);
    }
}

/* The seed's probes through the independent packers, both unpackers. */
static void probes(void)
{
    const size_t K = 256, N = 64;
    uint8_t *q = malloc(K * N), *words = malloc(K * N), *ref = malloc(K * N), *fast = malloc(K * N);
    const unsigned widths[] = {2, 3, 4, 8};
    for (int probe = 0; probe < 3; probe++)
        for (size_t wi = 0; wi < 4; wi++) {
            unsigned b = widths[wi], maxq = (1u << b) - 1;
            for (size_t k = 0; k < K; k++)
                for (size_t n = 0; n < N; n++)
                    q[k * N + n] = (uint8_t)(probe == 0 ? (k * 7 + n * 3) % (maxq + 1) : probe == 1 ? rnd32() & maxq : maxq);
            pack_gptq(q, b, K, N, words);
            if (probe == 2) CHECK(get32(words) == 0xFFFFFFFFu, "all-max probe fills the word, sign bit included");
            pc_gptq_unpack_ref(words, b, K, N, ref);
            pc_gptq_unpack_fast(words, b, K, N, fast);
            CHECK(!memcmp(ref, q, K * N), "gptq oracle round trip, %u bits, probe %d", b, probe);
            CHECK(!memcmp(fast, q, K * N), "gptq fast round trip, %u bits, probe %d", b, probe);
            if (b != 4) continue;
            pack_awq(q, K, N, words);
            pc_awq_unpack_ref(words, K, N, ref);
            pc_awq_unpack_fast(words, K, N, fast);
            CHECK(!memcmp(ref, q, K * N), "awq oracle round trip, probe %d", probe);
            CHECK(!memcmp(fast, q, K * N), "awq fast round trip, probe %d", probe);
        }
    free(q); free(words); free(ref); free(fast);
}

/* Property: on random shapes and random words the fast paths equal the oracles. */
static void property(void)
{
    const unsigned widths[] = {2, 3, 4, 8};
    for (int iter = 0; iter < 300; iter++) {
        unsigned b = widths[rnd32() % 4];
        size_t K = 32 * (1 + rnd32() % 6), N = 1 + rnd32() % 70, rows = K * b / 32;
        size_t nb = rows * N * 4;
        uint8_t *src = malloc(nb), *ref = malloc(K * N), *fast = malloc(K * N);
        for (size_t i = 0; i < nb; i++) src[i] = (uint8_t)rnd32();
        pc_gptq_unpack_ref(src, b, K, N, ref);
        pc_gptq_unpack_fast(src, b, K, N, fast);
        size_t diff = 0;
        while (diff < K * N && ref[diff] == fast[diff]) diff++;
        CHECK(diff == K * N, "gptq %u-bit K=%zu N=%zu: fast differs from the oracle at %zu", b, K, N, diff);
        free(src); free(ref); free(fast);

        size_t ar = 1 + rnd32() % 40, an = 8 * (1 + rnd32() % 12);
        uint8_t *as = malloc(ar * an / 2), *aref = malloc(ar * an), *afast = malloc(ar * an);
        for (size_t i = 0; i < ar * an / 2; i++) as[i] = (uint8_t)rnd32();
        pc_awq_unpack_ref(as, ar, an, aref);
        pc_awq_unpack_fast(as, ar, an, afast);
        CHECK(!memcmp(aref, afast, ar * an), "awq rows=%zu N=%zu: fast differs from the oracle", ar, an);
        free(as); free(aref); free(afast);
    }
}

int main(void)
{
    worked_vectors();
    probes();
    property();
    return test_finish();
}
