/* Invalid UTF-8 in names, config keys and index entries (issue 12 item 3): every report format is
 * valid UTF-8, the JSON parses, the JUnit XML is well-formed, and each says it escaped bytes. */
#include "core/util.h"
#include "packcheck_internal.h"
#include "report/report.h"
#include "report/text_escape.h"
#include "testlib.h"
#include "xmlcheck.h"

#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f)) { perror(path); exit(2); }
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *t = pc_slurp(from, 1u << 24, &n);
    if (!t) { perror(from); exit(2); }
    write_file(to, t, n);
    free(t);
}

static void test_sequences(void)
{
    static const struct { const char *s; size_t len; } seqs[] = {
        {"a", 1}, {"\xc3\xa9", 2}, {"\xe2\x82\xac", 3}, {"\xf0\x9f\x98\x80", 4}, {"\xc0\x80", 0}, /* overlong NUL */
        {"\xc1\xbf", 0}, {"\xe0\x80\x80", 0}, {"\xed\xa0\x80", 0} /* surrogate */, {"\xf4\x90\x80\x80", 0} /* > U+10FFFF */,
        {"\xf5\x80\x80\x80", 0}, {"\x80", 0}, {"\xe2\x82", 0} /* cut */, {"\xff", 0}};
    for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++)
        CHECK(pc_utf8_seq_len((const unsigned char *)seqs[i].s, strlen(seqs[i].s)) == seqs[i].len, "sequence %zu", i);
    char *e = pc_text_escape("ok\xff\xc3\xa9\xe2\x82");
    CHECK(e && !strcmp(e, "ok\\xff\xc3\xa9\\xe2\\x82"), "escape: %s", e ? e : "(null)");
    free(e);
}

/* The checker must be able to fail, or its passes mean nothing. */
static void test_xml_checker(void)
{
    static const char *const good[] = {"<?xml version=\"1.0\"?>\n<a x=\"1\" y='&amp;'><b/>t&#x41;<!-- c --></a>\n", "<a></a>"};
    static const char *const bad[] = {"<a>", "<a></b>", "<a x=1/>", "<a>&nbsp;</a>", "<a>\x01</a>", "<a>\xff</a>",
                                      "<a/><b/>", "<a>\xef\xbf\xbf</a>", "<a x=\"<\"/>", "text"};
    for (size_t i = 0; i < 2; i++) CHECK(!xml_wellformed(good[i], strlen(good[i])), "good xml %zu: %s", i, xml_wellformed(good[i], strlen(good[i])));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(xml_wellformed(bad[i], strlen(bad[i])), "bad xml %zu passed", i);
}

static char *render(const cJSON *doc, const char *fmt, const char *dir)
{
    char *p = pc_asprintf("%s/report.%s", dir, fmt);
    CHECK(pc_report_write(doc, fmt, p) == 0, "write %s", fmt);
    size_t n;
    char *t = pc_slurp(p, 1u << 26, &n);
    CHECK(t && pc_text_is_utf8(t), "%s report is not UTF-8", fmt);
    unlink(p);
    free(p);
    return t;
}

