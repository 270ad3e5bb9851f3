/* The terminal line of one certified case (issue 32 item 3): the outcome and detail as before, and
 * what the JSON already knew but the terminal hid: the diagnosed bug of a wrong output, the tensor,
 * block and value of an accepted invalid input that break its rule, the reader's last stderr line,
 * and for exit 126/127 what to do about it. */
#ifndef PC_CERTIFY_LINE_H
#define PC_CERTIFY_LINE_H

#include "corpus.h"
#include "packcheck_internal.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

/* Colour the outcome word (the CLI decides: --color, NO_COLOR, a terminal). */
void pc_certify_line_colour(bool on);

/* What in the case breaks its reject rule, from packcheck's own validation of the case input:
 * "x.weight @146: block 1 has d = 0x7c00 (inf); ...". NULL when no finding of that rule is found.
 * Caller frees. */
char *pc_case_breach(const pc_case *k, pc_profile prof);

/* Print the line for case k whose report entry is cj (outcome, detail, diagnosis, exit, log_tail);
 * `label` is the first column (outcome, xfail or STALE). For an accepted-invalid case the breach is
 * added to cj as "breach". */
void pc_certify_line(FILE *log, const pc_case *k, cJSON *cj, const char *label, pc_profile prof);

#endif
