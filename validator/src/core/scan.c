/* The streaming pass: see scan.h. */
#include "scan.h"

#include "file.h"
#include "progress.h"
#include "pagebuf.h"
#include "sha256.h"
#include "util.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct scan_req {
    size_t file;                /* index into in->files */
    uint64_t begin, end;        /* absolute file offsets */
    uint64_t tbase;             /* the tensor's first byte */
    size_t unit;
    pc_scan_chunk_fn chunk;
    pc_scan_finish_fn finish;
    void (*free_arg)(void *);
    void *arg;
    uint8_t *carry;             /* a unit split across two windows */
    size_t ncarry;
    uint64_t carry_off;         /* tensor-relative offset of carry[0] */
    bool stopped, complete, oom;
} scan_req;

typedef struct scan_list { scan_req *r; size_t n, cap; } scan_list;

int pc_scan_add(pc_input *in, const pc_tensor *t, uint64_t begin, uint64_t end, size_t unit,
                pc_scan_chunk_fn chunk, pc_scan_finish_fn finish, void (*free_arg)(void *), void *arg)
{
    size_t fi = 0;
    while (fi < in->nfiles && &in->files[fi] != t->file) fi++;
    /* A caller bug, not an input defect: ranges come from tensors the container already checked. */
    if (fi == in->nfiles || begin > end || end > t->nbytes || unit == 0 || unit > PC_SCAN_MAX_UNIT) abort();
    scan_list *l = in->scans;
    if (!l && !(l = in->scans = calloc(1, sizeof *l))) return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        scan_req *r = realloc(l->r, cap * sizeof *r);
        if (!r) return -1;
        l->r = r;
        l->cap = cap;
    }
    l->r[l->n++] = (scan_req){.file = fi, .begin = t->offset + begin, .end = t->offset + end, .tbase = t->offset,
                              .unit = unit, .chunk = chunk, .finish = finish, .free_arg = free_arg, .arg = arg};
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * One file
 * --------------------------------------------------------------------------------------------- */

static void req_stop(scan_req *r)
{
    r->stopped = true;
    free(r->carry);
    r->carry = NULL;
    r->ncarry = 0;
}

/* Hand bytes [abs, abs + n) of the file to r, whole units at a time. */
static void deliver(scan_req *r, uint64_t abs, const uint8_t *p, size_t n)
{
    uint64_t off = abs - r->tbase;
    if (r->stopped) return;
    if (r->ncarry) {
        size_t take = r->unit - r->ncarry < n ? r->unit - r->ncarry : n;
        memcpy(r->carry + r->ncarry, p, take);
        r->ncarry += take;
        p += take;
        n -= take;
        off += take;
        if (r->ncarry < r->unit) return;
        r->ncarry = 0;
        if (r->chunk(r->arg, r->carry_off, r->carry, r->unit)) { req_stop(r); return; }
    }
    size_t whole = n / r->unit * r->unit;
    if (whole && r->chunk(r->arg, off, p, whole)) { req_stop(r); return; }
    if (n > whole) {
        if (!r->carry && !(r->carry = malloc(r->unit))) { r->oom = true; req_stop(r); return; }
        memcpy(r->carry, p + whole, n - whole);
        r->ncarry = n - whole;
        r->carry_off = off + whole;
    }
}

static void req_done(scan_req *r)
{
    if (!r->stopped && r->ncarry) r->chunk(r->arg, r->carry_off, r->carry, r->ncarry); /* final short piece */
    free(r->carry);
    r->carry = NULL;
    r->ncarry = 0;
    r->complete = true;
}

typedef struct file_job {
    size_t file;
    scan_req **reqs;            /* the job's scans, by begin */
    size_t n;
    bool hash;                  /* the whole file, hashed (else only the scans' bytes) */
    bool io_error, oom;
} file_job;

