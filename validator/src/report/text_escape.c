/* Invalid UTF-8 in report text: escaped as \xNN in one pass over the finished document, before any
 * renderer sees it (report/text_escape.h). */
#include "text_escape.h"

#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pc_utf8_seq_len(const unsigned char *s, size_t n)
{
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* range of the second byte (RFC 3629 table) */
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) { len = 3; if (c == 0xe0) lo = 0xa0; if (c == 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; if (c == 0xf0) lo = 0x90; if (c == 0xf4) hi = 0x8f; }
    else return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return len;
}

bool pc_text_is_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = pc_utf8_seq_len(p + i, n - i))) return false;
    return true;
}

char *pc_text_escape(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    char *out = malloc(4 * n + 1), *o = out; /* one byte becomes at most four */
    if (!out) return NULL;
    for (size_t i = 0; i < n;) {
        size_t k = pc_utf8_seq_len(p + i, n - i);
        if (k) { memcpy(o, p + i, k); o += k; i += k; }
        else { o += sprintf(o, "\\x%02x", p[i]); i++; }
    }
    *o = 0;
    return out;
}

static bool tree_valid(const cJSON *j)
{
    for (; j; j = j->next) {
        if (j->string && !pc_text_is_utf8(j->string)) return false;
        if (cJSON_IsString(j) && j->valuestring && !pc_text_is_utf8(j->valuestring)) return false;
        if (j->child && !tree_valid(j->child)) return false;
    }
    return true;
}

/* Replace one string in place (cJSON owns both the key and the value with its allocator). */
static bool fix(char **slot, size_t *count)
{
    if (!*slot || pc_text_is_utf8(*slot)) return true;
    char *e = pc_text_escape(*slot);
    if (!e) return false;
    char *c = cJSON_malloc(strlen(e) + 1);
    if (c) strcpy(c, e);
    free(e);
    if (!c) return false;
    cJSON_free(*slot);
    *slot = c;
    ++*count;
    return true;
}

/* An object whose strings changed says so in its own "message", which every renderer shows. */
static bool note_in_message(cJSON *obj)
{
    cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "message");
    if (!cJSON_IsString(m) || strstr(m->valuestring, PC_TEXT_ESCAPE_NOTE)) return true;
    char *t = pc_asprintf("%s%s", m->valuestring, PC_TEXT_ESCAPE_NOTE);
    bool ok = t && cJSON_SetValuestring(m, t);
    free(t);
    return ok;
}

static bool tree_fix(cJSON *j, cJSON *parent, size_t *count)
{
    for (; j; j = j->next) {
        size_t before = *count;
        if (!fix(&j->string, count)) return false;
        if (cJSON_IsString(j) && !fix(&j->valuestring, count)) return false;
        if (j->child && !tree_fix(j->child, j, count)) return false;
        if (*count != before && cJSON_IsObject(parent) && !note_in_message(parent)) return false;
    }
    return true;
}

const cJSON *pc_text_clean_doc(const cJSON *doc, cJSON **owned)
{
    *owned = NULL;
    if (tree_valid(doc)) return doc;
    cJSON *c = cJSON_Duplicate(doc, 1);
    size_t count = 0;
    if (!c || !tree_fix(c->child, c, &count)) { cJSON_Delete(c); return NULL; }
    cJSON_DeleteItemFromObjectCaseSensitive(c, "escaped_strings");
    cJSON_AddNumberToObject(c, "escaped_strings", (double)count);
    *owned = c;
    return c;
}
