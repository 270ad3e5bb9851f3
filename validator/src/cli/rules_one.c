/* `packcheck rules ID...`: one rule in full, from the embedded catalogue, with the corpus cases
 * that reject by it when a corpus is at hand (the same fields RULES.md shows). */
#include "cli.h"

#include "../harness/corpus.h"
#include "../report/report.h"

#include <stdio.h>
#include <string.h>

static void show(const pc_rule *r, const pc_corpus *c)
{
    FILE *o = stdout;
    const char *sev = r->severity == PC_SEV_SHOULD ? "warn" : r->severity == PC_SEV_OFF ? "reset" : "error";
    fprintf(o, "%s%s%s: %s\n", cli_sgr(o, "bold"), r->id, cli_sgr(o, "reset"), r->title);
    fprintf(o, "  severity: %s%s%s (strict), %s (compat)\n", cli_sgr(o, sev), pc_severity_name(r->severity), cli_sgr(o, "reset"),
            pc_severity_name(r->compat));
    fprintf(o, "  family:   %s\n  checks:   %s\n", r->family, r->checks);
    if (*r->reader) fprintf(o, "  reader:   %s\n", r->reader);
    if (*r->profiles) fprintf(o, "  profiles: %s\n", r->profiles);
    fprintf(o, "  source:   %s\n", r->source);
    if (*r->no_fixture) fprintf(o, "  no negative fixture: %s\n", r->no_fixture);
    int shown = 0;
    for (size_t i = 0; c && i < c->ncases; i++) {
        const cJSON *e = c->cases[i].expect;
        if (strcmp(pc_json_str(e, "verdict"), "reject") || strcmp(pc_json_str(e, "reject_rule"), r->id)) continue;
        fprintf(o, "%s%s", shown++ ? ", " : "  negative fixtures: ", c->cases[i].id);
    }
    if (shown) fputc('\n', o);
}

int cli_rules_show(char *const *ids, int n, const char *corpus)
{
    for (int i = 0; i < n; i++)
        if (!pc_rule_find(ids[i])) { fprintf(stderr, "packcheck: %s: no such rule (see `packcheck rules`)\n", ids[i]); return PC_EXIT_ERROR; }
    pc_corpus c;
    const char *dir = corpus ? corpus : cli_default_corpus();
    bool have = dir && !pc_corpus_load(dir, &c, stderr);
    for (int i = 0; i < n; i++) {
        if (i) fputc('\n', stdout);
        show(pc_rule_find(ids[i]), have ? &c : NULL);
    }
    if (dir) pc_corpus_free(&c);
    return PC_EXIT_OK;
}
