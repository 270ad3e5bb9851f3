/* Report writers. Every writer is fed the same document: the contract's JSON report (CONTRACT 2),
 * built once by pc_report_json. JUnit, Markdown and HTML render that document, so no format can
 * say something the JSON does not. */
#ifndef PC_REPORT_H
#define PC_REPORT_H

#include "packcheck_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* One validated input. */
typedef struct pc_result {
    const char *path;
    const pc_input *in;   /* may be NULL when it could not be opened */
    const pc_ctx *cx;
    double seconds;       /* wall time of open + validate, < 0 when not measured */
} pc_result;

const char *pc_result_verdict(const pc_result *r); /* "pass", "unchecked", "reject", "error" */

/* {"packcheck_version", "profile", "inputs": [{path, format, verdict, results: [...]}]} */
cJSON *pc_report_json(const pc_result *r, size_t n, pc_profile profile);
/* One input's entry of that document. */
cJSON *pc_report_input_json(const pc_result *r);

/* --report FMT:PATH. `kind` names the document ("validate", "corpus", "certify"). Returns 0, or -1
 * with a message on stderr (unknown format, unwritable path). */
int pc_report_parse_spec(const char *spec, char **fmt, char **path);
int pc_report_write(const cJSON *doc, const char *fmt, const char *path);

/* Writers (one file each). */
char *pc_report_junit(const cJSON *doc);
char *pc_report_markdown(const cJSON *doc);
char *pc_report_html(const cJSON *doc);
/* SARIF 2.1.0 (sarif.c); NULL for documents other than validate ones. */
char *pc_report_sarif(const cJSON *doc);
/* JSON Lines, one record per input (jsonl.c); NULL for documents other than validate ones. */
char *pc_report_jsonl(const cJSON *doc);

/* The readable summary on stdout (summary.c). */
typedef enum { PC_SUMMARY_QUIET = 0, PC_SUMMARY_DEFAULT, PC_SUMMARY_VERBOSE } pc_summary_level;
void pc_report_summary(FILE *out, const cJSON *doc, pc_summary_level level);
/* The same with the verdicts and statuses coloured (SGR) when `colour`: the CLI decides (--color, NO_COLOR). */
void pc_report_summary_colour(FILE *out, const cJSON *doc, pc_summary_level level, bool colour);

/* Small string builder shared by the writers. */
typedef struct pc_sb { char *s; size_t n, cap; bool oom; } pc_sb;
void pc_sb_puts(pc_sb *b, const char *s);
void pc_sb_printf(pc_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_sb_xml(pc_sb *b, const char *s);   /* escaped for XML/HTML text and attributes */
void pc_sb_md(pc_sb *b, const char *s);    /* escaped for a Markdown table cell */
char *pc_sb_take(pc_sb *b);                /* NULL when out of memory */
void pc_sb_base64(pc_sb *b, const uint8_t *p, size_t n);
uint8_t *pc_base64_decode(const char *s, size_t *n); /* NULL when malformed; caller frees */
/* A rows x cols matrix of values as a data: URI (24-bit BMP). mode 0: colour ramp over `levels`;
 * mode 1: where a differs from other. */
void pc_sb_bmp_uri(pc_sb *b, const uint8_t *a, const uint8_t *other, unsigned rows, unsigned cols, unsigned levels, int mode);

/* Certify documents (kind "certify" and "certify-matrix"), rendered by the same writers. */
char *pc_report_html_certify(const cJSON *doc);
char *pc_report_markdown_certify(const cJSON *doc);
/* upstream_matrix.c: the public results table of an annotated certify-matrix (issue 16). */
bool pc_upstream_annotated(const cJSON *doc);
void pc_upstream_md(pc_sb *b, const cJSON *doc);
void pc_upstream_html(pc_sb *b, const cJSON *doc);
void pc_upstream_stale_note(pc_sb *b, const cJSON *doc);

/* Accessors that tolerate missing keys: pc_json_str, pc_json_num, ... */
#include "../core/json_get.h"
/* An input that could not be opened at all (verdict error, no tensor accounting): its `format` is
 * the JSON's placeholder, not something found, so the readable reports do not show it. */
bool pc_input_unopened(const cJSON *input);
/* Its error without the path the message repeats ("no such file or folder", the path is shown beside). */
const char *pc_input_error_text(const cJSON *input);
/* "12 checked, 3 plain, 2 unchecked" from an input's "tensors" object ("" when it has none). */
void pc_sb_tensor_counts(pc_sb *b, const cJSON *input);

#endif
