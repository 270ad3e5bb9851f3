/* The safetensors writer, for the logical view (CONTRACT section 3). */
#include "safetensors.h"

#include "../core/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *header_json(const st_out_tensor *t, size_t n)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_AddObjectToObject(root, t[i].name);
        cJSON *shape = e ? cJSON_AddArrayToObject(e, "shape") : NULL;
        cJSON *offs = e ? cJSON_AddArrayToObject(e, "data_offsets") : NULL;
        if (!offs || !cJSON_AddStringToObject(e, "dtype", pc_dtype_name(t[i].dtype))) { cJSON_Delete(root); return NULL; }
        /* cJSON prints doubles: exact for every offset below 2^53, which bounds what we write. */
        for (int d = 0; d < t[i].ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t[i].shape[d]));
        cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)at));
        at += t[i].nbytes;
        cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)at));
    }
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

int st_write_file(const char *path, const st_out_tensor *t, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += t[i].nbytes;
    if (total >= (1ull << 53)) return -1;
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
        for (size_t i = 0; i < n && !rc; i++)
            rc = t[i].nbytes == 0 || fwrite(t[i].data, 1, t[i].nbytes, f) == t[i].nbytes ? 0 : -1;
        if (fclose(f)) rc = -1;
        if (!rc && rename(tmp, path)) rc = -1;
        if (rc) remove(tmp);
    }
    free(tmp);
    free(json);
    return rc;
}
