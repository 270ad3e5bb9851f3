/* pc_input_find_part and pc_input_prefixed against a linear scan, on sorted names built to hit the
 * boundaries: a prefix that is itself a tensor, names that differ only after the prefix, '.' (0x2e)
 * next to '-' (0x2d) and '/' (0x2f) in the sort order, empty input. Each lookup runs twice: by
 * binary search (no name index) and through the hash index (container/name_index.h); then names
 * built to collide past the probe limit, which the index must refuse, and a name too long to join. */
#include "packcheck_internal.h"
#include "container/name_index.h"
#include "testlib.h"

static int cmp_name(const void *a, const void *b) { return strcmp(((const pc_tensor *)a)->name, ((const pc_tensor *)b)->name); }

static const char *const k_names[] = {
    "a", "a-b", "a.b", "a.b.c", "a.bc", "a/b", "layer.1.q.weight", "layer.1.q.weight_packed", "layer.1.q.weight_scale",
    "layer.1.q", "layer.10.q.weight", "layer.1.qk.weight", "layer.1.q-x", "z", "",
};
enum { N = sizeof k_names / sizeof *k_names };

static const pc_tensor *linear_find(const pc_input *in, const char *prefix, const char *suffix)
{
    char full[128];
    snprintf(full, sizeof full, "%s%s", prefix, suffix);
    for (size_t i = 0; i < in->ntensors; i++)
        if (!strcmp(in->tensors[i].name, full)) return &in->tensors[i];
    return NULL;
}

static size_t linear_count(const pc_input *in, const char *prefix)
{
    size_t n = 0;
    for (size_t i = 0; i < in->ntensors; i++) n += !strncmp(in->tensors[i].name, prefix, strlen(prefix));
    return n;
}

/* Every probe x suffix and every prefix run of `in` against the linear scans. */
static void check_lookups(const pc_input *in, const char *how)
{
    static const char *const probes[] = {"", "a", "a.", "a.b", "layer.1.q", "layer.1.q.", "layer.1.", "layer.10", "zz", "0", NULL};
    static const char *const suffixes[] = {"", ".b", ".weight", ".weight_packed", ".weight_scale", "-b", "/b", ".c", ".x", NULL};
    for (const char *const *p = probes; *p; p++) {
        for (const char *const *s = suffixes; *s; s++) {
            const pc_tensor *got = pc_input_find_part(in, *p, *s), *want = linear_find(in, *p, *s);
            CHECK(got == want, "%s: find_part(\"%s\", \"%s\"): %s, want %s", how, *p, *s, got ? got->name : "NULL", want ? want->name : "NULL");
        }
        size_t first = 0, n = pc_input_prefixed(in, *p, &first);
        CHECK(n == linear_count(in, *p), "%s: prefixed(\"%s\"): %zu, want %zu", how, *p, n, linear_count(in, *p));
        for (size_t i = first; i < first + n; i++) CHECK(!strncmp(in->tensors[i].name, *p, strlen(*p)), "%s: prefixed(\"%s\") holds %s", how, *p, in->tensors[i].name);
    }
    for (size_t i = 0; i < in->ntensors; i++)
        CHECK(pc_input_find(in, in->tensors[i].name) == &in->tensors[i], "%s: find(\"%s\")", how, in->tensors[i].name);
}

/* Names whose hashes share their low 8 bits (one home slot in a 256-slot table, which 170 names
 * get), more of them than the probe limit: a hostile header's worst case. */
static void check_collisions(void)
{
    enum { M = PC_NAME_INDEX_MAX_PROBE + 106 };
    static char names[M][16];
    pc_tensor ts[M];
    memset(ts, 0, sizeof ts);
    size_t m = 0;
    for (unsigned k = 0; m < M && k < 10000000; k++) {
        char nm[16];
        int len = snprintf(nm, sizeof nm, "c%u", k);
        if ((pc_name_hash(nm, (size_t)len) & 255) != 0) continue;
        memcpy(names[m], nm, (size_t)len + 1);
        ts[m].name = names[m];
        m++;
    }
    CHECK(m == M, "found %zu colliding names, want %d", m, (int)M);
    qsort(ts, m, sizeof *ts, cmp_name);
    pc_name_index *ix = pc_name_index_build(ts, m, PC_NAME_INDEX_MAX_PROBE);
    CHECK(!ix, "the index refuses %zu names of one home slot", m);
    pc_name_index_free(ix);
    ix = pc_name_index_build(ts, m, M);
    CHECK(ix != NULL, "with a probe limit above their number the same names are indexed");
    bool searched = false;
    for (size_t i = 0; ix && i < m; i++) CHECK(pc_name_index_find(ix, ts, ts[i].name, "", &searched) == &ts[i] && searched, "colliding %s found", ts[i].name);
    pc_name_index_free(ix);
}

int main(void)
{
    pc_tensor ts[N];
    memset(ts, 0, sizeof ts);
    for (size_t i = 0; i < N; i++) ts[i].name = (char *)k_names[i];
    qsort(ts, N, sizeof *ts, cmp_name);
    pc_input in = {.tensors = ts, .ntensors = N};
    check_lookups(&in, "search");
    in.names = pc_name_index_build(ts, N, PC_NAME_INDEX_MAX_PROBE);
    CHECK(in.names != NULL, "index built");
    check_lookups(&in, "index");
    /* Longer than the index joins (512 bytes): answered by the search, here "absent". */
    char longp[600];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = 0;
    bool searched = true;
    CHECK(!pc_name_index_find(in.names, ts, longp, ".b", &searched) && !searched, "a 600-byte name is left to the search");
    CHECK(!pc_input_find_part(&in, longp, ".b"), "and the search finds nothing");
    pc_name_index_free(in.names);
    check_collisions();
    pc_input empty = {0};
    size_t first = 7;
    CHECK(!pc_input_find_part(&empty, "a", ".b"), "empty input finds nothing");
    CHECK(pc_input_prefixed(&empty, "a", &first) == 0 && first == 0, "empty input: no run");
    CHECK(!pc_name_index_build(ts, 0, PC_NAME_INDEX_MAX_PROBE), "no index of nothing");
    return test_finish();
}
