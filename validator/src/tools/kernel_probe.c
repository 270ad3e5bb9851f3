/* packcheck-kernel-probe NAME [CODES]: run one kernel once on about CODES (default 1 Mi) random
 * codes, for deterministic instruction counts (PERFORMANCE.md 6.5), independent of machine noise:
 *   valgrind --tool=callgrind --toggle-collect=pc_stream_unpack_fast build/packcheck-kernel-probe ct-dense-3
 * scripts/kernel-ir.sh does this for every kernel and prints Ir per code. NAME: ct-dense-B,
 * ct-legacy-B, gptq-B, awq-4, q4_0, q4_0-f32, nvfp4-f32; "ref-" before a name runs the oracle. */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: packcheck-kernel-probe NAME [CODES]\n"); return 2; }
    const char *name = argv[1];
    size_t count = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    count = count / 8192 * 8192;
    if (!count) count = 8192;
    pc_impl impl = strncmp(name, "ref-", 4) ? PC_IMPL_FAST : PC_IMPL_REF;
    if (impl == PC_IMPL_REF) name += 4;
    size_t in_bytes = 8 * count + 64; /* enough for every layout */
    uint8_t *src = malloc(in_bytes), *out = malloc(4 * count + 64);
    if (!src || !out) return 2;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < in_bytes; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[i] = (uint8_t)x; }
    unsigned b = 0;
    if (sscanf(name, "ct-dense-%u", &b) == 1 && b >= 1 && b <= 8) pc_stream_fn(impl)(src, b, count, out);
    else if (sscanf(name, "ct-legacy-%u", &b) == 1 && b >= 1 && b <= 8) pc_wordalign_fn(impl)(src, b, count, out);
    else if (sscanf(name, "gptq-%u", &b) == 1 && (b == 2 || b == 3 || b == 4 || b == 8)) pc_gptq_unpack_fn(impl)(src, b, count / 256, 256, out);
    else if (!strcmp(name, "awq-4")) pc_awq_unpack_fn(impl)(src, count / 256, 256, out);
    else if (!strcmp(name, "q4_0") || !strcmp(name, "q4_0-f32")) {
        for (size_t k = 0; k < count / 32; k++) { src[18 * k] = 0; src[18 * k + 1] = 0x3c; } /* d = 1 */
        if (!strcmp(name, "q4_0")) pc_q4_0_fn_for(impl)(src, count / 32, out, NULL);
        else pc_q4_0_fn_for(impl)(src, count / 32, NULL, (float *)(void *)out);
    } else if (!strcmp(name, "nvfp4-f32")) {
        float *scales = malloc(count / 16 * sizeof *scales);
        if (!scales) return 2;
        for (size_t g = 0; g < count / 16; g++) scales[g] = 0.5f;
        pc_nvfp4_dequant(impl)(src, count / 256, 256, scales, (float *)(void *)out);
        free(scales);
    } else {
        fprintf(stderr, "unknown kernel %s\n", argv[1]);
        return 2;
    }
    unsigned sum = 0;
    for (size_t i = 0; i < count; i += 4096) sum += out[i];
    printf("%s %zu codes (%s) checksum %u\n", argv[1], count, pc_kernels_name(), sum);
    free(src);
    free(out);
    return 0;
}
