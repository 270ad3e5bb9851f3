#include "json_report.h"

#include "json_dups.h"

#include <stdbool.h>

/* At most this many findings per document: enough to show the pattern, bounded for hostile files. */
#define MAX_JSON_ISSUES 16

typedef struct sink { pc_ctx *cx; const char *label, *syntax_rule; uint64_t base; } sink;

static void on_issue(void *ud, const pc_json_issue *is)
{
    sink *k = ud;
    int64_t off = (int64_t)(k->base + is->at);
    switch (is->kind) {
    case PC_JSON_DUP_KEY:
        pc_report(k->cx, "CFG-032", k->label, off,
                  "%s: key %s appears twice in one object (JSON bytes %zu and %zu): cJSON (packcheck, C readers) reads the first "
                  "value, json.loads (transformers, bitsandbytes, compressed-tensors, mlx_lm) the last",
                  k->label, is->path, is->at, is->at2);
        break;
    case PC_JSON_NUL:
        pc_report(k->cx, "CFG-033", k->label, off,
                  "%s: the string at JSON byte %zu%s%s holds U+0000: a C reader cuts it there, Python keeps the rest",
                  k->label, is->at, *is->path ? " under " : "", is->path);
        break;
    case PC_JSON_NOT_PY:
        pc_report(k->cx, k->syntax_rule, k->label, off, "%s is not JSON as json.loads reads it: %s at byte %zu",
                  k->label, is->what, is->at);
        break;
    }
}

bool pc_json_check_reads(pc_ctx *cx, const char *text, size_t len, const char *label, uint64_t base, const char *syntax_rule)
{
    pc_eval(cx, "CFG-032");
    pc_eval(cx, "CFG-033");
    sink k = {cx, label, syntax_rule, base};
    int n = pc_json_ambiguities((const uint8_t *)text, len, MAX_JSON_ISSUES, on_issue, &k);
    if (n < 0) cx->oom = true;
    return n == 0;
}
