/* packcheck-gen-ckpt: write a synthetic compressed-tensors (pack-quantized, ct-dense layout) sharded
 * checkpoint of a given size with valid packing, for validating at checkpoint scale (the streaming
 * validation and --hash figures in the README). Llama-shaped layers (q/k/v/o, gate/up/down) of
 * random codes, group-wise fp16 scales, symmetric, any width 1..8; padding bits beyond K are zero.
 *
 *   packcheck-gen-ckpt OUTDIR [--size 4G] [--bits 4] [--shard 1G] [--group 128]
 *                             [--hidden 4096] [--inter 11008] [--seed N] [--legacy]
 *
 * --legacy writes the word-aligned layout of compressed-tensors <= 0.17 (version 0.17.1): floor(32/b)
 * fields per word, zero top bits in every word, so validation must read every packed byte.
 *
 * Not the fixture corpus (that comes from the upstream libraries): a load generator only. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct tensor {
    char name[128];
    const char *dtype;
    uint64_t shape[2];
    int ndim;
    uint64_t nbytes;
    int kind;            /* 0 packed, 1 scale, 2 shape */
    uint64_t n, k;       /* module shape */
} tensor;

static unsigned g_bits = 4, g_group = 128;
static int g_legacy;
static uint64_t g_rng = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return g_rng;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v <= 0) return -1;
    double mul = 1;
    if (*end == 'K' || *end == 'k') mul = 1024.0, end++;
    else if (*end == 'M' || *end == 'm') mul = 1024.0 * 1024, end++;
    else if (*end == 'G' || *end == 'g') mul = 1024.0 * 1024 * 1024, end++;
    if (*end == 'i' || *end == 'B') end++;
    if (*end == 'B') end++;
    if (*end) return -1;
    *out = (uint64_t)(v * mul);
    return 0;
}

/* Canonical safetensors order: dtype descending in the crate's enum (I64 > I32 > F16), then name. */
static int dtype_rank(const char *d) { return !strcmp(d, "I64") ? 0 : !strcmp(d, "I32") ? 1 : 2; }
static int cmp_tensor(const void *a, const void *b)
{
    const tensor *x = a, *y = b;
    int r = dtype_rank(x->dtype) - dtype_rank(y->dtype);
    return r ? r : strcmp(x->name, y->name);
}

static void add_module(tensor *t, size_t *nt, const char *prefix, uint64_t n, uint64_t k)
{
    uint64_t pf = 32 / g_bits, words = g_legacy ? (k + pf - 1) / pf : (k * g_bits + 31) / 32, groups = (k + g_group - 1) / g_group;
    tensor *p = &t[(*nt)++];
    snprintf(p->name, sizeof p->name, "%s.weight_packed", prefix);
    *p = (tensor){.dtype = "I32", .shape = {n, words}, .ndim = 2, .nbytes = n * words * 4, .kind = 0, .n = n, .k = k};
    snprintf(p->name, sizeof p->name, "%s.weight_packed", prefix);
    p = &t[(*nt)++];
    *p = (tensor){.dtype = "F16", .shape = {n, groups}, .ndim = 2, .nbytes = n * groups * 2, .kind = 1, .n = n, .k = k};
    snprintf(p->name, sizeof p->name, "%s.weight_scale", prefix);
    p = &t[(*nt)++];
    *p = (tensor){.dtype = "I64", .shape = {2, 0}, .ndim = 1, .nbytes = 16, .kind = 2, .n = n, .k = k};
    snprintf(p->name, sizeof p->name, "%s.weight_shape", prefix);
}

enum { BUF = 8 << 20 };

/* Stream one tensor's bytes: packed rows of random codes with zero padding bits, fp16 scales in
 * [2^-8, 2^-7), or the [N, K] shape. */
