/* A loader's own test binary, built against an installed packcheck (pkg-config or find_package):
 * validate one input in-process through the public API and read its findings and its tensor
 * accounting (no finding is not "clean": a tensor packcheck does not decode is unchecked).
 * usage: consumer INPUT EXPECT   (EXPECT: "pass", "unchecked", or the rule ID the input must fail) */
#include <packcheck.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: consumer INPUT pass|unchecked|RULE-ID\n"); return 2; }
    if (!pc_rule_find("ST-001") || pc_rule_count() < 100) { fprintf(stderr, "catalogue missing\n"); return 2; }
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) return 2;
    pc_input *in = pc_input_open(argv[1], NULL, &cx);
    if (in) pc_validate(in, &cx);
    int seen = 0;
    for (size_t i = 0; i < cx.nfindings; i++) {
        const pc_finding *f = &cx.findings[i];
        printf("%s %s tensor=%s offset=%lld: %s\n", f->rule->id, pc_status_name(f->status), f->tensor,
               (long long)f->offset, f->message);
        seen |= f->status == PC_STATUS_FAIL && !strcmp(f->rule->id, argv[2]);
    }
    const pc_accounting *a = in ? in->acct : NULL;
    if (a) printf("tensors: %zu checked, %zu plain, %zu unchecked\n", a->checked, a->plain, a->unchecked);
    for (size_t i = 0; a && i < a->unchecked; i++) printf("unchecked %s: %s: %s\n", a->list[i].t->name, a->list[i].why.scheme, a->list[i].why.reason);
    const char *verdict = pc_verdict(in, &cx);
    int ok = !strcmp(argv[2], "pass") || !strcmp(argv[2], "unchecked") ? !strcmp(verdict, argv[2]) : (!strcmp(verdict, "reject") && seen);
    printf("format=%s verdict=%s -> %s\n", in ? pc_input_format(in) : "-", verdict, ok ? "as expected" : "NOT as expected");
    pc_input_free(in);
    pc_ctx_free(&cx);
    return ok ? 0 : 1;
}