static void check_doc(const cJSON *doc, const char *dir, const char *want_in_json)
{
    char *json = render(doc, "json", dir);
    cJSON *back = json ? cJSON_Parse(json) : NULL;
    CHECK(back != NULL, "the JSON report does not parse");
    CHECK(json && strstr(json, want_in_json), "JSON lacks %s", want_in_json);
    CHECK(json && strstr(json, "\"escaped_strings\""), "JSON does not say it escaped");
    CHECK(json && strstr(json, "[invalid UTF-8 shown as \\\\xNN]"), "JSON message lacks the note");
    cJSON_Delete(back);
    free(json);
    char *xml = render(doc, "junit", dir);
    const char *why = xml ? xml_wellformed(xml, strlen(xml)) : "missing";
    CHECK(!why, "JUnit XML is not well-formed: %s", why);
    CHECK(xml && strstr(xml, "invalid UTF-8 shown as"), "JUnit lacks the note");
    free(xml);
    const char *fmts[] = {"md", "html"};
    for (int k = 0; k < 2; k++) {
        char *t = render(doc, fmts[k], dir);
        CHECK(t && strstr(t, "invalid UTF-8 shown as"), "%s lacks the note", fmts[k]);
        free(t);
    }
    char *sp = pc_asprintf("%s/summary.txt", dir);
    FILE *f = fopen(sp, "w");
    pc_report_summary(f, doc, PC_SUMMARY_VERBOSE);
    fclose(f);
    size_t n;
    char *s = pc_slurp(sp, 1u << 26, &n);
    CHECK(s && pc_text_is_utf8(s) && strstr(s, "note: ") && strstr(s, "shown as \\xNN"), "summary: %s", s ? s : "(null)");
    free(s);
    unlink(sp);
    free(sp);
}

/* A real folder: an index entry and config keys that are not UTF-8. */
static void test_checkpoint(const char *dir)
{
    char *ck = pc_path_join(dir, "ck");
    mkdir(ck, 0755);
    char *p = pc_path_join(ck, "small-ct.safetensors");
    copy_file(PC_SOURCE_DIR "/fixtures/st/small-ct/small-ct.safetensors", p);
    free(p);
    static const char index[] = "{\"weight_map\": {\"ct.weight_packed\": \"small-ct.safetensors\", \"bad\xff\xfename\": \"small-ct.safetensors\"}}";
    p = pc_path_join(ck, "model.safetensors.index.json");
    write_file(p, index, sizeof index - 1);
    free(p);
    static const char config[] = "{\"k\xc0\": 1, \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"dynamic\": {\"-:b\xed\xa0\x80\": {}}}}";
    p = pc_path_join(ck, "config.json");
    write_file(p, config, sizeof config - 1);
    free(p);
    pc_ctx cx;
    CHECK(pc_ctx_init(&cx, PC_PROFILE_STRICT) == 0, "ctx");
    pc_input *in = pc_input_open(ck, NULL, &cx);
    pc_validate(in, &cx);
    pc_result r = {ck, in, &cx, -1};
    cJSON *doc = pc_report_json(&r, 1, PC_PROFILE_STRICT);
    check_doc(doc, dir, "bad\\\\xff\\\\xfename");
    cJSON_Delete(doc);
    pc_input_free(in);
    pc_ctx_free(&cx);
    char *cmd = pc_asprintf("rm -rf '%s'", ck);
    CHECK(system(cmd) == 0, "cleanup");
    free(cmd);
    free(ck);
}

/* Findings made directly: a name with U+FFFF and a message cut inside a sequence by the 1 KiB cap. */
static void test_findings(const char *dir)
{
    pc_ctx cx;
    CHECK(pc_ctx_init(&cx, PC_PROFILE_STRICT) == 0, "ctx");
    char longmsg[1100];
    memset(longmsg, 'a', sizeof longmsg);
    for (size_t i = 1000; i + 3 < sizeof longmsg; i += 3) memcpy(longmsg + i, "\xe2\x82\xac", 3);
    longmsg[sizeof longmsg - 1] = 0;
    pc_report(&cx, "ST-032", "x\xef\xbf\xbfy\x80", 5, "%s", longmsg);
    pc_result r = {"path\xfe", NULL, &cx, -1};
    cJSON *doc = pc_report_json(&r, 1, PC_PROFILE_STRICT);
    check_doc(doc, dir, "path\\\\xfe");
    cJSON_Delete(doc);
    pc_ctx_free(&cx);
}

int main(void)
{
    char dir[256];
    test_tmpdir(dir, sizeof dir, "text-escape");
    test_sequences();
    test_xml_checker();
    test_checkpoint(dir);
    test_findings(dir);
    rmdir(dir);
    return test_finish();
}
