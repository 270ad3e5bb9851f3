"""MXFP4 under the gpt-oss / transformers naming (family mxfp4/, rules MX).

Venv: ct (generators/requirements-ct.txt; transformers 5.24.0 is installed there too); the generator
re-runs itself there (PCGEN_VENV_CT, default /work/venvs/ct) when this interpreter lacks torch or
transformers.

transformers' MXFP4 quantizer needs a Triton kernel from the model hub (not reachable here), so the
bytes follow the layout transformers documents and reads (src/transformers/integrations/mxfp4.py):
P_blocks U8 [E, R, G, 16] of E2M1 nibbles (element 2i in the low nibble), P_scales U8 [E, R, G] of
E8M0 exponents, `quantization_config: {quant_method: "mxfp4", modules_to_not_convert: [...]}` as
gpt-oss ships it. Codes and scales are seeded random (scales 0 and 150 at fixed places for the
extremes we keep finite). Pins: codes = the nibbles; f32 weights = transformers' own
_convert_moe_packed_tensors(blocks, scales, dtype=float32), transposed back from its [E, K, R] to the
stored [E, R, K].
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

from pcgen.corpus import module_pin
from pcgen.venv import NeedsVenv, here_or_in_venv

FAMILY = "mxfp4"
VENV = os.environ.get("PCGEN_VENV_CT", "/work/venvs/ct")
L0 = "model.layers.0.mlp.experts"
CONFIG = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
          "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                             "model.embed_tokens", "lm_head"],
                                  "quant_method": "mxfp4"}}


# llama.cpp's converter (convert_hf_to_gguf.py + conversion/gpt_oss.py, with its own gguf-py), from
# the llama.cpp vendored in llama-cpp-python 0.3.36 (`pip download llama-cpp-python==0.3.36 --no-deps
# --no-binary :all:`, unpacked under /work/cache/llama), as gen_gguf_llama finds it.
LLAMA_SRC = os.environ.get("PCGEN_LLAMA_SRC", "/work/cache/llama/llama_cpp_python-0.3.36/vendor/llama.cpp")
LLAMA_VERSION = "llama.cpp vendored in llama-cpp-python 0.3.36"


def _need_llama():
    if not os.path.exists(os.path.join(LLAMA_SRC, "convert_hf_to_gguf.py")):
        raise NeedsVenv(f"gen_mxfp4 needs llama.cpp's converter (its equiv pair with GGUF): nothing at {LLAMA_SRC} "
                        f"(set PCGEN_LLAMA_SRC)")


def generate(out):
    _need_llama()
    return here_or_in_venv(__file__, VENV, out, "torch + transformers", ("torch", "transformers.integrations.mxfp4"), _generate)


def module(e, r, g, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, size=(e, r, g, 16), dtype=np.uint8)
    scales = rng.integers(112, 134, size=(e, r, g), dtype=np.uint8)  # 2^-15 .. 2^6
    scales[0, 0, 0] = 0      # 2^-127: a subnormal f32 scale, exact
    scales[-1, -1, -1] = 150  # 2^23
    return blocks, scales


def pin(blocks, scales):
    import numpy as np
    import torch
    from transformers.integrations.mxfp4 import _convert_moe_packed_tensors
    codes = np.stack([blocks & 0x0F, blocks >> 4], axis=-1).reshape(blocks.shape[0], blocks.shape[1], -1)
    w = _convert_moe_packed_tensors(torch.from_numpy(blocks), torch.from_numpy(scales), dtype=torch.float32)
    w = w.transpose(1, 2).contiguous().numpy()  # transformers' [E, K, R] -> the stored [E, R, K]
    assert w.dtype == np.float32 and w.shape == codes.shape
    return module_pin(codes.shape, 4, codes.astype(np.uint8).tobytes(), w.astype("<f4").tobytes())


def checkpoint():
    """A 2-expert gpt-oss MLP: hidden 96 (G = 3), intermediate 32 (G = 1), gate_up fused [E, 2I, ...]."""
    import torch
    specs = {f"{L0}.gate_up_proj": (2, 64, 3, 1), f"{L0}.down_proj": (2, 96, 1, 2)}
    tensors, pins = {}, {}
    for name, (e, r, g, seed) in specs.items():
        b, s = module(e, r, g, seed)
        tensors[f"{name}_blocks"] = torch.from_numpy(b)
        tensors[f"{name}_scales"] = torch.from_numpy(s)
        tensors[f"{name}_bias"] = torch.zeros((e, r), dtype=torch.bfloat16)
        pins[name] = pin(b, s)
    tensors["model.layers.0.mlp.router.weight"] = torch.zeros((2, 96), dtype=torch.bfloat16)
    return tensors, pins


def st_bytes(tensors):
    from safetensors.torch import save
    return save({k: v.contiguous() for k, v in tensors.items()}, metadata={"format": "pt"})


def _generate(out):
    _need_llama()
    import torch
    import transformers
    src = (f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}: bytes by the layout "
           f"transformers' integrations/mxfp4.py reads (seeded nibbles and E8M0 scales); pins from its "
           f"_convert_moe_packed_tensors (float32)")
    tensors, pins = checkpoint()
    out.case(FAMILY, "gptoss-moe", verdict="pass", layout="mxfp4-gptoss", modules=pins, rules=["MX-001", "MX-002", "MX-003"],
             files={"model.safetensors": st_bytes(tensors), "config.json": CONFIG},
             source=src + ". gate_up_proj [2, 64, 3, 16] and down_proj [2, 96, 1, 16]: a scale of 0 (2^-127) and of 150")
    G = f"{L0}.gate_up_proj"

    def neg(name, rule, mutate, what, cfg=CONFIG):
        t = dict(tensors)
        mutate(t)
        files = {"model.safetensors": st_bytes(t)}
        if cfg is not None:
            files["config.json"] = cfg
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule], files=files,
                 source=f"{src}; then broken by hand to violate {rule} only: {what}")

    def nan_scale(t):
        s = t[f"{G}_scales"].clone()
        s[1, 5, 2] = 255
        t[f"{G}_scales"] = s
    neg("neg-mx001-scales-transposed", "MX-001",
        lambda t: t.__setitem__(f"{G}_scales", t[f"{G}_scales"].transpose(1, 2).contiguous()),
        "gate_up_proj_scales stored [E, G, R] = [2, 3, 64]")
    neg("neg-mx002-nan-scale", "MX-002", nan_scale, "gate_up_proj_scales[1, 5, 2] = 255 (E8M0 NaN)")
    no_q = copy.deepcopy(CONFIG)
    no_q.pop("quantization_config")
    neg("neg-mx003-no-config", "MX-003", lambda t: None, "config.json without its quantization_config", cfg=no_q)
    gguf_pair(out, src)


# ---------------------------------------------------------------------------------------------
# the equiv pair: the same experts in a complete tiny gpt-oss checkpoint, converted by llama.cpp

def gptoss_checkpoint():
    """A complete one-layer gpt-oss (transformers GptOssForCausalLM, torch.manual_seed(0), f32) whose
    experts are the gptoss-moe case's MXFP4 bytes. transformers' float experts (and their biases) are
    dropped: gpt-oss ships experts as *_blocks / *_scales only, and the expert biases would be split by
    the converter along their last axis, which a pair map of rows does not describe."""
    import torch
    from transformers import GptOssConfig, GptOssForCausalLM
    cfg = GptOssConfig(vocab_size=260, hidden_size=96, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=1, head_dim=16, num_local_experts=2,
                       num_experts_per_tok=1, layer_types=["sliding_attention"], sliding_window=128,
                       max_position_embeddings=131072, tie_word_embeddings=False)
    torch.manual_seed(0)
    model = GptOssForCausalLM(cfg)
    tensors = {k: v.detach().float().contiguous() for k, v in model.state_dict().items() if ".mlp.experts." not in k}
    experts, pins = checkpoint()
    tensors.update({k: v for k, v in experts.items() if not k.endswith("_bias") and ".router." not in k})
    config = cfg.to_dict()
    config.pop("transformers_version", None)
    config["architectures"] = ["GptOssForCausalLM"]
    config["quantization_config"] = CONFIG["quantization_config"]
    return tensors, config, pins


def tokenizer_files(d):
    """A byte-level BPE of the 256 byte symbols plus 4 specials (tokenizers' ByteLevel, GPT-2 style),
    what the converter's _set_vocab_gpt2 loads through AutoTokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {c: i for i, c in enumerate(sorted(alphabet))}
    specials = ["<|startoftext|>", "<|endoftext|>", "<|return|>", "<|pad|>"]
    for sp in specials:
        vocab[sp] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(specials)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=specials[0], eos_token=specials[1],
                                   pad_token=specials[3])
    fast.save_pretrained(d)


