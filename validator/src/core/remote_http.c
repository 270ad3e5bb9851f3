/* Range reads over HTTP with libcurl (remote.h). Each remote file keeps one curl handle (its
 * connection is reused from request to request) behind a mutex, since the streaming pass reads a
 * file from several threads. Every response is checked before its bytes are used: status 206, a
 * Content-Range naming exactly the bytes asked for and the size first seen, a body of exactly that
 * length, and the ETag first seen (a file that changes between requests is an error, never a mix of
 * two versions). Transient failures (connection refused or dropped, a stall, 5xx, 429) are retried a
 * bounded number of times with backoff; every file has a hard cap on requests and bytes.
 *
 * Settings (environment, for tests and slow links): PACKCHECK_HTTP_TIMEOUT seconds without progress
 * before a request is abandoned (default 30; 20 times it bounds any one request), PACKCHECK_HTTP_RETRIES attempts after the first
 * (default 3), PACKCHECK_HTTP_BACKOFF_MS first backoff (default 250, doubling). */
#include "remote.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#ifdef PC_HAVE_CURL
#include <curl/curl.h>
#include <pthread.h>
#include <time.h>

#define HEAD_BYTES (64u << 10)       /* fetched by open: a safetensors header or GGUF KV start */
#define READAHEAD_BYTES (64u << 10)  /* a small read outside it fetches this much */
#define MAX_REDIRS 5L
#define MAX_REQUESTS_FLOOR 4096u     /* per file, plus one per 64 KiB of it */
#define MAX_ETAG 200

struct pc_remote {
    char *url;
    CURL *h;
    pthread_mutex_t mu;
    uint64_t size;
    char etag[MAX_ETAG + 1];
    uint8_t *head;                /* bytes [0, nhead) */
    size_t nhead;
    uint8_t *ra;                  /* bytes [ra_off, ra_off + nra) */
    uint64_t ra_off;
    size_t nra;
    uint64_t requests, bytes;     /* this file's, for its caps */
    uint64_t max_requests, max_bytes;
};

static uint64_t g_bytes, g_requests;
static pthread_mutex_t g_fail_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_failure[1024];
static size_t g_failure_what;   /* where "what went wrong" starts in g_failure */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_init_ok;

static void global_init(void) { g_init_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == 0; }

bool pc_remote_available(void) { return true; }

void pc_remote_stats(uint64_t *bytes, uint64_t *requests)
{
    *bytes = __atomic_load_n(&g_bytes, __ATOMIC_RELAXED);
    *requests = __atomic_load_n(&g_requests, __ATOMIC_RELAXED);
}

const char *pc_remote_failure(void) { return g_failure; }
const char *pc_remote_failure_what(void) { return g_failure + g_failure_what; }

void pc_remote_failure_reset(void)
{
    pthread_mutex_lock(&g_fail_mu);
    g_failure[0] = 0;
    pthread_mutex_unlock(&g_fail_mu);
}

/* Keep the first failure: later ones are usually its consequences. */
static void set_failure(const char *url, const char *what)
{
    pthread_mutex_lock(&g_fail_mu);
    if (!g_failure[0]) {
        int n = snprintf(g_failure, sizeof g_failure, "%s: ", url);
        g_failure_what = n > 0 && (size_t)n < sizeof g_failure ? (size_t)n : 0;
        snprintf(g_failure + g_failure_what, sizeof g_failure - g_failure_what, "%s", what);
    }
    pthread_mutex_unlock(&g_fail_mu);
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *v = getenv(name);
    char *end;
    long x = v && *v ? strtol(v, &end, 10) : dflt;
    if (v && *v && *end) x = dflt;
    return x < lo ? lo : x > hi ? hi : x;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts)) {}
}

/* ------------------------------------------------------------------------------------------------
 * One request
 * --------------------------------------------------------------------------------------------- */

