/* NVFP4's converted-pair contract (nvfp4_pair.c), hooked into pc_format_nvfp4 (nvfp4.c). */
#ifndef PC_NVFP4_H
#define PC_NVFP4_H

#include "packcheck_internal.h"

bool pc_nvfp4_pair_detect(const pc_input *source, const pc_input *target, unsigned *default_ulp);
void pc_nvfp4_pair_check(const pc_input *source, const pc_input *target, pc_ctx *cx);

#endif
