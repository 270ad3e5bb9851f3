/* equiv's gpt-oss -> GGUF pair map reads the layer of "blk.N." as llama.cpp names it: only the
 * canonical decimal spelling maps; " 0", "+0", "-4294967296", "00" name no layer llama.cpp loads. */
#include "formats/gguf/gguf_pairs.h"
#include "testlib.h"

static pc_input *open_validated(const char *rel, pc_ctx *cx)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/fixtures/mxfp4/equiv-gptoss-vs-gguf/%s", PC_SOURCE_DIR, rel);
    pc_input *in = pc_input_open(p, NULL, cx);
    if (in) pc_validate(in, cx);
    return in;
}

int main(void)
{
    pc_ctx cs, ct;
    if (pc_ctx_init(&cs, PC_PROFILE_STRICT) || pc_ctx_init(&ct, PC_PROFILE_STRICT)) return 2;
    pc_input *src = open_validated("source", &cs), *tgt = open_validated("target/model.gguf", &ct);
    CHECK(src && tgt && pc_gguf_pair_map(src, tgt, NULL, NULL), "the fixture is a gpt-oss -> GGUF pair");
    pc_pair_ref ref;
    CHECK(pc_gguf_pair_map(src, tgt, "blk.0.ffn_gate_exps", &ref) && ref.row_stride == 2, "blk.0. maps to layer 0");
    static const char *const bad[] = {"blk. 0.ffn_gate_exps", "blk.+0.ffn_gate_exps", "blk.-4294967296.ffn_gate_exps",
                                      "blk.00.ffn_gate_exps", "blk.4294967296.ffn_gate_exps", "blk..ffn_gate_exps",
                                      "blk.0 .ffn_gate_exps", "blk.0x0.ffn_gate_exps", "blk.\t0.ffn_gate_exps"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!pc_gguf_pair_map(src, tgt, bad[i], &ref), "%s must map to no layer", bad[i]);
    pc_input_free(src);
    pc_input_free(tgt);
    pc_ctx_free(&cs);
    pc_ctx_free(&ct);
    return test_finish();
}
