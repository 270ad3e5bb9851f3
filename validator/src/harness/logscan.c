/* Sanitizer marks in a stream of any length, in bounded memory (see logscan.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "logscan.h"

#include <stdlib.h>
#include <string.h>

/* What ASan, LSan, MSan, TSan and UBSan print when they find an error (their report headers). */
static const char *const k_marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "ERROR: MemorySanitizer",
                                      "WARNING: ThreadSanitizer", "runtime error: "};

static void find_marks(pc_logscan *s, const char *p, size_t n)
{
    for (size_t i = 0; !s->hit && i < sizeof k_marks / sizeof *k_marks; i++)
        if (memmem(p, n, k_marks[i], strlen(k_marks[i]))) s->hit = k_marks[i];
}

static void keep_tail(pc_logscan *s, const char *p, size_t n)
{
    if (n >= PC_LOG_TAIL) {
        memcpy(s->tail, p + n - PC_LOG_TAIL, PC_LOG_TAIL);
        s->ntail = PC_LOG_TAIL;
        return;
    }
    size_t keep = s->ntail + n > PC_LOG_TAIL ? PC_LOG_TAIL - n : s->ntail;
    memmove(s->tail, s->tail + s->ntail - keep, keep);
    memcpy(s->tail + keep, p, n);
    s->ntail = keep + n;
}

void pc_logscan_feed(pc_logscan *s, const char *p, size_t n)
{
    if (!n) return;
    s->total += n;
    if (!s->hit) {
        /* The seam: the previous chunk's last bytes followed by this chunk's first ones. */
        char seam[2 * PC_LOG_CARRY];
        size_t head = n < PC_LOG_CARRY ? n : PC_LOG_CARRY;
        memcpy(seam, s->carry, s->ncarry);
        memcpy(seam + s->ncarry, p, head);
        find_marks(s, seam, s->ncarry + head);
        find_marks(s, p, n);
    }
    if (n >= PC_LOG_CARRY) {
        memcpy(s->carry, p + n - PC_LOG_CARRY, PC_LOG_CARRY);
        s->ncarry = PC_LOG_CARRY;
    } else {
        size_t keep = s->ncarry + n > PC_LOG_CARRY ? PC_LOG_CARRY - n : s->ncarry;
        memmove(s->carry, s->carry + s->ncarry - keep, keep);
        memcpy(s->carry + keep, p, n);
        s->ncarry = keep + n;
    }
    keep_tail(s, p, n);
}

char *pc_logscan_tail(const pc_logscan *s)
{
    char *t = malloc(s->ntail + 1);
    if (!t) return NULL;
    for (size_t i = 0; i < s->ntail; i++) t[i] = s->tail[i] ? s->tail[i] : '?';
    t[s->ntail] = 0;
    return t;
}
