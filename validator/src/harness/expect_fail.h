/* Expected-failure lists (--expect-fail FILE, --update-expect). */
#ifndef PC_EXPECT_FAIL_H
#define PC_EXPECT_FAIL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct pc_xf_entry { char *id, *outcome, *reason; bool seen; } pc_xf_entry;
typedef struct pc_xf_list { pc_xf_entry *e; size_t n; char *header; } pc_xf_list;

/* Load a list; a missing file is an empty list when may_be_missing. -1 (message on log) when the
 * file is unreadable or malformed. */
int pc_xf_load(const char *path, pc_xf_list *l, bool may_be_missing, FILE *log);
pc_xf_entry *pc_xf_find(pc_xf_list *l, const char *id);
void pc_xf_free(pc_xf_list *l);
/* Rewrite the list from a run's cases (every case whose outcome is not pass). */
/* corpus_line (may be NULL): "VERSION (MANIFEST sha256 DIGEST)", written as a "# corpus:" header line
 * in place of the old one, so the file records which corpus it was made against. */
int pc_xf_write(const char *path, const pc_xf_list *old, const cJSON *cases, const char *reader_name, const char *corpus_line);

#endif
