/* compressed-tensors' module matcher, shared by the ct and nvfp4 modules (ct_config.c). */
#ifndef PC_CT_MATCH_H
#define PC_CT_MATCH_H
#include "packcheck_internal.h"

/* The entry of an ignore list (cJSON array) that names module `name`: an exact name, or "re:" + a
 * Python regex matched at the start (compressed_tensors.utils.match; an untranslatable pattern is a
 * CFG-029 warning and matches nothing). NULL when none. Shared by ct and nvfp4 (one matcher). At
 * most CT_MATCH_MAX_ENTRIES entries of at most CT_MATCH_MAX_PATTERN bytes are tried: a hostile
 * config cannot make matching slow. */
#define CT_MATCH_MAX_ENTRIES 1024
#define CT_MATCH_MAX_PATTERN 512
const char *ct_ignored_by(const void *list, const char *name, const char *src, pc_ctx *cx);
#endif
