/* The rule catalogue. rules/rules.json is embedded into the binary at build time (CMake writes
 * rules_embed.c), parsed once, and is the only place a rule's wording, severity and profile live:
 * code names rules by ID, docs are generated from the same text. */
#include "packcheck_internal.h"

#include "json_get.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char pc_rules_json_text[];

static pc_rule *g_rules;
static const pc_rule **g_by_id; /* g_rules sorted by id, for pc_rule_find's binary search */
static size_t g_nrules;
static cJSON *g_root;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;


static pc_severity sev_parse(const char *s, const char *id)
{
    if (!strcmp(s, "MUST")) return PC_SEV_MUST;
    if (!strcmp(s, "SHOULD")) return PC_SEV_SHOULD;
    if (!strcmp(s, "LIMIT")) return PC_SEV_LIMIT;
    if (!strcmp(s, "OFF")) return PC_SEV_OFF;
    fprintf(stderr, "packcheck: rules.json: rule %s has bad severity '%s'\n", id, s);
    abort();
}

static int cmp_rule_ptr(const void *a, const void *b)
{
    return strcmp((*(const pc_rule *const *)a)->id, (*(const pc_rule *const *)b)->id);
}

static int cmp_id_rule(const void *key, const void *elem)
{
    return strcmp((const char *)key, (*(const pc_rule *const *)elem)->id);
}

static void rules_load(void)
{
    g_root = cJSON_Parse(pc_rules_json_text);
    const cJSON *fams = g_root ? cJSON_GetObjectItemCaseSensitive(g_root, "families") : NULL;
    if (!cJSON_IsArray(fams)) {
        fprintf(stderr, "packcheck: embedded rules.json is malformed\n");
        abort();
    }
    size_t n = 0;
    const cJSON *fam, *r;
    cJSON_ArrayForEach(fam, fams) n += (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(fam, "rules"));
    g_rules = calloc(n ? n : 1, sizeof *g_rules);
    if (!g_rules) abort();
    cJSON_ArrayForEach(fam, fams) {
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(fam, "rules")) {
            pc_rule *x = &g_rules[g_nrules];
            x->id = pc_json_str(r, "id");
            x->family = pc_json_str(fam, "family");
            x->title = pc_json_str(r, "title");
            x->checks = pc_json_str(r, "checks");
            x->reader = pc_json_str(r, "reader");
            x->source = pc_json_str(r, "source");
            x->profiles = pc_json_str(r, "profiles");
            x->no_fixture = pc_json_str(r, "no_fixture");
            x->severity = sev_parse(pc_json_str(r, "severity"), x->id);
            const char *c = pc_json_str(r, "compat");
            x->compat = *c ? sev_parse(c, x->id) : x->severity;
            x->index = g_nrules++;
        }
    }
    g_by_id = malloc((g_nrules ? g_nrules : 1) * sizeof *g_by_id);
    if (!g_by_id) abort();
    for (size_t i = 0; i < g_nrules; i++) g_by_id[i] = &g_rules[i];
    qsort(g_by_id, g_nrules, sizeof *g_by_id, cmp_rule_ptr);
    for (size_t i = 1; i < g_nrules; i++)
        if (!strcmp(g_by_id[i]->id, g_by_id[i - 1]->id)) {
            fprintf(stderr, "packcheck: rules.json: rule %s appears twice\n", g_by_id[i]->id);
            abort();
        }
}

static void rules_init(void) { pthread_once(&g_once, rules_load); }

size_t pc_rule_count(void) { rules_init(); return g_nrules; }
const pc_rule *pc_rule_at(size_t i) { rules_init(); return i < g_nrules ? &g_rules[i] : NULL; }
const char *pc_rules_json(void) { return pc_rules_json_text; }

const pc_rule *pc_rule_find(const char *id)
{
    rules_init();
    const pc_rule *const *r = g_nrules ? bsearch(id, g_by_id, g_nrules, sizeof *g_by_id, cmp_id_rule) : NULL;
    return r ? *r : NULL;
}

const char *pc_rule_id(const pc_rule *r) { return r->id; }
const char *pc_rule_title(const pc_rule *r) { return r->title; }
pc_severity pc_rule_severity(const pc_rule *r, pc_profile p) { return p == PC_PROFILE_COMPAT ? r->compat : r->severity; }

const char *pc_severity_name(pc_severity s)
{
    static const char *const n[] = {"OFF", "SHOULD", "MUST", "LIMIT"};
    return n[s];
}

const char *pc_status_name(pc_status s)
{
    static const char *const n[] = {"pass", "fail", "warn", "skip"};
    return n[s];
}