typedef struct xfer {
    uint8_t *buf;                 /* NULL: grow `grown` (a whole-file GET) */
    size_t want, got, limit;
    char *grown;
    bool range;                   /* a range request: 206 and Content-Range required */
    uint64_t first, last;         /* the range asked for */
    bool have_cr, checked;
    uint64_t cr_first, cr_last, cr_total;
    bool cr_star;                 /* "bytes * /N" (a 416's) */
    char etag[MAX_ETAG + 1];
    char fail[256];               /* why the body was refused (set by the callbacks) */
    CURL *h;
} xfer;

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) { (*s)++; (*n)--; }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r' || (*s)[*n - 1] == '\n')) (*n)--;
}

static bool header_is(const char *line, size_t n, const char *name, const char **val, size_t *vn)
{
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) || line[k] != ':') return false;
    *val = line + k + 1;
    *vn = n - k - 1;
    trim(val, vn);
    return true;
}

static bool parse_u64(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;
    if (s >= end || *s < '0' || *s > '9') return false;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *out = v;
    return true;
}

/* Content-Range: bytes FIRST-LAST/TOTAL (RFC 9110 14.4), or bytes * /TOTAL on a 416. */
static void parse_content_range(xfer *x, const char *v, size_t n)
{
    const char *e = v + n;
    if (n < 6 || strncasecmp(v, "bytes ", 6)) return;
    v += 6;
    if (v < e && *v == '*') {
        v++;
        if (v < e && *v == '/' && (v++, parse_u64(&v, e, &x->cr_total)) && v == e) x->have_cr = x->cr_star = true;
        return;
    }
    if (!parse_u64(&v, e, &x->cr_first) || v >= e || *v++ != '-' || !parse_u64(&v, e, &x->cr_last) || v >= e || *v++ != '/'
        || !parse_u64(&v, e, &x->cr_total) || v != e)
        return;
    x->have_cr = true;
}

static size_t on_header(char *line, size_t size, size_t nitems, void *arg)
{
    xfer *x = arg;
    size_t n = size * nitems;
    const char *v;
    size_t vn;
    if (n >= 5 && !strncmp(line, "HTTP/", 5)) { /* a new response (after a redirect): forget the last */
        x->have_cr = x->cr_star = false;
        x->etag[0] = 0;
    } else if (header_is(line, n, "Content-Range", &v, &vn)) {
        parse_content_range(x, v, vn);
    } else if (header_is(line, n, "ETag", &v, &vn)) {
        if (vn > MAX_ETAG) vn = MAX_ETAG;
        memcpy(x->etag, v, vn);
        x->etag[vn] = 0;
    }
    return n;
}

