/* Format module: nvfp4 (not implemented yet; see its issue). */
#include "packcheck.h"

static bool nvfp4_detect(const pc_input *in) { (void)in; return false; }
static void nvfp4_check(pc_input *in, pc_ctx *cx) { (void)in; (void)cx; }
static int nvfp4_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in; (void)m; (void)impl; (void)codes; (void)weights; (void)cx;
    return -1;
}

const pc_format pc_format_nvfp4 = {"nvfp4", nvfp4_detect, nvfp4_check, nvfp4_decode, NULL};
