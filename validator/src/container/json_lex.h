/* A strict JSON lexer that walks a header alongside cJSON.
 *
 * cJSON keeps numbers only as doubles, which cannot hold every u64 a safetensors header may carry,
 * and it accepts raw control characters in strings. So the header is first checked lexically here
 * (RFC 8259 strings and numbers), and while the cJSON tree is walked in document order the lexer
 * hands out the next string or number token, giving each node its exact source text and byte offset
 * without storing a token list. */
#ifndef PC_JSON_LEX_H
#define PC_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pc_jtok {
    size_t start, len;   /* span in the text (strings include their quotes) */
    bool is_string;
    bool has_nul;        /* a string holding \u0000 */
} pc_jtok;

typedef struct pc_jlex {
    const uint8_t *s;
    size_t n, pos;
} pc_jlex;

/* Lexical check of the whole text: every string and number well formed (RFC 8259: no leading zeros,
 * no control characters in strings), and between tokens nothing but the six structural characters
 * and the four JSON whitespace bytes. cJSON alone is laxer (it skips any byte <= 0x20 and a UTF-8
 * BOM, and reads "01" as 1), so the two together accept what serde_json accepts. Counts scalar
 * values (strings, numbers, literals) into *nvalues. On error returns false and sets *err_at to the
 * offending offset. */
bool pc_json_lex_check(const uint8_t *s, size_t n, size_t *nvalues, size_t *err_at);

/* Deepest nesting of arrays and objects pc_json_lex_check accepts: serde_json's recursion limit
 * (128) as the safetensors crate meets it: 127 levels parse, 128 fail "recursion limit exceeded"
 * (probed with safetensors 0.8.0; cJSON alone would go on to 1000). */
#define PC_JSON_MAX_DEPTH 127

/* An upper bound on the number of JSON values in the text, computed before parsing so the parser's
 * memory is bounded: 1 + the structural characters '[', '{', ',', ':' outside strings. Tolerant of
 * malformed text (it never fails). */
size_t pc_json_value_bound(const uint8_t *s, size_t n);

/* Decode a string token (quotes included) that passed pc_json_lex_check into fresh UTF-8 bytes,
 * NUL-terminated; *len excludes the terminator and counts any U+0000 inside. NULL when out of
 * memory or on an invalid escape (a lone surrogate). */
char *pc_json_string_decode(const uint8_t *tok, size_t toklen, size_t *len);

/* Next string or number token after lx->pos. Only call on text that passed pc_json_lex_check. */
bool pc_json_lex_next(pc_jlex *lx, pc_jtok *t);

/* Parse an unsigned decimal integer token exactly: "0" or [1-9][0-9]*, at most 2^64-1. */
bool pc_json_u64(const uint8_t *s, size_t len, uint64_t *out);

/* Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF), as Rust's str::from_utf8. */
bool pc_utf8_valid(const uint8_t *s, size_t n, size_t *err_at);

#endif
