/* Bounded cost on configs (issue 30, item 8), at and past the sizes: 3,000 module names
 * against an ignore list of 1,000 distinct large regex patterns (each near the matcher's
 * 10,000-instruction cap; together far past what its cache holds), an MLX config with 55,000
 * per-layer overrides read for 55,000 modules, and 20,000 modules beside 400,000 override keys
 * naming none. The quadratic versions (a cache flushed on every miss, a linear key lookup per
 * module) took minutes of CPU; these finish in seconds, well under CTest's TIMEOUT, which only the
 * quadratic versions exceed. No time is asserted here. */
#include "formats/ct/ct_match.h"
#include "core/pyre.h"
#include "packcheck.h"
#include "testlib.h"

#include "container/safetensors.h"

#include <cjson/cJSON.h>
#include <unistd.h>

static void regex_scale(void)
{
    cJSON *list = cJSON_CreateArray();
    char pat[64], name[64];
    for (int i = 0; i < 1000; i++) {
        /* ~7,000-10,000 instructions each, no literal a name holds: every pair runs the automaton */
        snprintf(pat, sizeof pat, "re:([qz]?){1,%d}[0-9]x", 2300 + i);
        cJSON_AddItemToArray(list, cJSON_CreateString(pat));
    }
    CHECK(pc_pyre_check("([qz]?){1,3299}[0-9]x") == 0, "the largest pattern compiles (under the 10,000 cap)");
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) exit(2);
    pc_pyre_reset();
    size_t ignored = 0;
    for (int m = 0; m < 3000; m++) {
        snprintf(name, sizeof name, "model.layers.%d.mlp.down_proj", m);
        ignored += ct_ignored_by(list, name, "config.json", &cx) != NULL;
    }
    CHECK(ignored == 0, "no module ignored (%zu)", ignored);
    CHECK(pc_rule_status(&cx, pc_rule_find("CFG-031")) == PC_STATUS_FAIL, "past the budget: a CFG-031 LIMIT finding");
    pc_ctx_free(&cx);
    cJSON_Delete(list);
}

/* An MLX folder of `nmod` affine modules (4-bit, group 64, one row: U32 weight [1, 8], F16 scales
 * and biases [1, 1]) whose config holds an override for each and `unused` more keys naming no module. */
static void mlx_scale(size_t nmod, size_t unused)
{
    char dir[256], path[512];
    test_tmpdir(dir, sizeof dir, "mlx-scale");
    static uint8_t zeros[32];
    static const uint8_t half[2] = {0x00, 0x38}; /* 0.5 as F16 */
    st_out_tensor *t = calloc(3 * nmod, sizeof *t);
    char (*names)[64] = calloc(3 * nmod, sizeof *names);
    cJSON *root = cJSON_CreateObject(), *q = cJSON_AddObjectToObject(root, "quantization");
    cJSON_AddNumberToObject(q, "group_size", 64);
    cJSON_AddNumberToObject(q, "bits", 4);
    for (size_t i = 0; i < nmod; i++) {
        static const char *const suf[3] = {"weight", "scales", "biases"};
        for (int k = 0; k < 3; k++) {
            st_out_tensor *x = &t[3 * i + k];
            snprintf(names[3 * i + k], sizeof names[0], "model.layers.%zu.mlp.%s", i, suf[k]);
            x->name = names[3 * i + k];
            x->dtype = k ? PC_DT_F16 : PC_DT_U32;
            x->ndim = 2;
            x->shape[0] = 1;
            x->shape[1] = k ? 1 : 8;
            x->data = k ? (const void *)half : zeros;
            x->nbytes = k ? 2 : 32;
        }
        char key[64];
        snprintf(key, sizeof key, "model.layers.%zu.mlp", i);
        cJSON *o = cJSON_AddObjectToObject(q, key);
        cJSON_AddNumberToObject(o, "group_size", 64);
        cJSON_AddNumberToObject(o, "bits", 4);
    }
    for (size_t i = 0; i < unused; i++) {
        char key[64];
        snprintf(key, sizeof key, "model.unused.%zu.proj", i);
        cJSON_AddBoolToObject(q, key, 1);
    }
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    CHECK(st_write_file(path, t, 3 * nmod) == 0, "write %s", path);
    char *text = cJSON_PrintUnformatted(root);
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
    pc_ctx cx;
    if (pc_ctx_init(&cx, PC_PROFILE_STRICT)) exit(2);
    pc_input *in = pc_input_open(dir, NULL, &cx);
    if (in) pc_validate(in, &cx);
    CHECK(in && in->nmodules == nmod && !pc_rejected(&cx), "%zu modules x %zu overrides (+%zu unused keys): %zu modules, rejected %d",
          nmod, nmod, unused, in ? in->nmodules : 0, pc_rejected(&cx));
    pc_input_free(in);
    pc_ctx_free(&cx);
    free(text);
    cJSON_Delete(root);
    free(t);
    free(names);
    unlink(path);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    regex_scale();
    mlx_scale(55000, 0);
    mlx_scale(20000, 400000);
    return test_finish();
}
