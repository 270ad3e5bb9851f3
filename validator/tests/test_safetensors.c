/* Unit tests of the safetensors container room: the JSON lexer, the header reader (exact rule IDs on
 * hand-built inputs, both profiles), u64 edge numbers, writer round trips, and property tests
 * (random valid headers accepted; mutated and truncated files always end in a verdict, and an
 * accepted file's tensors always lie inside it). */
#include "container/json_lex.h"
#include "container/safetensors.h"
#include "core/file.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_pass, g_fail;

#define CHECK(cond, ...)                                                                                   \
    do {                                                                                                   \
        if (cond) g_pass++;                                                                                \
        else { g_fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

/* ---- a tiny deterministic RNG (xorshift64*) ---- */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

/* ---- files ---- */
static char g_dir[256];

static char *write_tmp(const char *name, const void *b, size_t n)
{
    char *p = pc_path_join(g_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || (n && fwrite(b, 1, n, f) != n) || fclose(f)) { perror(p); exit(2); }
    return p;
}

/* A safetensors file from header text: 8-byte length (or `lenfield` when not UINT64_MAX-1), the
 * header, `data` zero bytes. */
#define REAL_LEN (UINT64_MAX - 1)
static uint8_t *st_bytes(const char *hdr, size_t hl, uint64_t data, uint64_t lenfield, size_t *n)
{
    *n = 8 + hl + (size_t)data;
    uint8_t *b = calloc(*n ? *n : 1, 1);
    pc_put_le64(b, lenfield == REAL_LEN ? hl : lenfield);
    memcpy(b + 8, hdr, hl);
    return b;
}

typedef struct read_result {
    pc_ctx cx;
    pc_file f;
    pc_tensor *t;
    size_t nt, cap;
} read_result;

static void read_bytes(const uint8_t *b, size_t n, pc_profile prof, read_result *r)
{
    memset(r, 0, sizeof *r);
    char *p = write_tmp("t.safetensors", b, n);
    pc_ctx_init(&r->cx, prof);
    if (pc_file_open(&r->f, p)) { printf("cannot open %s\n", p); exit(2); }
    free(p);
    if (st_read_header(&r->f, &r->cx, &r->t, &r->nt, &r->cap)) r->cx.oom = true;
}

static void read_free(read_result *r)
{
    for (size_t i = 0; i < r->nt; i++) free(r->t[i].name);
    free(r->t);
    pc_file_close(&r->f);
    pc_ctx_free(&r->cx);
}

/* The first failing rule's ID, or NULL when nothing failed. */
static const char *first_fail(const pc_ctx *cx)
{
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_FAIL) return cx->findings[i].rule->id;
    return NULL;
}

static bool rule_failed(const pc_ctx *cx, const char *id)
{
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_FAIL && !strcmp(cx->findings[i].rule->id, id)) return true;
    return false;
}

static bool rule_warned(const pc_ctx *cx, const char *id)
{
    for (size_t i = 0; i < cx->nfindings; i++)
        if (cx->findings[i].status == PC_STATUS_WARN && !strcmp(cx->findings[i].rule->id, id)) return true;
    return false;
}

/* ================================================================================================
 * JSON lexer
 * ============================================================================================== */

static bool lex_ok(const char *s)
{
    size_t nv, err;
    return pc_json_lex_check((const uint8_t *)s, strlen(s), &nv, &err);
}

