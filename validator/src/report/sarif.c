/* SARIF 2.1.0 (OASIS, schema sarif-2.1.0-rtm.5) for code-scanning UIs: one run, the rules that
 * fired as reportingDescriptors, one result per fail/warn finding. Rendered from the validate JSON
 * document like every other writer. Mapping: fail -> level "error", warn -> "warning"; the input
 * path is the artifact (a folder input names the folder), the byte offset a region.byteOffset,
 * the tensor a logicalLocation; an unreadable input is a toolExecutionNotification. */
#include "report.h"

#include "../core/util.h"

#include <stdio.h>
#include <string.h>

/* A URI reference for a path (RFC 3986): absolute paths become file:// URIs, anything outside the
 * unreserved set and "/" is percent-encoded (bytes, so non-ASCII names survive). */
static char *path_uri(const char *path)
{
    pc_sb b = {0};
    if (path[0] == '/') pc_sb_puts(&b, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            pc_sb_printf(&b, "%c", *p);
        else
            pc_sb_printf(&b, "%%%02X", *p);
    }
    if (!b.n) pc_sb_puts(&b, ".");
    return pc_sb_take(&b);
}

static cJSON *text_obj(const char *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", t);
    return o;
}

/* The rule's index in `rules`, adding its descriptor on first use. */
static int rule_index(cJSON *rules, const char *id)
{
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, rules) {
        if (!strcmp(pc_json_str(x, "id"), id)) return i;
        i++;
    }
    const pc_rule *r = pc_rule_find(id);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "id", id);
    cJSON_AddItemToObject(d, "shortDescription", text_obj(r ? r->title : id));
    if (r && *r->checks) cJSON_AddItemToObject(d, "fullDescription", text_obj(r->checks));
    if (r) {
        char *help = pc_asprintf("%s\n\nSource: %s%s%s", r->checks, r->source, *r->reader ? "\n\nDemands of a reader: " : "", r->reader);
        if (help) cJSON_AddItemToObject(d, "help", text_obj(help));
        free(help);
    }
    cJSON *cfg = cJSON_AddObjectToObject(d, "defaultConfiguration");
    bool must = r && (r->severity == PC_SEV_MUST || r->severity == PC_SEV_LIMIT);
    cJSON_AddStringToObject(cfg, "level", must ? "error" : "warning");
    cJSON *props = cJSON_AddObjectToObject(d, "properties");
    if (r) cJSON_AddStringToObject(props, "severity", pc_severity_name(r->severity));
    if (r) cJSON_AddStringToObject(props, "family", r->family);
    cJSON_AddItemToArray(rules, d);
    return i;
}

static cJSON *result_of(const cJSON *res, const char *uri, int idx)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "ruleId", pc_json_str(res, "rule"));
    cJSON_AddNumberToObject(o, "ruleIndex", idx);
    cJSON_AddStringToObject(o, "level", !strcmp(pc_json_str(res, "status"), "fail") ? "error" : "warning");
    const char *msg = pc_json_str(res, "message");
    cJSON_AddItemToObject(o, "message", text_obj(*msg ? msg : pc_json_str(res, "rule")));
    cJSON *loc = cJSON_CreateObject();
    cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
    cJSON *art = cJSON_AddObjectToObject(phys, "artifactLocation");
    cJSON_AddStringToObject(art, "uri", uri);
    const cJSON *off = cJSON_GetObjectItem(res, "offset");
    if (cJSON_IsNumber(off) && off->valuedouble >= 0) {
        cJSON *reg = cJSON_AddObjectToObject(phys, "region");
        cJSON_AddNumberToObject(reg, "byteOffset", off->valuedouble);
    }
    const char *tensor = pc_json_str(res, "tensor");
    if (*tensor) {
        cJSON *ll = cJSON_AddArrayToObject(loc, "logicalLocations");
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "name", tensor);
        cJSON_AddStringToObject(l, "kind", "member");
        cJSON_AddItemToArray(ll, l);
    }
    cJSON *locs = cJSON_AddArrayToObject(o, "locations");
    cJSON_AddItemToArray(locs, loc);
    return o;
}

char *pc_report_sarif(const cJSON *doc)
{
    if (strcmp(pc_json_str(doc, "kind"), "validate")) return NULL; /* findings exist only in validate documents */
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    cJSON_AddStringToObject(s, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "runs"), run);
    cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "packcheck");
    cJSON_AddStringToObject(driver, "version", pc_json_str(doc, "packcheck_version"));
    cJSON_AddStringToObject(driver, "semanticVersion", pc_json_str(doc, "packcheck_version"));
    cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    cJSON *inv = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
    cJSON *notes = cJSON_CreateArray();
    bool ok = true;
    const cJSON *in, *res;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(doc, "inputs")) {
        char *uri = path_uri(pc_json_str(in, "path"));
        if (!uri) continue;
        if (!strcmp(pc_json_str(in, "verdict"), "error")) {
            ok = false;
            cJSON *n = cJSON_CreateObject();
            cJSON_AddStringToObject(n, "level", "error");
            char *t = pc_asprintf("%s: %s", pc_json_str(in, "path"), pc_json_str(in, "error"));
            cJSON_AddItemToObject(n, "message", text_obj(t ? t : "unreadable input"));
            free(t);
            cJSON_AddItemToArray(notes, n);
        }
        cJSON_ArrayForEach(res, cJSON_GetObjectItem(in, "results")) {
            const char *st = pc_json_str(res, "status");
            if (strcmp(st, "fail") && strcmp(st, "warn")) continue;
            cJSON_AddItemToArray(results, result_of(res, uri, rule_index(rules, pc_json_str(res, "rule"))));
        }
        free(uri);
    }
    cJSON_AddBoolToObject(inv, "executionSuccessful", ok);
    if (cJSON_GetArraySize(notes)) cJSON_AddItemToObject(inv, "toolExecutionNotifications", notes);
    else cJSON_Delete(notes);
    cJSON *props = cJSON_AddObjectToObject(run, "properties");
    cJSON_AddStringToObject(props, "profile", pc_json_str(doc, "profile"));
    char *text = cJSON_Print(s);
    cJSON_Delete(s);
    return text;
}
