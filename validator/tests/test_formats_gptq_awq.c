/* GPTQ and AWQ format modules on small hand-built checkpoints: config variants (method spellings,
 * legacy keys, mistyped values), ownership between the two formats and others, degenerate shapes,
 * and decode through both implementations. The library-written cases live in fixtures/gptq, awq. */
#include "container/safetensors.h"
#include "harness/logical.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"


static char g_dir[256];

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }

static void write_text(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    if (f) { fputs(text, f); fclose(f); }
}

static void clear_dir(void)
{
    const char *names[] = {"model.safetensors", "config.json", "quant_config.json", "quantize_config.json"};
    char p[512];
    for (size_t i = 0; i < 4; i++) { snprintf(p, sizeof p, "%s/%s", g_dir, names[i]); unlink(p); }
}

/* A GPTQ module: K = 64, N = 32, 4 bits, group 32: qweight all `word`, zeros all `zword`, scales 1.0. */
typedef struct { uint64_t K, N, rows, G; uint32_t word, zword; uint16_t scale; bool with_gidx; } gptq_spec;

static void write_gptq(const gptq_spec *s)
{
    uint64_t zcols = s->N / 8;
    uint8_t *qw = calloc(s->rows * s->N + 1, 4), *qz = calloc(s->G * zcols + 1, 4), *sc = calloc(s->G * s->N + 1, 2), *gi = calloc(s->K + 1, 4);
    for (uint64_t i = 0; i < s->rows * s->N; i++) put32(qw + 4 * i, s->word);
    for (uint64_t i = 0; i < s->G * zcols; i++) put32(qz + 4 * i, s->zword);
    for (uint64_t i = 0; i < s->G * s->N; i++) { sc[2 * i] = (uint8_t)s->scale; sc[2 * i + 1] = (uint8_t)(s->scale >> 8); }
    for (uint64_t k = 0; k < s->K; k++) put32(gi + 4 * k, (uint32_t)(k / 32));
    st_out_tensor t[4] = {
        {"m.g_idx", PC_DT_I32, 1, {s->K}, gi, s->K * 4},
        {"m.qweight", PC_DT_I32, 2, {s->rows, s->N}, qw, s->rows * s->N * 4},
        {"m.qzeros", PC_DT_I32, 2, {s->G, zcols}, qz, s->G * zcols * 4},
        {"m.scales", PC_DT_F16, 2, {s->G, s->N}, sc, s->G * s->N * 2},
    };
    char p[512];
    snprintf(p, sizeof p, "%s/model.safetensors", g_dir);
    st_write_file(p, s->with_gidx ? t : t + 1, s->with_gidx ? 4 : 3);
    free(qw); free(qz); free(sc); free(gi);
}

/* An AWQ module: K = 64, N = 16, group 32. */
static void write_awq(uint32_t word, uint32_t zword)
{
    uint8_t qw[64 * 2 * 4], qz[2 * 2 * 4], sc[2 * 16 * 2];
    for (int i = 0; i < 128; i++) put32(qw + 4 * i, word);
    for (int i = 0; i < 4; i++) put32(qz + 4 * i, zword);
    for (int i = 0; i < 32; i++) { sc[2 * i] = 0x00; sc[2 * i + 1] = 0x3C; }
    st_out_tensor t[3] = {
        {"m.qweight", PC_DT_I32, 2, {64, 2}, qw, sizeof qw},
        {"m.qzeros", PC_DT_I32, 2, {2, 2}, qz, sizeof qz},
        {"m.scales", PC_DT_F16, 2, {2, 16}, sc, sizeof sc},
    };
    char p[512];
    snprintf(p, sizeof p, "%s/model.safetensors", g_dir);
    st_write_file(p, t, 3);
}

typedef struct { pc_ctx cx; pc_input *in; } run;

static void open_run(run *r, pc_profile prof)
{
    pc_ctx_init(&r->cx, prof);
    r->in = pc_input_open(g_dir, NULL, &r->cx);
    if (r->in) pc_validate(r->in, &r->cx);
}

