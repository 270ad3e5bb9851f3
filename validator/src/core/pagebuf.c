/* Page-aligned allocation for read buffers (see pagebuf.h for why). */
#include "pagebuf.h"

#include <stdlib.h>

void *pc_page_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, PC_PAGE_ALIGN, n ? n : 1) ? NULL : p;
}
