/* core/pyre.c against Python's re.match: the expected values below were produced by CPython's re
 * module (re.match(pattern, name) is not None); -1 marks syntax packcheck refuses to evaluate. */
#include "core/pyre.h"
#include "testlib.h"

#include <time.h>

static const struct { const char *pat, *name; int want; } k_cases[] = {
    {".*self_attn.*", "model.layers.0.self_attn.q_proj", 1},
    {"self_attn", "model.layers.0.self_attn.q_proj", 0}, /* anchored at the start only */
    {"model\\.layers\\.\\d+\\.mlp", "model.layers.12.mlp.up_proj", 1},
    {"model\\.layers\\.\\d+\\.mlp$", "model.layers.12.mlp.up_proj", 0},
    {".*mlp.*\\.(gate_up|gate|up|down)_proj$", "model.layers.0.mlp.down_proj", 1},
    {"(?:a|b)\\w+", "bx_1", 1},
    {"\\s", "x", 0},
    {"\\S+", "x y", 1},
    {"lm_head", "lm_head", 1},
    {"lm_head", "lm_head_extra", 1},
    {".*\\-proj", "a-proj", 1},
    {"(?<=mlp)\\.up", "mlp.up", -1},   /* lookbehind */
    {"(?i)MLP", "mlp", -1},            /* inline flags */
    {"(?P<x>a)", "a", -1},             /* named group */
    {"a+?", "aa", -1},                 /* lazy quantifier */
    {"(a)\\1", "aa", -1},              /* back-reference: exponential in POSIX regexec */
    {"\\q", "q", -1},                  /* unknown escape */
    {"(unclosed", "x", -1},            /* ERE rejects it too */
    /* The linear-time engine (issue 12 item 2): counted repetition, classes, alternation, anchors,
     * code points; expected values from CPython 3.11 re.match. */
    {"a{2,3}b", "aab", 1},
    {"a{2,3}b", "ab", 0},
    {"a{2}", "aa", 1},
    {"a{,2}b", "b", 1},
    {"a{2,}b", "aaaab", 1},
    {"a{", "a{", 1},
    {"a{x}", "a{x}", 1},
    {"a{1,2", "a{1,2", 1},
    {"[abc]+d", "cabd", 1},
    {"[^abc]", "d", 1},
    {"[^abc]", "a", 0},
    {"[a-f0-9]+$", "deadbeef", 1},
    {"[]a]", "]", 1},
    {"[\\d.]+", "1.2", 1},
    {"[\\w-]+x", "a-b_x", 1},
    {"x$", "x\n", 1},
    {"x$", "x\n\n", 0},
    {"^x", "x", 1},
    {"a|b|c", "c", 1},
    {"(a|ab)(c|bcd)(d*)", "abcd", 1},
    {"(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaac", 0},
    {"(a|aa)*$", "aaaaaaaaaaaaaaaaaaaaaaaaab", 0},
    {".", "\n", 0},
    {"a.c", "a\xc3\xa9" "c", 1},
    {"model\\.layers\\.(1[0-9]|2[0-3])\\.mlp\\.(gate|up)_proj", "model.layers.17.mlp.up_proj", 1},
    {"model\\.layers\\.(1[0-9]|2[0-3])\\.mlp\\.(gate|up)_proj", "model.layers.24.mlp.up_proj", 0},
    {"", "x", 1},
    {"()", "x", 1},
    {"(?:)*x", "x", 1},
    {".*\\.(q|k|v)_proj$", "model.layers.0.self_attn.k_proj", 1},
    {"\\W", ".", 1},
    {"\\D+", "ab", 1},
    {"\\S\\s\\S", "a b", 1},
    {"\\t", "\t", 1},
    {"a\\-b", "a-b", 1},
    {"re:x", "re:x", 1},
    {"(ab){2}", "abab", 1},
    {"(ab){2}", "aba", 0},
    {"a{0}b", "b", 1},
    {"[a-]", "-", 1},
    {"[-a]", "-", 1},
    {"x*", "", 1},
    {"$", "", 1},
};

/* Hostile patterns (issue 12 item 2): bounded time and memory, a LIMIT refusal over the cap. */
static void test_hostile(void)
{
    char name[10001];
    memset(name, 'a', 10000);
    name[10000] = 0;
    CHECK(pc_pyre_match("(a{1,1000}){1,1000}", name) == PC_PYRE_LIMIT, "the 28-byte blow-up pattern is over the cap");
    CHECK(pc_pyre_check("(a{1,1000}){1,1000}") == PC_PYRE_LIMIT, "check agrees");
    CHECK(pc_pyre_match("((){65535}){65535}", "x") == PC_PYRE_LIMIT, "repeated empty groups count too");
    CHECK(pc_pyre_match("(a{1,9}){1,9}$", name) == 0, "under the cap: (a{1,9}){1,9}$ on 10,000 a's (linear, no backtracking)");
    CHECK(pc_pyre_match("(a|aa)*c", name) == 0, "exponential for a backtracker, linear here");
    CHECK(pc_pyre_match("(a*)*b", name) == 0, "nested stars");
    char deep[1003];
    memset(deep, '(', 501);
    memset(deep + 501, ')', 501);
    deep[1002] = 0;
    CHECK(pc_pyre_match(deep, "x") == PC_PYRE_LIMIT, "501 nested groups are over the depth limit");
}

/* 1,000 modules x 20,000 patterns: each pattern compiled once (a cache), each match linear. */
static void test_many(void)
{
    enum { NPAT = 20000, NMOD = 1000 };
    char (*pats)[64] = malloc(NPAT * sizeof *pats), mod[64];
    for (int p = 0; p < NPAT; p++)
        snprintf(pats[p], sizeof pats[p], p & 1 ? ".*layers\\.%d\\.mlp\\..*" : "model\\.layers\\.%d\\.(self_attn|mlp)", p);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long hits = 0;
    for (int m = 0; m < NMOD; m++) {
        snprintf(mod, sizeof mod, "model.layers.%d.mlp.down_proj", m);
        for (int p = 0; p < NPAT; p++) hits += pc_pyre_match(pats[p], mod) == 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(hits == NMOD, "1,000 modules x 20,000 patterns: %ld matches, expected one per module", hits);
    printf("1,000 modules x 20,000 patterns: %.2f s (not asserted)\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    free(pats);
}

int main(void)
{
    test_hostile();
    test_many();
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        int got = pc_pyre_match(k_cases[i].pat, k_cases[i].name);
        CHECK(got == k_cases[i].want, "re.match(%s, %s): %d, expected %d", k_cases[i].pat, k_cases[i].name, got, k_cases[i].want);
    }
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = 0;
    CHECK(pc_pyre_match(big, "a") < 0, "a 4999-byte pattern is refused");
    free(big);
    return test_finish();
}
