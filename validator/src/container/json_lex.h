/* A strict JSON lexer, syntax check and cursor.
 *
 * cJSON keeps numbers only as doubles, which cannot hold every u64 a safetensors header may carry,
 * accepts raw control characters in strings and builds a tree of ~100 bytes a value. The
 * safetensors header is therefore checked by pc_json_value_check and walked with the cursor below,
 * which hands out each string or number token with its exact source text and byte offset and builds
 * nothing (a 150k-tensor header: 178 -> 78 MB peak, 0.57 -> 0.40 s). The index and the configs are
 * lexed by pc_json_lex_check and then parsed by cJSON. */
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

/* Full syntax check of the one JSON value at the start of s (JSON whitespace before it): RFC 8259's
 * grammar with pc_json_lex_check's lexical rules and depth limit, which is what serde_json accepts.
 * *end is one past the value (what follows is the caller's). On error *err_at is the offending
 * offset. Builds nothing: the safetensors header is then walked with the cursor below. */
bool pc_json_value_check(const uint8_t *s, size_t n, size_t *end, size_t *err_at);

/* A cursor over text that passed pc_json_value_check (lx->pos at a value):
 *   pc_json_peek   the first byte of the next value, after whitespace ('{', '[', '"', '-', a digit,
 *                  't', 'f', 'n'; 0 at the end), not consumed;
 *   pc_json_open   enters the object or array there: false when it is empty (and then left);
 *   pc_json_key    an object member's key token, and its ':';
 *   pc_json_more   after a member: true at ',' (another follows), false at the closing bracket;
 *   pc_json_skip   steps over one whole value;
 *   pc_json_lex_next (below) reads a string or number value's token. */
uint8_t pc_json_peek(pc_jlex *lx);
bool pc_json_open(pc_jlex *lx);
bool pc_json_key(pc_jlex *lx, pc_jtok *t);
bool pc_json_more(pc_jlex *lx);
void pc_json_skip(pc_jlex *lx);

/* Decode a string token (quotes included) that passed pc_json_lex_check into fresh UTF-8 bytes,
 * NUL-terminated; *len excludes the terminator and counts any U+0000 inside. NULL when out of
 * memory or on an invalid escape (a lone surrogate). */
char *pc_json_string_decode(const uint8_t *tok, size_t toklen, size_t *len);
/* The same into `out`, which holds at least toklen bytes; false on an invalid escape. */
bool pc_json_string_decode_into(const uint8_t *tok, size_t toklen, char *out, size_t *len);

/* Next string or number token after lx->pos. Only call on text that passed pc_json_lex_check. */
bool pc_json_lex_next(pc_jlex *lx, pc_jtok *t);

/* Parse an unsigned decimal integer token exactly: "0" or [1-9][0-9]*, at most 2^64-1. */
bool pc_json_u64(const uint8_t *s, size_t len, uint64_t *out);

/* Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF), as Rust's str::from_utf8. */
bool pc_utf8_valid(const uint8_t *s, size_t n, size_t *err_at);

#endif
