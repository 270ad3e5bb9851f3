/* Python re.match for config patterns (pyre.h) with a linear-time engine: the pattern is parsed
 * once into a small tree, compiled into a Thompson NFA of at most PYRE_MAX_PROG instructions
 * (counted repetition expanded, its size computed before any expansion), and run as a set
 * simulation over the name's code points: time O(len(name) x program), memory O(program), for
 * any pattern. Compiled programs are cached by pattern text, so a config's 20,000 patterns are
 * compiled once, not once per module. Python semantics: anchored at the start only, `.` is any
 * code point but newline, `$` matches at the end or before a final newline; \d \w \s are ASCII
 * (module names are), as the POSIX translation this replaces had them. */
#include "pyre.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PYRE_MAX_PATTERN 4096
/* What one input's patterns may cost together (pyre.h PYRE_INPUT_MAX_PROG, PYRE_INPUT_MAX_STEPS). The
 * cache keeps every program until pc_pyre_reset: a config cycling through more patterns than it
 * holds used to flush it on every miss and recompile each pattern once per module (1,000 modules x
 * 1,000 large patterns: minutes). Now a pattern past the budget is refused once and remembered. */
#define PYRE_MAX_DEPTH 200

/* ---- the tree ---- */

enum { N_LIT, N_ANY, N_CLASS, N_BOL, N_EOL, N_EMPTY, N_CAT, N_ALT, N_REP };
#define REP_INF UINT32_MAX

typedef struct node {
    int type;
    uint32_t c;               /* N_LIT code point; N_CLASS index */
    uint32_t min, max;        /* N_REP */
    struct node *a, *b;       /* N_CAT / N_ALT: a then b; N_REP: a */
} node;

/* A class: ranges of code points, negated or not. */
typedef struct cls { uint32_t (*r)[2]; size_t n; bool neg; } cls;

typedef struct parser {
    const char *p;
    int err;                  /* PC_PYRE_SYNTAX or PC_PYRE_LIMIT, 0 while fine */
    int depth;                /* groups open (the parser recurses per group) */
    node *nodes;
    size_t nnodes, capnodes;
    cls *classes;
    size_t nclasses;
} parser;

static node *mk(parser *ps, int type)
{
    if (ps->nnodes == ps->capnodes) {
        /* A node per pattern byte at most, plus one CAT/ALT per byte: 2 * strlen + 2 suffices. */
        ps->err = PC_PYRE_SYNTAX;
        return NULL;
    }
    node *n = &ps->nodes[ps->nnodes++];
    memset(n, 0, sizeof *n);
    n->type = type;
    return n;
}

static bool add_range(cls *c, uint32_t lo, uint32_t hi)
{
    void *nr = realloc(c->r, (c->n + 1) * sizeof *c->r);
    if (!nr) return false;
    c->r = nr;
    c->r[c->n][0] = lo;
    c->r[c->n][1] = hi;
    c->n++;
    return true;
}

/* The shorthand classes, ASCII as the ERE translation had them. */
static bool add_shorthand(cls *c, char k)
{
    switch (k) {
    case 'd': return add_range(c, '0', '9');
    case 'w': return add_range(c, 'a', 'z') && add_range(c, 'A', 'Z') && add_range(c, '0', '9') && add_range(c, '_', '_');
    case 's': return add_range(c, ' ', ' ') && add_range(c, '\t', '\r'); /* \t \n \v \f \r */
    default: return false;
    }
}

/* One code point of the pattern (patterns are UTF-8 text; a stray byte stands for itself). */
static uint32_t take_cp(const char **pp)
{
    const unsigned char *s = (const unsigned char *)*pp;
    uint32_t c = s[0];
    int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 1;
    if (len > 1) {
        c &= 0x3f >> (len - 1);
        for (int i = 1; i < len; i++) {
            if ((s[i] & 0xc0) != 0x80) { len = 1; c = s[0]; break; }
            c = (c << 6) | (s[i] & 0x3f);
        }
    }
    *pp += len;
    return c;
}

/* Escapes that stand for one character, inside or outside a class. */
static bool simple_escape(char k, uint32_t *out)
{
    static const char specials[] = ".[]()*+?{}|^$\\-/_:,=!<>'\"#&~% @;`";
    switch (k) {
    case 'n': *out = '\n'; return true;
    case 't': *out = '\t'; return true;
    case 'r': *out = '\r'; return true;
    case 'f': *out = '\f'; return true;
    case 'v': *out = '\v'; return true;
    default: break;
    }
    if (k && strchr(specials, k)) { *out = (uint32_t)(unsigned char)k; return true; }
    return false; /* letters and digits: Python's own escapes (\b, \A, \1, ...) or errors */
}