static void close_run(run *r)
{
    pc_input_free(r->in);
    pc_ctx_free(&r->cx);
}

static pc_status status_of(run *r, const char *id) { return pc_rule_status(&r->cx, pc_rule_find(id)); }

/* Validate the folder, expect the verdict/format/rule, and decode every module with both impls. */
static void expect(const char *what, bool reject, const char *format, const char *rule, pc_status st)
{
    run r;
    open_run(&r, PC_PROFILE_STRICT);
    CHECK(!r.cx.io_error && !r.cx.oom, "%s: io error %s", what, r.cx.io_message);
    CHECK(pc_rejected(&r.cx) == reject, "%s: rejected %d, expected %d", what, pc_rejected(&r.cx), reject);
    CHECK(!strcmp(pc_input_format(r.in), format), "%s: format %s, expected %s", what, pc_input_format(r.in), format);
    if (rule) CHECK(status_of(&r, rule) == st, "%s: %s is %s, expected %s", what, rule, pc_status_name(status_of(&r, rule)), pc_status_name(st));
    for (size_t i = 0; i < r.in->nmodules; i++) {
        uint8_t *c1, *c2;
        float *w1, *w2;
        int a = pc_logical_decode(r.in, &r.in->modules[i], PC_IMPL_REF, &c1, &w1, &r.cx);
        int b = pc_logical_decode(r.in, &r.in->modules[i], PC_IMPL_FAST, &c2, &w2, &r.cx);
        size_t n = (size_t)r.in->modules[i].numel;
        CHECK(!a && !b && !memcmp(c1, c2, n) && !memcmp(w1, w2, n * 4), "%s: oracle and fast decode agree", what);
        free(c1); free(c2); free(w1); free(w2);
    }
    close_run(&r);
}

static float first_weight(void)
{
    run r;
    open_run(&r, PC_PROFILE_STRICT);
    float v = -1000;
    uint8_t *c;
    float *w;
    if (r.in && r.in->nmodules == 1 && !pc_logical_decode(r.in, &r.in->modules[0], PC_IMPL_FAST, &c, &w, &r.cx)) {
        v = w[0];
        free(c);
        free(w);
    }
    close_run(&r);
    return v;
}

