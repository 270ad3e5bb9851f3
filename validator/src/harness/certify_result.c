/* A case's typed result and its one serialisation (certify_internal.h). */
#include "certify_internal.h"

#include "../core/json_get.h"

#include <stdlib.h>

const char *const pc_certify_outcome_names[O_COUNT] = {"pass", "wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout", "tampered"};

cJSON *pc_case_result_json(const pc_case_result *r, const pc_case *k)
{
    cJSON *cj = cJSON_CreateObject();
    cJSON_AddStringToObject(cj, "case", k->id);
    cJSON_AddStringToObject(cj, "expected", pc_json_str(k->expect, "verdict"));
    cJSON_AddStringToObject(cj, "outcome", pc_certify_outcome_names[r->outcome]);
    if (r->timed_out) cJSON_AddStringToObject(cj, "exit", "timeout");
    else if (r->signal) cJSON_AddNumberToObject(cj, "signal", r->signal);
    else if (r->exit_code >= 0) cJSON_AddNumberToObject(cj, "exit", r->exit_code);
    cJSON_AddNumberToObject(cj, "seconds", (double)(long)(r->seconds * 1000) / 1000);
    if (r->detached_killed) cJSON_AddNumberToObject(cj, "detached_killed", r->detached_killed);
    const cJSON *x;
    cJSON_ArrayForEach(x, r->judged) cJSON_AddItemToObject(cj, x->string, cJSON_Duplicate(x, 1));
    if (r->expected_failure) cJSON_AddStringToObject(cj, "expected_failure", r->expected_failure);
    cJSON_AddStringToObject(cj, "status", r->status);
    cJSON_AddStringToObject(cj, "detail", r->detail ? r->detail : "");
    if (r->log_tail) cJSON_AddStringToObject(cj, "log_tail", r->log_tail);
    const cJSON *rl = cJSON_GetObjectItem(k->expect, "rules");
    cJSON_AddItemToObject(cj, "rules", cJSON_IsArray(rl) ? cJSON_Duplicate(rl, 1) : cJSON_CreateArray());
    if (*pc_json_str(k->expect, "reject_rule")) cJSON_AddStringToObject(cj, "reject_rule", pc_json_str(k->expect, "reject_rule"));
    if (*pc_json_str(k->expect, "reject_family")) cJSON_AddStringToObject(cj, "reject_family", pc_json_str(k->expect, "reject_family"));
    return cj;
}

void pc_case_result_free(pc_case_result *r)
{
    free(r->detail);
    free(r->log_tail);
    free(r->expected_failure);
    cJSON_Delete(r->judged);
}