static node *parse_class(parser *ps)
{
    cls c = {NULL, 0, false};
    if (*ps->p == '^') { c.neg = true; ps->p++; }
    bool first = true;
    while (*ps->p && (*ps->p != ']' || first)) {
        first = false;
        uint32_t lo;
        if (ps->p[0] == '\\') {
            char k = ps->p[1];
            if (k == 'd' || k == 'w' || k == 's') { if (!add_shorthand(&c, k)) goto oom; ps->p += 2; continue; }
            if (k == 'D' || k == 'W' || k == 'S' || !simple_escape(k, &lo)) goto bad; /* negated shorthands in a class: not here */
            ps->p += 2;
        } else {
            lo = take_cp(&ps->p);
        }
        uint32_t hi = lo;
        if (ps->p[0] == '-' && ps->p[1] && ps->p[1] != ']') {
            ps->p++;
            if (ps->p[0] == '\\') {
                if (!simple_escape(ps->p[1], &hi)) goto bad;
                ps->p += 2;
            } else {
                hi = take_cp(&ps->p);
            }
            if (hi < lo) goto bad; /* "bad character range" */
        }
        if (!add_range(&c, lo, hi)) goto oom;
    }
    if (*ps->p != ']') goto bad;
    ps->p++;
    cls *nc = realloc(ps->classes, (ps->nclasses + 1) * sizeof *nc);
    if (!nc) goto oom;
    ps->classes = nc;
    ps->classes[ps->nclasses] = c;
    node *n = mk(ps, N_CLASS);
    if (n) n->c = (uint32_t)ps->nclasses++;
    else free(c.r);
    return n;
bad:
    ps->err = PC_PYRE_SYNTAX;
    free(c.r);
    return NULL;
oom:
    ps->err = PC_PYRE_LIMIT;
    free(c.r);
    return NULL;
}

static node *shorthand_node(parser *ps, char k)
{
    cls c = {NULL, 0, k == 'D' || k == 'W' || k == 'S'};
    char lower = (char)(k | 0x20);
    cls *nc = realloc(ps->classes, (ps->nclasses + 1) * sizeof *nc);
    if (!nc || !add_shorthand(&c, lower)) { free(c.r); ps->err = PC_PYRE_LIMIT; if (nc) ps->classes = nc; return NULL; }
    ps->classes = nc;
    ps->classes[ps->nclasses] = c;
    node *n = mk(ps, N_CLASS);
    if (n) n->c = (uint32_t)ps->nclasses++;
    return n;
}

static node *parse_alt(parser *ps);

static node *parse_atom(parser *ps)
{
    const char *p = ps->p;
    if (*p == '(') {
        if (p[1] == '?') {
            if (p[2] != ':') { ps->err = PC_PYRE_SYNTAX; return NULL; } /* lookaround, flags, named groups */
            ps->p += 3;
        } else {
            ps->p += 1;
        }
        if (++ps->depth > PYRE_MAX_DEPTH) { ps->err = PC_PYRE_LIMIT; return NULL; }
        node *n = parse_alt(ps);
        ps->depth--;
        if (!n) return NULL;
        if (*ps->p != ')') { ps->err = PC_PYRE_SYNTAX; return NULL; }
        ps->p++;
        return n;
    }
    if (*p == '[') { ps->p++; return parse_class(ps); }
    if (*p == '.') { ps->p++; return mk(ps, N_ANY); }
    if (*p == '^') { ps->p++; return mk(ps, N_BOL); }
    if (*p == '$') { ps->p++; return mk(ps, N_EOL); }
    if (*p == '\\') {
        char k = p[1];
        if (strchr("dDwWsS", k) && k) { ps->p += 2; return shorthand_node(ps, k); }
        uint32_t c;
        if (!simple_escape(k, &c)) { ps->err = PC_PYRE_SYNTAX; return NULL; } /* \1, \b, \A, \q, ... */
        ps->p += 2;
        node *n = mk(ps, N_LIT);
        if (n) n->c = c;
        return n;
    }
    if (*p == ')' || *p == '*' || *p == '+' || *p == '?') { ps->err = PC_PYRE_SYNTAX; return NULL; } /* nothing to repeat */
    node *n = mk(ps, N_LIT);
    if (n) n->c = take_cp(&ps->p);
    return n;
}

