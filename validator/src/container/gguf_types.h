/* The ggml type registry (gguf_types.c): every tensor type id a GGUF file may carry, as data.
 *
 * Upstream ids (ggml-org/ggml, as vendored in llama.cpp) with their block geometry and where each
 * came from; and the ids known forks assign, either fork-only (no upstream type has the id) or a
 * collision (a fork used an upstream id for another layout, before or beside upstream). The container
 * reader sizes tensors from the upstream rows (GGUF-022..024) and names forks from the others
 * (GGUF-039, GGUF-040). */
#ifndef PC_GGUF_TYPES_H
#define PC_GGUF_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pc_ggml_type_row {
    int id;
    const char *name;
    uint32_t blck, bytes;   /* elements and bytes per block */
    const char *since;      /* the upstream change that introduced it */
} pc_ggml_type_row;

typedef enum { PC_FORK_ONLY, PC_FORK_COLLISION } pc_fork_kind;

typedef struct pc_ggml_fork_row {
    int id;
    pc_fork_kind kind;
    const char *fork;       /* who assigned it */
    const char *name;       /* the fork's name for the type */
    uint32_t blck, bytes;   /* the fork's geometry; 0 when not published */
    const char *loaders;    /* which readers load a file carrying it */
    const char *evidence;
} pc_ggml_fork_row;

/* The upstream row of id, or NULL (unknown, removed or negative). */
const pc_ggml_type_row *pc_ggml_upstream(int id);
/* The i-th fork row of id (i = 0, 1, ...), or NULL past the last. */
const pc_ggml_fork_row *pc_ggml_fork(int id, size_t i);
/* The k-th fork row of the whole table, or NULL past the last. */
const pc_ggml_fork_row *pc_ggml_fork_at(size_t k);
/* The first fork-only row of id, or NULL. */
const pc_ggml_fork_row *pc_ggml_fork_only(int id);
#endif
