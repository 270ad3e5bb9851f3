/* Helpers for the recognise-only format entries (known_*.c): schemes packcheck can name but does
 * not decode yet. Each such entry has only an explain() hook; when a scheme gets a real module, its
 * recogniser moves into that module's explain() and its known_* entry goes away. */
#ifndef PC_KNOWN_SCHEMES_H
#define PC_KNOWN_SCHEMES_H

#include "packcheck_internal.h"

/* The tensor `prefix` + "." + suffix, or NULL. */
const pc_tensor *pc_sibling(const pc_input *in, const char *prefix, const char *suffix);
/* When t's name is `M.<suffix>` for one of the NULL-terminated suffixes, copy M into buf (n bytes)
 * and return true. */
bool pc_split_suffix(const char *name, const char *const *suffixes, char *buf, size_t n);
/* "not decoded by this version: its tensors are listed, none is checked" */
extern const char pc_not_decoded[];

#endif
