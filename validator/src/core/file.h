#ifndef PC_FILE_H
#define PC_FILE_H
#include "packcheck.h"

int pc_file_open(pc_file *f, const char *path);
void pc_file_close(pc_file *f);
/* Read exactly len bytes at off; -1 when the range is outside the file or the read fails. */
int pc_file_read(const pc_file *f, uint64_t off, void *buf, size_t len);
#endif