static void gptq_cases(void)
{
    gptq_spec s = {64, 32, 8, 2, 0x00000000u, 0x77777777u, 0x3C00, true};
    clear_dir();
    write_gptq(&s);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"desc_act\":false,\"sym\":true,\"quant_method\":\"gptq\",\"checkpoint_format\":\"gptq\"}");
    expect("gptq v1 baseline", false, "gptq-v1", "GPTQ-012", PC_STATUS_PASS);
    CHECK(first_weight() == -8.0f, "v1: stored zero 7 means z = 8, code 0 -> -8 (got %g)", (double)first_weight());
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"desc_act\":false,\"sym\":true}");
    expect("AutoGPTQ dict without quant_method", false, "gptq-v1", "GPTQ-008", PC_STATUS_PASS);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"sym\":true,\"quant_method\":\"GPTQ\",\"checkpoint_format\":null}");
    expect("method in capitals, checkpoint_format null, desc_act absent", false, "gptq-v1", "GPTQ-009", PC_STATUS_PASS);
    write_text("quantize_config.json", "{\"bits\":\"4\",\"group_size\":32,\"quant_method\":\"gptq\"}");
    expect("bits as a string", true, "gptq-v1", "GPTQ-001", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":1e300,\"quant_method\":\"gptq\"}");
    expect("group_size 1e300", true, "gptq-v1", "GPTQ-003", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":4096,\"quant_method\":\"gptq\"}");
    expect("group_size larger than K: one group, shapes disagree", true, "gptq-v1", "GPTQ-005", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"sym\":\"yes\"}");
    expect("sym as a string", true, "gptq-v1", "GPTQ-003", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"pack_dtype\":\"int16\"}");
    expect("pack_dtype int16", true, "gptq-v1", "GPTQ-002", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"checkpoint_format\":\"gptq_v2\",\"sym\":false}");
    expect("v2 asymmetric: any stored zero is legal", false, "gptq-v2", NULL, PC_STATUS_PASS);
    CHECK(first_weight() == -7.0f, "v2: stored zero 7 is z = 7 (got %g)", (double)first_weight());
    s.zword = 0xFFFFFFFFu;
    write_gptq(&s);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"sym\":false,\"desc_act\":false}");
    expect("v1 asymmetric all-ones zeros", true, "gptq-v1", "GPTQ-013", PC_STATUS_FAIL);
    {
        run r;
        open_run(&r, PC_PROFILE_COMPAT);
        CHECK(!pc_rejected(&r.cx) && status_of(&r, "GPTQ-013") == PC_STATUS_WARN && r.in->nmodules == 1, "compat: GPTQ-013 warns");
        close_run(&r);
    }
    s.zword = 0x77777777u;
    s.scale = 0x0000;
    write_gptq(&s);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"desc_act\":false}");
    expect("zero scales warn", false, "gptq-v1", "GPTQ-011", PC_STATUS_WARN);
    s.scale = 0x7E00; /* NaN */
    write_gptq(&s);
    expect("NaN scales", true, "gptq-v1", "GPTQ-010", PC_STATUS_FAIL);
    /* GPTQModel dynamic overrides: first match wins; the module "m" is the prefix. */
    s.scale = 0x3C00;
    write_gptq(&s);
    write_text("quantize_config.json", "{\"bits\":8,\"group_size\":32,\"quant_method\":\"gptq\",\"desc_act\":false,"
               "\"dynamic\":{\"+:^x\\\\d+\":{\"bits\":2},\"+:(?:m|n)$\":{\"bits\":4},\".*\":{\"bits\":3}}}");
    expect("dynamic: the regex override sets 4 bits", false, "gptq-v1", "GPTQ-015", PC_STATUS_PASS);
    write_text("quantize_config.json", "{\"bits\":8,\"group_size\":32,\"quant_method\":\"gptq\",\"desc_act\":false,"
               "\"dynamic\":{\"m\":{\"bits\":4}}}");
    expect("dynamic: an exact name", false, "gptq-v1", "GPTQ-015", PC_STATUS_PASS);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"desc_act\":false,"
               "\"dynamic\":{\"m.x\":{\"bits\":8}}}");
    expect("dynamic: a regex that does not match leaves the base", false, "gptq-v1", "GPTQ-015", PC_STATUS_PASS);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"dynamic\":{\"-:m\":{}}}");
    expect("dynamic: quantized tensors on a skipped module", true, "gptq-v1", "GPTQ-003", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"dynamic\":{\"(?<=x)m\":{\"bits\":8}}}");
    expect("dynamic: lookbehind is beyond packcheck", true, "gptq-v1", "GPTQ-015", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\",\"dynamic\":{\".*\":{\"bits\":5}}}");
    expect("dynamic: bits 5", true, "gptq-v1", "GPTQ-001", PC_STATUS_FAIL);
    write_text("quantize_config.json", "{\"quant_method\":\"compressed-tensors\",\"format\":\"pack-quantized\"}");
    expect("another scheme's config: GPTQ does not claim qweight", false, "safetensors", "CFG-002", PC_STATUS_SKIP);
    clear_dir();
    write_gptq(&s);
    expect("no config, g_idx present", true, "gptq-v1", "CFG-002", PC_STATUS_FAIL);
    gptq_spec z = {0, 32, 0, 1, 0, 0x77777777u, 0x3C00, true};
    write_gptq(&z);
    write_text("quantize_config.json", "{\"bits\":4,\"group_size\":32,\"quant_method\":\"gptq\"}");
    expect("K = 0", true, "gptq-v1", "GPTQ-006", PC_STATUS_FAIL);
    gptq_spec t3 = {64, 32, 7, 2, 0, 0, 0x3C00, true}; /* 3-bit needs 6 rows */
    write_gptq(&t3);
    write_text("quantize_config.json", "{\"bits\":3,\"group_size\":32,\"quant_method\":\"gptq\"}");
    expect("3-bit qweight with 7 rows", true, "gptq-v1", "GPTQ-005", PC_STATUS_FAIL);
}

