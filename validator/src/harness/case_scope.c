/* case_scope.h. The GGUF block types come from the container reader's own type table
 * (pc_ggml_type_name, pc_ggml_type_block): a type with more than one element per block is quantized. */
#include "case_scope.h"

#include "../core/util.h"
#include "../report/report.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static void add_layout(pc_case_scope *cs, const char *name)
{
    char low[64];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = 0;
    /* already listed? */
    for (const char *p = cs->layouts; (p = strstr(p, low));) {
        bool start = p == cs->layouts || p[-1] == ',', end = p[n] == 0 || p[n] == ',';
        if (start && end) return;
        p += n;
    }
    size_t used = strlen(cs->layouts);
    if (used + n + 2 > sizeof cs->layouts) return;
    if (used) cs->layouts[used++] = ',';
    memcpy(cs->layouts + used, low, n + 1);
}

void pc_case_scope_of(const pc_case *k, pc_case_scope *out)
{
    memset(out, 0, sizeof *out);
    const char *layout = pc_json_str(k->expect, "layout");
    /* "gguf" and "safetensors" name a container, not a layout: a GGUF case's layouts are its block types */
    if (!strcmp(layout, "gguf") || !strcmp(layout, "safetensors")) layout = "";
    size_t len = strlen(k->input);
    bool gguf = len >= 5 && !strcasecmp(k->input + len - 5, ".gguf");
    pc_ctx cx;
    pc_input *in = NULL;
    if ((gguf || !*layout) && !pc_ctx_init(&cx, PC_PROFILE_STRICT)) {
        in = pc_input_open(k->input, NULL, &cx);
        gguf = gguf || (in && in->is_gguf);
        for (size_t i = 0; in && in->is_gguf && !*layout && i < in->ntensors; i++) {
            uint32_t blck, bytes;
            const char *name = pc_ggml_type_name(in->tensors[i].ggml_type);
            if (name && pc_ggml_type_block(in->tensors[i].ggml_type, &blck, &bytes) && blck > 1) add_layout(out, name);
        }
        pc_input_free(in);
        pc_ctx_free(&cx);
    }
    snprintf(out->format, sizeof out->format, "%s", gguf ? "gguf" : "safetensors");
    if (*layout) add_layout(out, layout);
}

int pc_scope_add(const char **list, int *n, char *csv)
{
    for (char *save = NULL, *t = strtok_r(csv, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == PC_SCOPE_MAX) return -1;
        list[(*n)++] = t;
    }
    return 0;
}

static bool listed(const char *const *list, int n, const char *s, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(list[i]) == len && !strncasecmp(list[i], s, len)) return true;
    return false;
}

const char *pc_scope_excludes(const pc_scope *s, const pc_case_scope *cs, char *why, size_t cap)
{
    if (s->nformats && !listed(s->formats, s->nformats, cs->format, strlen(cs->format))) {
        snprintf(why, cap, "format %s", cs->format);
        return why;
    }
    if (!s->nlayouts) return NULL;
    for (const char *p = cs->layouts; *p;) {
        size_t n = strcspn(p, ",");
        if (!listed(s->layouts, s->nlayouts, p, n)) {
            snprintf(why, cap, "layout %.*s", (int)n, p);
            return why;
        }
        p += n + (p[n] == ',');
    }
    return NULL;
}

bool pc_scope_declared(const pc_scope *s) { return s->nlayouts || s->nformats; }
