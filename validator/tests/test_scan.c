/* The streaming pass (core/scan.h): every scan sees exactly its bytes, in order, in whole units
 * with at most one final short piece, across window boundaries; early stop works; per-file SHA-256
 * matches a plain whole-file hash; one and several worker threads agree. */
#include "container/safetensors.h"
#include "core/scan.h"
#include "core/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_pass, g_fail;
#define CHECK(c, ...) do { if (c) g_pass++; else { g_fail++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

typedef struct probe {
    const uint8_t *want;     /* the tensor's bytes */
    uint64_t begin, end;
    size_t unit;
    uint64_t next;           /* next offset expected */
    uint64_t stop_after;     /* stop once this many bytes arrived (0: never) */
    int calls, bad, finished, complete;
} probe;

static int probe_chunk(void *arg, uint64_t off, const uint8_t *p, size_t n)
{
    probe *pr = arg;
    pr->calls++;
    if (pr->stop_after && pr->next - pr->begin >= pr->stop_after) pr->bad |= 16; /* called after stopping */
    if (off != pr->next) pr->bad |= 1;
    if ((off - pr->begin) % pr->unit) pr->bad |= 2;
    if (n % pr->unit && off + n != pr->end) pr->bad |= 4; /* only the last piece may be short */
    if (off + n > pr->end || memcmp(p, pr->want + off, n)) pr->bad |= 8;
    pr->next = off + n;
    return pr->stop_after && pr->next - pr->begin >= pr->stop_after;
}

static void probe_finish(void *arg, bool complete, pc_input *in, pc_ctx *cx)
{
    (void)in; (void)cx;
    probe *pr = arg;
    pr->finished++;
    pr->complete = complete;
}

static uint8_t *g_data[3];
static const uint64_t k_sizes[3] = {(9u << 20) + 12345, 1000, (3u << 20) + 7}; /* > one window, small, odd */

static int run_case(const char *path, bool hash, const char *threads)
{
    setenv("PACKCHECK_THREADS", threads, 1);
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(path, NULL, &cx);
    if (!in || cx.io_error) { fprintf(stderr, "cannot open %s\n", path); return -1; }
    in->hash_files = hash;
    static const size_t k_units[] = {1, 3, 7, 4096, 65537, 1u << 20};
    enum { NP = 3 * 6 + 2 };
    probe pr[NP];
    int np = 0;
    for (int t = 0; t < 3; t++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", t);
        const pc_tensor *tt = pc_input_find(in, name);
        if (!tt) { fprintf(stderr, "no tensor %s\n", name); return -1; }
        for (size_t u = 0; u < 6; u++) {
            uint64_t b = t == 0 ? 5 : 0, e = tt->nbytes - (t == 2 ? 3 : 0);
            pr[np] = (probe){g_data[t], b, e, k_units[u], b, 0, 0, 0, 0, 0};
            pc_scan_add(in, tt, b, e, k_units[u], probe_chunk, probe_finish, NULL, &pr[np]);
            np++;
        }
        if (t == 0) { /* early stop, and an empty range */
            pr[np] = (probe){g_data[0], 0, tt->nbytes, 1000, 0, 5000, 0, 0, 0, 0};
            pc_scan_add(in, tt, 0, tt->nbytes, 1000, probe_chunk, probe_finish, NULL, &pr[np]);
            np++;
            pr[np] = (probe){g_data[0], 77, 77, 8, 77, 0, 0, 0, 0, 0};
            pc_scan_add(in, tt, 77, 77, 8, probe_chunk, probe_finish, NULL, &pr[np]);
            np++;
        }
    }
    pc_scan_run(in, &cx);
    for (int i = 0; i < np; i++) {
        CHECK(pr[i].finished == 1 && pr[i].complete, "scan %d (unit %zu, %s, threads %s) finished %d complete %d", i, pr[i].unit, hash ? "hash" : "no hash", threads, pr[i].finished, pr[i].complete);
        CHECK(!pr[i].bad, "scan %d (unit %zu) bad pieces: %d", i, pr[i].unit, pr[i].bad);
        if (pr[i].stop_after) CHECK(pr[i].next < pr[i].end, "early stop: saw up to %llu", (unsigned long long)pr[i].next);
        else CHECK(pr[i].next == pr[i].end, "scan %d saw up to %llu of %llu", i, (unsigned long long)pr[i].next, (unsigned long long)pr[i].end);
    }
    if (hash) {
        char want[65];
        pc_sha256_file_hex(path, want);
        CHECK(!strcmp(in->files[0].sha256, want), "sha256 %s != %s", in->files[0].sha256, want);
    } else {
        CHECK(in->files[0].sha256[0] == 0, "no hash without --hash");
    }
    CHECK(!cx.io_error && !cx.oom, "pass reported an error");
    pc_input_free(in);
    pc_ctx_free(&cx);
    return 0;
}

/* A hashed file whose scans cover under a quarter of it is read and hashed in L2-sized slices
 * (PC_SCAN_HASH_SLICE): units larger than a slice, and ranges that start and end mid-slice, still
 * arrive whole and in order, and the digest matches. */
