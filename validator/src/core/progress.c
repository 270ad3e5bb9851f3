#include "progress.h"

#include <stdatomic.h>

static _Atomic uint64_t g_bytes;

void pc_progress_add(uint64_t bytes) { atomic_fetch_add_explicit(&g_bytes, bytes, memory_order_relaxed); }
uint64_t pc_progress_bytes(void) { return atomic_load_explicit(&g_bytes, memory_order_relaxed); }
