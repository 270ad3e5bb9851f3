/* The SARIF writer (report/sarif.c): the structure SARIF 2.1.0 requires of what we emit, checked
 * on real corpus inputs without a schema validator (scripts/test-python.sh also validates the
 * output against the published 2.1.0 schema): version and $schema, the driver, every result's
 * ruleId/ruleIndex pairing, levels, messages, artifact URIs, byte-offset regions, logical
 * locations, and an unreadable input as a failed invocation. */
#include "packcheck_internal.h"
#include "report/report.h"
#include "testlib.h"

#include <cjson/cJSON.h>

static cJSON *validate_doc(const char *const *paths, size_t n)
{
    pc_result res[4];
    pc_ctx cx[4];
    pc_input *in[4];
    for (size_t i = 0; i < n; i++) {
        pc_ctx_init(&cx[i], PC_PROFILE_STRICT);
        in[i] = pc_input_open(paths[i], NULL, &cx[i]);
        if (in[i]) pc_validate(in[i], &cx[i]);
        res[i] = (pc_result){.path = paths[i], .in = in[i], .cx = &cx[i]};
    }
    cJSON *doc = pc_report_json(res, n, PC_PROFILE_STRICT);
    for (size_t i = 0; i < n; i++) { pc_input_free(in[i]); pc_ctx_free(&cx[i]); }
    return doc;
}

static const char *str(const cJSON *o, const char *k) { return pc_json_str(o, k); }

static void check_result(const cJSON *r, const cJSON *rules, int *regions, int *logical)
{
    const char *id = str(r, "ruleId");
    CHECK(pc_rule_find(id) != NULL, "ruleId %s is a catalogue rule", id);
    const cJSON *ix = cJSON_GetObjectItem(r, "ruleIndex");
    CHECK(cJSON_IsNumber(ix) && ix->valueint >= 0 && ix->valueint < cJSON_GetArraySize(rules), "ruleIndex in range");
    if (cJSON_IsNumber(ix)) CHECK(!strcmp(str(cJSON_GetArrayItem(rules, ix->valueint), "id"), id), "rules[ruleIndex].id == ruleId");
    const char *lv = str(r, "level");
    CHECK(!strcmp(lv, "error") || !strcmp(lv, "warning"), "level %s", lv);
    CHECK(*str(cJSON_GetObjectItem(r, "message"), "text"), "message.text");
    const cJSON *locs = cJSON_GetObjectItem(r, "locations");
    CHECK(cJSON_GetArraySize(locs) == 1, "one location");
    const cJSON *loc = cJSON_GetArrayItem(locs, 0);
    const cJSON *phys = cJSON_GetObjectItem(loc, "physicalLocation");
    const char *uri = str(cJSON_GetObjectItem(phys, "artifactLocation"), "uri");
    CHECK(!strncmp(uri, "file:///", 8) && !strchr(uri, ' '), "absolute path as a file URI: %s", uri);
    const cJSON *reg = cJSON_GetObjectItem(phys, "region");
    if (reg) {
        const cJSON *bo = cJSON_GetObjectItem(reg, "byteOffset");
        CHECK(cJSON_IsNumber(bo) && bo->valuedouble >= 0 && bo->valuedouble == (double)(int64_t)bo->valuedouble, "byteOffset is a non-negative integer");
        ++*regions;
    }
    const cJSON *ll = cJSON_GetObjectItem(loc, "logicalLocations");
    if (ll) { CHECK(*str(cJSON_GetArrayItem(ll, 0), "name"), "logical location name"); ++*logical; }
}

int main(void)
{
    const char *paths[] = {PC_SOURCE_DIR "/fixtures/st/should-nul-in-name", PC_SOURCE_DIR "/fixtures/awq/neg-bits-8",
                           PC_SOURCE_DIR "/fixtures/awq/autoawq-gemm-g32-random", "/nonexistent dir/x.safetensors"};
    cJSON *doc = validate_doc(paths, 4);
    char *text = pc_report_sarif(doc);
    CHECK(text != NULL, "sarif written");
    cJSON *s = text ? cJSON_Parse(text) : NULL;
    CHECK(cJSON_IsObject(s), "sarif is JSON");
    CHECK(!strcmp(str(s, "version"), "2.1.0"), "version 2.1.0");
    CHECK(strstr(str(s, "$schema"), "sarif-2.1.0") != NULL, "$schema names 2.1.0");
    const cJSON *runs = cJSON_GetObjectItem(s, "runs");
    CHECK(cJSON_GetArraySize(runs) == 1, "one run");
    const cJSON *run = cJSON_GetArrayItem(runs, 0);
    const cJSON *driver = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "tool"), "driver");
    CHECK(!strcmp(str(driver, "name"), "packcheck") && !strcmp(str(driver, "version"), PACKCHECK_VERSION), "driver");
    const cJSON *rules = cJSON_GetObjectItem(driver, "rules"), *r;
    cJSON_ArrayForEach(r, rules) {
        CHECK(pc_rule_find(str(r, "id")) != NULL, "descriptor %s", str(r, "id"));
        CHECK(*str(cJSON_GetObjectItem(r, "shortDescription"), "text"), "shortDescription.text");
        const char *lv = str(cJSON_GetObjectItem(r, "defaultConfiguration"), "level");
        CHECK(!strcmp(lv, "error") || !strcmp(lv, "warning"), "defaultConfiguration.level");
    }
    int n = 0, regions = 0, logical = 0, errors = 0, st026 = 0, awq001 = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(run, "results")) {
        check_result(r, rules, &regions, &logical);
        n++;
        errors += !strcmp(str(r, "level"), "error");
        st026 += !strcmp(str(r, "ruleId"), "ST-026");
        awq001 += !strcmp(str(r, "ruleId"), "AWQ-001") && !strcmp(str(r, "level"), "error");
    }
    CHECK(n >= 2 && errors >= 1, "results: %d, errors %d", n, errors);
    CHECK(st026 == 1 && awq001 == 1, "the fixtures' findings: ST-026 %d, AWQ-001 %d", st026, awq001);
    CHECK(regions >= 1 && logical >= 1, "a byte-offset region and a logical location (%d, %d)", regions, logical);
    int seen_ids = 0;
    cJSON_ArrayForEach(r, rules) seen_ids++;
    CHECK(seen_ids <= n, "only the rules that fired are described");
    const cJSON *inv = cJSON_GetArrayItem(cJSON_GetObjectItem(run, "invocations"), 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(inv, "executionSuccessful")), "an unreadable input fails the invocation");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(inv, "toolExecutionNotifications")) == 1, "and is a notification");
    cJSON_Delete(s);
    free(text);

    /* Relative paths stay relative references; reserved bytes are percent-encoded. */
    cJSON *d2 = cJSON_Parse("{\"kind\":\"validate\",\"packcheck_version\":\"0\",\"inputs\":[{\"path\":\"a b/ü#.safetensors\",\"verdict\":\"reject\","
                            "\"results\":[{\"rule\":\"ST-001\",\"status\":\"fail\",\"tensor\":\"\",\"message\":\"m\"}]}]}");
    text = pc_report_sarif(d2);
    CHECK(text && strstr(text, "\"a%20b/%C3%BC%23.safetensors\""), "relative URI, percent-encoded");
    free(text);
    cJSON_Delete(d2);
    cJSON *d3 = cJSON_Parse("{\"kind\":\"corpus\"}");
    CHECK(pc_report_sarif(d3) == NULL, "sarif is for validate documents only");
    cJSON_Delete(d3);
    cJSON_Delete(doc);
    return test_finish();
}
