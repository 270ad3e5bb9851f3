#include "util.h"
#include "file.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *pc_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *pc_strdup(const char *s) { return pc_strndup(s, strlen(s)); }

char *pc_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *pc_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return pc_asprintf("%s%s%s", dir, (n && dir[n - 1] == '/') ? "" : "/", name);
}

char *pc_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return pc_strdup(".");
    if (slash == path) return pc_strdup("/");
    return pc_strndup(path, (size_t)(slash - path));
}

int pc_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int pc_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int pc_path_present(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

char *pc_slurp(const char *path, size_t limit, size_t *len)
{
    const char *why;
    int fd = pc_open_regular(path, &why); /* a FIFO named config.json must not block the run */
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) { if (fd >= 0) close(fd); return NULL; }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= limit) { free(buf); fclose(f); return NULL; }
            cap = cap ? cap * 2 : 4096;
            if (cap > limit) cap = limit;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) { free(buf); return NULL; }
    if (!buf) buf = malloc(1);
    if (!buf) return NULL;
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float pc_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0) return f32_from_bits(sign);
        /* subnormal: man * 2^-24, exact in f32 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

float pc_bf16_to_f32(uint16_t h) { return f32_from_bits((uint32_t)h << 16); }

float pc_f8e4m3_to_f32(uint8_t v)
{
    /* torch.float8_e4m3fn: bias 7, no infinities, S.1111.111 is NaN (FORMATS.md 4.2). */
    uint32_t sign = (uint32_t)(v >> 7) << 31, exp = (v >> 3) & 0xf, man = v & 7;
    if (exp == 0xf && man == 7) return f32_from_bits(sign | 0x7fc00000u);
    if (exp == 0) {
        float m = (float)man * 0x1p-9f;
        return sign ? -m : m;
    }
    return f32_from_bits(sign | ((exp + 120) << 23) | (man << 20));
}

/* Merge the sorted runs [at[k], at[k + 1]) of src pairwise into dst; returns the new run count. */
static size_t merge_runs(const char *src, char *dst, size_t size, size_t *at, size_t runs, int (*cmp)(const void *, const void *))
{
    size_t out = 0;
    for (size_t k = 0; k < runs; k += 2) {
        size_t a = at[k], am = at[k + 1], b = am, bm = k + 1 < runs ? at[k + 2] : am, d = a;
        while (a < am && b < bm) {
            bool left = cmp(src + a * size, src + b * size) <= 0;
            memcpy(dst + d++ * size, src + (left ? a++ : b++) * size, size);
        }
        memcpy(dst + d * size, src + a * size, (am - a) * size);
        d += am - a;
        memcpy(dst + d * size, src + b * size, (bm - b) * size);
        at[out++] = at[k];
    }
    at[out] = at[runs];
    return out;
}

void pc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    size_t at[PC_SORT_MAX_RUNS + 1], runs = 0;
    const char *b = base;
    at[0] = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0) continue;
        if (runs == PC_SORT_MAX_RUNS) { qsort(base, n, size, cmp); return; }
        at[++runs] = i;
    }
    if (runs <= 1) return;
    char *tmp = malloc(n * size); /* n * size is the array's own size: no overflow */
    if (!tmp) { qsort(base, n, size, cmp); return; }
    char *src = base, *dst = tmp;
    while (runs > 1) {
        runs = merge_runs(src, dst, size, at, runs, cmp);
        char *t = src;
        src = dst;
        dst = t;
    }
    if (src != base) memcpy(base, src, n * size);
    free(tmp);
}
