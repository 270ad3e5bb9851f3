/* A corpus (CONTRACT 4): DIR/<family>/<case>/{inputs, expect.json} and DIR/MANIFEST.sha256. */
#ifndef PC_CORPUS_H
#define PC_CORPUS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct pc_case {
    char *id;        /* "<family>/<case>" */
    char *dir;       /* DIR/<family>/<case> */
    char *input;     /* dir joined with expect.input */
    cJSON *expect;
    bool input_unsafe; /* expect.input is absolute or climbs out with ".."; input is then the folder */
} pc_case;

typedef struct pc_corpus {
    char *dir;
    char manifest_sha256[65];   /* digest of MANIFEST.sha256 itself: names the corpus */
    char *manifest;             /* its bytes as loaded: pins are checked against these, never a re-read */
    size_t manifest_len;
    pc_case *cases;
    size_t ncases;
    char version[32];           /* DIR/VERSION (MAJOR.MINOR.PATCH, fixtures/CHANGELOG.md), "" when absent */
} pc_corpus;

/* Load the cases (sorted by id). Pins are not checked here. Returns -1 when DIR is unusable. */
int pc_corpus_load(const char *dir, pc_corpus *c, FILE *log);
void pc_corpus_free(pc_corpus *c);
/* The version in DIR/VERSION into out[32]: "" when there is no such file, -1 when it is malformed. */
int pc_corpus_read_version(const char *dir, char out[32]);

/* Verify the manifest loaded with the corpus: MANIFEST.sha256 on disk still has its digest, every
 * listed file has its pinned digest, every file under DIR is listed.
 * Each problem is printed to log and appended to `problems` (strings). Returns the count. */
int pc_corpus_verify_pins(const pc_corpus *c, cJSON *problems, FILE *log);

/* `packcheck corpus`: pins, then every case. Returns the report document; *failed counts failures. */
cJSON *pc_corpus_run(const char *dir, FILE *log, int *failed);

/* Print the document's per-rule rollup as a table. */
void pc_corpus_print_rollup(const cJSON *doc, FILE *out);

#endif
