/* Python's re.match for the module-name patterns configs carry (compressed-tensors targets and
 * ignore "re:" entries, GPTQModel "dynamic" keys), evaluated with POSIX ERE. */
#ifndef PC_PYRE_H
#define PC_PYRE_H

/* 1 when `pattern` matches at the start of `name` (Python re.match), 0 when not, -1 when the
 * pattern uses syntax with no ERE form here (lookaround, flags, named groups, lazy quantifiers,
 * back-references, unknown escapes) or is longer than 4096 bytes. */
int pc_pyre_match(const char *pattern, const char *name);

#endif
