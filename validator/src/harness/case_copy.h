/* A reader never sees the corpus (CONTRACT 5): each invocation gets a private copy of its case's
 * input files in a fresh folder, read-only, and every byte of it is verified after the reader ran.
 * Files are opened with O_NOFOLLOW | O_NONBLOCK and must be regular: a FIFO, a device or a symlink
 * put in place of a file is refused without blocking. */
#ifndef PC_CASE_COPY_H
#define PC_CASE_COPY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pc_copy_entry {
    char *rel;       /* path relative to the copy's root */
    bool dir;
    char sha256[65]; /* files: digest at copy time */
} pc_copy_entry;

typedef struct pc_case_copy {
    char *root;
    pc_copy_entry *e;
    size_t n;
} pc_case_copy;

/* Copy the regular files and folders under src into dst (created, must not exist), except a
 * top-level file named `skip` (the case's expect.json: the answer is not the reader's to read).
 * Files become 0444, folders 0555. -1 with why filled on failure. */
int pc_case_copy_make(const char *src, const char *dst, const char *skip, pc_case_copy *cc, char *why, size_t whylen);

/* 0 when the copy is exactly as made; 1 when something changed (why says what: a digest, a file
 * added, removed or replaced by something that is not a regular file); -1 when out of memory. */
int pc_case_copy_verify(const pc_case_copy *cc, char *why, size_t whylen);

void pc_case_copy_free(pc_case_copy *cc);

/* SHA-256 of a regular file, opened without following a symlink or blocking on a FIFO. -1 (why
 * filled) when it is not a regular file or unreadable. */
int pc_hash_regular(const char *path, char hex[65], char *why, size_t whylen);

/* Is everything under dir a folder or a regular file? -1 (why names the first other thing). */
int pc_tree_regular_only(const char *dir, char *why, size_t whylen);


#endif
