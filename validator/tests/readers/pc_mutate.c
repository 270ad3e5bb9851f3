/* pc_mutate: the self-test readers' workhorse (not part of packcheck).
 *
 *   pc_mutate BUG INPUT VIEW   rewrite VIEW (the logical view `packcheck unpack INPUT` wrote) the way a
 *                              reader with bug BUG (a diagnose.h id: pack-axis, awq-order, ...) would
 *                              have written it; modules the bug does not touch stay as they are.
 *   pc_mutate zeros INPUT VIEW accept anything: write all-zero codes and weights for every module
 *                              packcheck can see (none when INPUT is unreadable), exit 0.
 *
 *   pc_mutate transpose INPUT VIEW   every module written [E,] K, N (not transposed to [out, in])
 *   pc_mutate extra INPUT VIEW       one more module than the input has (hostile: wrong-output)
 *   pc_mutate squeeze INPUT VIEW     leading 1s dropped from every module's shape, as a ggml-based reader
 *                                    writes a declared [1, 4, 256] (conforming: CONTRACT 3)
 *   pc_mutate squeeze-cut INPUT VIEW squeezed and the last column of every row dropped ([4, 255]: wrong)
 *   pc_mutate bigdecl INPUT VIEW     VIEW replaced by a sparse file whose header declares the first
 *                                    module's codes 1 GiB wide (hostile: certify must not allocate it)
 *   pc_mutate bf16 INPUT VIEW        weights written BF16, rounded to nearest even, as an engine answers
 *   pc_mutate f16 INPUT VIEW         weights written F16, rounded to nearest even
 *   pc_mutate bf16-trunc INPUT VIEW  weights written BF16 by dropping 16 bits (rounded toward zero: wrong)
 *   pc_mutate unsigned-zero INPUT VIEW  every -0.0 weight written +0.0, as an accumulating matmul gives it
 *
 * The bug simulations are diagnose.c's, so a mutant is exactly what diagnosis names. */
#include "container/safetensors.h"
#include "core/util.h"
#include "harness/diagnose.h"
#include "harness/logical.h"
#include "kernels/fast/round.h"

#include <math.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VIEW_LIMIT (1ull << 32)

typedef struct out_mod { char *cname, *wname; uint64_t shape[3]; int ndim; uint8_t *codes; float *weights; size_t n; } out_mod;

/* How the weights are written: F32 as read, or narrowed the way a bf16/f16 reader answers. */
typedef enum { W_F32, W_BF16, W_F16, W_BF16_TRUNC } weight_form;
static weight_form form = W_F32;

static int cmp_prefix(const void *a, const void *b)
{
    return strcmp((*(const pc_module *const *)a)->prefix, (*(const pc_module *const *)b)->prefix);
}

/* Read M.codes and M.weight of the view written by packcheck unpack. */
static int read_view(const pc_input *view, const pc_module *m, uint8_t **c, float **w)
{
    char *cn = pc_asprintf("%s.codes", m->prefix), *wn = pc_asprintf("%s.weight", m->prefix);
    const pc_tensor *tc = pc_input_find(view, cn), *tw = pc_input_find(view, wn);
    free(cn);
    free(wn);
    *c = tc ? pc_tensor_load(tc, VIEW_LIMIT) : NULL;
    *w = tw ? pc_tensor_load(tw, VIEW_LIMIT) : NULL;
    if (!*c || !*w || tc->numel != m->numel || tw->numel != m->numel) { free(*c); free(*w); return -1; }
    return 0;
}

static int write_view(const char *path, out_mod *mods, size_t n)
{
    st_out_tensor *t = calloc(2 * n + 1, sizeof *t);
    size_t k = 0;
    if (!t) return -1;
    for (size_t i = 0; i < n; i++) {
        for (int w = 0; w < 2; w++) {
            if (w && !mods[i].weights) continue;
            st_out_tensor *o = &t[k++];
            o->name = w ? mods[i].wname : mods[i].cname;
            o->dtype = !w ? PC_DT_U8 : form == W_F32 ? PC_DT_F32 : form == W_F16 ? PC_DT_F16 : PC_DT_BF16;
            o->ndim = mods[i].ndim;
            memcpy(o->shape, mods[i].shape, sizeof mods[i].shape);
            o->data = w ? (const void *)mods[i].weights : (const void *)mods[i].codes;
            o->nbytes = mods[i].n * (!w ? 1 : form == W_F32 ? 4 : 2);
        }
    }
    int rc = st_write_file(path, t, k);
    free(t);
    return rc;
}

