/* The catalogue and the corpus agree: every MUST or LIMIT rule has a negative fixture naming its exact
 * ID (or says in "no_fixture" why none can exist, and then has none); every SHOULD rule and every rule
 * the compat profile relaxes is exercised by some case; every family has rules. */
#include "harness/corpus.h"
#include "packcheck_internal.h"
#include "report/report.h"
#include "testlib.h"

typedef struct { int rejects, exercised, compat_cases; } rule_use;

static bool lists(const cJSON *arr, const char *id)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
        if (cJSON_IsString(x) && !strcmp(x->valuestring, id)) return true;
    return false;
}

static void tally(const pc_corpus *c, const pc_rule *r, rule_use *u)
{
    for (size_t i = 0; i < c->ncases; i++) {
        const cJSON *e = c->cases[i].expect, *eq = cJSON_GetObjectItem(e, "equiv");
        bool rej = !strcmp(pc_json_str(e, "verdict"), "reject") && !strcmp(pc_json_str(e, "reject_rule"), r->id);
        rej = rej || !strcmp(pc_json_str(eq, "rule"), r->id);
        bool ex = lists(cJSON_GetObjectItem(e, "rules"), r->id);
        u->rejects += rej;
        u->exercised += rej || ex;
        u->compat_cases += (rej || ex) && !strcmp(pc_json_str(e, "profile"), "compat");
    }
}

int main(void)
{
    pc_corpus c;
    CHECK(pc_corpus_load(PC_SOURCE_DIR "/fixtures", &c, stdout) == 0, "the bundled corpus does not load");
    const char *family = "";
    int in_family = 0;
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *r = pc_rule_at(i);
        rule_use u = {0, 0, 0};
        tally(&c, r, &u);
        bool hard = r->severity == PC_SEV_MUST || r->severity == PC_SEV_LIMIT;
        if (hard && !*r->no_fixture) CHECK(u.rejects > 0, "%s (%s) has no negative fixture naming it", r->id, pc_severity_name(r->severity));
        if (*r->no_fixture) CHECK(u.rejects == 0, "%s says no_fixture but %d cases reject by it: drop the exemption", r->id, u.rejects);
        if (r->severity == PC_SEV_SHOULD && !*r->no_fixture) CHECK(u.exercised > 0, "SHOULD rule %s is exercised by no case", r->id);
        if (r->compat != r->severity && !*r->no_fixture) CHECK(u.compat_cases > 0, "%s is %s under compat but no compat-profile case exercises it",
                                                               r->id, pc_severity_name(r->compat));
        if (strcmp(family, r->family)) family = r->family, in_family = 0;
        CHECK(++in_family > 0 && *r->title && *r->checks && *r->source, "%s lacks a title, checks or source", r->id);
    }
    pc_corpus_free(&c);
    return test_finish();
}
