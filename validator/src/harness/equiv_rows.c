/* Row permutations of a logical view, and equiv's diagnosis of a row-permuting converter (see
 * equiv_rows.h). */
#include "formats/format.h"
#include "equiv_rows.h"

#include "../core/util.h"
#include "diagnose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_PROBES 4096u /* byte comparisons per row before giving up (hostile hash collisions) */
#define MAX_RANGES 4     /* ranges named in a detail */

typedef struct row_key { uint64_t h, row; } row_key;

/* FNV-1a 64: deterministic, and byte equality is confirmed anyway. */
static uint64_t row_hash(const uint8_t *p, uint64_t K)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t k = 0; k < K; k++) h = (h ^ p[k]) * 0x100000001b3ull;
    return h;
}

static int cmp_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* First index in keys[0, n) whose (h, row) is not below (h, row). */
static size_t lower_bound(const row_key *keys, size_t n, uint64_t h, uint64_t row)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid].h < h || (keys[mid].h == h && keys[mid].row < row)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* One expert: rows [0, N) of src and dst at base. keys, used, cur are scratch of N entries. */
static int perm_expert(const uint8_t *src, const uint8_t *dst, uint64_t N, uint64_t K, row_key *keys, bool *used, size_t *cur, uint64_t *from)
{
    for (uint64_t n = 0; n < N; n++) keys[n] = (row_key){row_hash(src + n * K, K), n};
    pc_sort(keys, (size_t)N, sizeof *keys, cmp_key);
    memset(used, 0, (size_t)N * sizeof *used);
    for (size_t i = 0; i < (size_t)N; i++) cur[i] = i; /* per hash run: the first entry not yet taken */
    for (uint64_t r = 0; r < N; r++) {
        const uint8_t *row = dst + r * K;
        uint64_t h = row_hash(row, K);
        size_t lo = lower_bound(keys, (size_t)N, h, 0), at = lower_bound(keys, (size_t)N, h, r);
        if (lo == N || keys[lo].h != h) return 1;
        size_t pick = SIZE_MAX;
        /* The same row at the same place stays put: only rows that really moved are reported. */
        if (at < N && keys[at].h == h && keys[at].row == r && !used[at] && !memcmp(src + r * K, row, (size_t)K)) pick = at;
        while (cur[lo] < N && keys[cur[lo]].h == h && used[cur[lo]]) cur[lo]++;
        unsigned probes = 0;
        for (size_t i = cur[lo]; pick == SIZE_MAX && i < N && keys[i].h == h && probes < ROW_PROBES; i++)
            if (!used[i] && (probes++, !memcmp(src + keys[i].row * K, row, (size_t)K))) pick = i;
        if (pick == SIZE_MAX) return 1;
        used[pick] = true;
        from[r] = keys[pick].row;
    }
    return 0;
}

int pc_row_perm_find(const uint8_t *src, const uint8_t *dst, uint64_t E, uint64_t N, uint64_t K, pc_row_perm *p)
{
    memset(p, 0, sizeof *p);
    if (!N || !K || !E) return 1;
    uint64_t rows = E * N;
    p->from = malloc((size_t)rows * sizeof *p->from);
    row_key *keys = malloc((size_t)N * sizeof *keys);
    bool *used = malloc((size_t)N * sizeof *used);
    size_t *cur = malloc((size_t)N * sizeof *cur);
    int rc = -1;
    if (!p->from || !keys || !used || !cur) goto out;
    rc = 0;
    for (uint64_t e = 0; e < E && !rc; e++) rc = perm_expert(src + e * N * K, dst + e * N * K, N, K, keys, used, cur, p->from + e * N);
    p->E = E;
    p->N = N;
    p->K = K;
    for (uint64_t r = 0; r < rows; r++) p->moved += p->from[r] != r % N;
out:
    free(keys);
    free(used);
    free(cur);
    if (rc) pc_row_perm_free(p);
    return rc;
}

void pc_row_perm_free(pc_row_perm *p)
{
    free(p->from);
    p->from = NULL;
}

/* Runs of moved rows with one offset: rows a..b hold source rows a+d..b+d. */
void pc_row_perm_ranges(const pc_row_perm *p, char *buf, size_t n)
{
    size_t len = 0, runs = 0;
    buf[0] = 0;
    for (uint64_t e = 0; e < p->E; e++)
        for (uint64_t r = 0; r < p->N;) {
            const uint64_t *f = p->from + e * p->N;
            if (f[r] == r) { r++; continue; }
            uint64_t a = r;
            while (r + 1 < p->N && f[r + 1] != r + 1 && f[r + 1] - (r + 1) == f[a] - a) r++;
            if (runs++ < MAX_RANGES && len < n) {
                char ex[32] = "";
                if (p->E > 1) snprintf(ex, sizeof ex, "expert %llu ", (unsigned long long)e);
                int w = a == r ? snprintf(buf + len, n - len, "%s%srow %llu holds source row %llu", runs > 1 ? ", " : "", ex, (unsigned long long)a,
                                          (unsigned long long)f[a])
                               : snprintf(buf + len, n - len, "%s%srows %llu-%llu hold source rows %llu-%llu", runs > 1 ? ", " : "", ex,
                                          (unsigned long long)a, (unsigned long long)r, (unsigned long long)f[a], (unsigned long long)f[r]);
                if (w > 0) len += (size_t)w < n - len ? (size_t)w : n - len - 1;
            }
            r++;
        }
    if (runs > MAX_RANGES && len < n) snprintf(buf + len, n - len, ", and %zu more runs", runs - MAX_RANGES);
}