/* {m}, {m,}, {m,n}, {,n} as Python reads them; *ok false when the brace is a literal '{'. */
static bool parse_braces(const char *p, uint32_t *min, uint32_t *max, const char **end)
{
    const char *q = p + 1;
    uint64_t a = 0, b = 0;
    bool have_a = false, have_b = false, comma = false;
    for (; *q >= '0' && *q <= '9'; q++, have_a = true) a = a * 10 + (uint64_t)(*q - '0') > 0xffffffffull ? 0x100000000ull : a * 10 + (uint64_t)(*q - '0');
    if (*q == ',') {
        comma = true;
        for (q++; *q >= '0' && *q <= '9'; q++, have_b = true) b = b * 10 + (uint64_t)(*q - '0') > 0xffffffffull ? 0x100000000ull : b * 10 + (uint64_t)(*q - '0');
    }
    if (*q != '}' || (!have_a && !have_b && comma) || (!have_a && !comma)) return false;
    *min = have_a ? (a > 0xfffffffeull ? 0xfffffffeu : (uint32_t)a) : 0;
    *max = comma ? (have_b ? (b > 0xfffffffeull ? 0xfffffffeu : (uint32_t)b) : REP_INF) : *min;
    *end = q + 1;
    return true;
}

static node *parse_repeat(parser *ps)
{
    node *a = parse_atom(ps);
    for (int reps = 0; a; reps++) {
        uint32_t min, max;
        const char *end = ps->p + 1;
        if (*ps->p == '*') min = 0, max = REP_INF;
        else if (*ps->p == '+') min = 1, max = REP_INF;
        else if (*ps->p == '?') min = 0, max = 1;
        else if (*ps->p == '{' && parse_braces(ps->p, &min, &max, &end)) {
            if (max < min) { ps->err = PC_PYRE_SYNTAX; return NULL; } /* "min repeat greater than max repeat" */
        } else break;
        if (reps) { ps->err = PC_PYRE_SYNTAX; return NULL; } /* "multiple repeat": a** or a{2}{3} */
        ps->p = end;
        /* Lazy and possessive forms are refused as before (the test holds CPython's answers). */
        if (*ps->p == '?' || *ps->p == '+') { ps->err = PC_PYRE_SYNTAX; return NULL; }
        if (a->type == N_BOL || a->type == N_EOL) { ps->err = PC_PYRE_SYNTAX; return NULL; }
        node *r = mk(ps, N_REP);
        if (!r) return NULL;
        r->a = a;
        r->min = min;
        r->max = max;
        a = r;
    }
    return a;
}

static node *parse_cat(parser *ps)
{
    node *acc = NULL;
    while (*ps->p && *ps->p != '|' && *ps->p != ')') {
        node *n = parse_repeat(ps);
        if (!n) return NULL;
        if (!acc) { acc = n; continue; }
        node *c = mk(ps, N_CAT);
        if (!c) return NULL;
        c->a = acc;
        c->b = n;
        acc = c;
    }
    return acc ? acc : mk(ps, N_EMPTY);
}

static node *parse_alt(parser *ps)
{
    node *a = parse_cat(ps);
    while (a && *ps->p == '|') {
        ps->p++;
        node *b = parse_cat(ps);
        if (!b) return NULL;
        node *n = mk(ps, N_ALT);
        if (!n) return NULL;
        n->a = a;
        n->b = b;
        a = n;
    }
    return a;
}

/* ---- size (before expansion, saturating) and code generation ---- */

enum { I_LIT, I_ANY, I_CLASS, I_BOL, I_EOL, I_SPLIT, I_JMP, I_MATCH };
typedef struct inst { uint8_t op; uint32_t x, y; } inst;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b > PYRE_MAX_PROG + 1ull ? PYRE_MAX_PROG + 1ull : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > (PYRE_MAX_PROG + 1ull) / a ? PYRE_MAX_PROG + 1ull : sat_add(a * b, 0); }

