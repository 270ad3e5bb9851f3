/* Format module: q4_0 (not implemented yet; see its issue). */
#include "packcheck.h"

static bool q4_0_detect(const pc_input *in) { (void)in; return false; }
static void q4_0_check(pc_input *in, pc_ctx *cx) { (void)in; (void)cx; }
static int q4_0_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in; (void)m; (void)impl; (void)codes; (void)weights; (void)cx;
    return -1;
}

const pc_format pc_format_q4_0 = {"q4_0", q4_0_detect, q4_0_check, q4_0_decode, NULL};