def convert(model_dir, outfile):
    """Run llama.cpp's convert_hf_to_gguf.py main() (its own gguf-py first on sys.path, as the script
    does) in a child process, with one replacement: get_vocab_base_pre, which hashes the tokenizer's ids
    for a check text and knows only real tokenizers, answers "gpt-4o" (what it answers for gpt-oss's
    o200k tokenizer). Every tensor goes through the converter's own code."""
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--convert", model_dir, outfile],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise RuntimeError("convert_hf_to_gguf failed")
    return r.stderr


def _convert_main(model_dir, outfile):
    sys.path.insert(0, LLAMA_SRC)
    import convert_hf_to_gguf
    from conversion.base import TextModel
    TextModel.get_vocab_base_pre = lambda self, tokenizer: "gpt-4o"
    sys.argv = ["convert_hf_to_gguf.py", model_dir, "--outfile", outfile, "--outtype", "f32",
                "--model-name", "packcheck-tiny-gptoss"]
    convert_hf_to_gguf.main()


def halves_split(gguf_bytes):
    """The converter's output with blk.0.ffn_gate_exps / ffn_up_exps rewritten as if gate_up had been
    split by halves (gate = rows 0..I-1, up = rows I..2I-1): each GGUF MXFP4 row is 17-byte blocks, so
    rows are moved whole, keeping the converter's own bytes."""
    import numpy as np
    from gguf import GGUFReader
    with tempfile.NamedTemporaryFile(suffix=".gguf") as f:
        f.write(gguf_bytes)
        f.flush()
        rd = GGUFReader(f.name)
        t = {x.name: x for x in rd.tensors}
        g, u = t["blk.0.ffn_gate_exps.weight"], t["blk.0.ffn_up_exps.weight"]
        ga = np.array(g.data).reshape(g.data.shape[0], g.data.shape[1], -1)
        ua = np.array(u.data).reshape(ga.shape)
        # back to the fused gate_up rows (gate = 0::2, up = 1::2), then split by halves
        fused = np.empty((ga.shape[0], 2 * ga.shape[1], ga.shape[2]), dtype=np.uint8)
        fused[:, 0::2], fused[:, 1::2] = ga, ua
        half = ga.shape[1]
        out = bytearray(gguf_bytes)
        for x, rows in ((g, fused[:, :half]), (u, fused[:, half:])):
            off = int(x.data_offset)
            b = np.ascontiguousarray(rows).tobytes()
            assert len(b) == x.n_bytes
            out[off:off + len(b)] = b
    return bytes(out)


