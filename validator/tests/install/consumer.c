/* A loader's own test binary, built against an installed packcheck (pkg-config or find_package):
 * validate one input in-process through the public API and read its findings and tensor accounting.
 * No finding is not "clean": a folder of tensors packcheck does not decode is `unchecked`.
 * usage: consumer INPUT EXPECT   (EXPECT: "pass", "unchecked", or the rule ID the input must fail) */
#include <packcheck.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: consumer INPUT pass|unchecked|RULE-ID\n"); return 2; }
    if (!pc_rule_find("ST-001") || pc_rule_count() < 100) { fprintf(stderr, "catalogue missing\n"); return 2; }
    pc_ctx *cx = pc_ctx_new(PC_PROFILE_STRICT);
    if (!cx) return 2;
    pc_input *in = pc_input_open(argv[1], NULL, cx);
    if (in) pc_validate(in, cx);
    int seen = 0;
    for (size_t i = 0; i < pc_ctx_finding_count(cx); i++) {
        const pc_finding *f = pc_ctx_finding(cx, i);
        const char *id = pc_rule_id(pc_finding_rule(f));
        printf("%s %s tensor=%s offset=%lld: %s\n", id, pc_status_name(pc_finding_status(f)), pc_finding_tensor(f),
               (long long)pc_finding_offset(f), pc_finding_message(f));
        seen |= pc_finding_status(f) == PC_STATUS_FAIL && !strcmp(id, argv[2]);
    }
    size_t checked, plain, unchecked;
    pc_input_tensor_counts(in, &checked, &plain, &unchecked);
    const char *tensor, *scheme, *reason;
    for (size_t i = 0; pc_input_unchecked_at(in, i, &tensor, &scheme, &reason); i++)
        printf("unchecked %s: %s (%s)\n", tensor, scheme, reason);
    const char *verdict = pc_verdict(in, cx);
    int ok = !pc_ctx_io_error(cx) &&
             (!strcmp(argv[2], "pass") || !strcmp(argv[2], "unchecked") ? !strcmp(verdict, argv[2]) : (pc_rejected(cx) && seen));
    printf("format=%s verdict=%s tensors: %zu checked, %zu plain, %zu unchecked -> %s\n", in ? pc_input_format(in) : "-",
           verdict, checked, plain, unchecked, ok ? "as expected" : "NOT as expected");
    pc_input_free(in);
    pc_ctx_delete(cx);
    return ok ? 0 : 1;
}
