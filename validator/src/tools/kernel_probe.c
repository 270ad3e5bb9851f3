/* packcheck-kernel-probe NAME [CODES]: run one fast kernel once on CODES (default 1 Mi) random codes.
 * For deterministic instruction counts (PERFORMANCE.md 6.5), independent of the machine's noise:
 *   valgrind --tool=callgrind --toggle-collect='*unpack_avx2*' build/packcheck-kernel-probe ct-dense-3
 * (scripts/kernel-ir.sh does this for every kernel and prints Ir per code). NAME: ct-dense-B,
 * ct-legacy-B, and the oracle forms ref-ct-dense-B, ref-ct-legacy-B. */
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: packcheck-kernel-probe NAME [CODES]\n"); return 2; }
    const char *name = argv[1];
    size_t count = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    bool ref = !strncmp(name, "ref-", 4);
    if (ref) name += 4;
    unsigned b = 0;
    bool legacy = false;
    if (sscanf(name, "ct-dense-%u", &b) == 1) legacy = false;
    else if (sscanf(name, "ct-legacy-%u", &b) == 1) legacy = true;
    if (b < 1 || b > 8) { fprintf(stderr, "unknown kernel %s\n", argv[1]); return 2; }
    size_t in_bytes = legacy ? (count + 32 / b - 1) / (32 / b) * 4 : (count * b + 7) / 8;
    uint8_t *src = malloc(in_bytes + 1), *out = malloc(count + 1);
    if (!src || !out) return 2;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < in_bytes; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[i] = (uint8_t)x; }
    pc_unpack_fn fn = legacy ? pc_wordalign_fn(ref ? PC_IMPL_REF : PC_IMPL_FAST) : pc_stream_fn(ref ? PC_IMPL_REF : PC_IMPL_FAST);
    fn(src, b, count, out);
    unsigned sum = 0;
    for (size_t i = 0; i < count; i += 4096) sum += out[i];
    printf("%s %zu codes (%s) checksum %u\n", argv[1], count, pc_kernels_name(), sum);
    free(src);
    free(out);
    return 0;
}
