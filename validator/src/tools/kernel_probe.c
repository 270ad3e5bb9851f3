/* packcheck-kernel-probe NAME [CODES]: run one kernel once on about CODES (default 1 Mi) elements
 * of the input its bench entry builds, for deterministic instruction counts (PERFORMANCE.md 6.5),
 * independent of machine noise:
 *   valgrind --tool=callgrind --toggle-collect=pc_stream_unpack_fast build/packcheck-kernel-probe ct-dense-3
 * scripts/kernel-ir.sh does this for every kernel and prints Ir per code. NAME: any `packcheck bench`
 * entry (the formats' pc_format.bench tables); "ref-" before a name runs the oracle. */
#include "kernels/kernels.h"
#include "formats/awq/kernels.h"
#include "formats/bnb/kernels.h"
#include "formats/gguf/kernels.h"
#include "formats/gptq/kernels.h"
#include "formats/mlx/kernels.h"
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pc_bench_entry *entry_find(const char *name)
{
    for (const pc_format *const *f = pc_formats; *f; f++)
        for (const pc_bench_entry *e = (*f)->bench; e && e->name; e++)
            if (!strcmp(e->name, name)) return e;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: packcheck-kernel-probe NAME [CODES]\n"); return 2; }
    const char *name = argv[1];
    pc_impl impl = strncmp(name, "ref-", 4) ? PC_IMPL_FAST : PC_IMPL_REF;
    if (impl == PC_IMPL_REF) name += 4;
    const pc_bench_entry *e = entry_find(name);
    if (!e) { fprintf(stderr, "unknown kernel %s\n", argv[1]); return 2; }
    size_t count = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    size_t unit = e->unit ? e->unit : 1;
    count = count < unit ? unit : count / unit * unit;
    size_t in_bytes = e->in_size(e->b, count);
    uint8_t *src = malloc(in_bytes + 64), *out = malloc(count * e->out_elem + 64);
    if (!src || !out) return 2;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < in_bytes; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[i] = (uint8_t)x; }
    if (e->fill) e->fill(src, in_bytes);
    pc_bench_case c = {src, in_bytes, count, e->b, out};
    e->run(&c, impl);
    unsigned sum = 0;
    for (size_t i = 0; i < count * e->out_elem; i += 4096) sum += out[i];
    printf("%s %zu elements (%s) checksum %u\n", argv[1], count, pc_kernels_name(), sum);
    free(src);
    free(out);
    return 0;
}
