/* Page-aligned allocation for read buffers (see pagebuf.h for why). */
#include "pagebuf.h"

#include <stdlib.h>
#include <sys/mman.h>

void *pc_page_alloc(size_t n)
{
    if (!n) n = 1;
    size_t align = n >= PC_HUGE_ALIGN ? PC_HUGE_ALIGN : PC_PAGE_ALIGN;
    void *p = NULL;
    if (posix_memalign(&p, align, n)) return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only: THP may be off ("never") or busy; the buffer works either way. */
    if (align == PC_HUGE_ALIGN) (void)madvise(p, n / PC_HUGE_ALIGN * PC_HUGE_ALIGN, MADV_HUGEPAGE);
#endif
    return p;
}