static void refuse(xfer *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(xfer *x, const char *fmt, ...)
{
    if (x->fail[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->fail, sizeof x->fail, fmt, ap);
    va_end(ap);
}

/* The response's status and Content-Range, checked once before its first body byte is kept. */
static bool check_response(xfer *x)
{
    long code = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
    if (!x->range) {
        if (code != 200) refuse(x, "HTTP status %ld", code);
        return !x->fail[0];
    }
    if (code == 200) { refuse(x, "status 200, not 206: the server ignored the Range request"); return false; }
    if (code != 206) { refuse(x, "HTTP status %ld to a range request", code); return false; }
    if (!x->have_cr || x->cr_star) { refuse(x, "206 without a usable Content-Range header"); return false; }
    if (x->cr_first != x->first) {
        refuse(x, "Content-Range names bytes from %llu, not the %llu asked for", (unsigned long long)x->cr_first, (unsigned long long)x->first);
        return false;
    }
    if (x->cr_last < x->cr_first || x->cr_last > x->last) {
        refuse(x, "Content-Range end %llu is outside the range asked for (to %llu)", (unsigned long long)x->cr_last, (unsigned long long)x->last);
        return false;
    }
    if (x->cr_last >= x->cr_total) {
        refuse(x, "Content-Range end %llu is past the total %llu", (unsigned long long)x->cr_last, (unsigned long long)x->cr_total);
        return false;
    }
    x->want = (size_t)(x->cr_last - x->cr_first + 1);
    return true;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    xfer *x = arg;
    size_t n = size * nmemb;
    if (!x->checked) {
        x->checked = true;
        if (!check_response(x)) return 0; /* abort the transfer: never download an unwanted body */
    }
    if (x->fail[0]) return 0;
    if (x->buf) {
        if (n > x->want - x->got) { refuse(x, "body longer than its Content-Range (%zu bytes, %zu announced)", x->got + n, x->want); return 0; }
        memcpy(x->buf + x->got, p, n);
    } else {
        if (n > x->limit - x->got) { refuse(x, "larger than the limit of %zu bytes", x->limit); return 0; }
        char *g = realloc(x->grown, x->got + n + 1);
        if (!g) { refuse(x, "out of memory"); return 0; }
        x->grown = g;
        memcpy(x->grown + x->got, p, n);
    }
    x->got += n;
    return n;
}

static CURL *new_handle(void)
{
    pthread_once(&g_once, global_init);
    if (!g_init_ok) return NULL;
    CURL *h = curl_easy_init();
    if (!h) return NULL;
    long timeout = env_long("PACKCHECK_HTTP_TIMEOUT", 30, 1, 3600);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, MAX_REDIRS);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout);
    /* A stall: under 1 byte/s for `timeout` seconds ends the request (then it may be retried). */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, timeout);
    /* And a trickle (a few bytes a second keeps the low-speed check quiet) still ends: no request
     * outlives 20 timeouts (10 minutes by default; a window is at most 8 MiB). */
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 20 * timeout);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "packcheck");
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    /* No Accept-Encoding: a compressed body's bytes would not be the file's bytes at these offsets. */
    return h;
}

typedef enum { XF_OK, XF_RETRY, XF_FATAL } xf_rc;

/* One attempt. why is filled on failure. */
static xf_rc attempt(CURL *h, const char *url, xfer *x, char *why, size_t nwhy)
{
    char range[64];
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    if (x->range) {
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)x->first, (unsigned long long)x->last);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    } else {
        curl_easy_setopt(h, CURLOPT_RANGE, NULL);
    }
    x->h = h;
    __atomic_add_fetch(&g_requests, 1, __ATOMIC_RELAXED);
    CURLcode rc = curl_easy_perform(h);
    __atomic_add_fetch(&g_bytes, x->got, __ATOMIC_RELAXED);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (x->fail[0]) {
        snprintf(why, nwhy, "%s", x->fail);
        return code >= 500 || code == 429 ? XF_RETRY : XF_FATAL;
    }
    if (rc == CURLE_OK && !x->checked) check_response(x); /* an empty body: status still checked */
    if (x->fail[0]) {
        snprintf(why, nwhy, "%s", x->fail);
        return code >= 500 || code == 429 ? XF_RETRY : XF_FATAL;
    }
    switch (rc) {
    case CURLE_OK: break;
    case CURLE_TOO_MANY_REDIRECTS:
        snprintf(why, nwhy, "more than %ld redirects (a redirect loop?)", MAX_REDIRS);
        return XF_FATAL;
    case CURLE_OPERATION_TIMEDOUT:
        snprintf(why, nwhy, "no progress for %ld s (the server stalled)", env_long("PACKCHECK_HTTP_TIMEOUT", 30, 1, 3600));
        return XF_RETRY;
    case CURLE_PARTIAL_FILE:
        snprintf(why, nwhy, "connection closed after %zu of %zu body bytes", x->got, x->want);
        return XF_RETRY;
    case CURLE_COULDNT_RESOLVE_HOST: case CURLE_UNSUPPORTED_PROTOCOL: case CURLE_URL_MALFORMAT:
        snprintf(why, nwhy, "%s", curl_easy_strerror(rc));
        return XF_FATAL;
    default:
        snprintf(why, nwhy, "%s", curl_easy_strerror(rc));
        return XF_RETRY;
    }
    if (x->range && x->got != x->want) {
        snprintf(why, nwhy, "body of %zu bytes, %zu announced by Content-Range", x->got, x->want);
        return XF_RETRY;
    }
    return XF_OK;
}

