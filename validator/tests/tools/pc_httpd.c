/* A small HTTP/1.1 file server for the remote-input tests: loopback only, bounded, stops by itself.
 *
 *   pc_httpd ROOT PORTFILE [IDLE_SECONDS]
 *
 * Binds 127.0.0.1 on a free port, writes the port to PORTFILE, serves files under ROOT, and exits
 * after IDLE_SECONDS (default 20) without a new connection or 600 s in all. One child process per
 * connection (keep-alive), each killed with the server.
 *
 * The first path segment picks how range requests are answered (plain GETs are always served whole):
 *   /ok/P        206 with Content-Range, the ETag of the file's size and mtime
 *   /no206/P     200 and the whole file (a server that ignores Range)
 *   /norange/P   206 without Content-Range
 *   /badrange/P  206 whose Content-Range starts one byte later than asked
 *   /short/P     Content-Length as asked, half the body, then the connection is closed
 *   /drop/P      a quarter of the body, then the connection is reset
 *   /stall/P     headers, then nothing (until the client gives up)
 *   /etag/P      the ETag changes on every range request after the first
 *   /loop/P      302 to itself, every request
 *   /hub/ORG/REPO/resolve/REV/F   302 to /ok/ORG/REPO/F (the Hub's file URLs, redirected as the Hub does)
 * late-MODE (late-no206, late-drop, ...) answers the first range request of the file (the one at
 * offset 0, which opens it) as /ok/ does and every later one as MODE: a fault in the middle of a run.
 * A missing file or a path with ".." is 404. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <poll.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#define REQ_MAX 16384
static const char *g_root;
static unsigned g_etag_count;

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int send_file_range(int fd, int file, off_t off, size_t n)
{
    char buf[65536];
    while (n) {
        size_t want = n < sizeof buf ? n : sizeof buf;
        ssize_t k = pread(file, buf, want, off);
        if (k <= 0) return -1;
        if (send_all(fd, buf, (size_t)k)) return -1;
        off += k;
        n -= (size_t)k;
    }
    return 0;
}

static void status_only(int fd, int code, const char *text, const char *location)
{
    char h[1024];
    int n = snprintf(h, sizeof h, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n%s%s%s\r\n", code, text,
                     location ? "Location: " : "", location ? location : "", location ? "\r\n" : "");
    send_all(fd, h, (size_t)n);
}

/* One request; returns 0 to keep the connection, -1 to close it. */
static int serve(int fd, const char *method, const char *path, const char *range)
{
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) { status_only(fd, 405, "Method Not Allowed", NULL); return -1; }
    const char *slash = strchr(path + 1, '/');
    if (path[0] != '/' || !slash || strstr(path, "..")) { status_only(fd, 404, "Not Found", NULL); return 0; }
    char mode[32];
    size_t ml = (size_t)(slash - path - 1);
    if (ml >= sizeof mode) { status_only(fd, 404, "Not Found", NULL); return 0; }
    memcpy(mode, path + 1, ml);
    mode[ml] = 0;
    const char *rel = slash + 1;
    if (!strcmp(mode, "loop")) { status_only(fd, 302, "Found", path); return 0; }
    if (!strcmp(mode, "hub")) {
        const char *r = strstr(rel, "/resolve/"), *f = r ? strchr(r + 9, '/') : NULL;
        if (!f) { status_only(fd, 404, "Not Found", NULL); return 0; }
        char loc[4096];
        snprintf(loc, sizeof loc, "/ok/%.*s%s", (int)(r - rel), rel, f);
        status_only(fd, 302, "Found", loc);
        return 0;
    }
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", g_root, rel);
    int fh = open(file, O_RDONLY);
    struct stat st;
    if (fh < 0 || fstat(fh, &st) || !S_ISREG(st.st_mode)) { if (fh >= 0) close(fh); status_only(fd, 404, "Not Found", NULL); return 0; }
    unsigned long long size = (unsigned long long)st.st_size, a = 0, b = 0;
    char etag[64];
    snprintf(etag, sizeof etag, "\"%llx-%lx\"", size, (long)st.st_mtime);
    int ranged = range && sscanf(range, "bytes=%llu-%llu", &a, &b) == 2;
    if (ranged && (a >= size || b < a)) {
        char h[256];
        int n = snprintf(h, sizeof h, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */%llu\r\nContent-Length: 0\r\n\r\n", size);
        send_all(fd, h, (size_t)n);
        close(fh);
        return 0;
    }
    if (ranged && b >= size) b = size - 1;
    if (!strncmp(mode, "late-", 5)) memmove(mode, a == 0 ? "ok" : mode + 5, a == 0 ? 3 : strlen(mode + 5) + 1);
    if (ranged && !strcmp(mode, "etag") && g_etag_count++ > 0) snprintf(etag, sizeof etag, "\"changed-%u\"", g_etag_count);
    char h[1024];
    int rc = 0, n;
    if (!ranged || !strcmp(mode, "no206")) {
        n = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\nETag: %s\r\n\r\n", size, etag);
        rc = send_all(fd, h, (size_t)n) || (strcmp(method, "HEAD") && send_file_range(fd, fh, 0, (size_t)size)) ? -1 : 0;
        close(fh);
        return rc;
    }
    unsigned long long len = b - a + 1, cr_a = !strcmp(mode, "badrange") ? a + 1 : a;
    char cr[128] = "";
    if (strcmp(mode, "norange")) snprintf(cr, sizeof cr, "Content-Range: bytes %llu-%llu/%llu\r\n", cr_a, b, size);
    n = snprintf(h, sizeof h, "HTTP/1.1 206 Partial Content\r\nContent-Length: %llu\r\n%sETag: %s\r\nAccept-Ranges: bytes\r\n\r\n", len, cr, etag);
    if (send_all(fd, h, (size_t)n)) { close(fh); return -1; }
    if (!strcmp(method, "HEAD")) { close(fh); return 0; }
    if (!strcmp(mode, "stall")) { pause(); _exit(0); }
    if (!strcmp(mode, "short") || !strcmp(mode, "drop")) {
        send_file_range(fd, fh, (off_t)a, (size_t)(!strcmp(mode, "short") ? len / 2 : len / 4));
        if (!strcmp(mode, "drop")) { struct linger lg = {1, 0}; setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg); }
        close(fh);
        return -1;
    }
    rc = send_file_range(fd, fh, (off_t)a, (size_t)len);
    close(fh);
    return rc;
}

