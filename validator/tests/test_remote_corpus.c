/* Every corpus case served over loopback HTTP (tools/pc_httpd.c, started here, 127.0.0.1 only) gets
 * what it gets from disk: at --tier full the same verdict, format, rule statuses, findings (rule,
 * tensor, offset) and logical view (every module decoded, codes and f32 weights byte for byte); at
 * --tier header the same status for every rule the header tier evaluates (container, config and
 * index rules), and no tensor byte fetched beyond the containers' headers.
 *
 * A folder case is served as its base URL when a URL can name it (an index, or model.safetensors);
 * a folder of other names cannot be listed over HTTP and is served as the URL of its one container.
 * PACKCHECK_REMOTE_EVERY=N checks every Nth case (CI); the default is all of them. Built without
 * libcurl: exit 77 (skipped, never passed). */
#include "core/remote.h"
#include "core/util.h"
#include "harness/corpus.h"
#include "harness/logical.h"
#include "packcheck_internal.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "testlib.h"

static pid_t start_server(const char *root, char *base, size_t nbase)
{
    char portfile[] = "/tmp/pc_remote_portXXXXXX";
    int fd = mkstemp(portfile);
    if (fd < 0) return -1;
    close(fd);
    unlink(portfile);
    pid_t pid = fork();
    if (pid == 0) {
        execl(PC_HTTPD, PC_HTTPD, root, portfile, "30", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200; i++) { /* up to 10 s for the port file */
        FILE *f = fopen(portfile, "r");
        unsigned port = 0;
        if (f && fscanf(f, "%u", &port) == 1 && port) {
            fclose(f);
            unlink(portfile);
            snprintf(base, nbase, "http://127.0.0.1:%u/ok/", port);
            return pid;
        }
        if (f) fclose(f);
        usleep(50000);
    }
    kill(pid, SIGKILL);
    return -1;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* The URL for a case's input (relative to the corpus root), or NULL when none can name it. */
static char *case_url(const char *base, const char *root, const char *input)
{
    size_t rl = strlen(root);
    if (strncmp(input, root, rl) || input[rl] != '/') return NULL;
    const char *rel = input + rl + 1;
    if (!pc_is_dir(input)) return pc_asprintf("%s%s", base, rel);
    char *ix = pc_path_join(input, "model.safetensors.index.json"), *ms = pc_path_join(input, "model.safetensors");
    bool named = (ix && pc_file_exists(ix)) || (ms && pc_file_exists(ms));
    free(ix);
    free(ms);
    size_t rn = strlen(rel);
    while (rn && (rel[rn - 1] == '/' || (rel[rn - 1] == '.' && rn > 1 && rel[rn - 2] == '/'))) rn--;
    if (named) return pc_asprintf("%s%.*s/", base, (int)rn, rel);
    /* One container in the folder: its own URL. */
    DIR *d = opendir(input);
    char *only = NULL;
    int count = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (has_suffix(de->d_name, ".safetensors") || has_suffix(de->d_name, ".gguf")) {
            count++;
            free(only);
            only = pc_strdup(de->d_name);
        }
    if (d) closedir(d);
    char *url = count == 1 ? pc_asprintf("%s%.*s/%s", base, (int)rn, rel, only) : NULL;
    free(only);
    return url;
}

typedef struct run { pc_ctx cx; pc_input *in; } run;

static void run_one(run *r, const char *path, int tier)
{
    memset(r, 0, sizeof *r);
    if (pc_ctx_init(&r->cx, PC_PROFILE_STRICT)) return;
    r->in = pc_input_open(path, NULL, &r->cx);
    if (!r->in) return;
    r->in->tier = tier;
    r->in->sample_blocks = 2;
    r->in->sample_seed = 1;
    pc_validate(r->in, &r->cx);
}

static void run_free(run *r)
{
    pc_input_free(r->in);
    pc_ctx_free(&r->cx);
}

static bool same_findings(const pc_ctx *a, const pc_ctx *b)
{
    if (a->nfindings != b->nfindings) return false;
    for (size_t i = 0; i < a->nfindings; i++) {
        const pc_finding *x = &a->findings[i], *y = &b->findings[i];
        if (x->rule != y->rule || x->status != y->status || x->offset != y->offset || strcmp(x->tensor, y->tensor)) return false;
    }
    return true;
}

static void compare_views(const char *id, const pc_input *a, const pc_input *b)
{
    CHECK(a->nmodules == b->nmodules, "%s: %zu modules from disk, %zu over HTTP", id, a->nmodules, b->nmodules);
    for (size_t i = 0; i < a->nmodules && i < b->nmodules; i++) {
        const pc_module *m = &a->modules[i], *n = &b->modules[i];
        CHECK(!strcmp(m->prefix, n->prefix) && m->numel == n->numel, "%s: module %zu differs", id, i);
        uint8_t *c1 = NULL, *c2 = NULL;
        float *w1 = NULL, *w2 = NULL;
        pc_ctx x1, x2;
        pc_ctx_init(&x1, PC_PROFILE_STRICT);
        pc_ctx_init(&x2, PC_PROFILE_STRICT);
        int r1 = pc_logical_decode(a, m, PC_IMPL_FAST, &c1, &w1, &x1), r2 = pc_logical_decode(b, n, PC_IMPL_FAST, &c2, &w2, &x2);
        CHECK(r1 == r2, "%s: %s decodes from disk (%d) but not over HTTP (%d)", id, m->prefix, r1, r2);
        if (!r1 && !r2 && m->numel == n->numel) {
            CHECK(!c1 == !c2 && (!c1 || !memcmp(c1, c2, (size_t)m->numel)), "%s: %s codes differ over HTTP", id, m->prefix);
            CHECK(!w1 == !w2 && (!w1 || !memcmp(w1, w2, (size_t)m->numel * sizeof *w1)), "%s: %s weights differ over HTTP", id, m->prefix);
        }
        free(c1); free(c2); free(w1); free(w2);
        pc_ctx_free(&x1);
        pc_ctx_free(&x2);
    }
}

static void check_case(const pc_case *c, const char *url)
{
    run disk, full, head, smp;
    run_one(&disk, c->input, PC_TIER_FULL);
    run_one(&full, url, PC_TIER_FULL);
    run_one(&head, url, PC_TIER_HEADER);
    run_one(&smp, c->input, PC_TIER_SAMPLE);
    if (!disk.in || !full.in || !head.in || !smp.in) { CHECK(0, "%s: out of memory", c->id); goto out; }
    /* A sample sees a subset of the bytes: it finds a subset of the failures, never a new one. */
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *r = pc_rule_at(i);
        pc_status sd = pc_rule_status(&disk.cx, r), ss = pc_rule_status(&smp.cx, r);
        CHECK(ss != PC_STATUS_FAIL || sd == PC_STATUS_FAIL, "%s: %s fails at --tier sample, is %s at full", c->id, r->id, pc_status_name(sd));
    }
    const char *vd = pc_verdict(disk.in, &disk.cx), *vf = pc_verdict(full.in, &full.cx), *vh = pc_verdict(head.in, &head.cx);
    CHECK(!strcmp(vd, vf), "%s: verdict %s from disk, %s over HTTP (%s)", c->id, vd, vf, full.cx.io_error ? full.cx.io_message : "");
    CHECK(!strcmp(pc_input_format(disk.in), pc_input_format(full.in)), "%s: format %s from disk, %s over HTTP", c->id,
          pc_input_format(disk.in), pc_input_format(full.in));
    const pc_rule *st030 = pc_rule_find("ST-030");
    bool broken_index = pc_rule_status(&full.cx, st030) == PC_STATUS_FAIL && pc_is_dir(c->input);
    CHECK(same_findings(&disk.cx, &full.cx) || broken_index, "%s: findings differ over HTTP", c->id);
    for (size_t i = 0; i < pc_rule_count(); i++) {
        const pc_rule *r = pc_rule_at(i);
        pc_status sd = pc_rule_status(&disk.cx, r), sf = pc_rule_status(&full.cx, r), sh = pc_rule_status(&head.cx, r);
        /* Over HTTP a folder with a broken index cannot be listed: ST-030 rejects it and its containers
         * are not read (their rules not evaluated, never passed). */
        bool unlisted = sf == PC_STATUS_SKIP && broken_index && full.in->nfiles == 0;
        CHECK(sd == sf || unlisted, "%s: %s is %s from disk, %s over HTTP", c->id, r->id, pc_status_name(sd), pc_status_name(sf));
        /* The header tier evaluates fewer rules, never judges one differently, and passes none it skipped. */
        CHECK(sh == PC_STATUS_SKIP || sh == sd, "%s: %s is %s from disk, %s at --tier header", c->id, r->id,
              pc_status_name(sd), pc_status_name(sh));
    }
    CHECK(strcmp(vh, "pass"), "%s: --tier header says pass", c->id);
    CHECK(!strcmp(vh, "reject") <= !strcmp(vd, "reject"), "%s: --tier header rejects, disk says %s", c->id, vd);
    CHECK(!strcmp(vd, "error") || !!strcmp(vh, "error"), "%s: --tier header could not read it", c->id);
    if (!disk.cx.io_error && !full.cx.io_error) compare_views(c->id, disk.in, full.in);
out:
    run_free(&disk);
    run_free(&full);
    run_free(&head);
    run_free(&smp);
}

int main(void)
{
    if (!pc_remote_available()) { printf("skip: built without libcurl\n"); return 77; }
    setenv("PACKCHECK_HTTP_TIMEOUT", "10", 0);
    const char *root = PC_SOURCE_DIR "/fixtures";
    char base[128];
    pid_t srv = start_server(root, base, sizeof base);
    CHECK(srv > 0, "the loopback server started");
    if (srv <= 0) return test_finish();
    pc_corpus corpus;
    if (pc_corpus_load(root, &corpus, stderr)) { CHECK(0, "corpus loads"); kill(srv, SIGKILL); return test_finish(); }
    const char *every_s = getenv("PACKCHECK_REMOTE_EVERY");
    size_t every = every_s && atoi(every_s) > 0 ? (size_t)atoi(every_s) : 1, checked = 0, unnamed = 0;
    for (size_t i = 0; i < corpus.ncases; i++) {
        if (i % every) continue;
        const pc_case *c = &corpus.cases[i];
        char *url = c->input_unsafe ? NULL : case_url(base, root, c->input);
        if (!url) { unnamed++; continue; }
        check_case(c, url);
        free(url);
        checked++;
    }
    printf("%zu cases compared over loopback HTTP, %zu not nameable by URL (a folder of several unindexed containers)\n", checked, unnamed);
    CHECK(checked > 0, "some case was compared");
    pc_corpus_free(&corpus);
    kill(srv, SIGKILL);
    waitpid(srv, NULL, 0);
    return test_finish();
}
