/* Property tests for the bit-stream kernels: the fast unpackers against the oracles for every width
 * b = 1..8, every row length 1..300, several row counts, random and all-ones words, and every
 * misalignment of the source pointer (0..7 bytes). Buffers are sized exactly, so a read past the
 * caller's bound shows up under ASan. The oracles themselves are pinned to the worked vectors that
 * compressed-tensors produced (FORMATS.md 3.8). */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"


static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

typedef enum { FILL_RANDOM, FILL_ONES, FILL_SPARSE } fill_kind;

static void fill(uint8_t *p, size_t n, fill_kind k)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rnd32();
        p[i] = k == FILL_ONES ? 0xFF : k == FILL_SPARSE ? (uint8_t)(r & (r >> 8) & (r >> 16)) : (uint8_t)r;
    }
}

/* One row of `cols` codes in a buffer of exactly `nbytes` bytes placed `mis` bytes into an
 * allocation of exactly mis + nbytes. */
static void one_row(bool legacy, unsigned b, size_t cols, unsigned mis, fill_kind k)
{
    unsigned pf = 32 / b;
    size_t nbytes = legacy ? 4 * ((cols + pf - 1) / pf) : (cols * b + 7) / 8;
    uint8_t *buf = malloc(mis + nbytes), *ref = malloc(cols), *fast = malloc(cols);
    if (!buf || !ref || !fast) { CHECK(0, "out of memory"); goto out; }
    fill(buf + mis, nbytes, k);
    memset(ref, 0xAA, cols);
    memset(fast, 0x55, cols);
    if (legacy) {
        pc_wordalign_unpack_ref(buf + mis, b, cols, ref);
        pc_wordalign_unpack_fast(buf + mis, b, cols, fast);
    } else {
        pc_stream_unpack_ref(buf + mis, b, cols, ref);
        pc_stream_unpack_fast(buf + mis, b, cols, fast);
    }
    size_t first = cols;
    for (size_t i = 0; i < cols && first == cols; i++)
        if (ref[i] != fast[i] || ref[i] >> b) first = i;
    CHECK(first == cols, "%s b=%u cols=%zu mis=%u fill=%d: element %zu oracle %u fast %u",
          legacy ? "legacy" : "dense", b, cols, mis, (int)k, first, ref[first], fast[first]);
out:
    free(buf);
    free(ref);
    free(fast);
}

/* Several rows laid out the way a packed tensor is: each row starts on a fresh 32-bit word. */
static void rows_matrix(bool legacy, unsigned b, size_t cols, size_t rows, unsigned mis)
{
    unsigned pf = 32 / b;
    size_t words = legacy ? (cols + pf - 1) / pf : (cols * b + 31) / 32;
    size_t nbytes = rows * words * 4;
    uint8_t *buf = malloc(mis + nbytes), *ref = malloc(rows * cols), *fast = malloc(rows * cols);
    if (!buf || !ref || !fast) { CHECK(0, "out of memory"); goto out; }
    fill(buf + mis, nbytes, FILL_RANDOM);
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *src = buf + mis + r * words * 4;
        (legacy ? pc_wordalign_unpack_ref : pc_stream_unpack_ref)(src, b, cols, ref + r * cols);
        (legacy ? pc_wordalign_unpack_fast : pc_stream_unpack_fast)(src, b, cols, fast + r * cols);
    }
    CHECK(!memcmp(ref, fast, rows * cols), "%s b=%u cols=%zu rows=%zu mis=%u: matrix differs",
          legacy ? "legacy" : "dense", b, cols, rows, mis);
out:
    free(buf);
    free(ref);
    free(fast);
}

static void le_words(uint8_t *p, const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) p[4 * i + (size_t)k] = (uint8_t)(w[i] >> (8 * k));
}

/* FORMATS.md 3.8, confirmed with compressed-tensors 0.18.0 (dense) and 0.17.1 (legacy). */
static void worked_vectors(void)
{
    uint8_t bytes[16], out[12];
    /* 3-bit row 0: u = 0..7, 0..3 */
    static const uint8_t want3[12] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3};
    const uint32_t dense3[2] = {0x88fac688u, 0x00000006u}, legacy3[2] = {0x08fac688u, 0x0000001au};
    for (int impl = 0; impl < 2; impl++) {
        le_words(bytes, dense3, 2);
        (impl ? pc_stream_unpack_fast : pc_stream_unpack_ref)(bytes, 3, 12, out);
        CHECK(!memcmp(out, want3, 12), "dense 3-bit worked vector (impl %d)", impl);
        le_words(bytes, legacy3, 2);
        (impl ? pc_wordalign_unpack_fast : pc_wordalign_unpack_ref)(bytes, 3, 12, out);
        CHECK(!memcmp(out, want3, 12), "legacy 3-bit worked vector (impl %d)", impl);
        /* The legacy words read as dense give 0.18.0's silent wrong answer. */
        static const uint8_t wrong[12] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 0, 5};
        (impl ? pc_stream_unpack_fast : pc_stream_unpack_ref)(bytes, 3, 12, out);
        CHECK(!memcmp(out, wrong, 12), "legacy read as dense (impl %d)", impl);
    }
    /* 4-bit, 1 row of 12, [-8..3] -> u 0..11 */
    const uint32_t w4[2] = {0x76543210u, 0x0000ba98u};
    le_words(bytes, w4, 2);
    for (int impl = 0; impl < 2; impl++) {
        (impl ? pc_stream_unpack_fast : pc_stream_unpack_ref)(bytes, 4, 12, out);
        bool ok = true;
        for (int i = 0; i < 12; i++) ok &= out[i] == i;
        CHECK(ok, "4-bit worked vector (impl %d)", impl);
    }
    /* 7-bit, one row of 12 from -64: u = 0..11 */
    const uint32_t d7[3] = {0x40608080u, 0x880e1828u, 0x00016284u}, l7[3] = {0x00608080u, 0x00e18284u, 0x01628488u};
    for (int impl = 0; impl < 2; impl++) {
        bool ok = true;
        le_words(bytes, d7, 3);
        (impl ? pc_stream_unpack_fast : pc_stream_unpack_ref)(bytes, 7, 12, out);
        for (int i = 0; i < 12; i++) ok &= out[i] == i;
        le_words(bytes, l7, 3);
        (impl ? pc_wordalign_unpack_fast : pc_wordalign_unpack_ref)(bytes, 7, 12, out);
        for (int i = 0; i < 12; i++) ok &= out[i] == i;
        CHECK(ok, "7-bit worked vectors (impl %d)", impl);
    }
}

int main(void)
{
    worked_vectors();
    for (int legacy = 0; legacy < 2; legacy++)
        for (unsigned b = 1; b <= 8; b++)
            for (size_t cols = 1; cols <= 300; cols++)
                for (unsigned mis = 0; mis < 8; mis++)
                    one_row(legacy, b, cols, mis, (fill_kind)((cols + mis) % 3));
    static const size_t rows[] = {1, 2, 3, 7, 16};
    for (int legacy = 0; legacy < 2; legacy++)
        for (unsigned b = 1; b <= 8; b++)
            for (size_t cols = 1; cols <= 300; cols += 7)
                for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
                    rows_matrix(legacy, b, cols, rows[r], (unsigned)(cols % 8));
    const char *env = getenv("PACKCHECK_KERNELS"); /* the automatic choice is the best this CPU runs */
    CHECK(!strcmp(pc_kernels_name(), env && *env ? env : pc_kernels_available(0)), "kernel set name");
    return test_finish();
}