uint64_t pc_row_perm_group(const pc_row_perm *p)
{
    for (uint64_t g = 2; g <= 64 && g < p->N; g *= 2) {
        bool inside = true;
        for (uint64_t r = 0; r < p->E * p->N && inside; r++) inside = p->from[r] / g == r % p->N / g;
        if (inside) return g;
    }
    return 0;
}

/* ---- equiv's diagnosis ---- */

static const char k_moved_title[] = "rows permuted with their scales (the converter reordered rows and moved their scale rows: a reader must undo it)";

static void add_diagnosis(cJSON *js, const char *bug, const char *title, const char *detail)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "bug", bug);
    cJSON_AddStringToObject(d, "title", title);
    cJSON_AddStringToObject(d, "detail", detail);
    cJSON_AddItemToObject(js, "diagnosis", d);
}

/* Do the target's weights follow its rows (wb row r == wa row from[r])? */
static bool weights_moved(const pc_row_perm *p, const float *wa, const float *wb, const pc_tolerance *tol)
{
    for (uint64_t e = 0; e < p->E; e++)
        for (uint64_t n = 0; n < p->N; n++) {
            const float *b = wb + (e * p->N + n) * p->K, *a = wa + (e * p->N + p->from[e * p->N + n]) * p->K;
            for (uint64_t k = 0; k < p->K; k++)
                if (!pc_tolerance_within(tol, a[k], b[k])) return false;
        }
    return true;
}

/* Are the target's weights its (moved) codes under the source's parameters at the same position? 1 yes,
 * 0 no, -1 the parameters are not re-derivable (why in note). */
static int scales_kept(const pc_input *src, const pc_module *m, const uint8_t *ca, const float *wa, const uint8_t *cb, const float *wb,
                       const pc_tolerance *tol, char *note, size_t nn)
{
    dg_module dm;
    if (dg_module_load(src, m, ca, wa, &dm)) { snprintf(note, nn, "out of memory"); return -1; }
    int rc = -1;
    if (!dm.p.s) snprintf(note, nn, "%s", *dm.note ? dm.note : "parameters not re-derivable");
    else {
        rc = 1;
        for (size_t i = 0; i < dm.numel && rc; i++)
            if (!pc_tolerance_within(tol, dg_weight(&dm, i, cb[i]), wb[i])) rc = 0;
    }
    dg_module_free(&dm);
    return rc;
}

void pc_equiv_rows(const pc_input *src, const pc_module *m, const uint8_t *ca, const float *wa, const uint8_t *cb, const float *wb,
                   const pc_tolerance *tol, cJSON *js)
{
    if (m->ndim < 2 || m->ndim > 3) return;
    uint64_t E = m->ndim == 3 ? m->shape[0] : 1, N = m->shape[m->ndim - 2], K = m->shape[m->ndim - 1];
    pc_row_perm p;
    int rc = pc_row_perm_find(ca, cb, E, N, K, &p);
    if (rc < 0) cJSON_AddStringToObject(js, "diagnosis_note", "row permutation test: out of memory");
    if (rc || !p.moved) { pc_row_perm_free(&p); return; }
    char ranges[400], note[160] = "", detail[800];
    pc_row_perm_ranges(&p, ranges, sizeof ranges);
    char group[120] = "";
    uint64_t g = pc_row_perm_group(&p);
    if (g) snprintf(group, sizeof group, ", each within its aligned group of %llu rows: the pattern of a packed word's slot order", (unsigned long long)g);
    int n = snprintf(detail, sizeof detail, "the target's codes are the source's with rows permuted: %s (%llu of %llu rows moved%s); ", ranges,
                     (unsigned long long)p.moved, (unsigned long long)(E * N), group);
    size_t at = n > 0 && (size_t)n < sizeof detail ? (size_t)n : strlen(detail);
    if (weights_moved(&p, wa, wb, tol)) {
        snprintf(detail + at, sizeof detail - at, "their weights moved with them (scale rows permuted too): a reader must undo the permutation, "
                 "and the pair still differs since equiv compares positions (CONTRACT 7)");
        add_diagnosis(js, "rows-permuted", k_moved_title, detail);
    } else {
        int kept = scales_kept(src, m, ca, wa, cb, wb, tol, note, sizeof note);
        if (kept == 0) {
            snprintf(detail + at, sizeof detail - at, "but the weights follow neither the rows nor the scales left in place");
            cJSON_AddStringToObject(js, "diagnosis_note", detail);
        } else {
            if (kept > 0) snprintf(detail + at, sizeof detail - at, "the weights did not move with them: every target weight is its moved code "
                                   "dequantized with the scale left at its row (checked on every element)");
            else snprintf(detail + at, sizeof detail - at, "the weights did not move with them (that the scales stayed in place is not checked: %s)", note);
            add_diagnosis(js, pc_bug_id(PC_BUG_ROWS_SCALES_KEPT), pc_bug_title(PC_BUG_ROWS_SCALES_KEPT), detail);
        }
    }
    pc_row_perm_free(&p);
}