static const char *header(char *req, const char *name)
{
    size_t k = strlen(name);
    for (char *line = strstr(req, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        char *v = line + 2;
        if (!strncasecmp(v, name, k) && v[k] == ':') {
            v += k + 1;
            while (*v == ' ') v++;
            char *e = strstr(v, "\r\n");
            if (e) *e = 0; /* header values are read once, after the request line */
            return v;
        }
    }
    return NULL;
}

static void connection(int fd)
{
    static char req[REQ_MAX + 1];
    size_t have = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 15000) <= 0) return; /* an idle keep-alive connection ends */
        ssize_t k = recv(fd, req + have, REQ_MAX - have, 0);
        if (k <= 0) return;
        have += (size_t)k;
        req[have] = 0;
        char *end = strstr(req, "\r\n\r\n");
        if (!end) { if (have == REQ_MAX) return; continue; }
        size_t used = (size_t)(end + 4 - req);
        char save = req[used];
        req[used] = 0;
        char method[16], path[4096];
        if (sscanf(req, "%15s %4095s", method, path) != 2) return;
        char copy[REQ_MAX + 1];
        memcpy(copy, req, used + 1);
        const char *range = header(copy, "Range");
        req[used] = save;
        if (serve(fd, method, path, range)) return;
        memmove(req, req + used, have - used);
        have -= used;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: pc_httpd ROOT PORTFILE [IDLE_SECONDS]\n"); return 2; }
    g_root = argv[1];
    int idle = argc > 3 ? atoi(argv[3]) : 20;
    if (idle < 1 || idle > 600) idle = 20;
    signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
    socklen_t al = sizeof addr;
    if (bind(s, (struct sockaddr *)&addr, sizeof addr) || listen(s, 64) || getsockname(s, (struct sockaddr *)&addr, &al)) {
        perror("pc_httpd");
        return 2;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    FILE *pf = fopen(tmp, "w");
    if (!pf) { perror(tmp); return 2; }
    fprintf(pf, "%u\n", ntohs(addr.sin_port));
    fclose(pf);
    rename(tmp, argv[2]);
    time_t start = time(NULL);
    for (;;) {
        struct pollfd p = {s, POLLIN, 0};
        int r = poll(&p, 1, idle * 1000);
        if (r <= 0 || time(NULL) - start > 600) break;
        int c = accept(s, NULL, NULL);
        if (c < 0) continue;
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(s);
            alarm(120); /* no child outlives two minutes */
            connection(c);
            _exit(0);
        }
        close(c);
    }
    return 0;
}
