/* The one place where report text is made valid UTF-8 (issue 12 item 3). Names, config keys, index
 * entries and paths come from files and may hold any bytes; every renderer (JSON, JUnit XML,
 * Markdown, HTML, the stdout summary) renders the document this cleans, so none of them can emit
 * an undecodable report. */
#ifndef PC_TEXT_ESCAPE_H
#define PC_TEXT_ESCAPE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, surrogates or code
 * points past U+10FFFF), 0 when the byte at s starts none. n is the bytes available. */
size_t pc_utf8_seq_len(const unsigned char *s, size_t n);
bool pc_text_is_utf8(const char *s);
/* s with every byte that starts no well-formed sequence written as the four characters \xNN;
 * NULL when out of memory. */
char *pc_text_escape(const char *s);

/* The appended note every changed result message carries, so each renderer says what it did. */
#define PC_TEXT_ESCAPE_NOTE " [invalid UTF-8 shown as \\xNN]"

/* doc itself when every string and key in it is valid UTF-8; otherwise a cleaned copy, stored in
 * *owned (the caller deletes it), with "escaped_strings": N at the top. NULL when out of memory. */
const cJSON *pc_text_clean_doc(const cJSON *doc, cJSON **owned);

#endif
