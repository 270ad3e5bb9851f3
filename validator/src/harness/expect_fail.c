/* Expected-failure lists of `packcheck certify` (CONTRACT 5, protobuf conformance semantics):
 * "<case-id> [<outcome>] [# reason]" per line. A listed case that fails (with the listed outcome,
 * when one is given) is expected; one that passes, fails differently or names no case fails the run.
 * --update-expect rewrites the list from a full run, keeping the leading comment block and every
 * reason already written. */
#define _XOPEN_SOURCE 700
#include "expect_fail.h"

#include "../core/atomic_file.h"
#include "../core/util.h"
#include "../report/report.h"

#include <stdlib.h>
#include <string.h>

void pc_xf_free(pc_xf_list *l)
{
    for (size_t i = 0; i < l->n; i++) { free(l->e[i].id); free(l->e[i].outcome); free(l->e[i].reason); }
    free(l->e);
    free(l->header);
    memset(l, 0, sizeof *l);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

static bool known_outcome(const char *s)
{
    static const char *const failures[] = {"wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout"};
    for (size_t i = 0; i < sizeof failures / sizeof *failures; i++)
        if (!strcmp(s, failures[i])) return true;
    return false;
}

/* "<case-id> [<outcome>] [# reason]" per line; '#' lines are comments (the leading block is kept
 * when the list is rewritten). Returns -1 with a message when the file is unusable. */
int pc_xf_load(const char *path, pc_xf_list *l, bool may_be_missing, FILE *log)
{
    memset(l, 0, sizeof *l);
    size_t len;
    char *text = pc_slurp(path, 16u << 20, &len);
    if (!text) {
        if (may_be_missing && !pc_file_exists(path)) return 0;
        fprintf(log, "certify: --expect-fail %s: unreadable\n", path);
        return -1;
    }
    pc_sb head = {0};
    bool in_head = true;
    int rc = 0;
    size_t lineno = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *t = trim(line);
        if (!*t || *t == '#') {
            if (in_head && *t) { pc_sb_puts(&head, t); pc_sb_puts(&head, "\n"); }
            continue;
        }
        in_head = false;
        char *hash = strchr(t, '#'), *reason = "";
        if (hash) { *hash = 0; reason = trim(hash + 1); }
        char *save2 = NULL, *id = strtok_r(t, " \t", &save2), *outc = strtok_r(NULL, " \t", &save2), *extra = strtok_r(NULL, " \t", &save2);
        if (extra || (outc && !known_outcome(outc))) {
            fprintf(log, "certify: %s:%zu: want \"<case-id> [<outcome>] [# reason]\" with outcome one of wrong-output, accepted-invalid, rejected-valid, crash, timeout\n", path, lineno);
            rc = -1;
            continue;
        }
        bool dup = false;
        for (size_t i = 0; i < l->n; i++) dup |= !strcmp(l->e[i].id, id);
        if (dup) { fprintf(log, "certify: %s:%zu: %s listed twice\n", path, lineno, id); rc = -1; continue; }
        pc_xf_entry *ne = realloc(l->e, (l->n + 1) * sizeof *ne);
        if (!ne) { rc = -1; break; }
        l->e = ne;
        l->e[l->n++] = (pc_xf_entry){pc_strdup(id), outc ? pc_strdup(outc) : NULL, pc_strdup(reason), false};
    }
    free(text);
    l->header = pc_sb_take(&head);
    return rc;
}

pc_xf_entry *pc_xf_find(pc_xf_list *l, const char *id)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->e[i].id, id)) return &l->e[i];
    return NULL;
}

/* The reader's own last word on a refusal or crash: the last line that reads like an error
 * ("refused: ...", "ValueError: ..."), else the last non-empty line. */
static void reader_word(const char *text, char *out, size_t n)
{
    const char *best = NULL, *last = NULL;
    size_t best_len = 0, last_len = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t')) q++;
        size_t ql = len - (size_t)(q - p);
        if (ql) { last = q; last_len = ql; }
        const char *colon = memchr(q, ':', ql);
        if (colon && (!strncmp(q, "refused", 7) || (colon - q > 5 && (!strncmp(colon - 5, "Error", 5) || !strncmp(colon - 9 > q ? colon - 9 : q, "Exception", 9)))))
            best = q, best_len = ql;
        p += len + (e != NULL);
    }
    if (!best) best = last, best_len = last_len;
    snprintf(out, n, "%.*s", best ? (int)best_len : 0, best ? best : "");
}

/* The header as it was, less any "# corpus:" line: the new one names the corpus of this run. */
static void put_header(FILE *f, const char *h)
{
    while (*h) {
        const char *e = strchr(h, '\n');
        size_t n = e ? (size_t)(e - h) + 1 : strlen(h);
        if (strncmp(h, "# corpus:", 9)) fwrite(h, 1, n, f);
        h += n;
    }
}

int pc_xf_write(const char *path, const pc_xf_list *old, const cJSON *cases, const char *reader_name, const char *corpus_line)
{
    /* Built in memory, then written atomically (core/atomic_file.c): no "<path>.tmp" of someone else's. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return -1;
    if (old->header && *old->header) put_header(f, old->header);
    else fprintf(f, "# packcheck certify: expected failures of reader \"%s\"\n# <case-id> <outcome>  # reason. Rewritten by --update-expect from a full run.\n",
                 reader_name);
    if (corpus_line && *corpus_line) fprintf(f, "# corpus: %s\n", corpus_line);
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *outc = pc_json_str(c, "outcome"), *id = pc_json_str(c, "case");
        if (!strcmp(outc, "pass")) continue;
        pc_xf_entry *e = NULL;
        for (size_t i = 0; i < old->n && !e; i++)
            if (!strcmp(old->e[i].id, id)) e = &old->e[i];
        char reason[160];
        if (e && e->reason && *e->reason) snprintf(reason, sizeof reason, "%s", e->reason);
        else {
            /* A new entry's reason: the diagnosis, else the reader's own last word (its stderr), else the detail. */
            const cJSON *dg = cJSON_GetObjectItem(c, "diagnosis");
            char last[160] = "";
            reader_word(pc_json_str(c, "log_tail"), last, sizeof last);
            bool own = *last && (!strcmp(outc, "rejected-valid") || !strcmp(outc, "crash"));
            snprintf(reason, sizeof reason, "%s", dg ? pc_json_str(dg, "title") : own ? last : pc_json_str(c, "detail"));
            for (char *q = reason; *q; q++) if (*q == '\n' || *q == '#') *q = ' ';
        }
        fprintf(f, "%s %s  # %s\n", id, outc, reason);
    }
    int rc = fclose(f) ? -1 : pc_afile_put(path, text, len);
    free(text);
    return rc;
}
