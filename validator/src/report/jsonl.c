/* JSON Lines (`--jsonl`, `--report jsonl:PATH`): one compact record per input, the input's entry of
 * the validate document plus the tool version and profile, so records from many runs (many
 * machines: packcheck.scale) concatenate and merge without coordination. With --hash each record's
 * files carry their SHA-256: a record is keyed by its files' content, not by where they lay. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

char *pc_report_jsonl(const cJSON *doc)
{
    if (strcmp(pc_json_str(doc, "kind"), "validate")) return NULL; /* records are per validated input */
    pc_sb b = {0};
    const cJSON *in;
    int n = 0;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        cJSON *rec = cJSON_Duplicate(in, 1);
        if (!rec) { free(b.s); return NULL; }
        cJSON_AddStringToObject(rec, "kind", "validate-input");
        cJSON_AddStringToObject(rec, "packcheck_version", pc_json_str(doc, "packcheck_version"));
        cJSON_AddStringToObject(rec, "profile", pc_json_str(doc, "profile"));
        char *t = cJSON_PrintUnformatted(rec);
        cJSON_Delete(rec);
        if (!t) { free(b.s); return NULL; }
        pc_sb_puts(&b, n++ ? "\n" : "");
        pc_sb_puts(&b, t);
        free(t);
    }
    if (!n) pc_sb_puts(&b, ""); /* no inputs: an empty file */
    return pc_sb_take(&b);
}
