/* libFuzzer harness for the GGUF reader and the Q4_0 module: the input becomes a .gguf file,
 * which is opened, validated under both profiles and, when accepted, decoded with the oracle and
 * the fast path (which must agree). Seeds: corpus/gguf/. */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[64];

static void decode_all(pc_input *in, pc_ctx *cx)
{
    for (size_t i = 0; i < in->nmodules; i++) {
        const pc_module *m = &in->modules[i];
        if (m->numel > (1u << 20)) continue;
        size_t n = (size_t)m->numel + 1;
        uint8_t *c1 = malloc(n), *c2 = malloc(n);
        float *w1 = malloc(n * sizeof *w1), *w2 = malloc(n * sizeof *w2);
        if (c1 && c2 && w1 && w2 && !m->fmt->decode(in, m, PC_IMPL_REF, c1, w1, cx) &&
            !m->fmt->decode(in, m, PC_IMPL_FAST, c2, w2, cx)) {
            if (memcmp(c1, c2, n - 1) || memcmp(w1, w2, (n - 1) * sizeof *w1)) abort();
        }
        free(c1); free(c2); free(w1); free(w2);
    }
}

/* A real file named *.gguf (the name routes a file whose magic is damaged to the GGUF reader). */
static void remove_file(void) { unlink(g_path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_path[0]) {
        snprintf(g_path, sizeof g_path, "/tmp/pc-fuzz-gguf-%d.gguf", (int)getpid());
        atexit(remove_file);
    }
    FILE *f = fopen(g_path, "wb");
    if (!f) return 0;
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    for (int p = 0; p < 2; p++) {
        pc_ctx cx;
        if (pc_ctx_init(&cx, p ? PC_PROFILE_COMPAT : PC_PROFILE_STRICT)) return 0;
        pc_input *in = pc_input_open(g_path, NULL, &cx);
        if (in) {
            pc_validate(in, &cx);
            if (!pc_rejected(&cx) && !cx.io_error) decode_all(in, &cx);
        }
        pc_input_free(in);
        pc_ctx_free(&cx);
    }
    return 0;
}
