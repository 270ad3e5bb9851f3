/* libFuzzer harness for the report renderers: the bytes become findings (rule, status by the
 * rule's severity, tensor name and message of arbitrary bytes: invalid UTF-8, control characters,
 * U+FFFE, markup) and an input path; the document is rendered to JSON, JUnit XML, Markdown and
 * HTML, and every output must be valid UTF-8, the JSON must parse (cJSON) and the XML must be
 * well-formed (tests/xmlcheck.h). */
#include "packcheck_internal.h"
#include "report/report.h"
#include "report/text_escape.h"
#include "../xmlcheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-terminated field of the input (a copy), or NULL at the end. */
static char *field(const uint8_t **p, const uint8_t *end)
{
    if (*p >= end) return NULL;
    const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
    size_t n = nul ? (size_t)(nul - *p) : (size_t)(end - *p);
    char *s = malloc(n + 1);
    if (!s) abort();
    memcpy(s, *p, n);
    s[n] = 0;
    *p += n + (nul != NULL);
    return s;
}

static void check_text(const char *t, bool xml)
{
    if (!t) return; /* out of memory is not a finding */
    if (!pc_text_is_utf8(t)) __builtin_trap();
    if (xml && xml_wellformed(t, strlen(t))) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    pc_ctx cx;
    if (pc_ctx_init(&cx, size && (data[0] & 1) ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT)) return 0;
    char *path = field(&p, end);
    /* Then findings: one byte picks the rule, then a tensor field and a message field. */
    for (int k = 0; k < 64 && p < end; k++) {
        const pc_rule *r = pc_rule_at(*p++ % pc_rule_count());
        char *tensor = field(&p, end), *msg = field(&p, end);
        pc_report(&cx, r->id, tensor ? tensor : "", (int64_t)k - 1, "%s", msg ? msg : "");
        free(tensor);
        free(msg);
    }
    pc_result res = {path ? path : "", NULL, &cx, -1};
    cJSON *raw = pc_report_json(&res, 1, cx.profile), *owned = NULL;
    const cJSON *doc = raw ? pc_text_clean_doc(raw, &owned) : NULL;
    if (doc) {
        char *json = cJSON_Print(doc);
        check_text(json, false);
        cJSON *back = json ? cJSON_Parse(json) : NULL;
        if (json && !back) __builtin_trap();
        cJSON_Delete(back);
        free(json);
        char *t = pc_report_junit(doc);
        check_text(t, true);
        free(t);
        t = pc_report_markdown(doc);
        check_text(t, false);
        free(t);
        t = pc_report_html(doc);
        check_text(t, false);
        free(t);
    }
    cJSON_Delete(owned);
    cJSON_Delete(raw);
    free(path);
    pc_ctx_free(&cx);
    return 0;
}
