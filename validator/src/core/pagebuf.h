/* Page-aligned buffers for every read path (scan windows, whole-tensor loads, the GGUF window,
 * equiv chunks, the logical view's outputs). pread() from the page cache copies page-sized
 * pieces; a destination that starts 16 bytes into a page (what malloc returns for a large block)
 * makes every copied page straddle two destination pages, which the issue measured at about 4.5x
 * the system time on its host. (On the 6.18 guest kernel of the development machine the
 * difference is within noise: PERFORMANCE notes in README.) Huge pages are deliberately not
 * requested: MADV_HUGEPAGE on the unpack outputs raised its system time by half (direct
 * compaction on fault, THP defrag=madvise). */
#ifndef PC_PAGEBUF_H
#define PC_PAGEBUF_H

#include <stddef.h>

#define PC_PAGE_ALIGN 4096u

/* n bytes (at least 1), PC_PAGE_ALIGN-aligned; NULL when out of memory. Release with free(). */
void *pc_page_alloc(size_t n);

#endif
