/* packcheck unpack INPUT --out FILE.safetensors [--config FILE] [--profile P] */
#include "cli.h"

#include "../core/atomic_file.h"
#include "../harness/logical.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *USAGE = "packcheck unpack [--] INPUT --out FILE.safetensors [--config FILE] [--profile strict|compat] [--allow-unchecked]";

/* What was not decoded, on stderr: the first few tensors, then a count. */
static void say_skipped(const char *input, const pc_accounting *a)
{
    for (size_t i = 0; i < a->unchecked && i < 5; i++)
        fprintf(stderr, "packcheck: %s: skipped %s (%s): %s\n", input, a->list[i].t->name, a->list[i].why.scheme, a->list[i].why.reason);
    if (a->unchecked > 5) fprintf(stderr, "packcheck: %s: ... and %zu more unchecked tensors\n", input, a->unchecked - 5);
}

/* A shard of a folder INPUT (or a hard link to one) given as --out. */
static bool out_is_input(const pc_input *in, const char *out)
{
    for (size_t i = 0; i < in->nfiles; i++)
        if (in->files[i].fd >= 0 && pc_afile_same_fd(out, in->files[i].fd)) return true;
    return false;
}

int cmd_unpack(int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *config = NULL, *v;
    bool allow_unchecked = false;
    pc_profile profile = PC_PROFILE_STRICT;
    bool paths_only = false; /* after "--": the INPUT, even one starting with '-' */
    for (int i = 1; i < argc; i++) {
        if (paths_only || !strcmp(argv[i], "--")) {
            if (!paths_only) { paths_only = true; continue; }
            if (input) return cli_usage(USAGE, "one INPUT only");
            input = argv[i];
            continue;
        }
        if (cli_is_help(argv[i])) {
            printf("usage: %s\n\nWrite the logical view (CONTRACT section 3) of every quantized weight: M.codes (U8)\n"
                   "and M.weight (F32), shape [out, in] (or [E, out, in]), in name order. Exit 1 and no\n"
                   "output file when INPUT is rejected. Quantized tensors this version does not decode are\n"
                   "skipped and listed on stderr: exit 3 (0 with --allow-unchecked) after writing what was\n"
                   "decoded, and exit 3 with no file when nothing was decodable. The view is written to a\n"
                   "temporary file beside FILE and renamed over it on success: an existing FILE is replaced\n"
                   "only then, never truncated or removed; --out naming an input, a link, a device or a\n"
                   "folder is refused.\n", USAGE);
            return PC_EXIT_OK;
        } else if ((v = cli_value(argc, argv, &i, "--out"))) out = v;
        else if ((v = cli_value(argc, argv, &i, "--config"))) config = v;
        else if ((v = cli_value(argc, argv, &i, "--profile"))) {
            if (!strcmp(v, "strict")) profile = PC_PROFILE_STRICT;
            else if (!strcmp(v, "compat")) profile = PC_PROFILE_COMPAT;
            else return cli_usage(USAGE, "--profile wants strict or compat");
        } else if (!strcmp(argv[i], "--allow-unchecked")) allow_unchecked = true;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_usage(USAGE, "unknown or incomplete option \"%s\"", argv[i]);
        else if (input) return cli_usage(USAGE, "one INPUT only");
        else input = argv[i];
    }
    if (!input || !out) return cli_usage(USAGE, "INPUT and --out are required");
    /* --out is never unlinked or truncated: the view goes to a temporary beside it, renamed over it
     * only on success, so a rejected input or a failure leaves whatever was there untouched. */
    const char *why;
    if (pc_afile_check(out, &why)) { fprintf(stderr, "packcheck: --out %s %s\n", out, why); return PC_EXIT_ERROR; }
    const char *ins[2] = {input, config};
    if (cli_out_check("--out", out, ins, 2)) return PC_EXIT_ERROR; /* an input, a file it reads, or inside its folder */
    pc_ctx cx;
    if (pc_ctx_init(&cx, profile)) return PC_EXIT_ERROR;
    pc_input *in = pc_input_open(input, config, &cx);
    int rc = PC_EXIT_ERROR;
    bool clash = in && out_is_input(in, out); /* before validating: no long run to then refuse */
    if (in && !clash) pc_validate(in, &cx);
    if (clash) {
        fprintf(stderr, "packcheck: --out %s is an input: refusing to overwrite it\n", out);
    } else if (!in || cx.oom) {
        fprintf(stderr, "packcheck: %s: out of memory\n", input);
    } else if (cx.io_error) {
        fprintf(stderr, "packcheck: %s\n", cx.io_message);
    } else if (pc_rejected(&cx)) {
        for (size_t i = 0; i < cx.nfindings; i++) {
            const pc_finding *f = &cx.findings[i];
            if (f->status != PC_STATUS_FAIL) continue;
            fprintf(stderr, "packcheck: %s: rejected by %s (%s", input, f->rule->id, *f->tensor ? f->tensor : "file");
            if (f->offset >= 0) fprintf(stderr, " @%lld", (long long)f->offset);
            fprintf(stderr, "): %s\n", f->message);
            break;
        }
        rc = PC_EXIT_REJECT;
    } else if (in->acct && in->acct->unchecked && !in->nmodules) {
        say_skipped(input, in->acct);
        fprintf(stderr, "packcheck: %s: nothing decodable; no output written\n", input);
        rc = PC_EXIT_UNCHECKED;
    } else if (pc_logical_write(in, out, &cx)) {
        fprintf(stderr, "packcheck: %s: %s\n", input, cx.io_error ? cx.io_message : "decode failed");
        rc = pc_rejected(&cx) ? PC_EXIT_REJECT : PC_EXIT_ERROR;
    } else {
        printf("%s: %zu modules -> %s\n", input, in->nmodules, out);
        rc = PC_EXIT_OK;
        if (in->acct && in->acct->unchecked) {
            say_skipped(input, in->acct);
            rc = allow_unchecked ? PC_EXIT_OK : PC_EXIT_UNCHECKED;
        }
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    return rc;
}
