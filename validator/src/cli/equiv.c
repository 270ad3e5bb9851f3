/* packcheck equiv SOURCE TARGET [--tolerance T] [--profile P] [--report FMT:PATH]... [--quiet] */
#include "cli.h"

#include "../harness/equiv.h"
#include "../report/report.h"
#include "../report/text_escape.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE = "packcheck equiv [OPTIONS] [--] SOURCE TARGET [--tolerance exact|ulp:N|abs:X|rel:X] [--profile strict|compat] [--report FMT:PATH]... [--quiet]";

static int help(void)
{
    printf("usage: %s\n\n"
           "Prove that two checkpoints hold the same quantized model (CONTRACT section 7): both are\n"
           "validated and decoded to the logical view, then compared module by module: the same\n"
           "modules and shapes (EQ-001), the same codes (EQ-002), the same f32 weights within the\n"
           "tolerance (EQ-003), unquantized tensors unchanged (EQ-004). A converted pair whose byte-level\n"
           "contract a format knows is checked against it too (the ModelOpt <-> compressed-tensors NVFP4\n"
           "pair: CT-005, byte for byte). A side that fails validation makes the pair differ by the rule\n"
           "it breaks.\n\n"
           "--tolerance  exact (default: bit-identical f32), ulp:N, abs:X or rel:X. Without it, such a\n"
           "             pair may get its format's tolerance (NVFP4 naming pair: ulp:4, since 1/(1/x) is\n"
           "             not x in f32; CONTRACT 7).\n\n"
           "Exit 0 equal, 1 differ (the first difference is printed with its rule), 2 could not read.\n",
           USAGE);
    return PC_EXIT_OK;
}

static void print_outcome(const cJSON *raw)
{
    cJSON *owned;
    const cJSON *doc = pc_text_clean_doc(raw, &owned); /* the terminal gets valid UTF-8, as every report */
    if (!doc) doc = raw;
    printf("%s (%s) -> %s (%s): %s, tolerance %s\n", pc_json_str(doc, "source"), pc_json_str(doc, "source_format"),
           pc_json_str(doc, "target"), pc_json_str(doc, "target_format"), pc_json_str(doc, "verdict"), pc_json_str(doc, "tolerance"));
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(doc, "modules")) {
        const cJSON *ulp = cJSON_GetObjectItem(m, "max_ulp");
        printf("  %-6s %s", pc_json_str(m, "status"), pc_json_str(m, "module"));
        if (cJSON_IsNumber(ulp)) printf("  (max %.0f ULP)", ulp->valuedouble);
        printf("\n");
        const cJSON *dg = cJSON_GetObjectItem(m, "diagnosis");
        if (cJSON_IsObject(dg)) printf("         diagnosis: %s: %s\n", pc_json_str(dg, "bug"), pc_json_str(dg, "detail"));
    }
    const cJSON *fd = cJSON_GetObjectItem(doc, "first_difference");
    if (cJSON_IsObject(fd)) printf("first difference: %s %s: %s\n", pc_json_str(fd, "rule"), pc_json_str(fd, "tensor"), pc_json_str(fd, "message"));
    if (*pc_json_str(doc, "error")) fprintf(stderr, "packcheck: equiv: %s\n", pc_json_str(doc, "error"));
    cJSON_Delete(owned);
}

int cmd_equiv(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *v;
    int npaths = 0, rc = PC_EXIT_ERROR;
    pc_tolerance tol = {PC_TOL_EXACT, 0, false};
    pc_profile profile = PC_PROFILE_STRICT;
    bool quiet = false;
    cli_reports reps = {0};
    bool paths_only = false; /* after "--": SOURCE and TARGET, even ones starting with '-' */
    for (int i = 1; i < argc; i++) {
        if (!paths_only && !strcmp(argv[i], "--")) { paths_only = true; continue; }
        if (paths_only) {
            if (npaths == 2) { rc = cli_usage(USAGE, "two inputs only: SOURCE and TARGET"); goto out; }
            paths[npaths++] = argv[i];
            continue;
        }
        if (cli_is_help(argv[i])) { rc = help(); goto out; }
        else if ((v = cli_value(argc, argv, &i, "--tolerance"))) {
            if (pc_tolerance_parse(v, &tol)) { rc = cli_usage(USAGE, "--tolerance wants exact, ulp:N, abs:X or rel:X; got \"%s\"", v); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--profile"))) {
            if (!strcmp(v, "strict")) profile = PC_PROFILE_STRICT;
            else if (!strcmp(v, "compat")) profile = PC_PROFILE_COMPAT;
            else { rc = cli_usage(USAGE, "--profile wants strict or compat"); goto out; }
        } else if ((v = cli_value(argc, argv, &i, "--report"))) {
            if (cli_report_add(&reps, v)) { rc = cli_usage(USAGE, "bad --report"); goto out; }
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
            goto out;
        } else if (npaths == 2) {
            rc = cli_usage(USAGE, "two inputs only: SOURCE and TARGET");
            goto out;
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths != 2) { rc = cli_usage(USAGE, "SOURCE and TARGET are required"); goto out; }
    if (cli_reports_check_inputs(&reps, paths, 2)) goto out;
    int verdict;
    cJSON *doc = pc_equiv_run(paths[0], paths[1], &tol, profile, &verdict);
    if (!doc) { fprintf(stderr, "packcheck: equiv: out of memory\n"); goto out; }
    if (!quiet) print_outcome(doc);
    rc = verdict == PC_EQUIV_EQUAL ? PC_EXIT_OK : verdict == PC_EQUIV_DIFFER ? PC_EXIT_REJECT : PC_EXIT_ERROR;
    if (cli_reports_write(&reps, doc)) rc = PC_EXIT_ERROR;
    cJSON_Delete(doc);
out:
    cli_reports_free(&reps);
    return rc;
}
