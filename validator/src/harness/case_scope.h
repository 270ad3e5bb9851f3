/* What a case is about, for readers that declare their scope (issue 32 item 6): its container
 * format ("gguf" or "safetensors") and its layouts (expect.json's layout, or for a GGUF input the
 * block types of its quantized tensors, lower case: "q8_0", "q4_k", ...). A Q8_0 reader declares
 * `--format gguf --layout q8_0` and certify runs only the cases it claims; the rest are
 * `unsupported`: coverage, neither pass nor failure. */
#ifndef PC_CASE_SCOPE_H
#define PC_CASE_SCOPE_H

#include "corpus.h"

#include <stdbool.h>
#include <stddef.h>

#define PC_SCOPE_MAX 32

typedef struct pc_case_scope {
    char format[16];     /* "gguf" or "safetensors" */
    char layouts[512];   /* comma-separated, "" when the case names none (a container case) */
} pc_case_scope;

/* A reader's declared scope; empty lists accept everything. */
typedef struct pc_scope {
    const char *layouts[PC_SCOPE_MAX];
    int nlayouts;
    const char *formats[PC_SCOPE_MAX];
    int nformats;
} pc_scope;

void pc_case_scope_of(const pc_case *k, pc_case_scope *out);

/* Add "a,b" (a comma list) to the scope's layouts or formats. -1 when the list is full. The strings
 * are borrowed (argv). */
int pc_scope_add(const char **list, int *n, char *csv);

/* NULL when the case is in scope, else why not ("layout iq4_nl", "format safetensors"). A case
 * naming no layout is in scope of any layout list (a container case: every reader of that format
 * must refuse a broken container); every layout of a mixed case must be declared. `why` is a buffer
 * of `cap` bytes. */
const char *pc_scope_excludes(const pc_scope *s, const pc_case_scope *cs, char *why, size_t cap);

bool pc_scope_declared(const pc_scope *s);

#endif
