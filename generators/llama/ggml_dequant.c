/* Generator helper (never part of the packcheck build): dump every tensor of a GGUF file as ggml's
 * own reference dequantize sees it, for the f32 pins of generators/gen_gguf_llama.py.
 *
 *     ggml_dequant FILE.gguf OUTDIR
 *
 * Reads FILE with ggml's gguf_init_from_file (allocating path: no_alloc = false, so ggml reads
 * every byte), and for each tensor of a non-float type writes OUTDIR/<index>.f32: the whole tensor
 * (ggml_nrows rows of ne[0] elements) converted with ggml_get_type_traits(type)->to_float, i.e.
 * ggml-base's dequantize_row_<type> from ggml-quants.c (the C reference, not a CPU-backend SIMD
 * path). Prints one line per tensor: index, ggml type id, type name, ne0..ne3, name. Built at
 * generation time against the cached llama.cpp build's libggml-base.a. */
#include <ggml.h>
#include <gguf.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: %s FILE.gguf OUTDIR\n", argv[0]); return 2; }
    struct ggml_context *ctx = NULL;
    struct gguf_init_params p = { .no_alloc = false, .ctx = &ctx };
    struct gguf_context *g = gguf_init_from_file(argv[1], p);
    if (!g) { fprintf(stderr, "ggml refused %s\n", argv[1]); return 1; }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const char *name = gguf_get_tensor_name(g, i);
        struct ggml_tensor *t = ggml_get_tensor(ctx, name);
        const struct ggml_type_traits *tr = ggml_get_type_traits(t->type);
        printf("%lld %d %s %lld %lld %lld %lld %s\n", (long long)i, (int)t->type, tr->type_name,
               (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3], name);
        if (!tr->is_quantized) continue;
        int64_t nrows = ggml_nrows(t), ne0 = t->ne[0];
        float *row = malloc(sizeof(float) * (size_t)ne0);
        char path[4096];
        snprintf(path, sizeof path, "%s/%lld.f32", argv[2], (long long)i);
        FILE *f = fopen(path, "wb");
        if (!row || !f) return 3;
        for (int64_t r = 0; r < nrows; r++) {
            tr->to_float((const char *)t->data + r * t->nb[1], row, ne0);
            if (fwrite(row, sizeof(float), (size_t)ne0, f) != (size_t)ne0) return 3;
        }
        fclose(f);
        free(row);
    }
    gguf_free(g);
    ggml_free(ctx);
    return 0;
}
