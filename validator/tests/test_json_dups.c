/* pc_json_ambiguities: what cJSON and json.loads read differently, with key paths and offsets. */
#include "container/json_dups.h"
#include "testlib.h"

typedef struct got { int n; pc_json_issue_kind kind[8]; size_t at[8], at2[8]; char path[8][128]; } got;

static void on(void *ud, const pc_json_issue *is)
{
    got *g = ud;
    if (g->n >= 8) return;
    g->kind[g->n] = is->kind, g->at[g->n] = is->at, g->at2[g->n] = is->at2;
    snprintf(g->path[g->n], sizeof g->path[0], "%s", is->path);
    g->n++;
}

static got walk(const char *s) { got g = {0}; pc_json_ambiguities((const uint8_t *)s, strlen(s), 8, on, &g); return g; }

int main(void)
{
    got g = walk("{\"a\": 1, \"b\": {\"c\": [1, {\"d\": 2, \"d\": 3}]}}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_DUP_KEY, "nested duplicate found (%d)", g.n);
    CHECK(!strcmp(g.path[0], "b.c[1].d"), "path %s", g.path[0]);
    CHECK(g.at[0] == 25 && g.at2[0] == 33, "offsets %zu %zu", g.at[0], g.at2[0]);

    g = walk("{\"group_size\": 128, \"x\": 0, \"group_\\u0073ize\": 64}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_DUP_KEY && !strcmp(g.path[0], "group_size"), "escaped spelling is the same key");

    g = walk("{\"k\": 1, \"k\": 2, \"k\": 3}");
    CHECK(g.n == 1 && g.at[0] == 1 && g.at2[0] == 17, "three times: first against last (%d, %zu, %zu)", g.n, g.at[0], g.at2[0]);

    g = walk("{\"a\": {\"k\": 1}, \"b\": {\"k\": 1}, \"l\": [{\"k\": 1}, {\"k\": 2}]}");
    CHECK(g.n == 0, "equal keys in different objects are fine (%d)", g.n);

    g = walk("{\"quant_type\": \"nf4\\u0000x\"}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NUL && g.at[0] == 15 && !strcmp(g.path[0], "quant_type"), "escaped NUL in a value");

    g = walk("{\"a\\u0000\": 1}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NUL && g.at[0] == 1, "escaped NUL in a key");

    g = walk("\xef\xbb\xbf{}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 0, "BOM");

    g = walk("{\"a\":\x01" "1}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 5, "control byte between tokens");

    g = walk("{\"a\": \"x\ty\"}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 8, "raw tab in a string");

    g = walk("{\"a\": 01, \"b\": 1.5e+3, \"c\": -0.25}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 6, "leading zero only (%d)", g.n);

    g = walk("{\"a\": \"\xff\"}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 7, "invalid UTF-8");

    g = walk("{\"\\ud83d\\ude00\": 1, \"\xf0\x9f\x98\x80\": 2}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_DUP_KEY, "surrogate pair escape equals the UTF-8 key");

    g = walk("{\"a\": \"E\\u000MM\"}");
    CHECK(g.n == 1 && g.kind[0] == PC_JSON_NOT_PY && g.at[0] == 8, "bad \\u hex (cJSON reads U+0000)");

    /* The cap holds: 100 duplicated keys give at most max_issues calls. */
    char big[4096] = "{";
    for (int i = 0; i < 100; i++) snprintf(big + strlen(big), sizeof big - strlen(big), "\"k%d\":1,\"k%d\":2,", i, i);
    big[strlen(big) - 1] = '}';
    got g2 = {0};
    CHECK(pc_json_ambiguities((const uint8_t *)big, strlen(big), 5, on, &g2) == 5 && g2.n == 5, "capped at 5");
    return test_finish();
}
