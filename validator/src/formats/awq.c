/* Format module: awq (not implemented yet; see its issue). */
#include "packcheck.h"

static bool awq_detect(const pc_input *in) { (void)in; return false; }
static void awq_check(pc_input *in, pc_ctx *cx) { (void)in; (void)cx; }
static int awq_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in; (void)m; (void)impl; (void)codes; (void)weights; (void)cx;
    return -1;
}

const pc_format pc_format_awq = {"awq", awq_detect, awq_check, awq_decode, NULL};
