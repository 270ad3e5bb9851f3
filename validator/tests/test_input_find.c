/* pc_input_find_part and pc_input_prefixed against a linear scan, on sorted names built to hit the
 * boundaries: a prefix that is itself a tensor, names that differ only after the prefix, '.' (0x2e)
 * next to '-' (0x2d) and '/' (0x2f) in the sort order, empty input. */
#include "packcheck_internal.h"
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

int main(void)
{
    pc_tensor ts[N];
    memset(ts, 0, sizeof ts);
    for (size_t i = 0; i < N; i++) ts[i].name = (char *)k_names[i];
    qsort(ts, N, sizeof *ts, cmp_name);
    pc_input in = {.tensors = ts, .ntensors = N};
    static const char *const probes[] = {"", "a", "a.", "a.b", "layer.1.q", "layer.1.q.", "layer.1.", "layer.10", "zz", "0", NULL};
    static const char *const suffixes[] = {"", ".b", ".weight", ".weight_packed", ".weight_scale", "-b", "/b", ".c", ".x", NULL};
    for (const char *const *p = probes; *p; p++) {
        for (const char *const *s = suffixes; *s; s++) {
            const pc_tensor *got = pc_input_find_part(&in, *p, *s), *want = linear_find(&in, *p, *s);
            CHECK(got == want, "find_part(\"%s\", \"%s\"): %s, want %s", *p, *s, got ? got->name : "NULL", want ? want->name : "NULL");
        }
        size_t first = 0, n = pc_input_prefixed(&in, *p, &first);
        CHECK(n == linear_count(&in, *p), "prefixed(\"%s\"): %zu, want %zu", *p, n, linear_count(&in, *p));
        for (size_t i = first; i < first + n; i++) CHECK(!strncmp(ts[i].name, *p, strlen(*p)), "prefixed(\"%s\") holds %s", *p, ts[i].name);
    }
    pc_input empty = {0};
    size_t first = 7;
    CHECK(!pc_input_find_part(&empty, "a", ".b"), "empty input finds nothing");
    CHECK(pc_input_prefixed(&empty, "a", &first) == 0 && first == 0, "empty input: no run");
    return test_finish();
}