static uint64_t size_of(const node *n)
{
    switch (n->type) {
    case N_EMPTY: return 1; /* emits nothing, but counted: repeating it must still cost work to emit */
    case N_CAT: return sat_add(size_of(n->a), size_of(n->b));
    case N_ALT: return sat_add(sat_add(size_of(n->a), size_of(n->b)), 2);
    case N_REP: {
        uint64_t s = size_of(n->a);
        uint64_t fixed = sat_mul(s, n->min);
        if (n->max == REP_INF) return sat_add(fixed, s + 2);
        return sat_add(fixed, sat_mul(s + 1, (uint64_t)n->max - n->min));
    }
    default: return 1;
    }
}

typedef struct prog { inst *code; size_t n; cls *classes; size_t nclasses; } prog;

static void emit(prog *pg, const node *n);

static void emit_one(prog *pg, uint8_t op, uint32_t x, uint32_t y) { pg->code[pg->n++] = (inst){op, x, y}; }

static void emit(prog *pg, const node *n)
{
    switch (n->type) {
    case N_LIT: emit_one(pg, I_LIT, n->c, 0); break;
    case N_ANY: emit_one(pg, I_ANY, 0, 0); break;
    case N_CLASS: emit_one(pg, I_CLASS, n->c, 0); break;
    case N_BOL: emit_one(pg, I_BOL, 0, 0); break;
    case N_EOL: emit_one(pg, I_EOL, 0, 0); break;
    case N_EMPTY: break;
    case N_CAT: emit(pg, n->a); emit(pg, n->b); break;
    case N_ALT: {
        size_t split = pg->n;
        emit_one(pg, I_SPLIT, 0, 0);
        pg->code[split].x = (uint32_t)pg->n;
        emit(pg, n->a);
        size_t jmp = pg->n;
        emit_one(pg, I_JMP, 0, 0);
        pg->code[split].y = (uint32_t)pg->n;
        emit(pg, n->b);
        pg->code[jmp].x = (uint32_t)pg->n;
        break;
    }
    case N_REP: {
        for (uint32_t i = 0; i < n->min; i++) emit(pg, n->a);
        if (n->max == REP_INF) { /* L: split body, out; body; jmp L */
            size_t split = pg->n;
            emit_one(pg, I_SPLIT, (uint32_t)pg->n + 1, 0);
            emit(pg, n->a);
            emit_one(pg, I_JMP, (uint32_t)split, 0);
            pg->code[split].y = (uint32_t)pg->n;
        } else { /* (body (body (...)?)?)? : each optional copy skips to the very end */
            size_t nopt = n->max - n->min, *splits = nopt ? malloc(nopt * sizeof *splits) : NULL;
            for (size_t i = 0; i < nopt; i++) {
                size_t split = pg->n;
                emit_one(pg, I_SPLIT, (uint32_t)pg->n + 1, 0);
                if (splits) splits[i] = split;
                emit(pg, n->a);
            }
            for (size_t i = 0; splits && i < nopt; i++) pg->code[splits[i]].y = (uint32_t)pg->n;
            free(splits);
        }
        break;
    }
    }
}

/* ---- the cache ---- */

/* Prefilters, from the pattern's top-level concatenation: a literal prefix the name must start with
 * and the longest literal run it must contain. Most of a config's patterns fail one of them, so a
 * module tested against 20,000 patterns runs the automaton for very few. */
#define LIT_MAX 48
typedef struct entry {
    struct entry *next;
    uint64_t hash;
    prog pg;
    int status;
    uint8_t nprefix, nneed;
    char prefix[LIT_MAX], need[LIT_MAX + 1];
    char pat[];               /* the pattern text */
} entry;
enum { NBUCKETS = 1 << 16 };
static entry *g_buckets[NBUCKETS];
static size_t g_cached_prog;
static uint64_t g_steps; /* automaton states visited since the last reset */
static bool g_budget_told; /* pc_pyre_budget_notice has answered true since the last reset */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* The top-level sequence of a tree, left to right (CAT nodes are left-deep). */
static size_t flatten(const node *n, const node **out, size_t cap)
{
    if (n->type != N_CAT) { if (cap) out[0] = n; return 1; }
    size_t k = flatten(n->a, out, cap);
    return k + flatten(n->b, k < cap ? out + k : NULL, k < cap ? cap - k : 0);
}

