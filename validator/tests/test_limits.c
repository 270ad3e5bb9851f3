/* LIMIT rules that need files too large to commit: each input is a sparse file (the data is a hole,
 * never read), so the test costs no disk and proves the limit is checked before any allocation. */
#include "packcheck_internal.h"
#include "testlib.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

static char g_dir[256];

/* Write a safetensors header for `json` and extend the file to `data_len` data bytes (a hole). */
static void sparse_st(const char *path, const char *json, uint64_t data_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t n = strlen(json), pad = (8 - n % 8) % 8;
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)((uint64_t)(n + pad) >> (8 * i));
    if (fd < 0 || write(fd, len, 8) != 8 || write(fd, json, n) != (ssize_t)n || write(fd, "        ", pad) != (ssize_t)pad ||
        ftruncate(fd, (off_t)(8 + n + pad + data_len))) {
        perror(path);
        exit(2);
    }
    close(fd);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) { perror(path); exit(2); }
}

static pc_status rule_on(const char *dir, const char *rule)
{
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) exit(2);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    pc_status s = pc_rule_status(&cx, pc_rule_find(rule));
    pc_input_free(in);
    pc_ctx_free(&cx);
    return s;
}

/* GPTQ 4-bit, K = N = 65536, group 128: qweight [8192, 65536] I32 is 2 GiB. */
static void gptq_over_limit(void)
{
    char st[300], cfg[300], hdr[1024];
    snprintf(st, sizeof st, "%s/model.safetensors", g_dir);
    snprintf(cfg, sizeof cfg, "%s/quantize_config.json", g_dir);
    uint64_t qw = 8192ull * 65536 * 4, qz = 512ull * 8192 * 4, sc = 512ull * 65536 * 2, gi = 65536ull * 4;
    snprintf(hdr, sizeof hdr,
             "{\"m.g_idx\":{\"dtype\":\"I32\",\"shape\":[65536],\"data_offsets\":[0,%llu]},"
             "\"m.qweight\":{\"dtype\":\"I32\",\"shape\":[8192,65536],\"data_offsets\":[%llu,%llu]},"
             "\"m.qzeros\":{\"dtype\":\"I32\",\"shape\":[512,8192],\"data_offsets\":[%llu,%llu]},"
             "\"m.scales\":{\"dtype\":\"F16\",\"shape\":[512,65536],\"data_offsets\":[%llu,%llu]}}",
             (unsigned long long)gi, (unsigned long long)gi, (unsigned long long)(gi + qw), (unsigned long long)(gi + qw),
             (unsigned long long)(gi + qw + qz), (unsigned long long)(gi + qw + qz), (unsigned long long)(gi + qw + qz + sc));
    sparse_st(st, hdr, gi + qw + qz + sc);
    write_text(cfg, "{\"bits\": 4, \"group_size\": 128, \"desc_act\": false, \"sym\": true, \"quant_method\": \"gptq\", \"checkpoint_format\": \"gptq\"}");
    CHECK(rule_on(g_dir, "GPTQ-014") == PC_STATUS_FAIL, "GPTQ-014 did not fail on a 2 GiB qweight");
    unlink(st);
    unlink(cfg);
}

/* AWQ GEMM, K = N = 65536, group 128: qweight [65536, 8192] I32 is 2 GiB. */
static void awq_over_limit(void)
{
    char st[300], cfg[300], hdr[1024];
    snprintf(st, sizeof st, "%s/model.safetensors", g_dir);
    snprintf(cfg, sizeof cfg, "%s/config.json", g_dir);
    uint64_t qw = 65536ull * 8192 * 4, qz = 512ull * 8192 * 4, sc = 512ull * 65536 * 2;
    snprintf(hdr, sizeof hdr,
             "{\"m.qweight\":{\"dtype\":\"I32\",\"shape\":[65536,8192],\"data_offsets\":[0,%llu]},"
             "\"m.qzeros\":{\"dtype\":\"I32\",\"shape\":[512,8192],\"data_offsets\":[%llu,%llu]},"
             "\"m.scales\":{\"dtype\":\"F16\",\"shape\":[512,65536],\"data_offsets\":[%llu,%llu]}}",
             (unsigned long long)qw, (unsigned long long)qw, (unsigned long long)(qw + qz), (unsigned long long)(qw + qz),
             (unsigned long long)(qw + qz + sc));
    sparse_st(st, hdr, qw + qz + sc);
    write_text(cfg, "{\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, \"zero_point\": true, \"version\": \"gemm\"}}");
    CHECK(rule_on(g_dir, "AWQ-010") == PC_STATUS_FAIL, "AWQ-010 did not fail on a 2 GiB qweight");
    unlink(st);
    unlink(cfg);
}

int main(void)
{
    test_tmpdir(g_dir, sizeof g_dir, "limits");
    gptq_over_limit();
    awq_over_limit();
    rmdir(g_dir);
    return test_finish();
}