static int cmp_req_begin(const void *a, const void *b)
{
    const scan_req *x = *(scan_req *const *)a, *y = *(scan_req *const *)b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* A helper thread hashing one window while the worker reads and scans the next: a single hashed
 * file still uses two cores. Windows alternate between two buffers; handing one over waits until
 * the previous is hashed, so a buffer is never refilled while it is being hashed. */
typedef struct hasher {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pc_sha256 *h;
    const uint8_t *p;
    size_t n;
    bool busy, quit;
} hasher;

static void *hasher_main(void *arg)
{
    hasher *hs = arg;
    pthread_mutex_lock(&hs->mu);
    for (;;) {
        while (!hs->busy && !hs->quit) pthread_cond_wait(&hs->cv, &hs->mu);
        if (!hs->busy) break; /* quit, nothing pending */
        const uint8_t *p = hs->p;
        size_t n = hs->n;
        pthread_mutex_unlock(&hs->mu);
        pc_sha256_update(hs->h, p, n);
        pthread_mutex_lock(&hs->mu);
        hs->busy = false;
        pthread_cond_broadcast(&hs->cv);
    }
    pthread_mutex_unlock(&hs->mu);
    return NULL;
}

static void hasher_give(hasher *hs, const uint8_t *p, size_t n)
{
    pthread_mutex_lock(&hs->mu);
    while (hs->busy) pthread_cond_wait(&hs->cv, &hs->mu);
    hs->p = p;
    hs->n = n;
    hs->busy = true;
    pthread_cond_broadcast(&hs->cv);
    pthread_mutex_unlock(&hs->mu);
}

static bool hasher_start(hasher *hs, pc_sha256 *h)
{
    memset(hs, 0, sizeof *hs);
    hs->h = h;
    if (pthread_mutex_init(&hs->mu, NULL)) return false;
    if (pthread_cond_init(&hs->cv, NULL)) { pthread_mutex_destroy(&hs->mu); return false; }
    if (pthread_create(&hs->tid, NULL, hasher_main, hs)) {
        pthread_cond_destroy(&hs->cv);
        pthread_mutex_destroy(&hs->mu);
        return false;
    }
    return true;
}

static void hasher_stop(hasher *hs)
{
    pthread_mutex_lock(&hs->mu);
    hs->quit = true;
    pthread_cond_broadcast(&hs->cv);
    pthread_mutex_unlock(&hs->mu);
    pthread_join(hs->tid, NULL);
    pthread_cond_destroy(&hs->cv);
    pthread_mutex_destroy(&hs->mu);
}

/* Whether a hashed file's scans cover enough of it (a quarter) that running them on the worker
 * while a helper thread hashes the previous window saves more wall time than the helper's cache
 * misses cost CPU. Mostly-packed checkpoints (every code valid, only scales scanned) hash inline. */
static bool scans_heavy(const pc_input *in, const file_job *job)
{
    uint64_t scanned = 0;
    for (size_t k = 0; k < job->n; k++) scanned += job->reqs[k]->end - job->reqs[k]->begin;
    return scanned >= in->files[job->file].size / 4;
}

/* Read the file (all of it when hashing, else only the windows the scans need), front to back.
 * With a second buffer and hashing, SHA-256 runs on a helper thread (see hasher). */
static void run_file(pc_input *in, file_job *job, uint8_t *buf, uint8_t *buf2)
{
    pc_file *f = &in->files[job->file];
    bool hash = job->hash;
    pc_sha256 h;
    hasher hs;
    if (hash && pc_sha256_init(&h)) { job->oom = true; return; }
    bool piped = hash && buf2 && scans_heavy(in, job) && hasher_start(&hs, &h);
    /* Hashed inline, a file is read in L2-sized slices, each hashed (and scanned) while it is still
     * in L2: with whole windows SHA-256 re-read every window from L3/DRAM and cost 1.2-1.5x
     * `openssl dgst`'s CPU for the same bytes. */
    size_t win = hash && !piped ? PC_SCAN_HASH_SLICE : PC_SCAN_WINDOW;
    uint8_t *bufs[2] = {buf, buf2};
    int cur = 0;
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    uint64_t limit = hash ? f->size : 0;
    for (size_t k = 0; k < job->n; k++)
        if (job->reqs[k]->end > limit) limit = job->reqs[k]->end;
    size_t first = 0; /* scans before this one are complete */
    uint64_t pos = 0;
    while (pos < limit) {
        while (first < job->n && job->reqs[first]->complete) first++;
        if (!hash) { /* skip to the next byte a scan needs */
            uint64_t need = limit;
            for (size_t k = first; k < job->n; k++) {
                scan_req *r = job->reqs[k];
                if (r->complete) continue;
                uint64_t at = r->begin > pos ? r->begin : pos;
                if (at < need) need = at;
                if (r->begin >= need) break; /* sorted by begin: nothing later starts earlier */
            }
            pos = need;
            if (pos >= limit) break;
        }
        size_t n = limit - pos < win ? (size_t)(limit - pos) : win;
        if (piped) buf = bufs[cur ^= 1];
        if (pc_file_read(f, pos, buf, n)) { job->io_error = true; break; }
        pc_progress_add(n);
        if (piped) hasher_give(&hs, buf, n);
        else if (hash) pc_sha256_update(&h, buf, n);
        uint64_t wend = pos + n;
        for (size_t k = first; k < job->n && job->reqs[k]->begin < wend; k++) {
            scan_req *r = job->reqs[k];
            if (r->complete || r->end <= pos) {
                if (!r->complete && r->end <= pos) req_done(r); /* empty range */
                continue;
            }
            uint64_t a = r->begin > pos ? r->begin : pos, b = r->end < wend ? r->end : wend;
            if (b > a) deliver(r, a, buf + (a - pos), (size_t)(b - a));
            if (r->end <= wend) req_done(r);
        }
        pos = wend;
    }
    for (size_t k = 0; k < job->n; k++) { /* empty ranges at the very end */
        scan_req *r = job->reqs[k];
        if (!r->complete && !job->io_error && r->begin == r->end) req_done(r);
        if (r->oom) job->oom = true;
    }
    if (piped) hasher_stop(&hs); /* hashes what is pending first */
    if (hash) {
        char hex[65];
        pc_sha256_final_hex(&h, hex);
        if (!job->io_error && pos >= f->size) memcpy(f->sha256, hex, sizeof hex);
    }
}

/* --tier sample: each scan sees its first and last unit (the edge blocks, the last one possibly
 * partial) and in->sample_blocks more drawn at random (splitmix64 seeded by in->sample_seed, the
 * file and the scan's offset, so a run is reproducible), in offset order, adjacent units read
 * together. The scan finishes as complete: its rules are evaluated on the units it saw. */
#define PC_SAMPLE_MAX 256

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t sample_units(const pc_input *in, size_t file, const scan_req *r, uint64_t *picks)
{
    uint64_t nunits = (r->end - r->begin + r->unit - 1) / r->unit, seed = in->sample_seed ^ (file * 0x100000001b3ull) ^ r->begin;
    size_t want = in->sample_blocks < PC_SAMPLE_MAX - 2 ? in->sample_blocks : PC_SAMPLE_MAX - 2, n = 0;
    picks[n++] = 0;
    if (nunits > 1) picks[n++] = nunits - 1;
    for (size_t i = 0; i < want && nunits > 2; i++) picks[n++] = 1 + splitmix64(&seed) % (nunits - 2);
    pc_sort(picks, n, sizeof *picks, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || picks[i] != picks[u - 1]) picks[u++] = picks[i];
    return u;
}

static void run_sampled(pc_input *in, file_job *job, uint8_t *buf)
{
    pc_file *f = &in->files[job->file];
    uint64_t picks[PC_SAMPLE_MAX];
    for (size_t k = 0; k < job->n && !job->io_error; k++) {
        scan_req *r = job->reqs[k];
        size_t np = r->end > r->begin ? sample_units(in, job->file, r, picks) : 0;
        for (size_t i = 0; i < np && !r->stopped;) {
            size_t j = i + 1; /* a run of adjacent units, at most one window */
            while (j < np && picks[j] == picks[j - 1] + 1 && (picks[j] - picks[i] + 1) * r->unit <= PC_SCAN_WINDOW) j++;
            uint64_t a = r->begin + picks[i] * r->unit, b = r->begin + (picks[j - 1] + 1) * r->unit;
            if (b > r->end) b = r->end;
            if (pc_file_read(f, a, buf, (size_t)(b - a))) { job->io_error = true; break; }
            pc_progress_add(b - a);
            deliver(r, a, buf, (size_t)(b - a));
            i = j;
        }
        if (!job->io_error) req_done(r);
        if (r->oom) job->oom = true;
    }
}

/* ------------------------------------------------------------------------------------------------
 * Workers: files are claimed one at a time, so shards run in parallel.
 * --------------------------------------------------------------------------------------------- */

typedef struct pass {
    pc_input *in;
    file_job *jobs;
    size_t njobs;
    bool piped;  /* fewer hashed files than cores: hash on a helper thread */
    size_t next; /* atomically claimed */
} pass;

static void *worker(void *arg)
{
    pass *ps = arg;
    uint8_t *buf = pc_page_alloc(PC_SCAN_WINDOW), *buf2 = ps->piped ? pc_page_alloc(PC_SCAN_WINDOW) : NULL;
    for (;;) {
        size_t j = __atomic_fetch_add(&ps->next, 1, __ATOMIC_RELAXED);
        if (j >= ps->njobs) break;
        if (!buf) { ps->jobs[j].oom = true; continue; }
        if (ps->in->tier == PC_TIER_SAMPLE && !ps->jobs[j].hash) run_sampled(ps->in, &ps->jobs[j], buf);
        else run_file(ps->in, &ps->jobs[j], buf, buf2); /* buf2 NULL (no memory): hash inline */
    }
    free(buf);
    free(buf2);
    return NULL;
}

static size_t njobs_in_file(const file_job *jobs, size_t njobs, size_t fi)
{
    size_t c = 0;
    while (njobs && jobs[njobs - 1].file == fi) { c++; njobs--; }
    return c;
}

static size_t thread_count(size_t njobs)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("PACKCHECK_THREADS");
    if (env && atoi(env) > 0) n = atoi(env);
    if (n < 1) n = 1;
    if (n > PC_SCAN_MAX_THREADS) n = PC_SCAN_MAX_THREADS;
    return (size_t)n < njobs ? (size_t)n : njobs;
}