static void prefilters(const node *root, entry *e)
{
    enum { MAXSEQ = 8192 };
    const node **seq = malloc(MAXSEQ * sizeof *seq);
    if (!seq) return;
    size_t n = flatten(root, seq, MAXSEQ);
    if (n > MAXSEQ) n = MAXSEQ;
    char run[LIT_MAX];
    size_t rn = 0;
    bool at_start = true;
    for (size_t i = 0; i <= n; i++) {
        const node *x = i < n ? seq[i] : NULL;
        if (x && x->type == N_BOL && at_start && rn == 0) continue;
        if (x && x->type == N_LIT && x->c < 0x80 && rn < LIT_MAX) { run[rn++] = (char)x->c; continue; }
        /* the run ends here */
        if (at_start) { memcpy(e->prefix, run, rn); e->nprefix = (uint8_t)rn; }
        if (rn > e->nneed) { memcpy(e->need, run, rn); e->need[rn] = 0; e->nneed = (uint8_t)rn; }
        at_start = false;
        rn = 0;
        if (x && x->type == N_LIT && x->c < 0x80) run[rn++] = (char)x->c; /* a run longer than LIT_MAX goes on */
    }
    free(seq);
}

static void prog_free(prog *pg)
{
    for (size_t i = 0; i < pg->nclasses; i++) free(pg->classes[i].r);
    free(pg->classes);
    free(pg->code);
}

static void cache_flush(void)
{
    for (size_t i = 0; i < NBUCKETS; i++) {
        for (entry *e = g_buckets[i], *nx; e; e = nx) { nx = e->next; prog_free(&e->pg); free(e); }
        g_buckets[i] = NULL;
    }
    g_cached_prog = 0;
}