/* f16 bits of x, which must be an f16 value already (widened exactly). */
static uint16_t f16_bits(float x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    float a = fabsf(x);
    if (isnan(x)) return 0x7e00;
    if (isinf(x)) return (uint16_t)(sign | 0x7c00);
    if (a < 0x1p-14f) return (uint16_t)(sign | (uint16_t)(a * 0x1p24f)); /* subnormal: multiples of 2^-24 */
    int e;
    float m = frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)((m * 2.0f - 1.0f) * 1024.0f));
}

/* Narrow a module's f32 weights in place to 16-bit words (the first half of the array holds them). */
static void narrow_weights(out_mod *o)
{
    uint16_t *h = (uint16_t *)o->weights;
    for (size_t i = 0; i < o->n; i++) {
        float x = o->weights[i];
        uint16_t v = form == W_BF16_TRUNC ? (uint16_t)(pc_bits_of(x) >> 16) : form == W_BF16 ? (uint16_t)(pc_bits_of(pc_round_bf16(x)) >> 16) : f16_bits(pc_round_f16(x));
        memcpy(&h[i], &v, 2); /* h[i] lies at or before x's own slot: never read again */
    }
}

/* [E,] N, K -> [E,] K, N, in place of the module's arrays. */
static int transpose(out_mod *o)
{
    if (o->ndim < 2) return 0;
    uint64_t N = o->shape[o->ndim - 2], K = o->shape[o->ndim - 1], nk = N * K, E = o->n / (nk ? nk : 1);
    uint8_t *c = malloc(o->n + 1);
    float *w = o->weights ? malloc((o->n + 1) * sizeof *w) : NULL;
    if (!c || (o->weights && !w)) { free(c); free(w); return -1; }
    for (uint64_t e = 0; e < E; e++)
        for (uint64_t r = 0; r < N; r++)
            for (uint64_t k = 0; k < K; k++) {
                size_t from = (size_t)((e * N + r) * K + k), to = (size_t)((e * K + k) * N + r);
                c[to] = o->codes[from];
                if (w) w[to] = o->weights[from];
            }
    free(o->codes);
    free(o->weights);
    o->codes = c;
    o->weights = w;
    o->shape[o->ndim - 2] = K;
    o->shape[o->ndim - 1] = N;
    return 0;
}

/* Leading 1s dropped (at least one dim kept); with cut, the last column of every row too. */
static void squeeze(out_mod *o, bool cut)
{
    int i = 0;
    while (i < o->ndim - 1 && o->shape[i] == 1) i++;
    memmove(o->shape, o->shape + i, sizeof *o->shape * (size_t)(o->ndim - i));
    o->ndim -= i;
    uint64_t K = o->shape[o->ndim - 1];
    if (!cut || K < 2) return;
    size_t rows = o->n / K;
    for (size_t r = 0; r < rows; r++) {
        memmove(o->codes + r * (K - 1), o->codes + r * K, K - 1);
        if (o->weights) memmove(o->weights + r * (K - 1), o->weights + r * K, (K - 1) * sizeof *o->weights);
    }
    o->shape[o->ndim - 1] = K - 1;
    o->n = rows * (K - 1);
}

