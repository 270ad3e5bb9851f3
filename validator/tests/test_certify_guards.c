/* certify's guards against the reader under test (issue 12, items 9-13), unit by unit: the output
 * stream scan (a marker split across reads, a marker after megabytes, the tail), the bounded
 * evaluation child (a FIFO that never opens, a loop, a crash), the verified case copy (a byte
 * appended, a file added or replaced by a FIFO), and the subreaper sweep of a detached process. */
#include "harness/bounded.h"
#include "harness/case_copy.h"
#include "harness/logscan.h"
#include "harness/reaper.h"
#include "harness/tree_remove.h"
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_logscan(void)
{
    pc_logscan s = {0};
    static char junk[1 << 16];
    memset(junk, 'x', sizeof junk);
    for (int i = 0; i < 1200; i++) pc_logscan_feed(&s, junk, sizeof junk); /* 75 MiB */
    CHECK(!s.hit, "no marker in plain output");
    const char *m = "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n";
    pc_logscan_feed(&s, m, 20); /* the marker split across two reads */
    pc_logscan_feed(&s, m + 20, strlen(m) - 20);
    CHECK(s.hit && strstr(s.hit, "AddressSanitizer"), "a marker after 75 MiB, split across reads, is found");
    pc_logscan_feed(&s, "tail-end", 8);
    char *t = pc_logscan_tail(&s);
    CHECK(t && strlen(t) == PC_LOG_TAIL && !strcmp(t + PC_LOG_TAIL - 8, "tail-end"), "the tail is the last %d bytes", PC_LOG_TAIL);
    free(t);
    pc_logscan u = {0};
    for (const char *p = "x runtime error: y"; *p; p++) pc_logscan_feed(&u, p, 1); /* byte by byte */
    CHECK(u.hit != NULL, "a marker fed one byte at a time is found");
}

static const char *g_fifo;
static cJSON *open_fifo(void *a) { (void)a; int fd = open(g_fifo, O_RDONLY); if (fd >= 0) close(fd); return cJSON_CreateObject(); }
static cJSON *spin(void *a) { (void)a; for (volatile unsigned long i = 0;; i++) {} return NULL; }
static cJSON *crash(void *a) { (void)a; raise(SIGSEGV); return NULL; }
static cJSON *answer(void *a) { cJSON *d = cJSON_CreateObject(); cJSON_AddNumberToObject(d, "n", *(int *)a); return d; }

static void test_bounded(const char *dir)
{
    char fifo[600], why[200];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    g_fifo = fifo;
    CHECK(!pc_run_bounded(open_fifo, NULL, 0.3, why, sizeof why) && strstr(why, "did not finish"), "a FIFO that never opens is bounded: %s", why);
    CHECK(!pc_run_bounded(spin, NULL, 0.3, why, sizeof why) && strstr(why, "did not finish"), "a loop is bounded: %s", why);
    CHECK(!pc_run_bounded(crash, NULL, 5, why, sizeof why) && strstr(why, "died of signal"), "a crash is contained: %s", why); /* SEGV, or ABRT under ASan */
    int n = 42;
    cJSON *d = pc_run_bounded(answer, &n, 5, why, sizeof why);
    CHECK(d && cJSON_GetNumberValue(cJSON_GetObjectItem(d, "n")) == 42, "the answer comes back");
    cJSON_Delete(d);
    unlink(fifo);
}

static void write_file(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    if (f) { fputs(text, f); fclose(f); }
}

