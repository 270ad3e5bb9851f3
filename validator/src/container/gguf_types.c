/* The ggml type registry as data (gguf_types.h).
 *
 * Upstream rows: include/ggml.h enum ggml_type and ggml.c type_traits (blck_size, type_size) of
 * ggml d99724f (FORMATS.md 7.1) and of ggml 0.25.3, the llama.cpp vendored in llama-cpp-python
 * 0.3.36, which agree on every id. Removed ids (4, 5, 31-33, 36-38) have no row and are rejected
 * like unknown ones. Q8_1 is ggml's 36-byte block (gguf-py 0.19.0 still lists 40).
 *
 * Fork rows: ids that forks of llama.cpp assign, from the forks' own pull requests and issues. A
 * fork-only id has no upstream type; a collision is an upstream id a fork used for another layout,
 * which upstream readers refuse (the sizes do not tile) or misread (when they happen to). */
#include "gguf_types.h"

#include "../packcheck_internal.h"

#define OLD "in ggml's type table at d99724f (FORMATS.md 7.1)"

static const pc_ggml_type_row k_upstream[] = {
    [0] = {0, "F32", 1, 4, OLD}, [1] = {1, "F16", 1, 2, OLD}, [2] = {2, "Q4_0", 32, 18, OLD},
    [3] = {3, "Q4_1", 32, 20, OLD}, [6] = {6, "Q5_0", 32, 22, OLD}, [7] = {7, "Q5_1", 32, 24, OLD},
    [8] = {8, "Q8_0", 32, 34, OLD}, [9] = {9, "Q8_1", 32, 36, OLD}, [10] = {10, "Q2_K", 256, 84, OLD},
    [11] = {11, "Q3_K", 256, 110, OLD}, [12] = {12, "Q4_K", 256, 144, OLD}, [13] = {13, "Q5_K", 256, 176, OLD},
    [14] = {14, "Q6_K", 256, 210, OLD}, [15] = {15, "Q8_K", 256, 292, OLD}, [16] = {16, "IQ2_XXS", 256, 66, OLD},
    [17] = {17, "IQ2_XS", 256, 74, OLD}, [18] = {18, "IQ3_XXS", 256, 98, OLD}, [19] = {19, "IQ1_S", 256, 50, OLD},
    [20] = {20, "IQ4_NL", 32, 18, OLD}, [21] = {21, "IQ3_S", 256, 110, OLD}, [22] = {22, "IQ2_S", 256, 82, OLD},
    [23] = {23, "IQ4_XS", 256, 136, OLD}, [24] = {24, "I8", 1, 1, OLD}, [25] = {25, "I16", 1, 2, OLD},
    [26] = {26, "I32", 1, 4, OLD}, [27] = {27, "I64", 1, 8, OLD}, [28] = {28, "F64", 1, 8, OLD},
    [29] = {29, "IQ1_M", 256, 56, OLD}, [30] = {30, "BF16", 1, 2, OLD}, [34] = {34, "TQ1_0", 256, 54, OLD},
    [35] = {35, "TQ2_0", 256, 66, OLD},
    [39] = {39, "MXFP4", 32, 17, "llama.cpp PR #15091 (gpt-oss, 2025-08)"},
    [40] = {40, "NVFP4", 64, 36, "llama.cpp PR #19769 (2026-02)"},
    [41] = {41, "Q1_0", 128, 18, "llama.cpp PR #21273 (2026-04)"},
    [42] = {42, "Q2_0", 64, 18, "llama.cpp PR #24448 (2026-07)"},
};
#define N_UPSTREAM ((int)(sizeof k_upstream / sizeof *k_upstream))

#define PRISM_LOADERS "PrismML's llama.cpp fork (branch prism) and ports of it (beellama.cpp PR #169); not ggml-org llama.cpp " \
                      "(issue #29058; PR #29077 closed), not gguf-py, not LM Studio or Ollama builds of upstream"

static const pc_ggml_fork_row k_forks[] = {
    {142, PC_FORK_ONLY, "PrismML llama.cpp fork", "PQ2_0", 128, 34, PRISM_LOADERS,
     "ternary at group 128: fp16 d + 32 bytes of 2-bit codes (PrismML-Eng/llama.cpp PR #76 thread, #130; llama.cpp issue #29058)"},
    {143, PC_FORK_ONLY, "PrismML llama.cpp fork", "PTQ1_0", 128, 28, PRISM_LOADERS,
     "ternary at group 128, five trits per byte: qs[24] + qh[2] + fp16 d (PrismML-Eng/llama.cpp PR #148; llama.cpp issue #29058)"},
    {40, PC_FORK_COLLISION, "PrismML llama.cpp fork (early 2026, before upstream)", "Q1_0 (group 32)", 32, 6,
     "PrismML fork builds of 2026-03/04 and ports (llama-turboquant PR #6 remaps 40 to its own id); upstream reads 40 as NVFP4",
     "fp16 d + 4 bytes of sign bits per 32 (llama.cpp PR #20048, closed; llama-turboquant PR #6: 'PrismML's fork assigns type "
     "IDs 40 (Q1_0) and 41 (Q1_0_G128)')"},
    {41, PC_FORK_COLLISION, "PrismML llama.cpp fork (early 2026, before upstream)", "Q1_0_G128", 128, 18,
     "every reader of upstream Q1_0: the fork's layout is the one upstream merged as Q1_0 (llama.cpp PR #21273)",
     "fp16 d + 16 bytes of sign bits per 128 (llama.cpp PR #20048 -> #21273); LM Studio 'invalid ggml type 41' before "
     "upstream had it (lmstudio-bug-tracker #1729)"},
    {42, PC_FORK_COLLISION, "PrismML llama.cpp fork, prism-v5 line (legacy *-Q2_0.gguf)", "Q2_0 (group 128)", 128, 34,
     "PrismML's frozen prism-v5 branch only; PrismML's current builds refuse it by name (PrismML-Eng/llama.cpp #167), "
     "upstream reads 42 as group-64 Q2_0",
     "fp16 d + 32 bytes of 2-bit codes per 128 stored as id 42 (PrismML-Eng/llama.cpp #167, PR #130; llama.cpp PR #25188)"},
};
#define N_FORKS (sizeof k_forks / sizeof *k_forks)

const pc_ggml_type_row *pc_ggml_upstream(int id)
{
    if (id < 0 || id >= N_UPSTREAM || !k_upstream[id].blck) return NULL;
    return &k_upstream[id];
}

const pc_ggml_fork_row *pc_ggml_fork(int id, size_t i)
{
    for (size_t k = 0; k < N_FORKS; k++)
        if (k_forks[k].id == id && i-- == 0) return &k_forks[k];
    return NULL;
}

const pc_ggml_fork_row *pc_ggml_fork_at(size_t k) { return k < N_FORKS ? &k_forks[k] : NULL; }

const pc_ggml_fork_row *pc_ggml_fork_only(int id)
{
    const pc_ggml_fork_row *r;
    for (size_t i = 0; (r = pc_ggml_fork(id, i)); i++)
        if (r->kind == PC_FORK_ONLY) return r;
    return NULL;
}

/* The public lookups (packcheck.h), answered from the upstream rows. */
const char *pc_ggml_type_name(int type)
{
    const pc_ggml_type_row *r = pc_ggml_upstream(type);
    return r ? r->name : NULL;
}

bool pc_ggml_type_block(int type, uint32_t *blck, uint32_t *bytes)
{
    const pc_ggml_type_row *r = pc_ggml_upstream(type);
    if (!r) return false;
    *blck = r->blck;
    *bytes = r->bytes;
    return true;
}