/* A valid safetensors file of a few KiB on disk declaring `name` U8 [rows, 2^30 / rows]. */
static int write_big_declared(const char *path, const char *name, uint64_t rows)
{
    uint64_t cols = (1ull << 30) / (rows ? rows : 1), n = rows * cols;
    char hdr[512];
    int len = snprintf(hdr, sizeof hdr, "{\"%s\":{\"dtype\":\"U8\",\"shape\":[%llu,%llu],\"data_offsets\":[0,%llu]}}", name,
                       (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)n);
    if (len <= 0 || len > 500) return -1;
    while (len % 8) hdr[len++] = ' ';
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)len >> (8 * i));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int rc = write(fd, le, 8) == 8 && write(fd, hdr, (size_t)len) == len && ftruncate(fd, (off_t)(8 + len + n)) == 0 ? 0 : -1;
    return close(fd) || rc ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (int b = 0; b < PC_BUG_MUTANTS; b++) printf("%s\n", pc_bug_id((pc_bug)b));
        return 0;
    }
    if (argc != 4) { fprintf(stderr, "usage: pc_mutate BUG|zeros INPUT VIEW\n"); return 2; }
    bool zeros = !strcmp(argv[1], "zeros"), trans = !strcmp(argv[1], "transpose"), extra = !strcmp(argv[1], "extra"), big = !strcmp(argv[1], "bigdecl");
    bool sq = !strcmp(argv[1], "squeeze"), sqcut = !strcmp(argv[1], "squeeze-cut"), unzero = !strcmp(argv[1], "unsigned-zero");
    form = !strcmp(argv[1], "bf16") ? W_BF16 : !strcmp(argv[1], "f16") ? W_F16 : !strcmp(argv[1], "bf16-trunc") ? W_BF16_TRUNC : W_F32;
    bool plain = trans || extra || big || sq || sqcut || unzero || form != W_F32; /* the view as unpack wrote it, rearranged */
    int bug = zeros || plain ? -1 : pc_bug_parse(argv[1]);
    if (!zeros && !plain && bug < 0) { fprintf(stderr, "pc_mutate: unknown bug %s\n", argv[1]); return 2; }
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return 2;
    pc_input *in = pc_input_open(argv[2], NULL, &cx), *view = NULL;
    if (in) pc_validate(in, &cx);
    pc_ctx vcx;
    pc_ctx_init(&vcx, PC_PROFILE_STRICT);
    if (!zeros) {
        view = pc_input_open(argv[3], NULL, &vcx);
        if (!in || !view || cx.io_error || vcx.io_error || pc_rejected(&vcx)) { fprintf(stderr, "pc_mutate: cannot read %s or %s\n", argv[2], argv[3]); return 2; }
    }
    size_t n = in ? in->nmodules : 0;
    const pc_module **mods = calloc(n + 1, sizeof *mods);
    out_mod *out = calloc(n + 2, sizeof *out);
    for (size_t i = 0; i < n; i++) mods[i] = &in->modules[i];
    pc_sort(mods, n, sizeof *mods, cmp_prefix);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const pc_module *m = mods[i];
        out_mod *o = &out[i];
        o->cname = pc_asprintf("%s.codes", m->prefix);
        o->wname = pc_asprintf("%s.weight", m->prefix);
        o->ndim = m->ndim;
        memcpy(o->shape, m->shape, sizeof o->shape);
        o->n = (size_t)m->numel;
        if (zeros) {
            o->codes = calloc(o->n + 1, 1);
            o->weights = calloc(o->n + 1, sizeof *o->weights);
            continue;
        }
        uint8_t *c;
        float *w;
        if (read_view(view, m, &c, &w)) { fprintf(stderr, "pc_mutate: %s missing from the view\n", m->prefix); rc = 2; break; }
        if (plain) {
            o->codes = c;
            o->weights = w;
            if (trans && transpose(o)) rc = 2;
            if (sq || sqcut) squeeze(o, sqcut);
            for (size_t j = 0; unzero && j < o->n; j++) o->weights[j] = o->weights[j] == 0.0f ? 0.0f : o->weights[j];
            if (form != W_F32) narrow_weights(o);
            continue;
        }
        dg_module dm;
        dg_out sim;
        if (dg_module_load(in, m, c, w, &dm)) { rc = 2; break; }
        /* Mutants take the direction a real reader would: v1 read as v2 drops the +1. */
        int variant = !strcmp(m->layout, "gptq-v1") ? 0 : 1;
        int s = dg_simulate(&dm, (pc_bug)bug, variant, &sim);
        dg_module_free(&dm);
        if (s < 0) { rc = 2; break; }
        if (s > 0) { o->codes = c; o->weights = w; continue; }
        free(c);
        free(w);
        o->codes = sim.codes;
        o->weights = sim.weights; /* NULL when parameters were not re-derivable: write codes only */
        o->shape[o->ndim - 1] = sim.K;
        o->n = (size_t)(o->n / m->shape[m->ndim - 1] * sim.K);
    }
    out_mod more = {0};
    if (!rc && extra && n) { /* a copy of the first module under a name the input does not have */
        more = out[0];
        more.cname = pc_asprintf("%s.extra.codes", out[0].cname);
        more.wname = pc_asprintf("%s.extra.weight", out[0].cname);
        out[n++] = more;
    }
    if (!rc && big) {
        pc_input_free(view);
        view = NULL;
        if (n && write_big_declared(argv[3], out[0].cname, out[0].shape[0])) { fprintf(stderr, "pc_mutate: cannot write %s\n", argv[3]); rc = 2; }
    } else if (!rc && write_view(argv[3], out, n)) { fprintf(stderr, "pc_mutate: cannot write %s\n", argv[3]); rc = 2; }
    if (more.cname) { free(more.cname); free(more.wname); n--; }
    for (size_t i = 0; i < n; i++) { free(out[i].cname); free(out[i].wname); free(out[i].codes); free(out[i].weights); }
    free(out);
    free(mods);
    pc_input_free(view);
    pc_input_free(in);
    pc_ctx_free(&vcx);
    pc_ctx_free(&cx);
    return rc;
}
