/* Format module: packcheck's own logical view (CONTRACT 3), so that `unpack`'s output validates as
 * checked: every `M.codes` (U8) beside `M.weight` (F32) is one module whose two tensors must have
 * the same shape (rule LV-001). Nothing is decoded: the view is already decoded. */
#include "formats/format.h"
#include "known_schemes.h"

#include <string.h>

#define PREFIX_MAX 1024

static bool codes_prefix(const pc_input *in, const pc_tensor *t, char *m, const pc_tensor **w)
{
    static const char *const k_codes[] = {"codes", NULL};
    if (t->dtype != PC_DT_U8 || !pc_split_suffix(t->name, k_codes, m, PREFIX_MAX)) return false;
    *w = pc_sibling(in, m, "weight");
    return *w && (*w)->dtype == PC_DT_F32;
}

static bool lv_detect(const pc_input *in)
{
    char m[PREFIX_MAX];
    const pc_tensor *w;
    for (size_t i = 0; i < in->ntensors; i++)
        if (codes_prefix(in, &in->tensors[i], m, &w)) return true;
    return false;
}

static void lv_check(pc_input *in, pc_ctx *cx)
{
    char m[PREFIX_MAX];
    const pc_tensor *w;
    pc_eval(cx, "LV-001");
    for (size_t i = 0; i < in->ntensors; i++) {
        const pc_tensor *c = &in->tensors[i];
        if (!codes_prefix(in, c, m, &w)) continue;
        if (c->ndim != w->ndim || memcmp(c->shape, w->shape, sizeof(uint64_t) * (size_t)c->ndim)) {
            pc_report(cx, "LV-001", c->name, (int64_t)c->offset, "M.codes and M.weight of module %s have different shapes", m);
            continue;
        }
        pc_tensor_claim(in, c, "logical-view");
        pc_tensor_claim(in, w, "logical-view");
    }
}

/* The tensors a module is made of (accounting, `packcheck formats --json`). */
static const pc_part k_format_parts[] = {
    {".codes", PC_PART_CODES},
    {".weight", PC_PART_COMPANION},
    {NULL, 0},
};
const pc_format pc_format_logical_view = {.parts = k_format_parts, .name = "logical-view", .detect = lv_detect, .check = lv_check};
