/* A reader's stdout+stderr, seen as a stream (CONTRACT 5): sanitizer reports are looked for in every
 * byte, however much the reader prints, and only the last bytes are kept for the report. Memory is
 * fixed (one struct), whatever the stream's length. */
#ifndef PC_LOGSCAN_H
#define PC_LOGSCAN_H

#include <stddef.h>
#include <stdint.h>

#define PC_LOG_TAIL 600  /* bytes of a reader's output kept for the report */
#define PC_LOG_CARRY 64  /* > the longest marker: a marker split across two reads is still found */

typedef struct pc_logscan {
    const char *hit;             /* the first sanitizer marker seen, or NULL */
    uint64_t total;              /* bytes seen */
    char carry[PC_LOG_CARRY];    /* the previous chunk's last bytes */
    size_t ncarry;
    char tail[PC_LOG_TAIL];      /* the last bytes seen, oldest first */
    size_t ntail;
} pc_logscan;

void pc_logscan_feed(pc_logscan *s, const char *p, size_t n);
/* The kept tail as a fresh NUL-terminated string (NUL bytes of the stream shown as '?'). */
char *pc_logscan_tail(const pc_logscan *s);

#endif
