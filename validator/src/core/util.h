/* Small helpers shared by every room: allocation that never returns NULL silently, strings,
 * little-endian loads. */
#ifndef PC_UTIL_H
#define PC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *pc_strdup(const char *s);
char *pc_strndup(const char *s, size_t n);
char *pc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *pc_path_join(const char *dir, const char *name);
char *pc_dirname(const char *path);
int pc_is_dir(const char *path);
int pc_file_exists(const char *path);
/* Something (of any kind, a dangling link too) is at path: a FIFO config.json is refused, not skipped. */
int pc_path_present(const char *path);
/* Read a small whole file (<= limit bytes) into a NUL-terminated buffer; NULL for anything that is
 * not a regular file (never blocks on a FIFO). */
char *pc_slurp(const char *path, size_t limit, size_t *len);

/* Sort by cmp (not stable). Accepts an empty, possibly NULL array (qsort(NULL, 0, ...) is undefined).
 * An array made of a few sorted runs (at most PC_SORT_MAX_RUNS) is merged, in n log(runs) compares:
 * a header's tensors arrive in order, a folder's as one run per shard; anything else goes to qsort. */
#define PC_SORT_MAX_RUNS 64
void pc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

static inline uint16_t pc_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t pc_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t pc_le64(const uint8_t *p) { return (uint64_t)pc_le32(p) | ((uint64_t)pc_le32(p + 4) << 32); }
static inline void pc_put_le32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static inline void pc_put_le64(uint8_t *p, uint64_t v) { pc_put_le32(p, (uint32_t)v); pc_put_le32(p + 4, (uint32_t)(v >> 32)); }

/* IEEE half and bfloat16 / fp8 to f32 (exact conversions). */
float pc_f16_to_f32(uint16_t h);
float pc_bf16_to_f32(uint16_t h);
float pc_f8e4m3_to_f32(uint8_t v);

#endif