/* Up to 1 + PACKCHECK_HTTP_RETRIES attempts. fresh() resets x between attempts. */
static int transfer(CURL *h, const char *url, xfer *x, char *why, size_t nwhy)
{
    long retries = env_long("PACKCHECK_HTTP_RETRIES", 3, 0, 10), backoff = env_long("PACKCHECK_HTTP_BACKOFF_MS", 250, 0, 10000);
    xfer proto = *x;
    for (long k = 0;; k++) {
        *x = proto;
        xf_rc rc = attempt(h, url, x, why, nwhy);
        if (rc == XF_OK) return 0;
        free(x->grown);
        x->grown = NULL;
        if (rc == XF_FATAL || k >= retries) return -1;
        sleep_ms(backoff << (k < 6 ? k : 6));
    }
}

/* ------------------------------------------------------------------------------------------------
 * Files
 * --------------------------------------------------------------------------------------------- */

static __thread char t_why[320];

/* A range request for [off, off + len) of r, checked against r's size and ETag. Caller holds r->mu. */
static int fetch_range(pc_remote *r, uint64_t off, uint8_t *buf, size_t len)
{
    char why[2 * MAX_ETAG + 128];
    if (r->requests >= r->max_requests || len > r->max_bytes - r->bytes) {
        snprintf(why, sizeof why, "over the per-file cap (%llu requests, %llu bytes)", (unsigned long long)r->max_requests,
                 (unsigned long long)r->max_bytes);
        set_failure(r->url, why);
        return -1;
    }
    xfer x = {.buf = buf, .want = len, .range = true, .first = off, .last = off + len - 1};
    r->requests++;
    int rc = transfer(r->h, r->url, &x, why, 256);
    r->bytes += x.got;
    if (rc) { set_failure(r->url, why); return -1; }
    if (x.cr_total != r->size) {
        snprintf(why, sizeof why, "file size changed between requests (%llu, then %llu)", (unsigned long long)r->size, (unsigned long long)x.cr_total);
        set_failure(r->url, why);
        return -1;
    }
    if (strcmp(x.etag, r->etag)) {
        snprintf(why, sizeof why, "file changed between requests (ETag %s, then %s)", r->etag[0] ? r->etag : "none", x.etag[0] ? x.etag : "none");
        set_failure(r->url, why);
        return -1;
    }
    if (x.want != len) {
        snprintf(why, sizeof why, "%zu bytes sent for a range of %zu", x.want, len);
        set_failure(r->url, why);
        return -1;
    }
    return 0;
}

pc_remote *pc_remote_open(const char *url, uint64_t *size, const char **why)
{
    pc_remote *r = calloc(1, sizeof *r);
    *why = "out of memory";
    if (!r || pthread_mutex_init(&r->mu, NULL)) { free(r); return NULL; }
    r->url = pc_strdup(url);
    r->h = new_handle();
    r->head = malloc(HEAD_BYTES);
    if (!r->url || !r->head || !r->h) { *why = r->h || !r->url ? "out of memory" : "libcurl failed to start"; pc_remote_close(r); return NULL; }
    r->max_requests = MAX_REQUESTS_FLOOR;
    r->max_bytes = HEAD_BYTES;
    xfer x = {.buf = r->head, .want = HEAD_BYTES, .range = true, .first = 0, .last = HEAD_BYTES - 1};
    char msg[256];
    r->requests++;
    int rc = transfer(r->h, url, &x, msg, sizeof msg);
    long code = 0;
    curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &code);
    if (rc && code == 416 && x.have_cr && x.cr_star && x.cr_total == 0) rc = 0; /* an empty file */
    r->bytes += x.got;
    if (rc) {
        snprintf(t_why, sizeof t_why, "%s", code == 404 || code == 410 ? "not found (HTTP 404)" : msg);
        set_failure(url, t_why);
        *why = t_why;
        pc_remote_close(r);
        return NULL;
    }
    r->size = x.cr_total;
    r->nhead = x.got;
    memcpy(r->etag, x.etag, sizeof r->etag);
    /* Caps: the file read about twice over (retries, overlapping windows) plus a margin. */
    r->max_bytes = r->size > (UINT64_MAX >> 2) ? UINT64_MAX : 2 * r->size + (64u << 20);
    r->max_requests = MAX_REQUESTS_FLOOR + r->size / READAHEAD_BYTES;
    *size = r->size;
    return r;
}

