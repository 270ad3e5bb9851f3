/* core/pyre.c against Python's re.match: the expected values below were produced by CPython's re
 * module (re.match(pattern, name) is not None); -1 marks syntax packcheck refuses to evaluate. */
#include "core/pyre.h"
#include "testlib.h"

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
};

int main(void)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        int got = pc_pyre_match(k_cases[i].pat, k_cases[i].name);
        CHECK(got == k_cases[i].want, "re.match(%s, %s): %d, expected %d", k_cases[i].pat, k_cases[i].name, got, k_cases[i].want);
    }
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = 0;
    CHECK(pc_pyre_match(big, "a") == -1, "a 4999-byte pattern is refused");
    free(big);
    return test_finish();
}
