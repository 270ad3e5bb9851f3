/* GGUF container reader and Q4_0 module: a table of hand-built inputs, each with the exact rule
 * it must break (or none), then a property test: every truncation and thousands of random byte
 * mutations of a valid file end in a verdict, never a crash (run under ASan/UBSan in CI). */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"


/* ---- a little GGUF writer ---- */

typedef struct buf { uint8_t *p; size_t n, cap; } buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void u32(buf *b, uint32_t v) { uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)}; put(b, x, 4); }
static void u64(buf *b, uint64_t v) { u32(b, (uint32_t)v); u32(b, (uint32_t)(v >> 32)); }
static void str(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }
static void zeros(buf *b, size_t n) { for (size_t i = 0; i < n; i++) put(b, "", 1); }
static void pad_to(buf *b, size_t a) { while (b->n % a) put(b, "", 1); }

enum { T_U8 = 0, T_U32 = 4, T_I32 = 5, T_F32 = 6, T_BOOL = 7, T_STR = 8, T_ARR = 9, T_U64 = 10 };

/* A header: magic, version, counts. */
static void head(buf *b, uint32_t version, uint64_t nt, uint64_t nkv) { put(b, "GGUF", 4); u32(b, version); u64(b, nt); u64(b, nkv); }
static void kv_u32(buf *b, const char *k, uint32_t v) { str(b, k); u32(b, T_U32); u32(b, v); }
static void ti(buf *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off)
{
    str(b, name);
    u32(b, nd);
    for (uint32_t j = 0; j < nd; j++) u64(b, ne[j]);
    u32(b, type);
    u64(b, off);
}

/* One Q4_0 block: d = +1.0 (0x3c00) and codes 0..15 / 15..0. */
static void q4_block(buf *b, uint16_t d)
{
    uint8_t blk[18] = {(uint8_t)d, (uint8_t)(d >> 8)};
    for (int j = 0; j < 16; j++) blk[2 + j] = (uint8_t)(j | ((15 - j) << 4));
    put(b, blk, 18);
}

/* A valid file: one KV, a Q4_0 [2 x 32] tensor and an F32 [4] tensor. */
static buf valid_file(uint16_t d1)
{
    buf b = {0};
    head(&b, 3, 2, 1);
    kv_u32(&b, "general.alignment", 32);
    uint64_t ne_q[2] = {32, 2}, ne_f[1] = {4};
    ti(&b, "blk.0.attn_q.weight", 2, ne_q, 2, 0);
    ti(&b, "output_norm.weight", 1, ne_f, 0, 64);
    pad_to(&b, 32);
    q4_block(&b, 0x3c00);
    q4_block(&b, d1);
    pad_to(&b, 32);
    float f[4] = {1, 2, 3, 4};
    put(&b, f, sizeof f);
    pad_to(&b, 32);
    return b;
}

/* ---- running the reader ---- */

static char g_path[64];

static void write_file(const buf *b)
{
    FILE *f = fopen(g_path, "wb");
    if (!f) { perror(g_path); exit(2); }
    if (b->n) fwrite(b->p, 1, b->n, f);
    fclose(f);
}

/* Validate the bytes; return the context (caller frees) and the input. */
static pc_input *run(const buf *b, pc_ctx *cx, pc_profile prof)
{
    write_file(b);
    pc_ctx_init(cx, prof);
    pc_input *in = pc_input_open(g_path, NULL, cx);
    if (in) pc_validate(in, cx);
    return in;
}

