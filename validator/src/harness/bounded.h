/* certify's evaluation phase, bounded (CONTRACT 5): what a reader wrote is judged in a forked child
 * with a wall-clock deadline, so an output that would block a read (a FIFO), or anything in it that
 * makes packcheck loop or crash, ends as a wrong output instead of hanging or killing certify. */
#ifndef PC_BOUNDED_H
#define PC_BOUNDED_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef cJSON *(*pc_bounded_fn)(void *arg);

/* Run fn(arg) in a child process; its result (a cJSON document) comes back through a pipe. NULL
 * when the child did not finish within timeout_s, died, or answered nothing usable: why says which. */
cJSON *pc_run_bounded(pc_bounded_fn fn, void *arg, double timeout_s, char *why, size_t whylen);

#endif
