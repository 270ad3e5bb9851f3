/* JSON that a C reader and a Python reader would read differently.
 *
 * packcheck parses sidecar JSON with cJSON, whose object lookup returns the FIRST of two equal keys;
 * every Python loader (json.loads: transformers, bitsandbytes' QuantState, compressed-tensors,
 * mlx_lm) keeps the LAST (a dict built from the pairs). cJSON also hands out strings as C strings,
 * cut at an escaped U+0000 that Python keeps, and it skips bytes json.loads refuses (a UTF-8 BOM,
 * control bytes between tokens, raw control characters inside strings, invalid UTF-8 once the file
 * is decoded). This walk finds each of these, with the key path and byte offsets, so such a file is
 * a finding instead of a silent difference between what packcheck checked and what a loader loads. */
#ifndef PC_JSON_DUPS_H
#define PC_JSON_DUPS_H

#include <stddef.h>
#include <stdint.h>

typedef enum pc_json_issue_kind {
    PC_JSON_DUP_KEY,   /* a key twice in one object: at = first occurrence, at2 = the later one */
    PC_JSON_NUL,       /* a string holding an escaped U+0000: at = the string's opening quote */
    PC_JSON_NOT_PY,    /* something json.loads refuses that cJSON skips: at = the byte */
} pc_json_issue_kind;

typedef struct pc_json_issue {
    pc_json_issue_kind kind;
    size_t at, at2;
    const char *path;  /* key path, e.g. quantization_config.config_groups.group_0.weights (valid during the call) */
    const char *what;  /* PC_JSON_NOT_PY: what json.loads refuses */
} pc_json_issue;

typedef void (*pc_json_issue_fn)(void *ud, const pc_json_issue *issue);

/* Walk text s[0..n), which cJSON has already parsed as one value (trailing bytes are the caller's
 * to judge), calling `on` for each issue in document order (a duplicate at the close of its
 * object), at most `max_issues` times. Time O(n log n), memory O(n). Returns the number of issues
 * found (capped at max_issues), or -1 when out of memory. */
int pc_json_ambiguities(const uint8_t *s, size_t n, size_t max_issues, pc_json_issue_fn on, void *ud);

#endif
