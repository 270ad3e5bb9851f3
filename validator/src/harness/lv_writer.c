/* unpack's two-slot write pipeline (lv_writer.h). */
#include "lv_writer.h"

#include "../core/atomic_file.h"
#include "../core/pagebuf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* Start writeback of a stream's span (not waiting for it: the fsync at commit does). */
static void span_flush(int fd, lv_span *s)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (s->len) sync_file_range(fd, (off_t)s->off, (off_t)s->len, SYNC_FILE_RANGE_WRITE); /* a hint: errors show at fsync */
#else
    (void)fd;
#endif
    s->len = 0;
}

/* n bytes just written at off extend the stream's span, or start a new one. */
static void span_add(int fd, lv_span *s, uint64_t off, uint64_t n)
{
    if (s->len && s->off + s->len != off) span_flush(fd, s);
    if (!s->len) s->off = off;
    s->len += n;
    if (s->len >= PC_LV_WRITEBACK) span_flush(fd, s);
}

static int write_job(lv_writer *wr, const lv_job *j)
{
    uint64_t wn = j->n * sizeof *j->w; /* n <= 2^30 elements */
    if (pc_afile_pwrite(wr->fd, j->codes, (size_t)j->n, j->codes_off) || pc_afile_pwrite(wr->fd, j->w, (size_t)wn, j->w_off)) return -1;
    span_add(wr->fd, &wr->span[0], j->codes_off, j->n);
    span_add(wr->fd, &wr->span[1], j->w_off, wn);
    return 0;
}

/* Write the slots in the order they were filled until closed; after a failure, only release them
 * (the decoder sees `failed` at its next slot and stops). */
static void *writer_main(void *arg)
{
    lv_writer *wr = arg;
    pthread_mutex_lock(&wr->mu);
    for (;;) {
        lv_job *j = &wr->job[wr->tail & 1];
        if (!j->full) {
            if (wr->done) break;
            pthread_cond_wait(&wr->cv, &wr->mu);
            continue;
        }
        bool skip = wr->failed;
        pthread_mutex_unlock(&wr->mu);
        int rc = skip ? 0 : write_job(wr, j); /* outside the lock: the decoder fills the other slot */
        pthread_mutex_lock(&wr->mu);
        if (rc) wr->failed = true;
        j->full = false;
        wr->tail++;
        pthread_cond_broadcast(&wr->cv);
    }
    pthread_mutex_unlock(&wr->mu);
    return NULL;
}

static void free_slots(lv_writer *wr)
{
    for (int i = 0; i < 2; i++) {
        free(wr->codes[i]);
        free(wr->w[i]);
        wr->codes[i] = NULL;
        wr->w[i] = NULL;
    }
}

int lv_writer_open(lv_writer *wr, int fd, size_t cap, unsigned threads)
{
    memset(wr, 0, sizeof *wr);
    wr->fd = fd;
    wr->cap = cap ? cap : 1;
    if (wr->cap > SIZE_MAX / sizeof(float)) return -1;
    for (int i = 0; i < 2; i++) {
        wr->codes[i] = pc_page_alloc(wr->cap);
        wr->w[i] = pc_page_alloc(wr->cap * sizeof(float));
        if (!wr->codes[i] || !wr->w[i]) { free_slots(wr); return -1; }
        /* Faulted in once here, never again; a decode that skipped an element shows (test_logical_write). */
        memset(wr->codes[i], 0xA5, wr->cap);
        memset(wr->w[i], 0xFF, wr->cap * sizeof(float));
    }
    if (threads > 1 && !pthread_mutex_init(&wr->mu, NULL)) {
        if (!pthread_cond_init(&wr->cv, NULL)) {
            wr->threaded = !pthread_create(&wr->th, NULL, writer_main, wr);
            if (!wr->threaded) pthread_cond_destroy(&wr->cv);
        }
        if (!wr->threaded) pthread_mutex_destroy(&wr->mu);
    }
    return 0;
}

lv_job *lv_writer_slot(lv_writer *wr, uint8_t **codes, float **w)
{
    unsigned s = wr->head & 1;
    lv_job *j = &wr->job[s];
    bool failed;
    if (wr->threaded) {
        pthread_mutex_lock(&wr->mu);
        while (j->full) pthread_cond_wait(&wr->cv, &wr->mu);
        failed = wr->failed;
        pthread_mutex_unlock(&wr->mu);
    } else {
        failed = wr->failed;
    }
    if (failed) return NULL;
    *codes = wr->codes[s];
    *w = wr->w[s];
    return j;
}

void lv_writer_submit(lv_writer *wr, lv_job *j, const uint8_t *codes, const float *w, uint64_t n, uint64_t codes_off, uint64_t w_off)
{
    if (!wr->threaded) {
        lv_job now = {codes, w, n, codes_off, w_off, false};
        if (!wr->failed && write_job(wr, &now)) wr->failed = true;
        wr->head++;
        return;
    }
    pthread_mutex_lock(&wr->mu);
    *j = (lv_job){codes, w, n, codes_off, w_off, true};
    wr->head++;
    pthread_cond_broadcast(&wr->cv);
    pthread_mutex_unlock(&wr->mu);
}

int lv_writer_drain(lv_writer *wr)
{
    if (!wr->threaded) return wr->failed ? -1 : 0;
    pthread_mutex_lock(&wr->mu);
    while (wr->job[0].full || wr->job[1].full) pthread_cond_wait(&wr->cv, &wr->mu);
    bool failed = wr->failed;
    pthread_mutex_unlock(&wr->mu);
    return failed ? -1 : 0;
}

int lv_writer_close(lv_writer *wr)
{
    int rc = lv_writer_drain(wr);
    if (wr->threaded) {
        pthread_mutex_lock(&wr->mu);
        wr->done = true;
        pthread_cond_broadcast(&wr->cv);
        pthread_mutex_unlock(&wr->mu);
        pthread_join(wr->th, NULL);
        pthread_cond_destroy(&wr->cv);
        pthread_mutex_destroy(&wr->mu);
        wr->threaded = false;
    }
    free_slots(wr);
    return rc;
}
