/* A process-wide count of checkpoint bytes read by the streaming pass, for progress lines on
 * stderr (cli/progress.c). Relaxed atomics: a progress line needs no ordering. */
#ifndef PC_PROGRESS_H
#define PC_PROGRESS_H

#include <stdint.h>

void pc_progress_add(uint64_t bytes);
uint64_t pc_progress_bytes(void);

#endif
