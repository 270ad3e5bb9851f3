/* `--report FMT:PATH`: parse the spec, render the JSON document in the chosen format and write it
 * atomically (or to stdout for PATH "-"). */
#include "report.h"

#include "../core/atomic_file.h"
#include "../core/util.h"
#include "text_escape.h"

#include <stdlib.h>
#include <string.h>

int pc_report_parse_spec(const char *spec, char **fmt, char **path)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec || !colon[1]) return -1;
    *fmt = pc_strndup(spec, (size_t)(colon - spec));
    *path = pc_strdup(colon + 1);
    if (strcmp(*fmt, "json") && strcmp(*fmt, "junit") && strcmp(*fmt, "md") && strcmp(*fmt, "html") &&
        strcmp(*fmt, "sarif") && strcmp(*fmt, "jsonl")) {
        free(*fmt);
        free(*path);
        return -1;
    }
    return 0;
}

int pc_report_write(const cJSON *raw, const char *fmt, const char *path)
{
    cJSON *owned;
    const cJSON *doc = pc_text_clean_doc(raw, &owned); /* every format: valid UTF-8 only */
    if (!doc) return -1;
    char *text = !strcmp(fmt, "json") ? cJSON_Print(doc)
               : !strcmp(fmt, "junit") ? pc_report_junit(doc)
               : !strcmp(fmt, "md") ? pc_report_markdown(doc)
               : !strcmp(fmt, "sarif") ? pc_report_sarif(doc)
               : !strcmp(fmt, "jsonl") ? pc_report_jsonl(doc)
               : pc_report_html(doc);
    cJSON_Delete(owned);
    if (!text) return -1;
    if (!strcmp(path, "-")) { /* --report FMT:- */
        int rc = fputs(text, stdout) >= 0 && fputc('\n', stdout) != EOF && fflush(stdout) == 0 ? 0 : -1;
        free(text);
        return rc;
    }
    /* Atomic: a full disk or a signal leaves the previous report (or none), never a torn one. */
    pc_afile a;
    int rc = -1;
    if (pc_afile_open(&a, path) == 0) {
        if (pc_afile_write(&a, text, strlen(text)) || pc_afile_write(&a, "\n", 1)) pc_afile_abort(&a);
        else rc = pc_afile_commit(&a);
    }
    free(text);
    return rc;
}
