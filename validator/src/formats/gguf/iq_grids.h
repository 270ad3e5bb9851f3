/* The grid i-quants' tables: validator/src/formats/gguf/iq_grids.bin, embedded by the build
 * (scripts/embed-bin.cmake, SHA-256 pinned in CMakeLists.txt), written by generators/iq_grids.py
 * from gguf-py 0.19.0 gguf/quants.py. One byte per grid element; ggml's names (ggml-common.h). */
#ifndef PC_IQ_GRIDS_H
#define PC_IQ_GRIDS_H

#include <stdint.h>

extern const uint8_t pc_iq_grids[33920];

#define PC_KSIGNS_IQ2XS (pc_iq_grids + 0)     /* [128]: 7 sign bits -> 8 (even parity) */
#define PC_IQ2XXS_GRID (pc_iq_grids + 128)    /* [256][8] */
#define PC_IQ2XS_GRID (pc_iq_grids + 2176)    /* [512][8] */
#define PC_IQ2S_GRID (pc_iq_grids + 6272)     /* [1024][8] */
#define PC_IQ3XXS_GRID (pc_iq_grids + 14464)  /* [256][4] */
#define PC_IQ3S_GRID (pc_iq_grids + 15488)    /* [512][4] */
#define PC_IQ1S_GRID ((const int8_t *)(pc_iq_grids + 17536)) /* [2048][8], -1 / 0 / 1 */

#endif