static void test_json_lex(void)
{
    static const char *const good[] = {
        "{}", "[]", " {\"a\" : [1, -2, 0, 3.5e-7, 1E+2, true, false, null]}\n", "\"\\u00e9\\ud83d\\ude00\"",
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "-0", "0.0", "123456789012345678901234567890", "{\"a\":\"\\u0000\"}",
        "1e308", "1.7976931348623157e308", "1e-400", "-0.0e99999999999999999999", "18446744073709551616",
    };
    static const char *const bad[] = {
        "01", "-", "1.", ".5", "1e", "+1", "0x10", "\"\x01\"", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"",
        "\"\\udc00\"", "\"\\ud800\\u0041\"", "tru", "truex", "nul", "\xef\xbb\xbf{}", "\x0c{}", "{\x0b}", "NaN",
        "Infinity", "1-2", "0.5.3", "/* c */{}", "'a'", "{}x", "1e400", "-1e400", "[1.7976931348623159e308]",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) CHECK(lex_ok(good[i]), "lex should accept %s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(!lex_ok(bad[i]), "lex should reject %s", bad[i]);

    size_t nv = 0, err = 0;
    CHECK(pc_json_lex_check((const uint8_t *)"{\"a\":[1,2,\"x\",null]}", 20, &nv, &err) && nv == 5, "value count %zu", nv);
    CHECK(!pc_json_lex_check((const uint8_t *)"{\"a\":01}", 8, &nv, &err) && err == 6, "error offset %zu", err);

    /* Nesting: 127 levels as serde_json in the crate, not 128 (cJSON alone would allow 1000). */
    char deep[300];
    for (int d = 127; d <= 128; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        CHECK(pc_json_lex_check((const uint8_t *)deep, 2 * (size_t)d, &nv, &err) == (d == 127), "nesting %d", d);
    }
    CHECK(lex_ok("[[[]],[[]],[[]]]"), "depth falls back after closing brackets");

    /* pc_json_lex_next walks strings and numbers in order, with exact spans. */
    const char *doc = "{\"k\\u0000\": [12, -3], \"z\": true}";
    pc_jlex lx = {(const uint8_t *)doc, strlen(doc), 0};
    pc_jtok t;
    const char *want[] = {"\"k\\u0000\"", "12", "-3", "\"z\""};
    for (int i = 0; i < 4; i++) {
        bool ok = pc_json_lex_next(&lx, &t);
        CHECK(ok && t.len == strlen(want[i]) && !memcmp(doc + t.start, want[i], t.len), "token %d", i);
        if (i == 0) CHECK(t.has_nul && t.is_string, "has_nul on the first token");
        if (i == 1) CHECK(!t.is_string && !t.has_nul, "number token");
    }
    CHECK(!pc_json_lex_next(&lx, &t), "no token after the last");

    /* pc_json_u64: exact, no leading zeros, no signs, up to 2^64-1. */
    uint64_t v = 0;
    CHECK(pc_json_u64((const uint8_t *)"18446744073709551615", 20, &v) && v == UINT64_MAX, "u64 max");
    CHECK(!pc_json_u64((const uint8_t *)"18446744073709551616", 20, &v), "2^64 overflows");
    CHECK(!pc_json_u64((const uint8_t *)"99999999999999999999", 20, &v), "20 nines overflow");
    CHECK(pc_json_u64((const uint8_t *)"9007199254740993", 16, &v) && v == 9007199254740993ull, "2^53+1 exact");
    CHECK(pc_json_u64((const uint8_t *)"0", 1, &v) && v == 0, "zero");
    CHECK(!pc_json_u64((const uint8_t *)"00", 2, &v), "00");
    CHECK(!pc_json_u64((const uint8_t *)"-1", 2, &v), "-1");
    CHECK(!pc_json_u64((const uint8_t *)"-0", 2, &v), "-0 (serde reads it as a float)");
    CHECK(!pc_json_u64((const uint8_t *)"1e3", 3, &v), "1e3");
    CHECK(!pc_json_u64((const uint8_t *)"", 0, &v), "empty");

    /* UTF-8 as Rust's from_utf8. */
    struct { const char *s; size_t n; bool ok; } u[] = {
        {"abc", 3, true}, {"\xc3\xa9", 2, true}, {"\xe4\xb8\xad", 3, true}, {"\xf0\x9f\x98\x80", 4, true},
        {"\xf4\x8f\xbf\xbf", 4, true}, {"\xf4\x90\x80\x80", 4, false}, {"\xc0\xae", 2, false}, {"\xe0\x80\xae", 3, false},
        {"\xed\xa0\x80", 3, false}, {"\xff", 1, false}, {"\xc3", 1, false}, {"\x80", 1, false}, {"a\xe4\xb8", 3, false},
        {"\xf8\x88\x80\x80\x80", 5, false},
    };
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        size_t at = 99;
        CHECK(pc_utf8_valid((const uint8_t *)u[i].s, u[i].n, &at) == u[i].ok, "utf8 case %zu", i);
    }
    size_t at = 0;
    CHECK(!pc_utf8_valid((const uint8_t *)"ab\xff", 3, &at) && at == 2, "utf8 error offset %zu", at);

    /* String decoding keeps NULs and joins surrogate pairs. */
    size_t len = 0;
    const char *tok = "\"a\\u0000b\\n\\ud83d\\ude00\\u00e9\"";
    char *d = pc_json_string_decode((const uint8_t *)tok, strlen(tok), &len);
    CHECK(d && len == 10 && !memcmp(d, "a\0b\n\xf0\x9f\x98\x80\xc3\xa9", 10), "decode (len %zu)", len);
    free(d);

    /* The value bound ignores structure inside strings. */
    const char *vb = "{\"a,b:[{\":[1,2],\"c\\\"[\":{}}";
    CHECK(pc_json_value_bound((const uint8_t *)vb, strlen(vb)) == 1 + 7, "value bound %zu",
          pc_json_value_bound((const uint8_t *)vb, strlen(vb)));
}

/* The header's syntax check (pc_json_value_check), which replaced cJSON's parse + pc_json_lex_check
 * for the safetensors header: the same lists as above, then a differential against that old pair
 * on seeded mutants of header-shaped texts. The one intended difference: cJSON reads at most 63
 * characters of a number and fails on a longer one, serde_json (the crate) reads any length. */
static bool value_ok(const char *s, size_t n, size_t *end)
{
    size_t err = 0;
    return pc_json_value_check((const uint8_t *)s, n, end, &err) && err == 0;
}

static bool old_value_ok(const char *s, size_t n, size_t *end)
{
    const char *e = NULL;
    size_t nv, err;
    cJSON *root = cJSON_ParseWithLengthOpts(s, n, &e, 0);
    bool ok = root && pc_json_lex_check((const uint8_t *)s, (size_t)(e - s), &nv, &err);
    cJSON_Delete(root);
    if (ok) *end = (size_t)(e - s);
    return ok;
}

static bool long_number(const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        run = strchr("0123456789+-.eE", s[i]) && s[i] ? run + 1 : 0;
        if (run >= 60) return true;
    }
    return false;
}

