#ifndef PC_FILE_H
#define PC_FILE_H
#include "packcheck_internal.h"

int pc_file_open(pc_file *f, const char *path);
/* The same, saying why it failed (see pc_open_regular). */
int pc_file_open_why(pc_file *f, const char *path, const char **why);
/* open(2) for reading that never blocks and refuses what is not a regular file: O_NONBLOCK (a FIFO
 * or a device opens at once instead of waiting for a writer), fstat, then blocking again. Returns
 * the descriptor, or -1 with *why (static text) saying "not a regular file (a FIFO)" or strerror. */
int pc_open_regular(const char *path, const char **why);
/* What is at path, for messages: "a FIFO", "a directory", "a device", ... or NULL when nothing is. */
const char *pc_path_kind(const char *path);
void pc_file_close(pc_file *f);
/* Read exactly len bytes at off; -1 when the range is outside the file or the read fails. */
int pc_file_read(const pc_file *f, uint64_t off, void *buf, size_t len);
#endif
