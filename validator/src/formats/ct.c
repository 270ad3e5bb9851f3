/* Format module: ct (not implemented yet; see its issue). */
#include "packcheck.h"

static bool ct_detect(const pc_input *in) { (void)in; return false; }
static void ct_check(pc_input *in, pc_ctx *cx) { (void)in; (void)cx; }
static int ct_decode(const pc_input *in, const pc_module *m, pc_impl impl, uint8_t *codes, float *weights, pc_ctx *cx)
{
    (void)in; (void)m; (void)impl; (void)codes; (void)weights; (void)cx;
    return -1;
}

const pc_format pc_format_ct = {"ct", ct_detect, ct_check, ct_decode, NULL};
