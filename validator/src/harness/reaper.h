/* Every process a reader starts ends with it (CONTRACT 5). certify makes itself a child subreaper
 * (prctl PR_SET_CHILD_SUBREAPER), so a descendant that detaches (setsid, double fork) is re-parented
 * to certify instead of init when its parent dies, and can be found, killed and reaped. */
#ifndef PC_REAPER_H
#define PC_REAPER_H

#include <stddef.h>
#include <sys/types.h>

/* Become a subreaper. -1 when the kernel refuses (not Linux >= 3.4). */
int pc_reaper_enable(void);

/* Kill (SIGKILL) and reap every child of this process whose pid is not in keep[], again and again
 * until none is left (killing one re-parents its own children to us). Returns how many. */
int pc_reaper_sweep(const pid_t *keep, size_t nkeep);

#endif