static void awq_cases(void)
{
    clear_dir();
    write_awq(0x75316420u, 0x00000000u);
    write_text("quant_config.json", "{\"w_bit\":4,\"q_group_size\":32,\"zero_point\":true,\"version\":\"GEMM\"}");
    expect("AWQ legacy quant_config.json", false, "awq-gemm", "AWQ-002", PC_STATUS_PASS);
    {
        run r;
        open_run(&r, PC_PROFILE_STRICT);
        uint8_t *c;
        float *w;
        if (r.in->nmodules == 1 && !pc_logical_decode(r.in, &r.in->modules[0], PC_IMPL_REF, &c, &w, &r.cx)) {
            /* codes [N = 16, K = 64]: column n of every row holds n % 8, so row n of the view is n % 8 */
            CHECK(c[0] == 0 && c[64] == 1 && c[7 * 64 + 5] == 7 && w[3 * 64] == 3.0f, "AWQ interleave undone, transposed");
            free(c);
            free(w);
        } else CHECK(0, "AWQ decode");
        close_run(&r);
    }
    write_text("quant_config.json", "{\"w_bit\":4,\"q_group_size\":32,\"zero_point\":true,\"version\":\"GEMV\"}");
    expect("AWQ GEMV", true, "awq-gemm", "AWQ-002", PC_STATUS_FAIL);
    write_text("quant_config.json", "{\"w_bit\":4,\"q_group_size\":32,\"zero_point\":true}");
    expect("AWQ without version: gemm", false, "awq-gemm", NULL, PC_STATUS_PASS);
    /* zero_point false (GPTQModel's symmetric export): the stored zeros still decide decoding (AWQ-003) */
    write_text("quant_config.json", "{\"w_bit\":4,\"q_group_size\":32,\"zero_point\":false}");
    expect("AWQ zero_point false, zeros 0: warned, decoded as stored", false, "awq-gemm", "AWQ-003", PC_STATUS_WARN);
    CHECK(first_weight() == 0.0f, "zero_point false with stored zero 0: w = (0 - 0) * s (got %g)", (double)first_weight());
    clear_dir();
    write_awq(0x75316420u, 0x88888888u);
    write_text("quant_config.json", "{\"w_bit\":4,\"q_group_size\":32,\"zero_point\":false}");
    expect("AWQ zero_point false, every zero 8", false, "awq-gemm", "AWQ-003", PC_STATUS_PASS);
    CHECK(first_weight() == -8.0f, "symmetric: w = (0 - 8) * s (got %g)", (double)first_weight());
    clear_dir();
    write_awq(0xFFFFFFFFu, 0x00000000u);
    write_text("config.json", "{\"quantization_config\":{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":-1,\"version\":\"gemm\"}}");
    expect("AWQ group_size -1 with two group rows", true, "awq-gemm", "AWQ-006", PC_STATUS_FAIL);
    write_text("config.json", "{\"quantization_config\":{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":32,\"version\":\"gemm\"}}");
    CHECK(first_weight() == 15.0f, "AWQ all-ones word: codes 15, unsigned (got %g)", (double)first_weight());
    gptq_spec s = {64, 32, 8, 2, 0, 0x77777777u, 0x3C00, true};
    write_gptq(&s);
    expect("GPTQ tensors under an AWQ config", true, "awq-gemm", "AWQ-005", PC_STATUS_FAIL);
    clear_dir();
    s.with_gidx = false;
    write_gptq(&s);
    expect("no config, no g_idx", true, "awq-gemm", "CFG-002", PC_STATUS_FAIL);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/pc-test-gptq-awq-XXXXXX");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    gptq_cases();
    awq_cases();
    clear_dir();
    rmdir(g_dir);
    return test_finish();
}
