/* The avx512 kernel set's grid i-quants with signs (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S): the AVX2
 * loops of avx2_grid.c built a second time with AVX-512 BW and VL enabled, which apply each sub-block's
 * signs from a mask register, and IQ3_XXS / IQ3_S by byte permutes where the CPU also has AVX-512 VBMI
 * (else by row loads). One source, so the two sets cannot drift; test_gguf_blocks holds each set to
 * the oracle, the avx512 set with VBMI and without. The other kernels of the avx512 set are the AVX2 ones. */
#define PC_GRID_AVX512 1
#include "avx2_grid.c"