def gguf_pair(out, src):
    with tempfile.TemporaryDirectory() as d:
        model_dir = os.path.join(d, "packcheck-tiny-gptoss")
        os.mkdir(model_dir)
        tensors, config, pins = gptoss_checkpoint()
        st = st_bytes(tensors)
        with open(os.path.join(model_dir, "model.safetensors"), "wb") as f:
            f.write(st)
        with open(os.path.join(model_dir, "config.json"), "w") as f:
            json.dump(config, f, indent=2, sort_keys=True)
        tokenizer_files(model_dir)
        gguf_path = os.path.join(d, "model.gguf")
        convert(model_dir, gguf_path)
        with open(gguf_path, "rb") as f:
            gguf_bytes = f.read()
        tok = {n: open(os.path.join(model_dir, n), "rb").read() for n in sorted(os.listdir(model_dir))
               if n.startswith("tokenizer") or n == "special_tokens_map.json"}
    conv = (f"{LLAMA_VERSION}: convert_hf_to_gguf.py --outtype f32 (GptOssModel, conversion/gpt_oss.py: "
            f"generate_extra_tensors splits gate_up_proj rows 0::2 -> ffn_gate_exps, 1::2 -> ffn_up_exps; "
            f"repack_mxfp4 keeps MXFP4, scale byte first then the nibbles re-ordered to ggml's block_mxfp4) "
            f"with get_vocab_base_pre answering 'gpt-4o' (its tokenizer hash knows only real tokenizers)")
    ckpt = (f"{src}; in a complete one-layer gpt-oss (transformers GptOssForCausalLM, seed 0, f32, float "
            f"experts and expert biases dropped) with a 260-token byte-level BPE tokenizer")
    files = {"source/model.safetensors": st, "source/config.json": config}
    files.update({f"source/{n}": b for n, b in tok.items()})
    def pair(name, target, verdict, rule, what):
        out.case(FAMILY, name, verdict="pass", layout="mxfp4-gptoss", input="source", modules=pins,
                 rules=["MX-001", "MX-002", "MX-003"], files=dict(files, **{"target/model.gguf": target}),
                 source=f"source: {ckpt}. target: {what}",
                 extra={"equiv": {"source": "source", "target": "target/model.gguf", "verdict": verdict, "rule": rule,
                                  "tolerance": "ulp:0"}})

    # ulp:0, not exact: E2M1 code 8 is -0.0 in transformers' FP4_VALUES and +0 in ggml's int8
    # kvalues_mxfp4 (ggml-common.h; dequantize_row_mxfp4 multiplies the int8 by the scale)
    pair("equiv-gptoss-vs-gguf", gguf_bytes, "equal", None,
         f"{conv}. Equal codes; f32 weights equal up to the sign of zero (code 8: -0 in transformers, +0 in ggml)")
    pair("equiv-gptoss-vs-gguf-halves", halves_split(gguf_bytes), "differ", "EQ-002",
         f"{conv}; then edited by hand: blk.0.ffn_gate_exps / ffn_up_exps hold gate_up_proj split by halves "
         f"(rows 0..31 / 32..63) instead of alternate rows (the converter's bytes, rows moved whole)")

if __name__ == "__main__" and sys.argv[1:2] == ["--convert"]:
    _convert_main(sys.argv[2], sys.argv[3])
elif __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
