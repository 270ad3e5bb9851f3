/* The gpt-oss -> GGUF module correspondence (gguf_pairs.c), hooked into pc_format_gguf_blocks
 * (gguf_blocks.c) as its pair_map. */
#ifndef PC_FORMATS_GGUF_PAIRS_H
#define PC_FORMATS_GGUF_PAIRS_H

#include "formats/format.h"

bool pc_gguf_pair_detect(const pc_input *source, const pc_input *target, unsigned *default_ulp);
bool pc_gguf_pair_map(const pc_input *source, const pc_input *target, const char *target_name, pc_pair_ref *ref);

#endif