static int run_light(const char *path, const char *threads)
{
    setenv("PACKCHECK_THREADS", threads, 1);
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(path, NULL, &cx);
    if (!in || cx.io_error) { fprintf(stderr, "cannot open %s\n", path); return -1; }
    in->hash_files = true;
    const pc_tensor *t0 = pc_input_find(in, "t0"), *t1 = pc_input_find(in, "t1");
    if (!t0 || !t1) return -1;
    probe pr[3] = {
        {g_data[0], 5, (1u << 20) + 5, 65537, 5, 0, 0, 0, 0, 0},
        {g_data[0], 100, (2u << 20) + 100, 1u << 20, 100, 0, 0, 0, 0, 0},
        {g_data[1], 1, 999, 3, 1, 0, 0, 0, 0, 0},
    };
    pc_scan_add(in, t0, pr[0].begin, pr[0].end, pr[0].unit, probe_chunk, probe_finish, NULL, &pr[0]);
    pc_scan_add(in, t0, pr[1].begin, pr[1].end, pr[1].unit, probe_chunk, probe_finish, NULL, &pr[1]);
    pc_scan_add(in, t1, pr[2].begin, pr[2].end, pr[2].unit, probe_chunk, probe_finish, NULL, &pr[2]);
    pc_scan_run(in, &cx);
    for (int i = 0; i < 3; i++) {
        CHECK(pr[i].finished == 1 && pr[i].complete && !pr[i].bad && pr[i].next == pr[i].end,
              "light scan %d (unit %zu, threads %s): finished %d complete %d bad %d next %llu", i, pr[i].unit, threads,
              pr[i].finished, pr[i].complete, pr[i].bad, (unsigned long long)pr[i].next);
        CHECK(pr[i].calls >= 1, "light scan %d never called", i);
    }
    char want[65];
    pc_sha256_file_hex(path, want);
    CHECK(!strcmp(in->files[0].sha256, want), "sliced sha256 %s != %s", in->files[0].sha256, want);
    CHECK(!cx.io_error && !cx.oom, "pass reported an error");
    pc_input_free(in);
    pc_ctx_free(&cx);
    return 0;
}

/* The ready-made element checks: a non-finite F16, a non-positive BF16, an out-of-range I32. */
static void check_elem_scans(const char *dir)
{
    char file[600];
    snprintf(file, sizeof file, "%s-elem.safetensors", dir);
    uint16_t f16[40], bf16[40];
    int32_t i32[50];
    for (int i = 0; i < 40; i++) { f16[i] = 0x3C00; bf16[i] = 0x3F80; }
    f16[17] = 0x7C00; f16[30] = 0xFE00; /* +inf, NaN */
    bf16[3] = 0x8000;                   /* -0: finite, not positive */
    for (int i = 0; i < 50; i++) i32[i] = i % 7;
    i32[44] = 7; i32[45] = -1;
    st_out_tensor t[3] = {{"a.f16", PC_DT_F16, 1, {40}, f16, sizeof f16}, {"b.bf16", PC_DT_BF16, 1, {40}, bf16, sizeof bf16},
                          {"c.i32", PC_DT_I32, 1, {50}, i32, sizeof i32}};
    if (st_write_file(file, t, 3)) { g_fail++; return; }
    pc_ctx cx;
    pc_ctx_init(&cx, PC_PROFILE_STRICT);
    pc_input *in = pc_input_open(file, NULL, &cx);
    const pc_tensor *a = pc_input_find(in, "a.f16"), *b = pc_input_find(in, "b.bf16"), *c = pc_input_find(in, "c.i32");
    pc_scan_floats_finite(in, &cx, a, "ST-001", false);
    pc_scan_floats_finite(in, &cx, b, "ST-001", false); /* -0 is finite: no finding */
    pc_scan_floats_finite(in, &cx, b, "ST-002", true);
    pc_scan_ints_in_range(in, &cx, c, "ST-003", 0, 6);
    pc_scan_run(in, &cx);
    int seen = 0;
    for (size_t i = 0; i < cx.nfindings; i++) {
        const pc_finding *f = &cx.findings[i];
        if (!strcmp(f->tensor, "a.f16")) { seen |= 1; CHECK(f->offset == (int64_t)(a->offset + 34) && strstr(f->message, "2 element"), "f16 finding: %s @%lld", f->message, (long long)f->offset); }
        if (!strcmp(f->tensor, "b.bf16")) { seen |= 2; CHECK(!strcmp(f->rule->id, "ST-002") && f->offset == (int64_t)(b->offset + 6), "bf16 finding: %s %s", f->rule->id, f->message); }
        if (!strcmp(f->tensor, "c.i32")) { seen |= 4; CHECK(f->offset == (int64_t)(c->offset + 176) && strstr(f->message, "2 element"), "i32 finding: %s", f->message); }
    }
    CHECK(seen == 7 && cx.nfindings == 3, "element scans: %zu findings, seen %d", cx.nfindings, seen);
    pc_input_free(in);
    pc_ctx_free(&cx);
    unlink(file);
}

int main(void)
{
    char path[] = "/tmp/pc-test-scan-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 2;
    close(fd);
    char file[600];
    snprintf(file, sizeof file, "%s.safetensors", path);
    st_out_tensor t[3];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 3; i++) {
        g_data[i] = malloc(k_sizes[i]);
        for (uint64_t k = 0; k < k_sizes[i]; k++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; g_data[i][k] = (uint8_t)x; }
        static const char *const names[] = {"t0", "t1", "t2"};
        t[i] = (st_out_tensor){names[i], PC_DT_U8, 1, {k_sizes[i]}, g_data[i], k_sizes[i]};
    }
    if (st_write_file(file, t, 3)) { fprintf(stderr, "cannot write %s\n", file); return 2; }
    int rc = 0;
    rc |= run_case(file, true, "1");
    rc |= run_case(file, true, "2");
    rc |= run_case(file, false, "1");
    rc |= run_case(file, false, "2");
    rc |= run_light(file, "1");
    rc |= run_light(file, "2");
    check_elem_scans(path);
    unlink(file);
    unlink(path);
    for (int i = 0; i < 3; i++) free(g_data[i]);
    if (rc) g_fail++;
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail != 0;
}