static int write_tensor(FILE *f, const tensor *t, uint8_t *buf)
{
    if (t->kind == 2) {
        uint8_t s[16];
        for (int i = 0; i < 8; i++) { s[i] = (uint8_t)(t->n >> (8 * i)); s[8 + i] = (uint8_t)(t->k >> (8 * i)); }
        return fwrite(s, 1, 16, f) == 16 ? 0 : -1;
    }
    if (t->kind == 1) {
        uint64_t left = t->nbytes;
        while (left) {
            size_t n = left < BUF ? (size_t)left : BUF;
            for (size_t i = 0; i + 1 < n; i += 2) {
                uint16_t h = (uint16_t)(0x1C00 + rnd() % 0x400);
                buf[i] = (uint8_t)h; buf[i + 1] = (uint8_t)(h >> 8);
            }
            if (fwrite(buf, 1, n, f) != n) return -1;
            left -= n;
        }
        return 0;
    }
    size_t row = (size_t)(t->shape[1] * 4), rows_per = BUF / row;
    uint64_t valid_bits = t->k * g_bits, pad = row * 8 - valid_bits; /* zero bits at the end of each row */
    for (uint64_t r = 0; r < t->n;) {
        size_t nr = t->n - r < rows_per ? (size_t)(t->n - r) : rows_per;
        for (size_t i = 0; i < nr; i++) {
            uint8_t *p = buf + i * row;
            for (size_t j = 0; j + 8 <= row; j += 8) { uint64_t v = rnd(); memcpy(p + j, &v, 8); }
            for (size_t j = row / 8 * 8; j < row; j++) p[j] = (uint8_t)rnd();
            if (g_legacy) { /* whole fields only; the last word holds K - pf*(W-1) of them */
                uint32_t pf = 32 / g_bits, words = (uint32_t)(row / 4);
                for (uint32_t w = 0; w < words; w++) {
                    uint32_t fields = w + 1 < words ? pf : (uint32_t)(t->k - (uint64_t)pf * (words - 1));
                    uint32_t keep = fields * g_bits >= 32 ? ~0u : (1u << (fields * g_bits)) - 1, v;
                    memcpy(&v, p + 4 * w, 4);
                    v &= keep;
                    memcpy(p + 4 * w, &v, 4);
                }
                continue;
            }
            for (uint64_t bit = valid_bits; bit < valid_bits + pad; bit++) p[bit / 8] &= (uint8_t)~(1u << (bit % 8));
        }
        if (fwrite(buf, 1, nr * row, f) != nr * row) return -1;
        r += nr;
    }
    return 0;
}

