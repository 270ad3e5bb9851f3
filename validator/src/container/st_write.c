/* The safetensors writer, for the logical view (CONTRACT section 3). */
#include "safetensors.h"

#include "../core/arith.h"
#include "../core/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Append to a growing buffer; false when out of memory. */
typedef struct sbuf { char *s; size_t n, cap; } sbuf;

static bool sb_put(sbuf *b, const char *text, size_t len)
{
    if (len + 1 > b->cap - b->n) {
        size_t nc = b->cap ? b->cap : 256;
        while (len + 1 > nc - b->n) nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) return false;
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->n, text, len);
    b->n += len;
    b->s[b->n] = 0;
    return true;
}

static bool sb_u64(sbuf *b, uint64_t v)
{
    char num[24];
    int k = snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return sb_put(b, num, (size_t)k);
}

/* The compact header: names escaped by cJSON, numbers printed exactly as integers (cJSON would
 * print doubles, and an exponent form for large shape entries). */
static char *header_json(const st_out_tensor *t, size_t n)
{
    sbuf b = {0};
    bool ok = sb_put(&b, "{", 1);
    uint64_t at = 0;
    for (size_t i = 0; i < n && ok; i++) {
        cJSON *name = cJSON_CreateString(t[i].name);
        char *q = name ? cJSON_PrintUnformatted(name) : NULL;
        cJSON_Delete(name);
        const char *dt = pc_dtype_name(t[i].dtype);
        ok = q && sb_put(&b, i ? "," : "", i ? 1 : 0) && sb_put(&b, q, strlen(q)) && sb_put(&b, ":{\"dtype\":\"", 11) &&
             sb_put(&b, dt, strlen(dt)) && sb_put(&b, "\",\"shape\":[", 11);
        free(q);
        for (int d = 0; d < t[i].ndim && ok; d++) ok = sb_put(&b, d ? "," : "", d ? 1 : 0) && sb_u64(&b, t[i].shape[d]);
        ok = ok && sb_put(&b, "],\"data_offsets\":[", 18) && sb_u64(&b, at) && sb_put(&b, ",", 1);
        at += t[i].nbytes; /* no overflow: st_write_file checked the total */
        ok = ok && sb_u64(&b, at) && sb_put(&b, "]}", 2);
    }
    ok = ok && sb_put(&b, "}", 1);
    if (!ok) { free(b.s); return NULL; }
    return b.s;
}

int st_write_file(const char *path, const st_out_tensor *t, size_t n) { return st_write_stream(path, t, n, NULL, NULL); }

int st_write_stream(const char *path, const st_out_tensor *t, size_t n, st_fill_fn fill, void *ctx)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (!pc_add_u64(total, t[i].nbytes, &total)) return -1;
    char *json = header_json(t, n);
    if (!json) return -1;
    size_t jl = strlen(json), padded = (jl + 7) / 8 * 8;
    char *tmp = pc_asprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = tmp ? fopen(tmp, "wb") : NULL;
    int rc = -1;
    if (f) {
        uint8_t len[8];
        pc_put_le64(len, padded);
        rc = fwrite(len, 1, 8, f) == 8 && fwrite(json, 1, jl, f) == jl ? 0 : -1;
        for (size_t i = jl; i < padded && !rc; i++) rc = fputc(' ', f) == ' ' ? 0 : -1;
        for (size_t i = 0; i < n && !rc; i++) {
            const void *data = t[i].data;
            if (!data && t[i].nbytes && (!fill || fill(ctx, i, &data))) { rc = -1; break; }
            rc = t[i].nbytes == 0 || fwrite(data, 1, t[i].nbytes, f) == t[i].nbytes ? 0 : -1;
        }
        if (fclose(f)) rc = -1;
        if (!rc && rename(tmp, path)) rc = -1;
        if (rc) remove(tmp);
    }
    free(tmp);
    free(json);
    return rc;
}
