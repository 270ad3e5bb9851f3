/* Findings for JSON that readers would read differently (json_dups.h), under the catalogue's rules:
 * CFG-032 (a key twice), CFG-033 (U+0000 in a string), and the document's own syntax rule for
 * what json.loads refuses but cJSON skips. */
#ifndef PC_JSON_REPORT_H
#define PC_JSON_REPORT_H

#include "packcheck_internal.h"

#include <stddef.h>
#include <stdint.h>

/* Report the ambiguities of `text` (len bytes, one value cJSON parsed), labelled `label` (a file or
 * a tensor name); `base` is the document's first byte in its file (0 for a file of its own),
 * added to the offsets findings carry. `syntax_rule` takes what json.loads refuses. Returns false
 * when something was found (or memory ran out: cx->oom). */
bool pc_json_check_reads(pc_ctx *cx, const char *text, size_t len, const char *label, uint64_t base, const char *syntax_rule);

#endif
