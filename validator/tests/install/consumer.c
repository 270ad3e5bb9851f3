/* A loader's own test binary, built against an installed packcheck (pkg-config or find_package):
 * validate one input in-process through the public API and read its findings.
 * usage: consumer INPUT EXPECT   (EXPECT: "pass", or the rule ID the input must fail) */
#include <packcheck.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: consumer INPUT pass|RULE-ID\n"); return 2; }
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
    int ok = !cx.io_error && !cx.oom &&
             (!strcmp(argv[2], "pass") ? !pc_rejected(&cx) : (pc_rejected(&cx) && seen));
    printf("format=%s rejected=%d -> %s\n", in ? pc_input_format(in) : "-", pc_rejected(&cx), ok ? "as expected" : "NOT as expected");
    pc_input_free(in);
    pc_ctx_free(&cx);
    return ok ? 0 : 1;
}
