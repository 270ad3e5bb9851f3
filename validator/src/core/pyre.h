/* Python's re.match for the module-name patterns configs carry (compressed-tensors targets and
 * ignore "re:" entries, GPTQModel "dynamic" keys, NVFP4 ignore), with a linear-time, bounded-memory
 * engine (pyre.c): whatever the pattern, matching costs O(len(name) x program size) and the program
 * is at most PYRE_MAX_PROG instructions. */
#ifndef PC_PYRE_H
#define PC_PYRE_H

/* A pattern whose compiled program (counted repetition expanded) would exceed this many
 * instructions is refused with PC_PYRE_LIMIT: "re:(a{1,1000}){1,1000}" would need ~2 million. */
#define PYRE_MAX_PROG 10000

enum {
    PC_PYRE_SYNTAX = -1, /* syntax evaluated nowhere here: lookaround, flags, named groups, lazy or
                            possessive quantifiers, back-references, unknown escapes, or a pattern
                            Python itself rejects (unbalanced parentheses, nothing to repeat) */
    PC_PYRE_LIMIT = -2,  /* over PYRE_MAX_PROG instructions, longer than 4096 bytes, or nested deeper
                            than 200 groups */
    PC_PYRE_BUDGET = -3  /* refused, not run: the input's patterns together are past
                            PYRE_INPUT_MAX_PROG compiled instructions or PYRE_INPUT_MAX_STEPS steps */
};

/* What the patterns of one input (between two pc_pyre_reset calls) may cost together: distinct
 * patterns compile to at most PYRE_INPUT_MAX_PROG instructions (each compiled once and kept; a
 * pattern past the total is refused), and matching visits at most PYRE_INPUT_MAX_STEPS automaton
 * states (about a second; after that every match is refused). Matching costs at most that
 * whatever the number of modules and patterns. */
#define PYRE_INPUT_MAX_PROG (2u << 20)
#define PYRE_INPUT_MAX_STEPS 300000000ull

/* Forget every compiled pattern and the step count: pc_validate calls it for each input. */
void pc_pyre_reset(void);
/* True the first time it is asked after a PC_PYRE_BUDGET answer (until the next reset): callers
 * report the budget once per input, not once per (module, pattern) pair. */
#include <stdbool.h>
bool pc_pyre_budget_notice(void);

/* 1 when `pattern` matches at the start of `name` (Python re.match), 0 when not, or one of the
 * negative codes above. Each distinct pattern is compiled once and cached. */
int pc_pyre_match(const char *pattern, const char *name);
/* 0 when pattern compiles, else its negative code (for a rule message without a name). */
int pc_pyre_check(const char *pattern);

#endif
