/* Identical findings across modules, grouped (issue 32 item 4): one wrong `bits` in a config gives
 * the same failure on every module; a reader wants it once, with how many and the first few. Two
 * findings are identical when rule, status and message agree once the finding's own tensor name and
 * its module prefix are taken out of the message. */
#ifndef PC_REPORT_GROUP_H
#define PC_REPORT_GROUP_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define PC_GROUP_FIRST 3   /* instances named per group */
#define PC_GROUP_MIN 3     /* fewer identical findings are listed one by one */

typedef struct pc_fgroup {
    const cJSON *inst[PC_GROUP_FIRST]; /* the first instances, in report order */
    const cJSON **all;                 /* all n, in report order (points into one shared array) */
    size_t n;                          /* findings in the group */
    size_t modules;                    /* distinct module prefixes among them */
    size_t first_pos;                  /* where the first instance is among the kept results */
} pc_fgroup;

/* The results of one input that `keep` selects, grouped, in order of first appearance. Returns the
 * group count (*out malloc'd, caller frees) or (size_t)-1 when out of memory. */
size_t pc_findings_group(const cJSON *results, bool (*keep)(const cJSON *r, void *arg), void *arg, pc_fgroup **out);
void pc_findings_group_free(pc_fgroup *g, size_t ng);

/* A tensor's module prefix: the name up to its last '.', or the whole name. Caller frees. */
char *pc_module_prefix(const char *tensor);

/* A tensor of a module that failed a rule (same module prefix as a failing finding's tensor): its
 * being unchecked is a consequence of that failure, not news of its own. */
bool pc_of_failed_module(const cJSON *input, const char *tensor);

#endif
