/* fp8.c's description of one module, private to the fp8 folder (certify's diagnosis reads it only
 * through the format's diag_params). */
#ifndef PC_FORMATS_FP8_H
#define PC_FORMATS_FP8_H

#include "packcheck_internal.h"

enum f8_kind { F8_DEEPSEEK = 0, F8_CT_FLOAT = 1, F8_CT_INT = 2 };

typedef struct f8_module {
    enum f8_kind kind;
    const pc_tensor *w, *scale, *zp;  /* zp: compressed-tensors int8 asymmetric only */
    uint64_t rows, cols, bh, bw, gr, gc; /* element (n, k) uses scale[(n / bh) * gc + k / bw] */
    uint64_t experts;                 /* 0: one [rows, cols] matrix; E: fused MoE experts [E, rows, cols],
                                       * expert e's grid at scale + e * gr * gc (FP8Experts) */
    bool e8m0;                        /* compressed-tensors mxfp8-quantized: scale bytes are E8M0, 2^(s - 127) */
    unsigned bits;                    /* int: num_bits b of the values stored one per I8 byte (8, or 2..7: W4AFP8) */
} f8_module;

#endif
