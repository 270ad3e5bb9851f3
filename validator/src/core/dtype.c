/* safetensors dtypes with their bit widths (FORMATS.md 2.3, crate enum order). */
#include "packcheck_internal.h"

#include <string.h>

static const struct { const char *name; unsigned bits; } k_dtypes[PC_DT_COUNT] = {
    {"BOOL", 8},    {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6}, {"U8", 8},   {"I8", 8},
    {"F8_E5M2", 8}, {"F8_E4M3", 8},     {"F8_E8M0", 8},     {"F8_E4M3FNUZ", 8},         {"F8_E5M2FNUZ", 8},
    {"I16", 16},    {"U16", 16},        {"F16", 16},        {"BF16", 16},   {"I32", 32}, {"U32", 32},
    {"F32", 32},    {"C64", 64},        {"F64", 64},        {"I64", 64},    {"U64", 64},
};

const char *pc_dtype_name(pc_dtype d) { return d < PC_DT_COUNT ? k_dtypes[d].name : "GGML"; }
unsigned pc_dtype_bits(pc_dtype d) { return d < PC_DT_COUNT ? k_dtypes[d].bits : 0; }

bool pc_dtype_parse(const char *s, pc_dtype *out)
{
    for (int i = 0; i < PC_DT_COUNT; i++)
        if (!strcmp(s, k_dtypes[i].name)) { *out = (pc_dtype)i; return true; }
    return false;
}

bool pc_dtype_is_float(pc_dtype d)
{
    switch (d) {
    case PC_DT_F16: case PC_DT_BF16: case PC_DT_F32: case PC_DT_F64: case PC_DT_F8_E4M3: case PC_DT_F8_E5M2:
    case PC_DT_F8_E4M3FNUZ: case PC_DT_F8_E5M2FNUZ: case PC_DT_F8_E8M0:
        return true;
    default:
        return false;
    }
}
