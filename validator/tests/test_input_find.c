/* pc_input_find_part, pc_input_find and pc_input_prefixed against a linear scan, on sorted names built
 * to hit the boundaries: a prefix that is itself a tensor, names that differ only after the prefix,
 * '.' (0x2e) next to '-' (0x2d) and '/' (0x2f) in the sort order, a name given twice, empty input.
 * The searches start from where the last one ended (a hint), so every lookup is made from every
 * hint position: after a lookup of each tensor in turn. */
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

static const char *const k_probes[] = {"", "a", "a.", "a.b", "layer.1.q", "layer.1.q.", "layer.1.", "layer.10", "zz", "0", "z", NULL};
static const char *const k_suffixes[] = {"", ".b", ".weight", ".weight_packed", ".weight_scale", "-b", "/b", ".c", ".x", NULL};

/* Every probe x suffix and every prefix run, with the hint left at tensor `from` first. */
static void check_from(const pc_input *in, size_t from)
{
    for (const char *const *p = k_probes; *p; p++) {
        for (const char *const *s = k_suffixes; *s; s++) {
            if (from < in->ntensors) (void)pc_input_find(in, in->tensors[from].name);
            const pc_tensor *got = pc_input_find_part(in, *p, *s), *want = linear_find(in, *p, *s);
            CHECK(got == want, "from %zu: find_part(\"%s\", \"%s\"): %s, want %s", from, *p, *s, got ? got->name : "NULL", want ? want->name : "NULL");
        }
        if (from < in->ntensors) (void)pc_input_find(in, in->tensors[from].name);
        size_t first = 0, n = pc_input_prefixed(in, *p, &first);
        CHECK(n == linear_count(in, *p), "from %zu: prefixed(\"%s\"): %zu, want %zu", from, *p, n, linear_count(in, *p));
        for (size_t i = first; i < first + n; i++) CHECK(!strncmp(in->tensors[i].name, *p, strlen(*p)), "prefixed(\"%s\") holds %s", *p, in->tensors[i].name);
    }
    for (size_t i = 0; i < in->ntensors; i++) {
        if (from < in->ntensors) (void)pc_input_find(in, in->tensors[from].name);
        const pc_tensor *got = pc_input_find(in, in->tensors[i].name);
        CHECK(got && !strcmp(got->name, in->tensors[i].name) && (got == &in->tensors[i] || got < &in->tensors[i]),
              "from %zu: find(\"%s\") gives the first of that name", from, in->tensors[i].name);
    }
}

int main(void)
{
    pc_tensor ts[N + 1];
    memset(ts, 0, sizeof ts);
    for (size_t i = 0; i < N; i++) ts[i].name = (char *)k_names[i];
    ts[N].name = "layer.1.q.weight"; /* in two shards (ST-034): find gives the first */
    qsort(ts, N + 1, sizeof *ts, cmp_name);
    pc_input in = {.tensors = ts, .ntensors = N + 1};
    for (size_t from = 0; from <= N + 1; from++) check_from(&in, from);
    pc_input empty = {0};
    size_t first = 7;
    CHECK(!pc_input_find_part(&empty, "a", ".b"), "empty input finds nothing");
    CHECK(pc_input_prefixed(&empty, "a", &first) == 0 && first == 0, "empty input: no run");
    pc_input one = {.tensors = ts, .ntensors = 1}; /* a hint past its end, left by the input above */
    CHECK(pc_input_find(&one, ts[0].name) == &ts[0] && !pc_input_find(&one, "zz"), "a one-tensor input");
    return test_finish();
}
