/* unpack's write pipeline (harness/logical.c): the decoding thread fills one of two slots with a
 * slice of a module's view (codes and f32 weights) and hands it over; a writer thread pwrites it to
 * its two places in the output file while the next slice is decoded into the other slot. The slots
 * are allocated and faulted in once and reused for every slice of every module, so no fresh pages
 * are touched per module and each slice is written while it is still in cache.
 *
 * Written ranges are handed to the kernel's writeback every PC_LV_WRITEBACK bytes of each stream
 * (sync_file_range, Linux), so the disk writes while later slices decode and the final fsync waits
 * only for the tail, not for the whole view.
 *
 * Memory: 2 slots x cap elements x 5 bytes. With threads == 1 (PACKCHECK_THREADS=1, or the thread
 * cannot start) the same slots are written synchronously by the caller. */
#ifndef PC_LV_WRITER_H
#define PC_LV_WRITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_LV_WRITEBACK (8u << 20)

typedef struct lv_job {
    const uint8_t *codes;       /* n bytes to codes_off */
    const float *w;             /* n floats to w_off */
    uint64_t n, codes_off, w_off;
    bool full;                  /* handed to the writer, not yet written */
} lv_job;

/* A run of bytes written back to back, not yet handed to writeback. */
typedef struct lv_span { uint64_t off, len; } lv_span;

typedef struct lv_writer {
    int fd;
    lv_span span[2];            /* the codes and the weights stream (writer side only) */
    uint8_t *codes[2];          /* the slots' own buffers, cap elements each */
    float *w[2];
    size_t cap;
    lv_job job[2];
    unsigned head, tail;        /* next slot the decoder fills / the writer writes */
    bool threaded, done, failed;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} lv_writer;

/* Slots of cap elements (>= 1), pre-faulted with a pattern no decode produces everywhere (0xA5 codes,
 * NaN weights); a thread when `threads` > 1. 0, or -1 when out of memory. */
int lv_writer_open(lv_writer *wr, int fd, size_t cap, unsigned threads);
/* The next free slot's buffers (waits for the writer); NULL after a write failed. */
lv_job *lv_writer_slot(lv_writer *wr, uint8_t **codes, float **w);
/* Hand the slot from lv_writer_slot over: its n elements go to codes_off and w_off. The buffers
 * may be the slot's own or others that stay untouched until lv_writer_drain returns. */
void lv_writer_submit(lv_writer *wr, lv_job *j, const uint8_t *codes, const float *w, uint64_t n, uint64_t codes_off, uint64_t w_off);
/* Wait until everything submitted is written. 0, or -1 when a write failed. */
int lv_writer_drain(lv_writer *wr);
/* Drain, stop the thread, free the slots. 0, or -1 when a write failed. */
int lv_writer_close(lv_writer *wr);

#endif