static void test_copy(const char *dir)
{
    char src[600], dst[600], p[700], why[600];
    snprintf(src, sizeof src, "%s/case", dir);
    snprintf(dst, sizeof dst, "%s/copy", dir);
    mkdir(src, 0755);
    snprintf(p, sizeof p, "%s/model.safetensors", src); write_file(p, "bytes");
    snprintf(p, sizeof p, "%s/expect.json", src); write_file(p, "{}");
    snprintf(p, sizeof p, "%s/sub", src); mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sub/x.json", src); write_file(p, "x");
    pc_case_copy cc;
    CHECK(pc_case_copy_make(src, dst, "expect.json", &cc, why, sizeof why) == 0, "copy made: %s", why);
    snprintf(p, sizeof p, "%s/expect.json", dst);
    CHECK(access(p, F_OK) != 0, "the answer is not copied");
    struct stat st;
    snprintf(p, sizeof p, "%s/model.safetensors", dst);
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0444, "files are read-only");
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 0, "an untouched copy verifies: %s", why);
    chmod(p, 0644); write_file(p, "bytes!");
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 1 && strstr(why, "model.safetensors was modified"), "a changed byte: %s", why);
    write_file(p, "bytes");
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 0, "restored: %s", why);
    snprintf(p, sizeof p, "%s/sub", dst); chmod(p, 0755);
    snprintf(p, sizeof p, "%s/sub/x.json", dst); unlink(p); mkfifo(p, 0644);
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 1 && strstr(why, "FIFO"), "a file replaced by a FIFO, without blocking: %s", why);
    unlink(p);
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 1 && strstr(why, "removed"), "a file removed: %s", why);
    write_file(p, "x");
    snprintf(p, sizeof p, "%s/new", dst); write_file(p, "n");
    CHECK(pc_case_copy_verify(&cc, why, sizeof why) == 1 && strstr(why, "added"), "a file added: %s", why);
    pc_case_copy_free(&cc);
    snprintf(p, sizeof p, "%s/sub/trap", src); mkfifo(p, 0644);
    CHECK(pc_tree_regular_only(src, why, sizeof why) == -1 && strstr(why, "FIFO"), "a FIFO in a tree is found: %s", why);
}

static void test_reaper(void)
{
    CHECK(pc_reaper_enable() == 0, "subreaper");
    pid_t c = fork();
    if (c == 0) { /* a reader that leaves a detached grandchild behind */
        setsid();
        if (fork() == 0) { pause(); _exit(0); }
        _exit(0);
    }
    waitpid(c, NULL, 0);
    int k = 0;
    for (int i = 0; i < 200 && !k; i++) { k = pc_reaper_sweep(NULL, 0); if (!k) usleep(5000); }
    CHECK(k == 1, "the orphaned grandchild came back to us and was killed (%d)", k);
    CHECK(pc_reaper_sweep(NULL, 0) == 0, "nothing left");
}

/* Issue 30 item 5: a reader's folders nested past PATH_MAX (and closed to 000) are removed, walked
 * by descriptor; nftw by full path gave up on them and the work folder stayed. */
static void test_tree_remove(const char *dir)
{
    char root[600];
    snprintf(root, sizeof root, "%s/deep", dir);
    CHECK(mkdir(root, 0700) == 0, "mkdir deep");
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    const char *name = "a-folder-name-of-forty-bytes-0123456789";
    size_t depth = 2 * PATH_MAX / strlen(name) + 10, made = 0;
    for (size_t i = 0; i < depth && fd >= 0; i++, made++) {
        int f = openat(fd, "file", O_WRONLY | O_CREAT, 0000);
        if (f >= 0) close(f);
        if (mkdirat(fd, name, 0700)) break;
        int sub = openat(fd, name, O_RDONLY | O_DIRECTORY);
        if (i % 7 == 3) fchmod(fd, 0000); /* a reader closed some of them */
        close(fd);
        fd = sub;
    }
    if (fd >= 0) close(fd);
    CHECK(made == depth, "built %zu of %zu levels", made, depth);
    char why[300];
    long left = pc_tree_remove(root, why, sizeof why);
    struct stat sb;
    CHECK(left == 0, "everything removed (%ld left: %s)", left, why);
    CHECK(lstat(root, &sb) != 0 && errno == ENOENT, "the tree is gone");
    CHECK(pc_tree_remove(root, why, sizeof why) == 0, "an absent tree is nothing to remove");
}

int main(void)
{
    char dir[512];
    test_tmpdir(dir, sizeof dir, "certify-guards");
    test_logscan();
    test_bounded(dir);
    test_copy(dir);
    test_reaper();
    test_tree_remove(dir);
    char why[300];
    pc_tree_remove(dir, why, sizeof why);
    return test_finish();
}
