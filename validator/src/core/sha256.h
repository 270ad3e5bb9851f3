/* SHA-256 through OpenSSL's EVP interface (SHA-NI where the CPU has it). */
#ifndef PC_SHA256_H
#define PC_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct pc_sha256 { void *md; } pc_sha256;
int pc_sha256_init(pc_sha256 *h);
void pc_sha256_update(pc_sha256 *h, const void *p, size_t n);
/* Writes 64 lowercase hex digits and a NUL; frees the state. */
void pc_sha256_final_hex(pc_sha256 *h, char hex[65]);
void pc_sha256_hex(const void *p, size_t n, char hex[65]);
/* Hash a whole file in 1 MiB windows. Returns -1 when unreadable. */
int pc_sha256_file_hex(const char *path, char hex[65]);
#endif
