/* Output paths that would land on an input: a report or view written over a shard, a config, or
 * into a checkpoint folder changes what the next run reads (`validate X --report json:X/model.safetensors`
 * replaced the shard with its own report). */
#ifndef PC_OUT_PATH_H
#define PC_OUT_PATH_H

#include <stddef.h>

/* 0 when `out` ("-" is stdout: always fine) may be written; -1 with a reason in why[] ("inside the
 * input folder X", ...) when it is
 * any input file, a file an input reads (a folder's files; the sidecar configs and index beside a
 * file input), or lies inside an input folder. Files and folders are compared by device and inode
 * after following links, so a symbolic or hard link to an input is the input. NULL inputs are skipped. */
int pc_out_path_check(const char *out, const char *const *inputs, size_t n, char *why, size_t whylen);

#endif