int pc_remote_read(pc_remote *r, uint64_t off, void *buf, size_t len)
{
    if (off > r->size || len > r->size - off) return -1;
    if (!len) return 0;
    pthread_mutex_lock(&r->mu);
    int rc = 0;
    if (off + len <= r->nhead) {
        memcpy(buf, r->head + off, len);
    } else if (r->ra && off >= r->ra_off && off + len <= r->ra_off + r->nra) {
        memcpy(buf, r->ra + (off - r->ra_off), len);
    } else if (len < READAHEAD_BYTES) {
        /* Small reads (headers, GGUF metadata, small tensors) come in runs: fetch a block. */
        size_t n = r->size - off < READAHEAD_BYTES ? (size_t)(r->size - off) : READAHEAD_BYTES;
        if (!r->ra && !(r->ra = malloc(READAHEAD_BYTES))) rc = -1;
        else if (fetch_range(r, off, r->ra, n)) { rc = -1; r->nra = 0; }
        else { r->ra_off = off; r->nra = n; memcpy(buf, r->ra, len); }
    } else {
        rc = fetch_range(r, off, buf, len);
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void pc_remote_close(pc_remote *r)
{
    if (!r) return;
    if (r->h) curl_easy_cleanup(r->h);
    pthread_mutex_destroy(&r->mu);
    free(r->head);
    free(r->ra);
    free(r->url);
    free(r);
}

const char *pc_remote_etag(const pc_remote *r) { return r->etag; }

char *pc_remote_slurp(const char *url, size_t limit, size_t *len, bool *absent)
{
    *absent = false;
    CURL *h = new_handle();
    if (!h) { set_failure(url, "libcurl failed to start"); return NULL; }
    xfer x = {.limit = limit};
    char why[256];
    int rc = transfer(h, url, &x, why, sizeof why);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    if (rc) {
        if (code == 404 || code == 410) *absent = true;
        else set_failure(url, why);
        free(x.grown);
        return NULL;
    }
    char *text = x.grown ? x.grown : malloc(1);
    if (!text) return NULL;
    text[x.got] = 0;
    if (len) *len = x.got;
    return text;
}

#else /* no libcurl: the build says so at every URL */

static const char *const NO_CURL = "this packcheck was built without libcurl (install libcurl4-openssl-dev and rebuild): URLs cannot be read";

bool pc_remote_available(void) { return false; }
void pc_remote_stats(uint64_t *bytes, uint64_t *requests) { *bytes = *requests = 0; }
const char *pc_remote_failure(void) { return ""; }
const char *pc_remote_failure_what(void) { return ""; }
void pc_remote_failure_reset(void) {}
pc_remote *pc_remote_open(const char *url, uint64_t *size, const char **why)
{
    (void)url;
    *size = 0;
    *why = NO_CURL;
    return NULL;
}
int pc_remote_read(pc_remote *r, uint64_t off, void *buf, size_t len) { (void)r; (void)off; (void)buf; (void)len; return -1; }
void pc_remote_close(pc_remote *r) { (void)r; }
const char *pc_remote_etag(const pc_remote *r) { (void)r; return ""; }
char *pc_remote_slurp(const char *url, size_t limit, size_t *len, bool *absent)
{
    (void)url; (void)limit; (void)len;
    *absent = false;
    return NULL;
}
#endif