static void expect_in(pc_profile prof, const char *what, buf b, const char *rule)
{
    pc_ctx cx;
    pc_input *in = run(&b, &cx, prof);
    CHECK(in && !cx.io_error, "%s: io error %s", what, cx.io_message);
    if (rule) {
        const pc_rule *r = pc_rule_find(rule);
        CHECK(r && pc_rule_status(&cx, r) == PC_STATUS_FAIL, "%s: %s did not fail", what, rule);
        CHECK(pc_rejected(&cx), "%s: not rejected", what);
        /* every finding names an offset inside or at the end of the file */
        for (size_t i = 0; i < cx.nfindings; i++)
            CHECK(cx.findings[i].offset >= -1 && (uint64_t)cx.findings[i].offset <= b.n + 0, "%s: finding offset %lld outside the %zu-byte file",
                  what, (long long)cx.findings[i].offset, b.n);
    } else {
        const char *why = "";
        for (size_t i = 0; i < cx.nfindings; i++)
            if (cx.findings[i].status == PC_STATUS_FAIL) why = cx.findings[i].rule->id;
        CHECK(!pc_rejected(&cx), "%s: rejected by %s", what, why);
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    free(b.p);
}

static void expect(const char *what, buf b, const char *rule) { expect_in(PC_PROFILE_STRICT, what, b, rule); }

/* A rule whose severity differs by profile: the same bytes, judged under each. */
static void expect_both(const char *what, buf b, const char *strict_rule, const char *compat_rule)
{
    buf c = {malloc(b.n ? b.n : 1), b.n, b.n};
    if (!c.p) abort();
    memcpy(c.p, b.p, b.n);
    expect_in(PC_PROFILE_STRICT, what, b, strict_rule);
    expect_in(PC_PROFILE_COMPAT, what, c, compat_rule);
}

static buf one_kv_file(void (*kv)(buf *))
{
    buf b = {0};
    head(&b, 3, 0, 1);
    kv(&b);
    return b;
}

static void kv_nested(buf *b) { str(b, "a.b"); u32(b, T_ARR); u32(b, T_ARR); u64(b, 1); u32(b, T_U8); u64(b, 1); put(b, "x", 1); }
static void kv_type13(buf *b) { str(b, "a.b"); u32(b, 13); u64(b, 0); }
static void kv_empty(buf *b) { str(b, ""); u32(b, T_U8); put(b, "x", 1); }
static void kv_strlong(buf *b) { str(b, "a.b"); u32(b, T_STR); u64(b, 1ull << 40); put(b, "abc", 3); }
static void kv_strpast(buf *b) { str(b, "a.b"); u32(b, T_STR); u64(b, 100); put(b, "abc", 3); }
static void kv_arr263(buf *b) { str(b, "a"); u32(b, T_ARR); u32(b, T_U8); u64(b, 1ull << 63); }
static void kv_align0(buf *b) { kv_u32(b, "general.alignment", 0); }
static void kv_align24(buf *b) { kv_u32(b, "general.alignment", 24); }
static void kv_align_u64(buf *b) { str(b, "general.alignment"); u32(b, T_U64); u64(b, 32); }
static void kv_align_big(buf *b) { kv_u32(b, "general.alignment", 1u << 21); }
static void kv_scores_u8(buf *b)
{
    str(b, "tokenizer.ggml.tokens"); u32(b, T_ARR); u32(b, T_STR); u64(b, 2); str(b, "a"); str(b, "b");
    str(b, "tokenizer.ggml.scores"); u32(b, T_ARR); u32(b, T_U8); u64(b, 2); put(b, "\1\2", 2);
}
static void kv_bool2(buf *b) { str(b, "a.flag"); u32(b, T_BOOL); put(b, "\2", 1); }

static buf tensor_file(const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off, size_t data)
{
    buf b = {0};
    head(&b, 3, 1, 0);
    ti(&b, name, nd, ne, type, off);
    pad_to(&b, 32);
    zeros(&b, data);
    return b;
}

static void table(void)
{
    expect("valid", valid_file(0x3c00), NULL);
    buf b = valid_file(0x3c00);
    memcpy(b.p, "FUGG", 4);
    expect("byte-swapped magic", b, "GGUF-001");
    b = valid_file(0x3c00);
    b.p[4] = 0, b.p[7] = 3;
    expect_both("big-endian v3 (LIMIT strict, MUST compat)", b, "GGUF-038", "GGUF-038");
    b = valid_file(0x3c00);
    b.p[4] = 0, b.p[7] = 2;
    expect_both("byte-swapped version 2 (no spec file: v3 introduced big-endian)", b, "GGUF-002", "GGUF-002");
    b = valid_file(0x3c00);
    b.p[4] = 1;
    expect("version 1", b, "GGUF-002");
    b = valid_file(0x3c00);
    b.p[4] = 2;
    expect("version 2", b, NULL);
    b = (buf){0};
    put(&b, "GGUF", 4);
    u32(&b, 3);
    u32(&b, 0);
    expect("truncated in n_tensors", b, "GGUF-003");
    b = (buf){0};
    head(&b, 3, 0, 1);
    expect("n_kv 1, nothing after", b, "GGUF-004");
    b = (buf){0};
    head(&b, 3, UINT64_MAX, 0);
    expect("n_tensors -1", b, "GGUF-004");
    expect("string length past EOF", one_kv_file(kv_strpast), "GGUF-006");
    expect("string length 2^40", one_kv_file(kv_strlong), "GGUF-007");
    expect("array count 2^63", one_kv_file(kv_arr263), "GGUF-007");
    expect("value type 13", one_kv_file(kv_type13), "GGUF-008");
    expect("nested array", one_kv_file(kv_nested), "GGUF-009");
    expect("empty key", one_kv_file(kv_empty), "GGUF-010");
    b = (buf){0};
    head(&b, 3, 0, 2);
    kv_u32(&b, "a.b", 1);
    kv_u32(&b, "a.b", 2);
    expect("duplicate key", b, "GGUF-011");
    expect("alignment 0", one_kv_file(kv_align0), "GGUF-012");
    expect_both("alignment 24: the spec's multiple of 8, not ggml's power of two", one_kv_file(kv_align24), NULL, "GGUF-037");
    expect("alignment u64", one_kv_file(kv_align_u64), "GGUF-012");
    expect("bool 2 (strict: the spec calls it invalid)", one_kv_file(kv_bool2), "GGUF-031");
    expect("alignment 2^21", one_kv_file(kv_align_big), "GGUF-013");
    b = one_kv_file(kv_scores_u8);
    b.p[16] = 2; /* n_kv = 2 */
    expect("UINT8 tokenizer scores", b, "GGUF-014");
    uint64_t ne32[2] = {32, 1}, ne33[2] = {33, 1}, neg[1] = {UINT64_MAX}, wrap[2] = {1ull << 32, 1ull << 32};
    uint64_t five[5] = {1, 1, 1, 1, 1}, big62[1] = {1ull << 62}, padwrap[4] = {4, (1ull << 30) - 1, (1ull << 30) + 1, 1};
    char n64[66];
    memset(n64, 'n', 65);
    n64[65] = 0;
    expect("name 65 bytes", tensor_file(n64, 2, ne32, 2, 0, 18), "GGUF-015");
    n64[64] = 0;
    expect_both("name 64 bytes: the spec's bound, over ggml's 63", tensor_file(n64, 2, ne32, 2, 0, 32), NULL, "GGUF-036");
    expect("name empty only warns (the spec does not forbid it)", tensor_file("", 2, ne32, 2, 0, 32), NULL);
    b = (buf){0};
    head(&b, 3, 1, 0);
    u64(&b, 3);
    put(&b, "a\0b", 3);
    u32(&b, 2); u64(&b, 32); u64(&b, 1); u32(&b, 2); u64(&b, 0);
    pad_to(&b, 32);
    zeros(&b, 32);
    expect("name with NUL only warns (U+0000 is UTF-8)", b, NULL);
    b = (buf){0};
    head(&b, 3, 2, 0);
    ti(&b, "x", 2, ne32, 2, 0);
    ti(&b, "x", 2, ne32, 2, 32);
    pad_to(&b, 32);
    zeros(&b, 64);
    expect("duplicate name", b, "GGUF-018");
    expect("n_dims 5", tensor_file("x", 5, five, 0, 0, 32), "GGUF-019");
    expect("ne -1", tensor_file("x", 1, neg, 0, 0, 32), "GGUF-020");
    expect("ne product wraps", tensor_file("x", 2, wrap, 0, 0, 32), "GGUF-021");
    expect("type 4", tensor_file("x", 2, ne32, 4, 0, 32), "GGUF-022");
    expect("type 43", tensor_file("x", 2, ne32, 43, 0, 32), "GGUF-022");
    expect("Q4_0 ne0 33", tensor_file("x", 2, ne33, 2, 0, 32), "GGUF-023");
    expect("F32 ne0 2^62", tensor_file("x", 1, big62, 0, 0, 32), "GGUF-024");
    expect("PAD wrap (#26978)", tensor_file("x", 4, padwrap, 0, 0, 32), "GGUF-024");
    expect("offset 32 (gap)", tensor_file("x", 2, ne32, 2, 32, 64), "GGUF-027");
    expect("offset 16 (unaligned)", tensor_file("x", 2, ne32, 2, 16, 64), "GGUF-026");
    expect("data past EOF", tensor_file("x", 2, ne32, 2, 0, 10), "GGUF-028");
    expect("ne1 = 0 loads", tensor_file("x", 2, (uint64_t[]){32, 0}, 2, 0, 0), NULL);
    b = (buf){0};
    head(&b, 3, 2, 0);
    ti(&b, "a", 1, (uint64_t[]){0x7FFFFFFFFFFFFFC0ull}, 24, 0);
    ti(&b, "b", 1, (uint64_t[]){0x7FFFFFFFFFFFFFC0ull}, 24, 0x7FFFFFFFFFFFFFC0ull);
    pad_to(&b, 32);
    expect("CVE-2026-27940", b, "GGUF-025");
    expect("Q4_0 d = inf", valid_file(0x7c00), "Q40-002");
    expect("Q4_0 d = NaN", valid_file(0xfe00), "Q40-002");
    expect("Q4_0 d = -0.0 is fine", valid_file(0x8000), NULL);
    expect("Q4_0 d negative is fine", valid_file(0xc000), NULL);
}

/* GGUF-005: a count above 2^20 that the file could hold (a sparse file, never read). */
static void count_limit(void)
{
    buf b = {0};
    head(&b, 3, 0, (1u << 20) + 1);
    write_file(&b);
    free(b.p);
    FILE *f = fopen(g_path, "r+b");
    if (!f || ftruncate(fileno(f), 24 + 13ll * ((1 << 20) + 1))) { CHECK(0, "cannot make sparse file"); if (f) fclose(f); return; }
    fclose(f);
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(g_path, NULL, &cx);
    CHECK(pc_rule_status(&cx, pc_rule_find("GGUF-005")) == PC_STATUS_FAIL, "n_kv 2^20 + 1: GGUF-005 did not fail");
    pc_input_free(in);
    pc_ctx_free(&cx);
}

/* Q40-001 cannot be reached through a GGUF file (GGUF-023/024 see it first): drive the module. */
extern const pc_format pc_format_gguf_blocks;
static void q40_geometry(void)
{
    pc_tensor t = {.name = "x.weight", .dtype = PC_DT_GGML, .ggml_type = 2, .ndim = 2, .shape = {1, 33}, .numel = 33, .nbytes = 18};
    pc_input in = {.tensors = &t, .ntensors = 1, .is_gguf = true};
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    CHECK(pc_format_gguf_blocks.detect(&in), "Q4_0 not detected");
    pc_format_gguf_blocks.check(&in, &cx);
    CHECK(pc_rule_status(&cx, pc_rule_find("Q40-001")) == PC_STATUS_FAIL && in.nmodules == 0, "Q40-001 on ne0 = 33");
    pc_ctx_free(&cx);
    free(in.modules);
}

/* Module shape and decoded values of the valid file. */
static void decode(void)
{
    buf b = valid_file(0xc000); /* block 1: d = -2 */
    pc_ctx cx;
    pc_input *in = run(&b, &cx, PC_PROFILE_STRICT);
    CHECK(in && in->nmodules == 1, "one module");
    if (in && in->nmodules == 1) {
        const pc_module *m = &in->modules[0];
        CHECK(!strcmp(m->prefix, "blk.0.attn_q") && m->ndim == 2 && m->shape[0] == 2 && m->shape[1] == 32, "module prefix/shape");
        uint8_t codes[64];
        float w[64];
        CHECK(m->fmt->decode(in, m, PC_IMPL_FAST, codes, w, &cx) == 0, "decode");
        CHECK(codes[0] == 0 && codes[15] == 15 && codes[16] == 15 && codes[31] == 0, "nibble order");
        CHECK(w[0] == -8.0f && w[16] == 7.0f && w[32] == 16.0f && w[48] == -14.0f, "weights %g %g %g %g", w[0], w[16], w[32], w[48]);
        CHECK(!strcmp(pc_input_format(in), "gguf"), "format gguf");
        const pc_tensor *t = pc_input_find(in, "output_norm.weight");
        CHECK(t && t->dtype == PC_DT_GGML && t->ggml_type == 0 && t->ndim == 1 && t->shape[0] == 4 && t->nbytes == 16, "F32 described");
        t = pc_input_find(in, "blk.0.attn_q.weight");
        CHECK(t && t->shape[0] == 2 && t->shape[1] == 32 && t->offset % 32 == 0 && t->nbytes == 36, "Q4_0 described");
    }
    pc_input_free(in);
    pc_ctx_free(&cx);
    free(b.p);
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return g_rng; }

/* Every truncation of the valid file short of its last data byte is rejected; mutations never crash. */
static void properties(void)
{
    buf v = valid_file(0x3c00);
    size_t data_end = v.n - 32 + 16; /* the F32 tensor's last byte + 1 */
    int bad_trunc = 0;
    for (size_t n = 0; n < v.n; n++) {
        buf b = {0};
        put(&b, v.p, n ? n : 1);
        b.n = n;
        pc_ctx cx;
        pc_input *in = run(&b, &cx, PC_PROFILE_STRICT);
        if (n < data_end && !pc_rejected(&cx)) { bad_trunc++; printf("  truncation at %zu accepted\n", n); }
        if (n >= data_end && pc_rejected(&cx)) { bad_trunc++; printf("  truncation at %zu (final padding only) rejected\n", n); }
        pc_input_free(in);
        pc_ctx_free(&cx);
        free(b.p);
    }
    CHECK(bad_trunc == 0, "%d truncations judged wrongly", bad_trunc);
    for (int i = 0; i < 3000; i++) {
        buf b = {0};
        put(&b, v.p, v.n);
        int flips = 1 + (int)(rnd() % 4);
        for (int k = 0; k < flips; k++) {
            size_t at = rnd() % b.n;
            uint64_t r = rnd();
            /* a random byte, or a length/count field set to an extreme */
            if (r % 4 == 0 && at + 8 <= b.n) { uint64_t x = (r & 8) ? UINT64_MAX - (r % 3) : (1ull << (r % 64)); memcpy(b.p + at, &x, 8); }
            else b.p[at] = (uint8_t)(r >> 8);
        }
        pc_ctx cx;
        pc_input *in = run(&b, &cx, i % 2 ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT);
        for (size_t m = 0; in && m < in->nmodules && !pc_rejected(&cx); m++) {
            uint8_t *codes = malloc(in->modules[m].numel + 1);
            float *w = malloc((in->modules[m].numel + 1) * sizeof *w);
            if (codes && w) in->modules[m].fmt->decode(in, &in->modules[m], PC_IMPL_REF, codes, w, &cx);
            free(codes);
            free(w);
        }
        pc_input_free(in);
        pc_ctx_free(&cx);
        free(b.p);
    }
    g_pass++;
    free(v.p);
}

int main(void)
{
    snprintf(g_path, sizeof g_path, "/tmp/pc-test-gguf-%d.gguf", (int)getpid());
    table();
    count_limit();
    q40_geometry();
    decode();
    properties();
    unlink(g_path);
    return test_finish();
}
