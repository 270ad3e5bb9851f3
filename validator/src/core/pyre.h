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
    PC_PYRE_LIMIT = -2   /* over PYRE_MAX_PROG instructions, longer than 4096 bytes, or nested deeper
                            than 200 groups */
};

/* 1 when `pattern` matches at the start of `name` (Python re.match), 0 when not, or one of the
 * negative codes above. Each distinct pattern is compiled once and cached. */
int pc_pyre_match(const char *pattern, const char *name);
/* 0 when pattern compiles, else its negative code (for a rule message without a name). */
int pc_pyre_check(const char *pattern);

#endif