static void test_json_value_check(void)
{
    static const char *const docs[] = {"{}", " {\"a\" : [1, -2, 0, 3.5e-7, 1E+2, true, false, null]}\n", "[[[]],[[]]]", "\"x\"", "-0"};
    static const char *const bad[] = {"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]", "{1:2}", "{\"a\":1 \"b\":2}",
                                      "]", "{]", "[}", "01", "\x0c{}", "\xef\xbb\xbf{}", "{\x0b}", "tru", "[1-2]", "[1e400]"};
    size_t end = 0;
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) CHECK(value_ok(docs[i], strlen(docs[i]), &end), "accepts %s", docs[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(!value_ok(bad[i], strlen(bad[i]), &end), "rejects %s", bad[i]);
    CHECK(value_ok("{} {}", 5, &end) && end == 2, "the value ends at 2 (%zu): the rest is trailing text", end);
    char deep[300];
    for (int d = 126; d <= 128; d++) {
        for (int k = 0; k < d; k++) deep[k] = '[', deep[d + k] = ']';
        CHECK(value_ok(deep, 2 * (size_t)d, &end) == (d <= 127), "nesting %d", d);
    }
    char longnum[80] = "[";
    memset(longnum + 1, '7', 70);
    longnum[71] = ']';
    CHECK(value_ok(longnum, 72, &end), "a 70-digit number is JSON (serde_json reads it as f64)");

    static const char *const seeds[] = {
        "{\"__metadata__\":{\"format\":\"pt\"},\"a.weight\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,12]}}  ",
        "{\"t\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[0,1]},\"\\u0000\":{\"x\":[true,false,null,-1.5e3]}}",
        " {\"k\\\"\\\\\\/\\n\\ud83d\\ude00\":[[[{}]]],\"n\":[0,1e-5,18446744073709551616]}\n",
    };
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    size_t compared = 0, differ = 0;
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        for (int m = 0; m < 40000; m++) {
            char buf[256] = {0};
            size_t n = strlen(seeds[s]);
            memcpy(buf, seeds[s], n);
            for (int e = 0, edits = 1 + m % 3; e < edits; e++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                size_t at = (size_t)(rng >> 33) % (n + 1);
                static const char pool[] = "{}[]:,\" \t\n\x0b-+.eE019tfnu\\\x01\xc3\xa9";
                char c = pool[(rng >> 20) % (sizeof pool - 1)];
                int op = (int)((rng >> 8) % 3);
                if (op == 0 && at < n) buf[at] = c;                                          /* replace */
                else if (op == 1 && n + 1 < sizeof buf) memmove(buf + at + 1, buf + at, n - at), buf[at] = c, n++; /* insert */
                else if (at < n) memmove(buf + at, buf + at + 1, n - at - 1), n--;          /* delete */
            }
            size_t utf8_err;
            if (!pc_utf8_valid((const uint8_t *)buf, n, &utf8_err) || long_number(buf, n)) continue; /* ST-004 comes first */
            size_t e1 = 0, e2 = 0, lead = strspn(buf, " \t\n\r");
            bool object = lead < n && buf[lead] == '{'; /* a header that is no object fails ST-005 either way */
            bool a = value_ok(buf, n, &e1) && object, b = old_value_ok(buf, n, &e2) && object;
            compared++;
            if (a != b || (a && e1 != e2)) {
                if (differ++ < 5) CHECK(0, "mutant %.*s: value check %d (end %zu), cJSON + lexer %d (end %zu)", (int)n, buf, a, e1, b, e2);
            }
        }
    }
    CHECK(compared > 60000 && differ == 0, "%zu mutants compared, %zu differ", compared, differ);
}

/* ================================================================================================
 * Exact rule IDs on hand-built headers
 * ============================================================================================== */

typedef struct st_case {
    const char *what;
    const char *hdr;       /* header text */
    size_t hl;             /* 0: strlen(hdr) */
    uint64_t data;         /* zero bytes after the header */
    uint64_t lenfield;     /* REAL_LEN: the real header length */
    const char *strict;    /* first failing rule under strict, NULL for pass */
    const char *compat;    /* same under compat */
} st_case;

/* A literal and its length, NULs included. */
#define LIT(s) s, sizeof(s) - 1
#define T4 "\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}"
#define E(dt, shape, b, e) "{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":[" b "," e "]}"

