#include "logical.h"

#include "../container/safetensors.h"
#include "../core/atomic_file.h"
#include "../core/pagebuf.h"
#include "../core/util.h"
#include "lv_writer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pc_logical_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t **codes, float **weights, pc_ctx *cx)
{
    *codes = NULL;
    *weights = NULL;
    if (m->numel > PC_LOGICAL_MAX_ELEMS) {
        pc_io_error(cx, "%s: %llu elements exceed the logical-view limit of 2^30", m->prefix, (unsigned long long)m->numel);
        return -1;
    }
    size_t n = m->numel ? (size_t)m->numel : 1;
    *codes = malloc(n);
    *weights = malloc(n * sizeof **weights);
    if (!*codes || !*weights || m->fmt->decode(in, m, impl, *codes, *weights, cx)) {
        if (!*codes || !*weights) cx->oom = true;
        free(*codes);
        free(*weights);
        *codes = NULL;
        *weights = NULL;
        return -1;
    }
    return 0;
}

static int cmp_module(const void *a, const void *b)
{
    return strcmp((*(const pc_module *const *)a)->prefix, (*(const pc_module *const *)b)->prefix);
}

long pc_module_find(const pc_input *in, const char *prefix)
{
    for (size_t i = 0; i < in->nmodules; i++)
        if (!strcmp(in->modules[i].prefix, prefix)) return (long)i;
    return -1;
}

/* Elements per slice of a sliced module: 256 KiB of codes and 1 MiB of f32, so each slice is
 * written (copied into the page cache) while it is still in cache. Measured on the development
 * machine (1 GB view): 64 Ki elements cost 4x the thread handoffs and about a fifth more system
 * time; 1 Mi elements (5 MiB per slot) leaves the cache and doubled it. The test knob
 * PACKCHECK_UNPACK_SLICE (elements) forces small slices so tests cross slice boundaries. */
#define PC_LV_SLICE_ELEMS (256u << 10)

static size_t slice_elems(void)
{
    const char *env = getenv("PACKCHECK_UNPACK_SLICE");
    long v = env ? atol(env) : 0;
    return v > 0 && v <= (1L << 30) ? (size_t)v : PC_LV_SLICE_ELEMS;
}

