/*
 * packcheck: the embedding API (installed; libpackcheck.so.0). Opaque handles and accessors only:
 * the structs behind them, the format plugin interface and the kernels are internal
 * (src/packcheck_internal.h, src/formats/format.h) and may change without a SONAME bump.
 *
 * Embedding (`pkg-config --cflags --libs packcheck`: shared, with an rpath to the prefix's lib/;
 * `packcheck-static` for libpackcheck.a; or find_package(packcheck) and link packcheck::packcheck /
 * packcheck::packcheck_static). No finding is not "clean": read the accounting and the verdict too.
 *
 *     pc_ctx *cx = pc_ctx_new(PC_PROFILE_STRICT);         NULL only when out of memory
 *     pc_input *in = pc_input_open(path, NULL, cx);      NULL only when out of memory
 *     if (in) pc_validate(in, cx);
 *     for (size_t i = 0; i < pc_ctx_finding_count(cx); i++) {
 *         const pc_finding *f = pc_ctx_finding(cx, i);
 *         use(pc_rule_id(pc_finding_rule(f)), pc_finding_status(f), pc_finding_tensor(f), ...);
 *     }
 *     size_t checked, plain, unchecked;                    unchecked > 0: quantized tensors not checked
 *     pc_input_tensor_counts(in, &checked, &plain, &unchecked);
 *     const char *verdict = pc_verdict(in, cx);            "error", "reject", "unchecked" or "pass"
 *     pc_input_free(in);
 *     pc_ctx_delete(cx);
 *
 * Ownership:
 * - Rules (pc_rule_*), pc_rules_json, pc_severity_name, pc_status_name: pointers into the embedded
 *   catalogue or static strings, valid for the whole process; never free. The catalogue is parsed
 *   once, thread-safely, on first use.
 * - pc_ctx_new/pc_ctx_delete: one input's findings; not shared between threads. Findings and their
 *   strings are owned by the ctx: copy what must outlive it.
 * - pc_input_open: a heap pc_input the caller frees with pc_input_free (NULL is fine); it keeps file
 *   descriptors open until then and copies `path` and `config_override`. An unreadable input still
 *   returns a pc_input, with pc_ctx_io_error(cx) set.
 * - Strings returned by pc_input_* are borrowed from the input, valid until pc_input_free.
 * Nothing in the library writes to stdout or stderr except on an internal bug (abort with a message).
 */
#ifndef PACKCHECK_H
#define PACKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PACKCHECK_VERSION "0.1.0"
#define PACKCHECK_API_VERSION 2 /* bumped on any change to this header */

/* Exit codes everywhere (CONTRACT section 1). 3: no MUST rule failed, but a quantized tensor was
 * not checked (the gate fails safe; `--allow-unchecked` turns it into 0). */
enum { PC_EXIT_OK = 0, PC_EXIT_REJECT = 1, PC_EXIT_ERROR = 2, PC_EXIT_UNCHECKED = 3 };

typedef enum { PC_SEV_OFF = 0, PC_SEV_SHOULD, PC_SEV_MUST, PC_SEV_LIMIT } pc_severity;
typedef enum { PC_PROFILE_STRICT = 0, PC_PROFILE_COMPAT } pc_profile;
typedef enum { PC_STATUS_PASS = 0, PC_STATUS_FAIL, PC_STATUS_WARN, PC_STATUS_SKIP } pc_status;

typedef struct pc_rule pc_rule;       /* one entry of the catalogue (rules/rules.json) */
typedef struct pc_finding pc_finding; /* one broken rule on one input */
typedef struct pc_ctx pc_ctx;         /* the findings for one input */
typedef struct pc_input pc_input;     /* an opened checkpoint: file, folder or sharded index */

/* The catalogue. */
size_t pc_rule_count(void);
const pc_rule *pc_rule_at(size_t i);
const pc_rule *pc_rule_find(const char *id);
const char *pc_rule_id(const pc_rule *r);     /* "CT-003" */
const char *pc_rule_title(const pc_rule *r);  /* one line */
pc_severity pc_rule_severity(const pc_rule *r, pc_profile p);
const char *pc_severity_name(pc_severity s);
const char *pc_status_name(pc_status s);
const char *pc_rules_json(void);              /* the embedded catalogue text (JSON) */

/* Findings of one input. */
pc_ctx *pc_ctx_new(pc_profile p);
void pc_ctx_delete(pc_ctx *cx);
size_t pc_ctx_finding_count(const pc_ctx *cx);
const pc_finding *pc_ctx_finding(const pc_ctx *cx, size_t i); /* NULL past the end */
/* NULL when the input was read; else why it could not be (the verdict is then "error"). */
const char *pc_ctx_io_error(const pc_ctx *cx);
bool pc_rejected(const pc_ctx *cx);           /* has a MUST or LIMIT rule failed? */
pc_status pc_rule_status(const pc_ctx *cx, const pc_rule *r); /* fail > warn > pass > skip */

const pc_rule *pc_finding_rule(const pc_finding *f);
pc_status pc_finding_status(const pc_finding *f);  /* FAIL (MUST/LIMIT broken) or WARN (SHOULD) */
const char *pc_finding_tensor(const pc_finding *f); /* "" when none applies */
int64_t pc_finding_offset(const pc_finding *f);     /* byte offset in the file, -1 when none applies */
const char *pc_finding_message(const pc_finding *f);

/* Inputs. */
pc_input *pc_input_open(const char *path, const char *config_override, pc_ctx *cx);
void pc_input_free(pc_input *in);
/* Run every format that detects itself, the streaming pass, then the tensor accounting. */
void pc_validate(pc_input *in, pc_ctx *cx);
/* The contract format name: a layout ("ct-dense", "gguf", ...), "mixed", "safetensors". */
const char *pc_input_format(const pc_input *in);
/* The verdict of a validated input: "error", "reject", "unchecked" or "pass". */
const char *pc_verdict(const pc_input *in, const pc_ctx *cx);
/* Every tensor of a validated input is in exactly one class (CONTRACT 2); any output may be NULL. */
void pc_input_tensor_counts(const pc_input *in, size_t *checked, size_t *plain, size_t *unchecked);
/* The i-th unchecked tensor (name order): its name, the scheme it belongs to and why it was not
 * checked. false past the end. */
bool pc_input_unchecked_at(const pc_input *in, size_t i, const char **tensor, const char **scheme,
                           const char **reason);

#endif