int pc_scan_run(pc_input *in, pc_ctx *cx)
{
    scan_list *l = in->scans;
    size_t nreq = l ? l->n : 0;
    if (!nreq && !in->hash_files) return 0;
    file_job *jobs = calloc(in->nfiles ? in->nfiles : 1, sizeof *jobs);
    scan_req **order = calloc(nreq ? nreq : 1, sizeof *order);
    int rc = 0;
    if (!jobs || !order) { cx->oom = true; rc = -1; goto finish; }
    /* Group the scans by file (counting sort keeps registration order), then sort by offset. */
    size_t *count = calloc(in->nfiles + 1, sizeof *count);
    if (!count) { cx->oom = true; rc = -1; goto finish; }
    for (size_t i = 0; i < nreq; i++) count[l->r[i].file + 1]++;
    for (size_t fi = 0; fi < in->nfiles; fi++) count[fi + 1] += count[fi];
    for (size_t i = 0; i < nreq; i++) order[count[l->r[i].file]++] = &l->r[i];
    /* Jobs: a hashed file is one job (SHA-256 is sequential). Without hashing, when there are
     * fewer files than threads, a file's scans are split into contiguous runs of about equal
     * bytes, so one big shard still keeps every core busy ("tensors in parallel"). */
    size_t nt_want = thread_count(SIZE_MAX), files_with_work = 0;
    uint64_t bytes = 0; /* what the pass reads, about: below one window, threads cost more than they save */
    for (size_t fi = 0; fi < in->nfiles; fi++)
        if (in->hash_files || (fi == 0 ? count[0] : count[fi] - count[fi - 1])) files_with_work++;
    for (size_t fi = 0; in->hash_files && fi < in->nfiles; fi++) bytes += in->files[fi].size;
    for (size_t i = 0; !in->hash_files && i < nreq; i++) bytes += l->r[i].end - l->r[i].begin;
    if (bytes <= PC_SCAN_WINDOW) nt_want = 1;
    size_t split = !in->hash_files && files_with_work && files_with_work < nt_want ? (nt_want + files_with_work - 1) / files_with_work : 1;
    jobs = realloc(jobs, (in->nfiles * split + 1) * sizeof *jobs);
    if (!jobs) { free(count); cx->oom = true; rc = -1; goto finish; }
    size_t njobs = 0, at = 0;
    for (size_t fi = 0; fi < in->nfiles; fi++) {
        size_t n = fi == 0 ? count[0] : count[fi] - count[fi - 1];
        scan_req **rs = order + at;
        at += n;
        if (!n && !in->hash_files) continue;
        qsort(rs, n, sizeof *rs, cmp_req_begin);
        if (split <= 1 || n < 2) {
            jobs[njobs++] = (file_job){.file = fi, .reqs = rs, .n = n, .hash = in->hash_files};
            continue;
        }
        uint64_t total = 0, acc = 0;
        for (size_t k = 0; k < n; k++) total += rs[k]->end - rs[k]->begin;
        size_t first = 0;
        for (size_t k = 0; k < n; k++) {
            acc += rs[k]->end - rs[k]->begin;
            if (k + 1 == n || acc * split >= total * (njobs_in_file(jobs, njobs, fi) + 1)) {
                jobs[njobs++] = (file_job){.file = fi, .reqs = rs + first, .n = k + 1 - first};
                first = k + 1;
            }
        }
    }
    free(count);
    pass ps = {in, jobs, njobs, in->hash_files && njobs < nt_want, 0};
    size_t nt = nt_want < njobs ? nt_want : njobs;
    pthread_t tids[PC_SCAN_MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < nt; t++)
        if (!pthread_create(&tids[started], NULL, worker, &ps)) started++;
    worker(&ps); /* the calling thread is a worker too */
    for (size_t t = 0; t < started; t++) pthread_join(tids[t], NULL);
    for (size_t j = 0; j < njobs; j++) {
        if (jobs[j].oom) cx->oom = true;
        if (jobs[j].io_error) {
            pc_io_error(cx, "%s: read failed during the data pass", in->files[jobs[j].file].path);
            rc = -1;
        }
    }
finish:
    for (size_t i = 0; i < nreq; i++) {
        scan_req *r = &l->r[i];
        if (r->oom) cx->oom = true;
        if (r->finish) r->finish(r->arg, r->complete && !r->oom, in, cx);
        free(r->carry);
        if (r->free_arg) r->free_arg(r->arg);
    }
    if (l) l->n = 0;
    free(jobs);
    free(order);
    return rc;
}

void pc_scan_free(pc_input *in)
{
    scan_list *l = in->scans;
    if (!l) return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->r[i].carry);
        if (l->r[i].free_arg) l->r[i].free_arg(l->r[i].arg);
    }
    free(l->r);
    free(l);
    in->scans = NULL;
}
