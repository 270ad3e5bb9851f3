/* Removing a folder tree certify made, whatever a reader left in it (modes 000, folders nested far
 * past PATH_MAX): walked with openat/unlinkat one folder at a time, never by full path. */
#ifndef PC_TREE_REMOVE_H
#define PC_TREE_REMOVE_H

#include <stddef.h>

/* Remove root and everything under it; symlinks are removed, never followed. Returns the number of
 * entries that could not be removed (0 = all gone); why names the first one (its path relative to
 * root, cut to whylen). */
long pc_tree_remove(const char *root, char *why, size_t whylen);

#endif