static const st_case k_cases[] = {
    {"valid", "{" T4 "}", 0, 4, REAL_LEN, NULL, NULL},
    {"empty header", "{}", 0, 0, REAL_LEN, NULL, NULL},
    {"3 bytes", "", 0, 0, REAL_LEN, "ST-001", "ST-001"}, /* special-cased below */
    {"length over limit", "{" T4 "}", 0, 4, 100000001ull, "ST-002", "ST-002"},
    {"length u64 max", "{" T4 "}", 0, 4, UINT64_MAX, "ST-002", "ST-002"},
    {"length past eof", "{" T4 "}", 0, 4, 61, "ST-003", "ST-003"},
    {"length 0", "", 0, 0, REAL_LEN, "ST-005", "ST-005"},
    {"bad utf8", "{\"\xff\":" E("U8", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-004", "ST-004"},
    {"top-level array", "[]", 0, 0, REAL_LEN, "ST-005", "ST-005"},
    {"top-level string", "\"x\"", 0, 0, REAL_LEN, "ST-005", "ST-005"},
    {"bom", "\xef\xbb\xbf{}", 0, 0, REAL_LEN, "ST-005", "ST-005"},
    {"nul before object", LIT("\0{}"), 0, REAL_LEN, "ST-005", "ST-005"},
    {"leading zero", "{\"t\":" E("U8", "[04]", "0", "4") "}", 0, 4, REAL_LEN, "ST-005", "ST-005"},
    {"trailing text", "{" T4 "}x", 0, 4, REAL_LEN, "ST-006", "ST-006"},
    {"nul padding", LIT("{" T4 "}\0\0\0"), 4, REAL_LEN, "ST-006", "ST-006"},
    {"tab then nul", LIT("{" T4 "}\t\0"), 4, REAL_LEN, "ST-007", "ST-006"},
    {"tab padding", "{" T4 "}\t\t", 0, 4, REAL_LEN, "ST-007", NULL},
    {"space padding", "{" T4 "}   ", 0, 4, REAL_LEN, NULL, NULL},
    {"leading space", " {" T4 "}", 0, 4, REAL_LEN, "ST-008", NULL},
    {"metadata null", "{\"__metadata__\":null," T4 "}", 0, 4, REAL_LEN, "ST-035", NULL},
    {"metadata int", "{\"__metadata__\":{\"a\":1}," T4 "}", 0, 4, REAL_LEN, "ST-009", "ST-009"},
    {"metadata array", "{\"__metadata__\":[]," T4 "}", 0, 4, REAL_LEN, "ST-009", "ST-009"},
    {"metadata twice", "{\"__metadata__\":{},\"__metadata__\":{}}", 0, 0, REAL_LEN, "ST-009", "ST-009"},
    {"metadata nul-suffixed key is a tensor", "{\"__metadata__\\u0000\":" E("U8", "[4]", "0", "4") "}", 0, 4, REAL_LEN, NULL, NULL},
    {"missing dtype", "{\"t\":{\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, "ST-010", "ST-010"},
    {"duplicate field", "{\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, "ST-010", "ST-010"},
    {"entry is null", "{\"t\":null}", 0, 0, REAL_LEN, "ST-010", "ST-010"},
    {"unknown field", "{\"t\":{\"dtype\":\"U8\",\"x\":{\"y\":[1,\"2\"]},\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, "ST-011", NULL},
    {"nul field name", "{\"t\":{\"dtype\":\"U8\",\"shape\\u0000\":[9],\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, "ST-011", NULL},
    {"dtype F8_E4M3FN", "{\"t\":" E("F8_E4M3FN", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-012", "ST-012"},
    {"dtype with nul", "{\"t\":" E("U8\\u0000", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-012", "ST-012"},
    {"dtype array", "{\"t\":{\"dtype\":[\"U8\"],\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, "ST-012", "ST-012"},
    /* F8_E4M3FNUZ with every character escaped: a 68-byte token that decodes to a valid dtype */
    {"dtype all escaped", "{\"t\":" E("\\u0046\\u0038\\u005f\\u0045\\u0034\\u004d\\u0033\\u0046\\u004e\\u0055\\u005a", "[4]", "0", "4") "}", 0, 4, REAL_LEN, NULL, NULL},
    {"escaped key and name", "{\"\\u0074\":{\"d\\u0074ype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 0, 4, REAL_LEN, NULL, NULL},
    {"70-digit shape entry", "{\"t\":" E("U8", "[7777777777777777777777777777777777777777777777777777777777777777777777]", "0", "4") "}", 0, 4, REAL_LEN, "ST-013", "ST-013"},
    {"shape negative", "{\"t\":" E("U8", "[-4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-013", "ST-013"},
    {"shape 2^64", "{\"t\":" E("U8", "[18446744073709551616]", "0", "4") "}", 0, 4, REAL_LEN, "ST-013", "ST-013"},
    {"shape null entry", "{\"t\":" E("U8", "[null]", "0", "4") "}", 0, 4, REAL_LEN, "ST-013", "ST-013"},
    {"shape object", "{\"t\":" E("U8", "{}", "0", "4") "}", 0, 4, REAL_LEN, "ST-013", "ST-013"},
    {"shape overflow", "{\"t\":" E("U8", "[2,9223372036854775808]", "0", "4") "}", 0, 4, REAL_LEN, "ST-014", "ST-014"},
    {"shape u64 max x 2", "{\"t\":" E("U8", "[18446744073709551615,2]", "0", "4") "}", 0, 4, REAL_LEN, "ST-014", "ST-014"},
    {"bits overflow", "{\"t\":" E("U16", "[9223372036854775808]", "0", "4") "}", 0, 4, REAL_LEN, "ST-014", "ST-014"},
    {"zero hides huge", "{\"z\":" E("F64", "[0,18446744073709551615]", "0", "0") "," T4 "}", 0, 4, REAL_LEN, NULL, NULL},
    {"F4 odd total", "{\"t\":" E("F4", "[3]", "0", "2") "}", 0, 2, REAL_LEN, "ST-015", "ST-015"},
    {"F4 odd row", "{\"t\":" E("F4", "[2,1]", "0", "1") "}", 0, 1, REAL_LEN, "ST-016", NULL},
    {"F4 even", "{\"t\":" E("F4", "[2,2]", "0", "2") "}", 0, 2, REAL_LEN, NULL, NULL},
    {"F4 scalar", "{\"t\":" E("F4", "[]", "0", "1") "}", 0, 1, REAL_LEN, "ST-015", "ST-015"},
    {"F6 rows of 4", "{\"t\":" E("F6_E3M2", "[3,4]", "0", "9") "}", 0, 9, REAL_LEN, NULL, NULL},
    {"offsets reversed", "{\"t\":" E("U8", "[0]", "4", "0") "}", 0, 0, REAL_LEN, "ST-017", "ST-017"},
    {"offsets three", "{\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4,4]}}", 0, 4, REAL_LEN, "ST-017", "ST-017"},
    {"offsets string", "{\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":\"0,4\"}}", 0, 4, REAL_LEN, "ST-017", "ST-017"},
    {"offsets float", "{\"t\":" E("U8", "[4]", "0", "4.0") "}", 0, 4, REAL_LEN, "ST-017", "ST-017"},
    {"span mismatch", "{\"t\":" E("U32", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-018", "ST-018"},
    {"span to u64 max", "{\"t\":" E("U8", "[4]", "0", "18446744073709551615") "}", 0, 4, REAL_LEN, "ST-018", "ST-018"},
    {"2^53+1 exact span", "{\"t\":" E("U8", "[9007199254740993]", "0", "9007199254740992") "}", 0, 0, REAL_LEN, "ST-018", "ST-018"},
    {"hole", "{\"a\":" E("U8", "[2]", "0", "2") ",\"b\":" E("U8", "[2]", "4", "6") "}", 0, 6, REAL_LEN, "ST-019", "ST-019"},
    {"overlap", "{\"a\":" E("U8", "[4]", "0", "4") ",\"b\":" E("U8", "[4]", "2", "6") "}", 0, 6, REAL_LEN, "ST-019", "ST-019"},
    {"alias", "{\"a\":" E("U8", "[4]", "0", "4") ",\"b\":" E("U8", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-019", "ST-019"},
    {"zero-size pair", "{\"a\":" E("U8", "[0]", "0", "0") ",\"b\":" E("U8", "[0]", "0", "0") "}", 0, 0, REAL_LEN, NULL, NULL},
    {"truncated", "{" T4 "}", 0, 3, REAL_LEN, "ST-020", "ST-020"},
    {"2^53+1 exact past eof", "{\"t\":" E("U8", "[9007199254740993]", "0", "9007199254740993") "}", 0, 0, REAL_LEN, "ST-020", "ST-020"},
    {"trailing bytes", "{" T4 "}", 0, 5, REAL_LEN, "ST-021", "ST-021"},
    {"dup U8 then I8", "{" T4 ",\"t\":" E("I8", "[4]", "0", "4") "}", 0, 4, REAL_LEN, "ST-022", NULL},
    {"dup other offsets", "{\"t\":" E("U8", "[4]", "0", "4") ",\"t\":" E("U8", "[4]", "4", "8") "}", 0, 8, REAL_LEN, "ST-022", "ST-019"},
    {"nul name is not a dup", "{\"a\\u0000b\":" E("U8", "[2]", "0", "2") ",\"a\":" E("U8", "[2]", "2", "4") "}", 0, 4, REAL_LEN, NULL, NULL},
    {"metadata dup key", "{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}," T4 "}", 0, 4, REAL_LEN, "ST-023", NULL},
    {"metadata nul keys differ", "{\"__metadata__\":{\"a\":\"1\",\"a\\u0000\":\"2\"}," T4 "}", 0, 4, REAL_LEN, NULL, NULL},
    {"empty name warns", "{\"\":" E("U8", "[4]", "0", "4") "}", 0, 4, REAL_LEN, NULL, NULL},
    {"rank 9", "{\"t\":" E("U8", "[1,1,1,1,1,1,1,1,1]", "0", "1") "}", 0, 1, REAL_LEN, "ST-027", "ST-027"},
    {"rank 8", "{\"t\":" E("U8", "[1,1,1,1,1,1,1,1]", "0", "1") "}", 0, 1, REAL_LEN, NULL, NULL},
};

static void test_rule_table(void)
{
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        const st_case *c = &k_cases[i];
        size_t hl = c->hl ? c->hl : strlen(c->hdr), n;
        uint8_t *b = st_bytes(c->hdr, hl, c->data, c->lenfield, &n);
        if (!strcmp(c->what, "3 bytes")) n = 3;
        for (int prof = 0; prof < 2; prof++) {
            read_result r;
            read_bytes(b, n, (pc_profile)prof, &r);
            const char *want = prof ? c->compat : c->strict, *got = first_fail(&r.cx);
            CHECK(!r.cx.oom && !r.cx.io_error, "%s: oom/io", c->what);
            if (want) CHECK(rule_failed(&r.cx, want), "%s (%s): want %s, first failure %s", c->what, prof ? "compat" : "strict", want, got ? got : "none");
            else CHECK(!got, "%s (%s): want pass, got %s", c->what, prof ? "compat" : "strict", got);
            /* Every finding names a byte offset inside the file, or -1. */
            for (size_t k = 0; k < r.cx.nfindings; k++)
                CHECK(r.cx.findings[k].offset >= -1 && r.cx.findings[k].offset <= (int64_t)n, "%s: finding offset %" PRId64, c->what, r.cx.findings[k].offset);
            read_free(&r);
        }
        free(b);
    }

    /* SHOULD rules warn, and the file still passes. */
    const char *h = "{\"\":" E("U8", "[2]", "0", "2") ",\"x\\u0000y\":" E("U8", "[2]", "2", "4") "}";
    size_t n;
    uint8_t *b = st_bytes(h, strlen(h), 4, REAL_LEN, &n);
    read_result r;
    read_bytes(b, n, PC_PROFILE_STRICT, &r);
    CHECK(!first_fail(&r.cx) && rule_warned(&r.cx, "ST-025") && rule_warned(&r.cx, "ST-026"), "SHOULD warnings");
    CHECK(r.nt == 2, "both tensors kept (%zu)", r.nt);
    bool escaped = false;
    for (size_t i = 0; i < r.nt; i++) escaped |= !strcmp(r.t[i].name, "x\\u0000y");
    CHECK(escaped, "a name holding U+0000 is shown escaped");
    read_free(&r);
    free(b);

    /* Compat duplicates: the last definition wins (the crate's behaviour), with a warning. */
    h = "{" T4 ",\"t\":" E("I8", "[4]", "0", "4") "}";
    b = st_bytes(h, strlen(h), 4, REAL_LEN, &n);
    read_bytes(b, n, PC_PROFILE_COMPAT, &r);
    CHECK(!first_fail(&r.cx) && rule_warned(&r.cx, "ST-022") && r.nt == 1 && r.t[0].dtype == PC_DT_I8, "compat last wins");
    read_free(&r);
    free(b);
}

/* Findings locate the bytes: the byte offset of a bad shape entry is exactly where it is. */
static void test_offsets_in_findings(void)
{
    const char *h = "{\"t\":{\"dtype\":\"U8\",\"shape\":[4,-1],\"data_offsets\":[0,4]}}";
    size_t n;
    uint8_t *b = st_bytes(h, strlen(h), 4, REAL_LEN, &n);
    read_result r;
    read_bytes(b, n, PC_PROFILE_STRICT, &r);
    int64_t want = 8 + (int64_t)(strstr(h, "-1") - h);
    bool found = false;
    for (size_t i = 0; i < r.cx.nfindings; i++)
        if (!strcmp(r.cx.findings[i].rule->id, "ST-013"))
            found = r.cx.findings[i].offset == want && !strcmp(r.cx.findings[i].tensor, "t");
    CHECK(found, "ST-013 names tensor t at byte %" PRId64, want);
    read_free(&r);
    free(b);

    h = "{\"a\":" E("U8", "[2]", "0", "2") ",\"b\":" E("U8", "[2]", "4", "6") "}";
    b = st_bytes(h, strlen(h), 6, REAL_LEN, &n);
    read_bytes(b, n, PC_PROFILE_STRICT, &r);
    found = false;
    for (size_t i = 0; i < r.cx.nfindings; i++)
        if (!strcmp(r.cx.findings[i].rule->id, "ST-019"))
            found = r.cx.findings[i].offset == (int64_t)(8 + strlen(h) + 2) && !strcmp(r.cx.findings[i].tensor, "b");
    CHECK(found, "ST-019 hole at the absolute offset of buffer byte 2");
    read_free(&r);
    free(b);
}

/* ================================================================================================
 * Round trip and properties
 * ============================================================================================== */

static pc_dtype random_dtype(void) { return (pc_dtype)rnd_below(PC_DT_COUNT); }

/* A random shape whose bit count is whole bytes (and, for sub-byte dtypes, whose rows are). */
static int random_shape(pc_dtype dt, uint64_t *shape, uint64_t *nbytes)
{
    int nd = (int)rnd_below(5);
    unsigned bits = pc_dtype_bits(dt);
    uint64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        shape[d] = rnd_below(6);
        if (rnd_below(10) == 0) shape[d] = 0;
        numel *= shape[d];
    }
    if (bits < 8) {
        /* make the last dimension (or a 1-d shape) a multiple of 4 elements: 16 or 24 bits */
        if (nd == 0) { nd = 1; shape[0] = 4; numel = 4; }
        else { numel = numel / (shape[nd - 1] ? shape[nd - 1] : 1) * (shape[nd - 1] & ~3ull); shape[nd - 1] &= ~3ull; }
        numel = 1;
        for (int d = 0; d < nd; d++) numel *= shape[d];
    }
    *nbytes = numel * bits / 8;
    return nd;
}

static void test_round_trip(void)
{
    for (int iter = 0; iter < 60; iter++) {
        size_t n = 1 + rnd_below(12);
        st_out_tensor *t = calloc(n, sizeof *t);
        char names[12][32];
        uint8_t *data[12];
        for (size_t i = 0; i < n; i++) {
            snprintf(names[i], sizeof names[i], "m.%zu.w%llu", i, (unsigned long long)rnd_below(1000));
            t[i].name = names[i];
            t[i].dtype = random_dtype();
            t[i].ndim = random_shape(t[i].dtype, t[i].shape, &t[i].nbytes);
            data[i] = malloc(t[i].nbytes + 1);
            for (uint64_t k = 0; k < t[i].nbytes; k++) data[i][k] = (uint8_t)rnd();
            t[i].data = data[i];
        }
        char *p = pc_path_join(g_dir, "rt.safetensors");
        CHECK(st_write_file(p, t, n) == 0, "write");
        pc_file f;
        pc_ctx cx;
        pc_ctx_init(&cx, PC_PROFILE_STRICT);
        pc_tensor *rt = NULL;
        size_t nt = 0, cap = 0;
        CHECK(pc_file_open(&f, p) == 0, "open");
        st_read_header(&f, &cx, &rt, &nt, &cap);
        CHECK(cx.nfindings == 0, "round trip %d: %zu findings, first %s: %s", iter, cx.nfindings,
              cx.nfindings ? cx.findings[0].rule->id : "", cx.nfindings ? cx.findings[0].message : "");
        CHECK(nt == n, "round trip %d: %zu tensors back, %zu written", iter, nt, n);
        uint8_t len8[8];
        CHECK(pc_file_read(&f, 0, len8, 8) == 0 && pc_le64(len8) % 8 == 0, "canonical form: header padded to 8");
        for (size_t i = 0; i < n && nt == n; i++) {
            const pc_tensor *r = NULL;
            for (size_t k = 0; k < nt; k++)
                if (!strcmp(rt[k].name, t[i].name)) r = &rt[k];
            CHECK(r && r->dtype == t[i].dtype && r->ndim == t[i].ndim && r->nbytes == t[i].nbytes, "tensor %s", t[i].name);
            if (!r) continue;
            CHECK(!memcmp(r->shape, t[i].shape, sizeof(uint64_t) * (size_t)t[i].ndim), "shape of %s", t[i].name);
            uint8_t *back = malloc(r->nbytes + 1);
            CHECK(pc_tensor_read(r, 0, back, (size_t)r->nbytes) == 0 && !memcmp(back, t[i].data, (size_t)r->nbytes), "data of %s", t[i].name);
            CHECK(pc_tensor_read(r, 0, back, (size_t)r->nbytes + 1) == -1, "read past a tensor is refused");
            free(back);
        }
        for (size_t i = 0; i < nt; i++) free(rt[i].name);
        free(rt);
        pc_file_close(&f);
        pc_ctx_free(&cx);
        for (size_t i = 0; i < n; i++) free(data[i]);
        free(t);
        free(p);
    }
    /* Exact numbers and escaped names survive the trip: shape entries far past 2^53 (zero-size), and
     * names holding quotes, backslashes, control characters and non-ASCII text. */
    static const char *const odd[] = {"q\"uote", "back\\slash", "ctl\x01\x1f", "caf\xc3\xa9 \xe4\xb8\xad", "sl/ash.0"};
    st_out_tensor ot[6] = {
        {odd[0], PC_DT_U8, 1, {3}, "abc", 3},
        {odd[1], PC_DT_F32, 2, {0, UINT64_MAX}, NULL, 0},
        {odd[2], PC_DT_I64, 2, {0, (1ull << 60) + 1}, NULL, 0},
        {odd[3], PC_DT_BF16, 0, {0}, "\x01\x02", 2},
        {odd[4], PC_DT_F4, 1, {4}, "\x12\x34", 2},
        {"w", PC_DT_U16, 1, {9007199254740993ull}, NULL, 0},
    };
    ot[5].shape[0] = 0; /* keep the file small: 2^53+1 goes into shape[1] instead */
    ot[5].ndim = 2;
    ot[5].shape[1] = 9007199254740993ull;
    char *p = pc_path_join(g_dir, "odd.safetensors");
    CHECK(st_write_file(p, ot, 6) == 0, "write odd");
    read_result r;
    size_t len;
    char *bytes = pc_slurp(p, 1 << 20, &len);
    read_bytes((const uint8_t *)bytes, len, PC_PROFILE_STRICT, &r);
    CHECK(!r.cx.nfindings && r.nt == 6, "odd file reads back clean (%zu findings, %zu tensors)", r.cx.nfindings, r.nt);
    for (size_t i = 0; i < 6 && r.nt == 6; i++) {
        const pc_tensor *back = NULL;
        for (size_t k = 0; k < r.nt; k++)
            if (!strcmp(r.t[k].name, ot[i].name)) back = &r.t[k];
        CHECK(back && back->ndim == ot[i].ndim && !memcmp(back->shape, ot[i].shape, sizeof(uint64_t) * (size_t)ot[i].ndim),
              "odd tensor %zu back exactly", i);
    }
    read_free(&r);
    free(bytes);
    free(p);

    /* A failed write leaves nothing behind. */
    st_out_tensor one = {"x", PC_DT_U8, 1, {1}, "a", 1};
    CHECK(st_write_file("/nonexistent-dir/x.safetensors", &one, 1) == -1, "write into a missing folder fails");
}

/* Build a random valid header by hand: shuffled key order, metadata, zero-size tensors, spaces. */
static size_t random_valid_file(uint8_t **out)
{
    char *h = malloc(1 << 16);
    size_t hl = 0, nt = rnd_below(9);
    uint64_t order[9], sizes[9], at = 0, begin[9];
    for (size_t i = 0; i < nt; i++) order[i] = i;
    for (size_t i = nt; i > 1; i--) { size_t j = rnd_below(i); uint64_t x = order[i - 1]; order[i - 1] = order[j]; order[j] = x; }
    hl += (size_t)sprintf(h + hl, "{");
    bool meta = rnd_below(2);
    if (meta) hl += (size_t)sprintf(h + hl, "\"__metadata__\":{\"k\":\"v\",\"e\":\"\\u00e9\"}");
    pc_dtype dts[9];
    uint64_t shapes[9][PC_MAX_DIMS];
    int nds[9];
    for (size_t i = 0; i < nt; i++) {
        dts[i] = random_dtype();
        nds[i] = random_shape(dts[i], shapes[i], &sizes[i]);
        begin[i] = at;
        at += sizes[i];
    }
    for (size_t k = 0; k < nt; k++) {
        size_t i = order[k];
        hl += (size_t)sprintf(h + hl, "%s\"w%zu\": {\"shape\":[", k || meta ? ", " : "", i);
        for (int d = 0; d < nds[i]; d++) hl += (size_t)sprintf(h + hl, "%s%llu", d ? "," : "", (unsigned long long)shapes[i][d]);
        hl += (size_t)sprintf(h + hl, "],\"data_offsets\":[%llu,%llu],\"dtype\":\"%s\"}", (unsigned long long)begin[i],
                              (unsigned long long)(begin[i] + sizes[i]), pc_dtype_name(dts[i]));
    }
    hl += (size_t)sprintf(h + hl, "}");
    size_t pad = rnd_below(9);
    for (size_t i = 0; i < pad; i++) h[hl++] = ' ';
    size_t n;
    *out = st_bytes(h, hl, at, REAL_LEN, &n);
    for (uint64_t i = 0; i < at; i++) (*out)[8 + hl + i] = (uint8_t)rnd();
    free(h);
    return n;
}

/* An accepted file's tensors are inside it, tile its buffer, and have consistent sizes. */
static bool accepted_is_sound(const read_result *r, uint64_t fsize)
{
    uint64_t total = 0;
    for (size_t i = 0; i < r->nt; i++) {
        const pc_tensor *t = &r->t[i];
        if (t->offset > fsize || t->nbytes > fsize - t->offset) return false;
        uint64_t numel = 1;
        for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
        if (numel != t->numel || numel * pc_dtype_bits(t->dtype) / 8 != t->nbytes) return false;
        total += t->nbytes;
    }
    return total <= fsize;
}

static void test_properties(void)
{
    int mutated_rejects = 0, mutations = 0;
    for (int iter = 0; iter < 300; iter++) {
        uint8_t *b;
        size_t n = random_valid_file(&b);
        read_result r;
        for (int prof = 0; prof < 2; prof++) {
            read_bytes(b, n, (pc_profile)prof, &r);
            CHECK(!first_fail(&r.cx) && !r.cx.nfindings, "random valid file %d rejected (%s): %s", iter,
                  first_fail(&r.cx) ? first_fail(&r.cx) : "warn", r.cx.nfindings ? r.cx.findings[0].message : "");
            CHECK(accepted_is_sound(&r, n), "random valid file %d: tensors unsound", iter);
            read_free(&r);
        }
        /* single-byte mutations */
        for (int m = 0; m < 12; m++) {
            uint8_t *c = malloc(n);
            memcpy(c, b, n);
            size_t pos = rnd_below(n);
            static const uint8_t interesting[] = {0, ' ', '"', '\\', '{', '}', '[', ']', ',', ':', '-', '0', '9', 0x80, 0xff, '\t'};
            c[pos] = rnd_below(2) ? (uint8_t)rnd() : interesting[rnd_below(sizeof interesting)];
            read_bytes(c, n, (pc_profile)rnd_below(2), &r);
            mutations++;
            mutated_rejects += first_fail(&r.cx) != NULL;
            CHECK(!r.cx.io_error && !r.cx.oom, "mutation: verdict, not an error");
            if (!first_fail(&r.cx)) CHECK(accepted_is_sound(&r, n), "accepted mutation is unsound");
            else CHECK(r.nt == 0, "a rejected file hands out no tensors");
            read_free(&r);
            free(c);
        }
        /* truncations */
        for (int m = 0; m < 4; m++) {
            size_t len = rnd_below(n);
            read_bytes(b, len, (pc_profile)rnd_below(2), &r);
            CHECK(!r.cx.io_error && !r.cx.oom, "truncation: verdict, not an error");
            CHECK(first_fail(&r.cx) || accepted_is_sound(&r, len), "accepted truncation is unsound");
            read_free(&r);
        }
        free(b);
    }
    CHECK(mutated_rejects > mutations / 4, "mutations are mostly caught (%d of %d)", mutated_rejects, mutations);
}

/* ================================================================================================
 * Sharded folders: index rules through pc_input_open
 * ============================================================================================== */

static void put_file(const char *dir, const char *name, const void *b, size_t n)
{
    char *p = pc_path_join(dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f)) { perror(p); exit(2); }
    free(p);
}

static const char *folder_first_fail(const char *dir)
{
    static char id[16];
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    const char *f = first_fail(&cx);
    snprintf(id, sizeof id, "%s", cx.io_error ? "io" : f ? f : "pass");
    pc_input_free(in);
    pc_ctx_free(&cx);
    return id;
}

static void test_shards(void)
{
    char *dir = pc_path_join(g_dir, "shards");
    if (mkdir(dir, 0700) && !pc_is_dir(dir)) { perror(dir); exit(2); }
    const char *h1 = "{\"a\":" E("U8", "[2]", "0", "2") "}", *h2 = "{\"b\":" E("U8", "[2]", "0", "2") ",\"c\":" E("U8", "[2]", "2", "4") "}";
    size_t n1, n2;
    uint8_t *b1 = st_bytes(h1, strlen(h1), 2, REAL_LEN, &n1), *b2 = st_bytes(h2, strlen(h2), 4, REAL_LEN, &n2);
    put_file(dir, "s1.safetensors", b1, n1);
    put_file(dir, "s2.safetensors", b2, n2);
    struct { const char *index, *want; } c[] = {
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\"}}", "pass"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\"", "ST-030"},
        {"[]", "ST-030"},
        /* a tensor mapped twice: CFG-032 (the key path and both offsets) first, then ST-030 */
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"a\":\"s2.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\"}}", "CFG-032"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\"}} x", "ST-030"},
        {"\xef\xbb\xbf{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\"}}", "ST-030"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":[\"s2.safetensors\"]}}", "ST-030"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s3.safetensors\"}}", "ST-031"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"../shards/s2.safetensors\"}}", "ST-031"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"/etc/passwd\"}}", "ST-031"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"\"}}", "ST-031"},
        {"{\"weight_map\":{\"a\":\"s2.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\"}}", "ST-032"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\",\"c\":\"s2.safetensors\",\"d\":\"s2.safetensors\"}}", "ST-032"},
        {"{\"weight_map\":{\"a\":\"s1.safetensors\",\"b\":\"s2.safetensors\"}}", "ST-033"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        put_file(dir, "model.safetensors.index.json", c[i].index, strlen(c[i].index));
        const char *got = folder_first_fail(dir);
        CHECK(!strcmp(got, c[i].want), "index %zu: want %s, got %s", i, c[i].want, got);
    }
    char *ip = pc_path_join(dir, "model.safetensors.index.json");
    unlink(ip);
    free(ip);
    CHECK(!strcmp(folder_first_fail(dir), "pass"), "two shards without an index");
    /* The sidecar loader: one JSON object, nothing after it (CFG-001). */
    put_file(dir, "config.json", "{} {}", 5);
    CHECK(!strcmp(folder_first_fail(dir), "CFG-001"), "config.json with two objects");
    put_file(dir, "config.json", "{\"a\": [1, 2]}\n", 14);
    CHECK(!strcmp(folder_first_fail(dir), "pass"), "config.json with a final newline");
    put_file(dir, "s3.safetensors", b1, n1);
    CHECK(!strcmp(folder_first_fail(dir), "ST-034"), "a tensor in two shards");
    free(b1);
    free(b2);
    free(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/pc-test-st-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) { perror("mkdtemp"); return 2; }
    test_json_lex();
    test_json_value_check();
    test_rule_table();
    test_offsets_in_findings();
    test_round_trip();
    test_properties();
    test_shards();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd)) printf("could not remove %s\n", g_dir);
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