static int compile(const char *pattern, prog *pg, entry *e)
{
    memset(pg, 0, sizeof *pg);
    size_t len = strlen(pattern);
    if (len > PYRE_MAX_PATTERN) return PC_PYRE_LIMIT;
    parser ps = {.p = pattern, .capnodes = 2 * len + 2};
    ps.nodes = malloc(ps.capnodes * sizeof *ps.nodes);
    if (!ps.nodes) return PC_PYRE_LIMIT;
    node *root = parse_alt(&ps);
    if (!ps.err && *ps.p) ps.err = PC_PYRE_SYNTAX; /* an unmatched ')' */
    uint64_t size = root && !ps.err ? size_of(root) + 1 : 0;
    if (!ps.err && size > PYRE_MAX_PROG) ps.err = PC_PYRE_LIMIT;
    if (!ps.err && !(pg->code = malloc((size_t)size * sizeof *pg->code))) ps.err = PC_PYRE_LIMIT;
    if (!ps.err) {
        emit(pg, root);
        emit_one(pg, I_MATCH, 0, 0);
        prefilters(root, e);
    }
    pg->classes = ps.classes;
    pg->nclasses = ps.nclasses;
    free(ps.nodes);
    if (ps.err) { prog_free(pg); memset(pg, 0, sizeof *pg); }
    return ps.err;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

/* The cached program for pattern (compiled on first use). */
static const entry *lookup(const char *pattern)
{
    uint64_t h = hash(pattern);
    size_t b = (size_t)(h & (NBUCKETS - 1));
    for (entry *e = g_buckets[b]; e; e = e->next)
        if (e->hash == h && !strcmp(e->pat, pattern)) return e;
    size_t len = strlen(pattern);
    entry *e = calloc(1, sizeof *e + len + 1);
    if (!e) return NULL;
    memcpy(e->pat, pattern, len + 1);
    e->hash = h;
    e->status = compile(pattern, &e->pg, e);
    if (g_cached_prog + e->pg.n > PYRE_INPUT_MAX_PROG) {
        prog_free(&e->pg);
        memset(&e->pg, 0, sizeof e->pg);
        e->status = PC_PYRE_BUDGET;
    }
    g_cached_prog += e->pg.n;
    e->next = g_buckets[b];
    g_buckets[b] = e;
    return e;
}

/* ---- the simulation ---- */

typedef struct threads { uint32_t *pc; size_t n; } threads;

static bool in_class(const cls *c, uint32_t cp)
{
    bool in = false;
    for (size_t i = 0; i < c->n && !in; i++) in = cp >= c->r[i][0] && cp <= c->r[i][1];
    return in != c->neg;
}

/* Follow SPLIT/JMP/BOL/EOL from pc; gen marks what this step has already added (each state once per
 * step: that bounds the work per character by the program size, whatever the loops). */
static bool add(const prog *pg, threads *t, uint32_t *mark, uint32_t gen, uint32_t *stack, uint32_t pc, size_t at, size_t len,
                const unsigned char *s)
{
    size_t sp = 0;
    stack[sp++] = pc;
    bool matched = false;
    while (sp) {
        uint32_t i = stack[--sp];
        g_steps++;
        if (mark[i] == gen) continue;
        mark[i] = gen;
        const inst *in = &pg->code[i];
        switch (in->op) {
        case I_JMP: stack[sp++] = in->x; break;
        case I_SPLIT: stack[sp++] = in->y; stack[sp++] = in->x; break;
        case I_BOL: if (at == 0) stack[sp++] = i + 1; break;
        case I_EOL: if (at == len || (at + 1 == len && s[at] == '\n')) stack[sp++] = i + 1; break;
        case I_MATCH: matched = true; break;
        default: t->pc[t->n++] = i; break;
        }
    }
    return matched;
}

/* Scratch for run(), reused under g_lock: no allocation per (pattern, name) pair. mark[] holds the
 * step generation that last added each state; it is cleared only when the counter would wrap. */
static uint32_t *g_buf, *g_mark, g_gen;
static size_t g_cap;

static bool scratch(size_t n)
{
    if (n <= g_cap) return true;
    uint32_t *b = malloc((4 * n + 1) * sizeof *b), *m = calloc(n, sizeof *m);
    if (!b || !m) { free(b); free(m); return false; }
    free(g_buf);
    free(g_mark);
    g_buf = b;
    g_mark = m;
    g_cap = n;
    g_gen = 0;
    return true;
}

static uint32_t next_gen(void)
{
    if (g_gen == UINT32_MAX - 1) { memset(g_mark, 0, g_cap * sizeof *g_mark); g_gen = 0; }
    return ++g_gen;
}

static int run(const prog *pg, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t len = strlen(name), n = pg->n;
    /* Each state is pushed at most twice per closure (a SPLIT pushes two): 2n + 1 slots suffice. */
    if (!scratch(n)) return PC_PYRE_LIMIT;
    threads cur = {g_buf, 0}, next = {g_buf + n, 0};
    uint32_t *stack = g_buf + 2 * n, *mark = g_mark;
    int rc = add(pg, &cur, mark, next_gen(), stack, 0, 0, len, s) ? 1 : 0;
    for (size_t at = 0; !rc && cur.n && at < len;) {
        if (g_steps > PYRE_INPUT_MAX_STEPS) return PC_PYRE_BUDGET;
        const char *q = name + at;
        uint32_t cp = take_cp(&q);
        size_t nat = (size_t)(q - name);
        next.n = 0;
        uint32_t gen = next_gen();
        for (size_t k = 0; k < cur.n && !rc; k++) {
            const inst *in = &pg->code[cur.pc[k]];
            bool ok = in->op == I_ANY ? cp != '\n' : in->op == I_LIT ? cp == in->x : in_class(&pg->classes[in->x], cp);
            if (ok && add(pg, &next, mark, gen, stack, cur.pc[k] + 1, nat, len, s)) rc = 1;
        }
        threads t = cur;
        cur = next;
        next = t;
        at = nat;
    }
    return rc;
}

int pc_pyre_match(const char *pattern, const char *name)
{
    pthread_mutex_lock(&g_lock);
    const entry *e = g_steps > PYRE_INPUT_MAX_STEPS ? NULL : lookup(pattern);
    int rc = !e ? (g_steps > PYRE_INPUT_MAX_STEPS ? PC_PYRE_BUDGET : PC_PYRE_LIMIT) : e->status ? e->status
           : strncmp(name, e->prefix, e->nprefix) || (e->nneed && !strstr(name, e->need)) ? 0
           : run(&e->pg, name);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int pc_pyre_check(const char *pattern)
{
    pthread_mutex_lock(&g_lock);
    const entry *e = lookup(pattern);
    int rc = !e ? PC_PYRE_LIMIT : e->status;
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void pc_pyre_reset(void)
{
    pthread_mutex_lock(&g_lock);
    cache_flush();
    g_steps = 0;
    g_budget_told = false;
    pthread_mutex_unlock(&g_lock);
}

bool pc_pyre_budget_notice(void)
{
    pthread_mutex_lock(&g_lock);
    bool first = !g_budget_told;
    g_budget_told = true;
    pthread_mutex_unlock(&g_lock);
    return first;
}