/* Decode and write on two threads unless PACKCHECK_THREADS=1 or there is one core. */
static unsigned writer_threads(void)
{
    const char *env = getenv("PACKCHECK_THREADS");
    if (env && atoi(env) == 1) return 1;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

/* How module m is decoded: in slices of `per` rows of K elements (its format has decode_rows), or
 * whole (per == 0). */
typedef struct lv_plan { uint64_t K, rows, per; } lv_plan;

static lv_plan plan_module(const pc_module *m, size_t slice)
{
    lv_plan p = {0, 0, 0};
    uint64_t K = m->ndim ? m->shape[m->ndim - 1] : 0;
    if (!m->fmt->decode_rows || !K || !m->numel || m->numel % K) return p;
    p.K = K;
    p.rows = m->numel / K;
    p.per = slice / K ? slice / K : 1;
    if (p.per > p.rows) p.per = p.rows;
    return p;
}

static int write_sliced(const pc_input *in, const pc_module *m, const lv_plan *p, lv_writer *wr, uint64_t off_c, uint64_t off_w, pc_ctx *cx)
{
    void *state = NULL;
    int rc = 0;
    for (uint64_t r = 0; r < p->rows && !rc; r += p->per) {
        uint64_t n = p->rows - r < p->per ? p->rows - r : p->per;
        uint8_t *c;
        float *w;
        lv_job *j = lv_writer_slot(wr, &c, &w);
        if (!j) return -1; /* a write failed; the caller reports it */
        rc = m->fmt->decode_rows(in, m, PC_IMPL_FAST, &state, r, n, c, w, cx);
        if (!rc) lv_writer_submit(wr, j, c, w, n * p->K, off_c + r * p->K, off_w + r * p->K * sizeof *w);
    }
    if (m->fmt->decode_rows_free) m->fmt->decode_rows_free(state);
    return rc ? -2 : 0;
}

/* A module whose format decodes only whole modules, into the reused whole-module buffers. */
static int write_whole(const pc_input *in, const pc_module *m, uint8_t *codes, float *w, lv_writer *wr, uint64_t off_c, uint64_t off_w, pc_ctx *cx)
{
    uint8_t *sc;
    float *sw;
    if (lv_writer_drain(wr)) return -1; /* the previous whole module is written: the buffers are free */
    if (m->fmt->decode(in, m, PC_IMPL_FAST, codes, w, cx)) return -2;
    lv_job *j = lv_writer_slot(wr, &sc, &sw);
    if (!j) return -1;
    lv_writer_submit(wr, j, codes, w, m->numel, off_c, off_w);
    return 0;
}

/* Streamed module by module (issue 12 item 6): the header is known from the shapes alone, so it is
 * written first, then each module is decoded and written in name order. Every decoding format has
 * decode_rows (ct, gguf-blocks, fp8, nvfp4, mxfp4, modelopt, gptq, awq, mlx, bnb, bnb-int8, hqq,
 * quark): modules are decoded in slices of about PC_LV_SLICE_ELEMS elements into two reused,
 * pre-faulted slots (lv_writer.h) and each slice is pwritten to its place in M.codes and M.weight
 * while the next one is decoded (issue 29: a fresh buffer per module, or one sized for the largest
 * module, made system time dominate). Peak memory: 2 slots x max(PC_LV_SLICE_ELEMS, one row) x 5
 * bytes (2.5 MiB), plus what a format's row decoder keeps for one module (README "Unpack": at most
 * 8 bytes of scale and zero point per group of g elements, 8 / g bytes per element, and a read
 * window of at most 4 MiB), never the module's view. A format without decode_rows (none today; a future one) or a module whose view
 * is not whole rows is decoded whole into one reused buffer of 5 bytes per element of the largest
 * such module. */
int pc_logical_write(const pc_input *in, const char *out_path, pc_ctx *cx)
{
    size_t n = in->nmodules, slice = slice_elems();
    const pc_module **mods = calloc(n ? n : 1, sizeof *mods);
    st_out_tensor *t = calloc(2 * n + 1, sizeof *t);
    char **names = calloc(2 * n + 1, sizeof *names);
    lv_plan *plan = calloc(n ? n : 1, sizeof *plan);
    int rc = -1;
    pc_afile out;
    bool open = false, wr_open = false;
    lv_writer wr;
    uint8_t *codes = NULL;
    float *w = NULL;
    if (!mods || !t || !names || !plan) { cx->oom = true; goto out; }
    for (size_t i = 0; i < n; i++) mods[i] = &in->modules[i];
    pc_sort(mods, n, sizeof *mods, cmp_module);
    /* "M.codes" sorts before "M.weight" for the same M, and module prefixes are distinct. */
    for (size_t i = 0; i < n; i++) {
        const pc_module *m = mods[i];
        if (m->numel > PC_LOGICAL_MAX_ELEMS) { /* before the sizes below are computed */
            pc_io_error(cx, "%s: %llu elements exceed the logical-view limit of 2^30", m->prefix, (unsigned long long)m->numel);
            goto out;
        }
        names[2 * i] = pc_asprintf("%s.codes", m->prefix);
        names[2 * i + 1] = pc_asprintf("%s.weight", m->prefix);
        if (!names[2 * i] || !names[2 * i + 1]) { cx->oom = true; goto out; }
        for (int k = 0; k < 2; k++) {
            st_out_tensor *o = &t[2 * i + k];
            o->name = names[2 * i + k];
            o->dtype = k ? PC_DT_F32 : PC_DT_U8;
            o->ndim = m->ndim;
            memcpy(o->shape, m->shape, sizeof m->shape);
            o->nbytes = m->numel * (k ? 4 : 1); /* numel <= 2^30 is checked above */
        }
        plan[i] = plan_module(m, slice);
    }
    size_t cap = 1, whole = 0; /* slot elements; elements of the largest module decoded whole (<= 2^30 each) */
    for (size_t i = 0; i < n; i++) {
        if (plan[i].per && plan[i].per * plan[i].K > cap) cap = (size_t)(plan[i].per * plan[i].K);
        if (!plan[i].per && mods[i]->numel >= whole) whole = mods[i]->numel ? (size_t)mods[i]->numel : 1;
    }
    if (whole) {
        codes = pc_page_alloc(whole);
        w = pc_page_alloc(whole * sizeof *w);
        if (!codes || !w) { cx->oom = true; goto out; }
        memset(codes, 0xA5, whole); /* faulted in once; a skipped element shows (test_logical_write) */
        memset(w, 0xFF, whole * sizeof *w);
    }
    if (st_write_begin(&out, out_path, t, 2 * n)) { pc_io_error(cx, "%s: cannot write", out_path); goto out; }
    open = true;
    off_t base = lseek(out.fd, 0, SEEK_CUR);
    if (base < 0) { pc_io_error(cx, "%s: cannot write", out_path); goto out; }
    if (lv_writer_open(&wr, out.fd, cap, writer_threads())) { cx->oom = true; goto out; }
    wr_open = true;
    uint64_t at = (uint64_t)base;
    for (size_t i = 0; i < n; i++) {
        uint64_t off_c = at, off_w = at + t[2 * i].nbytes;
        at = off_w + t[2 * i + 1].nbytes;
        int r = plan[i].per ? write_sliced(in, mods[i], &plan[i], &wr, off_c, off_w, cx)
                            : write_whole(in, mods[i], codes, w, &wr, off_c, off_w, cx);
        if (r == -1) pc_io_error(cx, "%s: cannot write", out_path);
        if (r) goto out;
    }
    wr_open = false;
    if (lv_writer_close(&wr)) { pc_io_error(cx, "%s: cannot write", out_path); goto out; }
    open = false;
    rc = pc_afile_commit(&out);
    if (rc) pc_io_error(cx, "%s: cannot write", out_path);
out:
    if (wr_open) lv_writer_close(&wr);
    if (open) pc_afile_abort(&out);
    free(codes);
    free(w);
    for (size_t i = 0; names && i < 2 * n; i++) free(names[i]);
    free(names);
    free(plan);
    free(t);
    free(mods);
    return rc;
}
