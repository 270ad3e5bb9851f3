/* safetensors writer shared by the ggml adapters (st_write.h). The format: u64 header length, a JSON
 * header padded with spaces to 8 bytes, then the data. */
#include "st_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static int cmp_key(const void *a, const void *b) { return strcmp(((const out_tensor *)a)->key, ((const out_tensor *)b)->key); }

int write_view(const char *path, out_tensor *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_key);
    char *hdr = NULL;
    size_t hlen = 0;
    FILE *h = open_memstream(&hdr, &hlen);
    if (!h) return -1;
    fputc('{', h);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', h);
        json_string(h, t[i].key);
        fprintf(h, ":{\"dtype\":\"F32\",\"shape\":[");
        for (int d = 0; d < t[i].ndim; d++) fprintf(h, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        fprintf(h, "],\"data_offsets\":[%zu,%zu]}", off, off + t[i].nbytes);
        off += t[i].nbytes;
    }
    fputc('}', h);
    while (ftell(h) % 8) fputc(' ', h);
    fclose(h);
    FILE *f = fopen(path, "wb");
    if (!f) { free(hdr); return -1; }
    uint64_t L = hlen;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(L >> (8 * i));
    int bad = fwrite(le, 1, 8, f) != 8 || fwrite(hdr, 1, hlen, f) != hlen;
    for (size_t i = 0; i < n && !bad; i++) bad = t[i].nbytes && fwrite(t[i].data, 1, t[i].nbytes, f) != t[i].nbytes;
    free(hdr);
    return fclose(f) || bad ? -1 : 0;
}
