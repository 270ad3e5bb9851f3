/* Page-aligned buffers for every read path (scan windows, whole-tensor loads, the GGUF window,
 * equiv chunks). pread() from the page cache copies page-sized pieces; a destination that starts
 * 16 bytes into a page (what malloc returns for a large block) makes every copied page straddle
 * two destination pages, and the issue measured about 4.5x the system time for that on its host
 * kernel. Buffers of 2 MiB or more are 2 MiB-aligned and offered to transparent huge pages
 * (madvise: fewer TLB misses while the kernel copies into them and the hash reads them back). */
#ifndef PC_PAGEBUF_H
#define PC_PAGEBUF_H

#include <stddef.h>

#define PC_PAGE_ALIGN 4096u
#define PC_HUGE_ALIGN (2u << 20)

/* n bytes (at least 1), aligned as above; NULL when out of memory. Release with free(). */
void *pc_page_alloc(size_t n);

#endif