static int write_shard(const char *path, tensor *t, size_t nt, uint8_t *buf)
{
    qsort(t, nt, sizeof *t, cmp_tensor);
    size_t cap = 256 + nt * 256, len = 0;
    char *h = malloc(cap + 8);
    if (!h) return -1;
    len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t at = 0;
    for (size_t i = 0; i < nt; i++) {
        len += (size_t)snprintf(h + len, cap - len, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%" PRIu64, t[i].name, t[i].dtype, t[i].shape[0]);
        if (t[i].ndim == 2) len += (size_t)snprintf(h + len, cap - len, ",%" PRIu64, t[i].shape[1]);
        len += (size_t)snprintf(h + len, cap - len, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + t[i].nbytes);
        at += t[i].nbytes;
    }
    len += (size_t)snprintf(h + len, cap - len, "}");
    while (len % 8) h[len++] = ' ';
    FILE *f = fopen(path, "wb");
    if (!f) { free(h); return -1; }
    uint8_t n8[8];
    for (int i = 0; i < 8; i++) n8[i] = (uint8_t)((uint64_t)len >> (8 * i));
    int rc = fwrite(n8, 1, 8, f) == 8 && fwrite(h, 1, len, f) == len ? 0 : -1;
    for (size_t i = 0; !rc && i < nt; i++) rc = write_tensor(f, &t[i], buf);
    if (fclose(f)) rc = -1;
    free(h);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: packcheck-gen-ckpt OUTDIR [--size 4G] [--bits 1..8] [--shard 1G] [--group 128] "
                    "[--hidden 4096] [--inter 11008] [--seed N] [--legacy]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    uint64_t size = 4ull << 30, shard = 1ull << 30, hidden = 4096, inter = 11008, v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') { if (out) return usage(); out = a; continue; }
        if (!strcmp(a, "--legacy")) { g_legacy = 1; continue; }
        if (!val || parse_size(val, &v)) return usage();
        i++;
        if (!strcmp(a, "--size")) size = v;
        else if (!strcmp(a, "--shard")) shard = v;
        else if (!strcmp(a, "--bits") && v >= 1 && v <= 8) g_bits = (unsigned)v;
        else if (!strcmp(a, "--group") && v >= 1 && v <= (1u << 20)) g_group = (unsigned)v;
        else if (!strcmp(a, "--hidden") && v >= 8 && v <= 65536) hidden = v;
        else if (!strcmp(a, "--inter") && v >= 8 && v <= 262144) inter = v;
        else if (!strcmp(a, "--seed")) g_rng ^= v * 0x9E3779B97F4A7C15ull;
        else return usage();
    }
    if (!out) return usage();
    if (mkdir(out, 0777) && errno != EEXIST) { perror(out); return 2; }

    /* Plan layers until the packed bytes reach `size`, then cut shards at tensor boundaries. */
    static const char *const k_mods[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                                         "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"};
    size_t cap = 1024, nt = 0;
    tensor *all = malloc(cap * sizeof *all);
    uint64_t total = 0;
    for (int layer = 0; total < size; layer++) {
        for (int m = 0; m < 7; m++) {
            if (nt + 3 > cap) { cap *= 2; tensor *n = realloc(all, cap * sizeof *all); if (!n) return 2; all = n; }
            if (!all) return 2;
            char prefix[96];
            snprintf(prefix, sizeof prefix, "model.layers.%d.%s", layer, k_mods[m]);
            uint64_t n = m < 4 ? hidden : m < 6 ? inter : hidden, k = m < 6 ? hidden : inter;
            add_module(all, &nt, prefix, n, k);
            total += all[nt - 3].nbytes + all[nt - 2].nbytes + 16;
        }
    }
    size_t nshards = 0, *start = calloc(nt + 1, sizeof *start);
    uint64_t acc = 0;
    for (size_t i = 0; i < nt; i += 3) { /* keep a module's three tensors in one shard */
        uint64_t mod = all[i].nbytes + all[i + 1].nbytes + all[i + 2].nbytes;
        if (i == 0 || acc + mod > shard) { start[nshards++] = i; acc = 0; }
        acc += mod;
    }
    start[nshards] = nt;
    uint8_t *buf = malloc(BUF);
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", out);
    FILE *idx = fopen(path, "w");
    if (!buf || !idx) { perror(path); return 2; }
    fprintf(idx, "{\"metadata\":{\"total_size\":%" PRIu64 "},\"weight_map\":{", total);
    for (size_t s = 0; s < nshards; s++) {
        char name[64];
        snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", s + 1, nshards);
        for (size_t i = start[s]; i < start[s + 1]; i++) fprintf(idx, "%s\"%s\":\"%s\"", i ? "," : "", all[i].name, name);
        snprintf(path, sizeof path, "%s/%s", out, name);
        if (write_shard(path, all + start[s], start[s + 1] - start[s], buf)) { perror(path); return 2; }
    }
    fprintf(idx, "}}\n");
    fclose(idx);
    snprintf(path, sizeof path, "%s/config.json", out);
    FILE *cf = fopen(path, "w");
    if (!cf) { perror(path); return 2; }
    fprintf(cf,
            "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n  \"hidden_size\": %" PRIu64 ",\n"
            "  \"intermediate_size\": %" PRIu64 ",\n  \"torch_dtype\": \"float16\",\n  \"quantization_config\": {\n"
            "    \"config_groups\": {\"group_0\": {\"format\": \"pack-quantized\", \"input_activations\": null, \"output_activations\": null,\n"
            "      \"targets\": [\"Linear\"], \"weights\": {\"actorder\": null, \"block_structure\": null, \"dynamic\": false,\n"
            "        \"group_size\": %u, \"num_bits\": %u, \"observer\": \"minmax\", \"observer_kwargs\": {}, \"scale_dtype\": null,\n"
            "        \"strategy\": \"group\", \"symmetric\": true, \"type\": \"int\", \"zp_dtype\": null}}},\n"
            "    \"format\": \"pack-quantized\", \"global_compression_ratio\": null, \"ignore\": [\"lm_head\"],\n"
            "    \"kv_cache_scheme\": null, \"quant_method\": \"compressed-tensors\", \"quantization_status\": \"compressed\",\n"
            "    \"sparsity_config\": {}, \"transform_config\": {}, \"version\": \"%s\"\n  }\n}\n",
            hidden, inter, g_group, g_bits, g_legacy ? "0.17.1" : "0.18.0");
    fclose(cf);
    printf("wrote %zu shard(s), %zu tensors, %" PRIu64 " data bytes to %s\n", nshards, nt, total, out);
    free(buf); free(all); free(start);
    return 0;
}
