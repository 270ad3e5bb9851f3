/* packcheck certify adapter (CONTRACT 5): ggml's own GGUF reader and dequantizers, as users install
 * them (the llama.cpp vendored in llama-cpp-python's source package, built by build.sh).
 *
 *     ggml_reader INPUT OUTPUT
 *
 * INPUT is a .gguf file. gguf_init_from_file with a ggml context (no_alloc = false: ggml allocates
 * and reads every tensor, its allocating path) decides accept (exit 0) or refuse (exit 1). Every
 * quantized tensor is dequantized with ggml_get_type_traits(type)->to_float and written to OUTPUT as
 * M.weight (F32, shape [ne1, ne0], M = the name without a trailing ".weight"); ggml has no code-level
 * unpack, so no M.codes. ggml aborting (GGML_ABORT, failed allocation) is a crash, as it is for its
 * users. Non-GGUF inputs are out of scope (exit 1). The safetensors writer below is the adapter's own. */
#include <ggml.h>
#include <gguf.h>

#include "st_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) { printf("%s\n", ggml_version()); return 0; }
    if (argc != 3) { fprintf(stderr, "usage: %s INPUT OUTPUT | --version\n", argv[0]); return 2; }
    if (!ends_with(argv[1], ".gguf")) { fprintf(stderr, "refused: not a GGUF file: out of scope\n"); return 1; }
    struct ggml_context *ctx = NULL;
    struct gguf_init_params params = {.no_alloc = false, .ctx = &ctx};
    struct gguf_context *g = gguf_init_from_file(argv[1], params);
    if (!g) { fprintf(stderr, "refused: gguf_init_from_file failed\n"); return 1; }
    int64_t nt = gguf_get_n_tensors(g);
    out_tensor *out = calloc((size_t)(nt > 0 ? nt : 1), sizeof *out);
    size_t n = 0;
    for (int64_t i = 0; out && i < nt; i++) {
        const char *name = gguf_get_tensor_name(g, i);
        struct ggml_tensor *t = ggml_get_tensor(ctx, name);
        if (!t || !ggml_is_quantized(t->type)) continue;
        const struct ggml_type_traits *tr = ggml_get_type_traits(t->type);
        if (!tr->to_float) { fprintf(stderr, "refused: %s: no to_float for %s\n", name, ggml_type_name(t->type)); return 1; }
        int64_t ne = ggml_nelements(t);
        out_tensor *o = &out[n++];
        o->data = malloc((size_t)(ne ? ne : 1) * sizeof(float));
        if (!o->data) { fprintf(stderr, "out of memory\n"); return 2; }
        tr->to_float(t->data, o->data, ne);
        o->nbytes = (size_t)ne * sizeof(float);
        int nd = ggml_n_dims(t) < 2 ? 2 : ggml_n_dims(t);
        o->ndim = nd;
        for (int d = 0; d < nd; d++) o->shape[d] = t->ne[nd - 1 - d];
        size_t len = strlen(name);
        if (ends_with(name, ".weight")) len -= 7;
        o->key = malloc(len + 8);
        memcpy(o->key, name, len);
        memcpy(o->key + len, ".weight", 8);
    }
    fprintf(stderr, "ggml %s: %lld tensors, %zu quantized\n", ggml_version(), (long long)nt, n);
    int rc = write_view(argv[2], out, n) ? 2 : 0;
    gguf_free(g);
    ggml_free(ctx);
    return rc;
}
