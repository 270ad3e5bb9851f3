/* pc_sort (core/util.c) against qsort: arrays of 0-600 records made of 1 to 80 sorted runs (merged up
 * to PC_SORT_MAX_RUNS, qsort beyond), with repeated keys, for two record sizes. Each result must be
 * ordered and hold the same records (a payload field tells records of equal keys apart). */
#include "core/util.h"

#include <stdbool.h>
#include "testlib.h"

typedef struct rec {
    uint32_t key, id;
    char pad[16]; /* a record wider than a word, as the tensors and index entries are */
} rec;

static int cmp_rec(const void *a, const void *b)
{
    uint32_t x = ((const rec *)a)->key, y = ((const rec *)b)->key;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_rec_full(const void *a, const void *b)
{
    int c = cmp_rec(a, b);
    return c ? c : cmp_u32(&((const rec *)a)->id, &((const rec *)b)->id);
}

/* n records in `runs` ascending runs of random keys below `range`. */
static void make(rec *v, size_t n, size_t runs, uint32_t range, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) v[i] = (rec){test_xorshift(rng) % range, (uint32_t)i, {0}};
    for (size_t r = 0; r < runs; r++) {
        size_t a = n * r / runs, b = n * (r + 1) / runs;
        qsort(v + a, b - a, sizeof *v, cmp_rec);
    }
}

int main(void)
{
    static rec v[600], w[600];
    static uint32_t k[600], kw[600];
    uint64_t rng = 0x5eed;
    size_t sizes[] = {0, 1, 2, 3, 17, 64, 65, 200, 600};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        for (size_t runs = 1; runs <= 80 && runs <= (n ? n : 1); runs += runs < 8 ? 1 : 9) {
            for (uint32_t range = 3; range <= 1000000; range *= 100) {
                make(v, n, runs, range, &rng);
                memcpy(w, v, n * sizeof *v);
                pc_sort(v, n, sizeof *v, cmp_rec);
                bool ordered = true;
                for (size_t i = 1; i < n; i++) ordered = ordered && cmp_rec(&v[i - 1], &v[i]) <= 0;
                CHECK(ordered, "n %zu, %zu runs, keys below %u: ordered", n, runs, range);
                qsort(v, n, sizeof *v, cmp_rec_full); /* same records: compare as (key, id) sets */
                qsort(w, n, sizeof *w, cmp_rec_full);
                CHECK(!n || !memcmp(v, w, n * sizeof *v), "n %zu, %zu runs, keys below %u: the same records", n, runs, range);
                for (size_t i = 0; i < n; i++) k[i] = test_xorshift(&rng) % range;
                for (size_t r = 0; r < runs; r++) qsort(k + n * r / runs, n * (r + 1) / runs - n * r / runs, 4, cmp_u32);
                memcpy(kw, k, n * 4);
                pc_sort(k, n, 4, cmp_u32);
                qsort(kw, n, 4, cmp_u32);
                CHECK(!n || !memcmp(k, kw, n * 4), "n %zu, %zu runs: u32 keys as qsort orders them", n, runs);
            }
        }
    }
    pc_sort(NULL, 0, sizeof(rec), cmp_rec); /* an empty, NULL array is accepted */
    CHECK(true, "NULL, 0");
    return test_finish();
}
