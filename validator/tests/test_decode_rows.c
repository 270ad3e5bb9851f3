/* Every format's row decoder (pc_format.decode_rows, unpack's sliced writer) against the same
 * format's whole-module decode, byte for byte, on every module of every fixture in fixtures/ whose
 * format has one: slices of 1, 2, 3, 5, 7, 13, 31, 33, 63, 65, 127 and 129 rows (cutting 32-, 64-
 * and 128-row scale blocks and bitsandbytes' flattened blocks at awkward places), half the rows
 * plus one, and all of them; each slice decoded into buffers holding a poison pattern (an element a
 * slice skips shows), with one state carried across a module's slices as unpack does; under the
 * fast kernels and the oracle (PACKCHECK_KERNELS=scalar runs it again on the portable set, see
 * CMakeLists.txt). Codes-only and weights-only slices are compared too. It also fails when a format
 * that should slice compared no module at all (a fixture folder renamed would hide it). */
#include "formats/format.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_pass, g_fail;
#define CHECK(c, ...) do { if (c) g_pass++; else { g_fail++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Formats that must have been compared on at least one fixture module. */
static const char *const k_sliced[] = {"ct", "gguf-blocks", "fp8", "nvfp4", "mlx", "bnb", "gptq", "awq", "bnb-int8", "mxfp4", "modelopt", "quark", "hqq", NULL};
static size_t g_seen[16];

static void note_format(const char *name)
{
    for (size_t i = 0; k_sliced[i]; i++)
        if (!strcmp(k_sliced[i], name)) g_seen[i]++;
}

/* Decode all rows of m in slices of `per` rows through one state; codes/weights may be NULL. */
static int decode_sliced(const pc_input *in, const pc_module *m, pc_impl impl, uint64_t K, uint64_t per, uint8_t *codes, float *w, pc_ctx *cx)
{
    void *state = NULL;
    uint64_t rows = m->numel / K;
    int rc = 0;
    uint8_t *sc = malloc((size_t)(per * K));
    float *sw = malloc((size_t)(per * K) * sizeof *sw);
    if (!sc || !sw) rc = -1;
    for (uint64_t r = 0; r < rows && !rc; r += per) {
        uint64_t n = rows - r < per ? rows - r : per;
        memset(sc, 0xA5, (size_t)(n * K));
        memset(sw, 0xFF, (size_t)(n * K) * sizeof *sw);
        rc = m->fmt->decode_rows(in, m, impl, &state, r, n, codes ? sc : NULL, w ? sw : NULL, cx);
        if (!rc && codes) memcpy(codes + r * K, sc, (size_t)(n * K));
        if (!rc && w) memcpy(w + r * K, sw, (size_t)(n * K) * sizeof *sw);
    }
    if (m->fmt->decode_rows_free) m->fmt->decode_rows_free(state);
    free(sc);
    free(sw);
    return rc;
}

static void check_module(const char *rel, const pc_input *in, const pc_module *m, pc_impl impl)
{
    uint64_t K = m->ndim ? m->shape[m->ndim - 1] : 0;
    if (!K || !m->numel || m->numel % K) return;
    uint64_t rows = m->numel / K;
    size_t n = (size_t)m->numel;
    uint8_t *wc = malloc(n), *gc = malloc(n);
    float *ww = malloc(n * sizeof *ww), *gw = malloc(n * sizeof *gw);
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    if (!wc || !gc || !ww || !gw) { CHECK(0, "out of memory"); goto out; }
    if (m->fmt->decode(in, m, impl, wc, ww, &cx)) goto out; /* the whole decode fails: nothing to hold the slices to */
    note_format(m->fmt->name);
    const uint64_t steps[] = {1, 2, 3, 5, 7, 13, 31, 33, 63, 65, 127, 129, rows / 2 + 1, rows};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        uint64_t per = steps[s] > rows ? rows : steps[s];
        if (s + 1 < sizeof steps / sizeof *steps && steps[s] > rows) continue; /* the last step covers it */
        int rc = decode_sliced(in, m, impl, K, per, gc, gw, &cx);
        CHECK(rc == 0, "%s: %s: decode_rows failed at %llu rows per slice", rel, m->prefix, (unsigned long long)per);
        if (rc) break;
        CHECK(!memcmp(gc, wc, n), "%s: %s (%s): codes differ at %llu rows per slice (impl %d)", rel, m->prefix, m->fmt->name, (unsigned long long)per, (int)impl);
        CHECK(!memcmp(gw, ww, n * sizeof *ww), "%s: %s (%s): weights differ at %llu rows per slice (impl %d)", rel, m->prefix, m->fmt->name, (unsigned long long)per, (int)impl);
    }
    uint64_t per = rows > 3 ? 3 : rows; /* one output at a time */
    CHECK(decode_sliced(in, m, impl, K, per, NULL, gw, &cx) == 0 && !memcmp(gw, ww, n * sizeof *ww), "%s: %s: weights-only slices differ", rel, m->prefix);
    CHECK(decode_sliced(in, m, impl, K, per, gc, NULL, &cx) == 0 && !memcmp(gc, wc, n), "%s: %s: codes-only slices differ", rel, m->prefix);
out:
    pc_ctx_free(&cx);
    free(wc); free(gc); free(ww); free(gw);
}

static void check_input(const char *path, const char *rel)
{
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(path, NULL, &cx);
    if (in) {
        pc_validate(in, &cx);
        for (size_t i = 0; i < in->nmodules; i++) {
            const pc_module *m = &in->modules[i];
            if (!m->fmt->decode_rows) continue;
            check_module(rel, in, m, PC_IMPL_FAST);
            check_module(rel, in, m, PC_IMPL_REF);
        }
        pc_input_free(in);
    }
    pc_ctx_free(&cx);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
static int visible(const struct dirent *d) { return d->d_name[0] != '.'; }

int main(void)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/fixtures", PC_SOURCE_DIR);
    struct dirent **groups;
    int ng = scandir(root, &groups, visible, by_name);
    CHECK(ng > 0, "no fixtures under %s", root);
    for (int g = 0; g < ng; g++) {
        char dir[1400];
        snprintf(dir, sizeof dir, "%s/%s", root, groups[g]->d_name);
        struct dirent **cases;
        int nc = scandir(dir, &cases, visible, by_name);
        for (int c = 0; c < nc; c++) {
            char path[2900], rel[1200];
            snprintf(path, sizeof path, "%s/%s", dir, cases[c]->d_name);
            snprintf(rel, sizeof rel, "%s/%s", groups[g]->d_name, cases[c]->d_name);
            check_input(path, rel);
            free(cases[c]);
        }
        if (nc > 0) free(cases);
        free(groups[g]);
    }
    if (ng > 0) free(groups);
    for (size_t i = 0; k_sliced[i]; i++) CHECK(g_seen[i] > 0, "no %s module was compared", k_sliced[i]);
    for (size_t i = 0; k_sliced[i]; i++) printf("%s: %zu module decodes compared\n", k_sliced[i], g_seen[i]);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
