/* The ct format module against hostile variations of library-made fixtures: random byte flips in
 * the tensor data, random values in weight_shape, and a table of broken quantization configs. The
 * module must never crash (run under ASan+UBSan), every accepted module must decode identically
 * with the oracle and the fast path, and each broken config must fail the rule it breaks. */
#define _XOPEN_SOURCE 700
#include "core/util.h"
#include "harness/logical.h"
#include "packcheck_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"


static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static char *slurp(const char *path, size_t *n) { return pc_slurp(path, 64u << 20, n); }

static void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { printf("cannot write %s\n", path); exit(2); }
    fclose(f);
}

/* Validate DIR; when it passes, decode every module both ways and compare. Returns the ctx
 * verdict: 0 pass, 1 reject, 2 error. Sets *failed_rule to whether `rule` failed (may be NULL). */
static int run(const char *dir, const char *rule, bool *rule_failed)
{
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) exit(2);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    int verdict = !in || cx.io_error || cx.oom ? 2 : pc_rejected(&cx) ? 1 : 0;
    if (rule_failed) *rule_failed = pc_rule_status(&cx, pc_rule_find(rule)) == PC_STATUS_FAIL;
    for (size_t i = 0; in && verdict == 0 && i < in->nmodules; i++) {
        uint8_t *rc, *fc;
        float *rw, *fw;
        if (pc_logical_decode(in, &in->modules[i], PC_IMPL_REF, &rc, &rw, &cx)) { CHECK(0, "%s: oracle decode failed", dir); continue; }
        if (pc_logical_decode(in, &in->modules[i], PC_IMPL_FAST, &fc, &fw, &cx)) { CHECK(0, "%s: fast decode failed", dir); free(rc); free(rw); continue; }
        size_t n = (size_t)in->modules[i].numel;
        CHECK(!memcmp(rc, fc, n) && !memcmp(rw, fw, n * 4), "%s: oracle and fast path disagree on %s", dir, in->modules[i].prefix);
        free(rc); free(rw); free(fc); free(fw);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    return verdict;
}

static char g_tmp[64];

static void put_case(const char *st, size_t stn, const char *cfg)
{
    char *p = pc_path_join(g_tmp, "model.safetensors");
    spit(p, st, stn);
    free(p);
    p = pc_path_join(g_tmp, "config.json");
    if (cfg) spit(p, cfg, strlen(cfg));
    else unlink(p);
    free(p);
}

/* Byte flips in the data section (after the header) and random weight_shape values. */
static void fuzz_fixture(const char *name, int rounds)
{
    char *dir = pc_asprintf("%s/fixtures/ct/%s", PC_SOURCE_DIR, name);
    char *stp = pc_path_join(dir, "model.safetensors"), *cfp = pc_path_join(dir, "config.json");
    size_t n, cn;
    char *st = slurp(stp, &n), *cfg = slurp(cfp, &cn);
    if (!st || !cfg || n < 8) { CHECK(0, "fixture %s missing", name); goto out; }
    put_case(st, n, cfg);
    CHECK(run(g_tmp, "CT-004", NULL) == 0, "%s: the untouched fixture passes", name);
    uint64_t hlen = pc_le64((const uint8_t *)st);
    size_t data = (size_t)(8 + hlen);
    char *m = malloc(n);
    for (int r = 0; r < rounds && m; r++) {
        memcpy(m, st, n);
        int flips = 1 + (int)(rnd() % 4);
        for (int f = 0; f < flips && n > data; f++) {
            size_t at = data + rnd() % (n - data);
            m[at] = (r % 3 == 0) ? (char)0xFF : (char)(m[at] ^ (1u << (rnd() % 8)));
        }
        put_case(m, n, cfg);
        int v = run(g_tmp, "CT-004", NULL);
        CHECK(v == 0 || v == 1, "%s round %d: verdict %d (an error, not a rule failure)", name, r, v);
    }
    free(m);
out:
    free(st); free(cfg); free(stp); free(cfp); free(dir);
}

/* One config edit on the dense 3-bit group 16 asymmetric base: textual replace of `from` by `to`. */
static void config_case(const char *from, const char *to, const char *rule)
{
    char *dir = pc_asprintf("%s/fixtures/ct/neg-ct001-bits9", PC_SOURCE_DIR);
    char *stp = pc_path_join(dir, "model.safetensors"), *cfp = pc_path_join(dir, "config.json");
    size_t n, cn;
    char *st = slurp(stp, &n), *cfg = slurp(cfp, &cn);
    /* that case's config says num_bits 9; put the real 3 back first */
    char *fixed = cfg ? strstr(cfg, "\"num_bits\": 9") : NULL;
    if (!st || !fixed) { CHECK(0, "base fixture missing"); goto out; }
    fixed[12] = '3';
    put_case(st, n, cfg);
    bool broke = false;
    if (!from) {
        CHECK(run(g_tmp, "CT-001", NULL) == 0, "the repaired base passes");
        goto out;
    }
    char *at = strstr(cfg, from);
    if (!at) { CHECK(0, "config has no \"%s\"", from); goto out; }
    char *edited = pc_asprintf("%.*s%s%s", (int)(at - cfg), cfg, to, at + strlen(from));
    put_case(st, n, edited);
    int v = run(g_tmp, rule ? rule : "CT-001", &broke);
    if (rule) CHECK(v == 1 && broke, "config edit %s -> %s: verdict %d, %s %s", from, to, v, rule, broke ? "failed" : "did not fail");
    else CHECK(v == 0, "config edit %s -> %s: verdict %d, expected pass", from, to, v);
    free(edited);
out:
    free(st); free(cfg); free(stp); free(cfp); free(dir);
}

int main(void)
{
    strcpy(g_tmp, "/tmp/pc-test-ct-XXXXXX");
    if (!mkdtemp(g_tmp)) return 2;
    static const char *const fx[] = {"dense-b3-group32-asym", "dense-b4-block-asym", "dense-b3-moe", "dense-b5-tensor-asym",
                                     "legacy-b3-group32-actorder", "legacy-b5-group16-asym", "legacy-b6-moe-asym", "dense-b7-probes"};
    for (size_t i = 0; i < sizeof fx / sizeof *fx; i++) fuzz_fixture(fx[i], 120);
    config_case(NULL, NULL, NULL);
    config_case("\"num_bits\": 3", "\"num_bits\": \"3\"", "CFG-021");
    config_case("\"num_bits\": 3", "\"num_bits\": 0", "CT-001");
    config_case("\"num_bits\": 3", "\"num_bits\": 1e300", "CFG-021");
    config_case("\"group_size\": 16", "\"group_size\": 0", "CFG-022");
    config_case("\"group_size\": 16", "\"group_size\": -2", "CFG-022");
    config_case("\"group_size\": 16", "\"group_size\": 8", "CT-016");
    config_case("\"strategy\": \"group\"", "\"strategy\": \"block\"", "CFG-022");
    config_case("\"strategy\": \"group\"", "\"strategy\": \"token\"", "CFG-022");
    config_case("\"strategy\": \"group\"", "\"strategy\": \"rows\"", "CFG-021");
    config_case("\"symmetric\": false", "\"symmetric\": true", "CT-018");
    config_case("\"symmetric\": false", "\"symmetric\": \"no\"", "CFG-021");
    config_case("\"type\": \"int\"", "\"type\": \"float\"", "CFG-023");
    config_case("\"targets\": [", "\"targets\": [\"lm_head\"], \"x\": [", "CFG-020");
    config_case("\"Linear\"", "\"re:model\\\\.layers\\\\.1\\\\..*\"", "CFG-027");
    config_case("\"Linear\"", "\"re:model\\\\.layers\\\\.\\\\d+\\\\.(?:mlp|attn)\\\\.\\\\w+_proj\"", NULL);
    config_case("\"Linear\"", "\"re:(?!x).*\"", "CFG-027");
    config_case("\"Linear\"", "\"model.layers.0.mlp.down_proj\"", NULL);
    config_case("\"lm_head\"", "\"re:.*down\"", "CFG-027");
    config_case("\"version\": \"0.20.1\"", "\"version\": 20", "CFG-024");
    config_case("\"version\": \"0.20.1\"", "\"version\": \"0.17\"", "CFG-024");
    config_case("\"config_groups\": {", "\"config_groups\": 3, \"x\": {", "CFG-020");
    config_case("\"format\": \"pack-quantized\"", "\"format\": \"mixed-precision\"", "CFG-023");
    config_case("\"dynamic\": false", "\"dynamic\": false, \"actorder\": \"group\"", "CT-020");
    config_case("\"dynamic\": false", "\"dynamic\": false, \"actorder\": \"sometimes\"", "CFG-021");
    char *p = pc_path_join(g_tmp, "model.safetensors");
    unlink(p);
    free(p);
    p = pc_path_join(g_tmp, "config.json");
    unlink(p);
    free(p);
    rmdir(g_tmp);
    return test_finish();
}
