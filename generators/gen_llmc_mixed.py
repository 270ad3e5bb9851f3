"""llm-compressor mixed-precision model folders (family ct-mixed/): several config_groups of different
formats in one checkpoint, format "mixed-precision", written by oneshot and saved whole.

Venv: llmc014 (generators/requirements-llmc.txt's llmcompressor 0.14.0.1, compressed-tensors 0.19.0 and
transformers 5.17.0 installed with --no-deps; torch 2.15.0 and the rest from the autoround and peers
venvs through a .pth file). The path comes from PCGEN_VENV_LLMC014, default /work/venvs/llmc014.

The model is a one-layer LlamaForCausalLM built from a config (no download; torch seed 0, bf16): hidden
256, four heads of 64 with one KV head, intermediate 320 (down_proj K = 320: partial 128-blocks), vocab
64, untied lm_head; saved and reloaded (oneshot reads the config from disk). oneshot(QuantizationModifier(
config_groups=..., bypass_divisibility_checks=True)) with compressed-tensors' presets per group, no
calibration data (weight-only or dynamic activations). llm-compressor 0.14 refuses group schemes whose K
is not a multiple of the group (and its observer fails even with the bypass), so group schemes sit on
K = 256 layers.

Pins: codes as the library unpacks them (unpack_from_int32 + 2^(b-1), unpack_fp4_from_uint8 nibbles,
int8 + 2^(b-1), the FP8 byte); weights from compressed-tensors' own dequantize (quantization/lifecycle/
forward.py) in float32 with the scales converted to float32 the way its compressors do (NVFP4 E4M3 ->
float, MXFP4 E8M0 through MXFP4PackedCompressor._decompress_scale). Negatives edit one tensor each.
"""
import json
import os
import re
import shutil
import sys
import tempfile

from pcgen.corpus import folder_files, module_pin
from pcgen.venv import here_or_in_venv, venv_main

FAMILY = "ct-mixed"
VENV = os.environ.get("PCGEN_VENV_LLMC014", "/work/venvs/llmc014")

CASES = [
    ("llmc-mixed-nvfp4-w4afp8-fp8block-fp8head",
     [("NVFP4A16", ["re:.*self_attn.*"]), ("W4AFP8", [r"re:.*mlp\.(gate|up)_proj$"]),
      ("FP8_BLOCK", [r"re:.*mlp\.down_proj$"]), ("FP8_DYNAMIC", ["lm_head"])],
     "attention NVFP4A16, gate/up W4AFP8 (int4 g128 stored one value per int8: int-quantized), down_proj "
     "FP8_BLOCK ([256, 320]: a partial column block), lm_head FP8_DYNAMIC"),
    ("llmc-mixed-mxfp4-fp8-w8a16head",
     [("MXFP4A16", [r"re:.*self_attn\.(q|k|v)_proj$"]), ("FP8_DYNAMIC", ["re:.*mlp.*", r"re:.*o_proj$"]),
      ("W8A16", ["lm_head"])],
     "q/k/v MXFP4A16, MLP and o_proj FP8_DYNAMIC, lm_head W8A16 (int8 pack-quantized)"),
    ("llmc-moe-nvfp4-experts-fp8-attn",
     [("NVFP4A16", [r"re:.*mlp\.experts.*"]), ("FP8_DYNAMIC", ["re:.*self_attn.*"])],
     "Qwen3-MoE (4 experts of intermediate 128, hidden 256; transformers' fused experts are saved per expert, "
     "experts.<e>.gate_proj / up_proj / down_proj): experts NVFP4A16, attention FP8_DYNAMIC, router and lm_head "
     "ignored"),
]


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "llmcompressor 0.14", ("llmcompressor",), _generate)


def tiny_llama(base):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=256, intermediate_size=320, num_hidden_layers=1, num_attention_heads=4,
                      num_key_value_heads=1, head_dim=64, max_position_embeddings=64, tie_word_embeddings=False)
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(base)
    tk = Tokenizer(models.WordLevel({f"t{i}": i for i in range(64)}, unk_token="t0"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="t0", pad_token="t1", eos_token="t2", bos_token="t3")
    tok.save_pretrained(base)
    return LlamaForCausalLM.from_pretrained(base, dtype=torch.bfloat16), tok


def tiny_moe(base):
    import torch
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM
    torch.manual_seed(0)
    cfg = Qwen3MoeConfig(vocab_size=64, hidden_size=256, intermediate_size=256, moe_intermediate_size=128,
                         num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=1, head_dim=64, num_experts=4,
                         num_experts_per_tok=2, max_position_embeddings=64, tie_word_embeddings=False,
                         decoder_sparse_step=1, mlp_only_layers=[])
    Qwen3MoeForCausalLM(cfg).to(torch.bfloat16).save_pretrained(base)
    _, tok = tiny_llama(base + "-tok")
    tok.save_pretrained(base)
    return Qwen3MoeForCausalLM.from_pretrained(base, dtype=torch.bfloat16), tok


def run_oneshot(groups, outd):
    from compressed_tensors.quantization import preset_name_to_scheme
    from llmcompressor import oneshot
    from llmcompressor.modifiers.quantization import QuantizationModifier
    moe = "moe" in os.path.basename(outd)
    m, tok = (tiny_moe if moe else tiny_llama)(outd + "-base")
    cg = {f"group_{i}": preset_name_to_scheme(p, t) for i, (p, t) in enumerate(groups)}
    ignore = [r"re:.*mlp\.gate$", "lm_head"] if moe else []
    oneshot(model=m, recipe=QuantizationModifier(config_groups=cg, ignore=ignore, bypass_divisibility_checks=True), processor=tok)
    m.save_pretrained(outd, save_compressed=True)


def group_of(cfg, module):
    for g in cfg["config_groups"].values():
        for t in g["targets"]:
            if (t.startswith("re:") and re.match(t[3:], module)) or t == module or module.endswith("." + t):
                return g
    raise KeyError(module)


def pin_module(sd, name, group):
    """Codes and f32 weights of one module by the library's own unpacking and dequantize."""
    import numpy as np
    import torch
    from compressed_tensors.compressors.mxfp4.base import MXFP4PackedCompressor
    from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
    from compressed_tensors.compressors.pack_quantized.helpers import unpack_from_int32
    from compressed_tensors.quantization import QuantizationArgs
    from compressed_tensors.quantization.lifecycle.forward import dequantize
    args = QuantizationArgs(**group["weights"])
    loc = {k[len(name) + 1:]: v for k, v in sd.items() if k.startswith(name + ".")}
    fmt, b = group["format"], args.num_bits
    scale, gscale = loc["weight_scale"], loc.get("weight_global_scale")
    if fmt in ("nvfp4-pack-quantized", "mxfp4-pack-quantized"):
        p = loc["weight_packed"]
        n, k = p.shape[0], p.shape[1] * 2
        codes = torch.stack([p & 15, p >> 4], -1).reshape(n, k)  # element 2i in the low nibble (unpack_fp4_from_uint8)
        xq = unpack_fp4_from_uint8(p, n, k, dtype=torch.float32)
        s = MXFP4PackedCompressor._decompress_scale(scale, torch.float32) if fmt.startswith("mx") else scale.float()
    elif fmt == "pack-quantized":
        shape = tuple(int(v) for v in loc["weight_shape"])
        q = unpack_from_int32(loc["weight_packed"], b, torch.Size(shape))
        codes, xq, s = (q.to(torch.int32) + (1 << (b - 1))).to(torch.uint8), q.float(), scale.float()
    elif loc["weight"].dtype == torch.int8:
        q = loc["weight"]
        codes, xq, s = (q.to(torch.int32) + (1 << (b - 1))).to(torch.uint8), q.float(), scale.float()
    else:
        x = loc["weight"]
        codes, xq, s = x.view(torch.uint8), x.float(), scale.float()
    w = dequantize(x_q=xq, scale=s, zero_point=loc.get("weight_zero_point"), args=args,
                   global_scale=None if gscale is None else gscale.float(), dtype=torch.float32)
    assert w.dtype == torch.float32 and tuple(w.shape) == tuple(codes.shape)
    return module_pin(tuple(codes.shape), b, np.ascontiguousarray(codes.numpy()).tobytes(),
                      np.ascontiguousarray(w.numpy()).astype("<f4").tobytes())


def pins_of(folder):
    from safetensors.torch import load_file
    cfg = json.load(open(os.path.join(folder, "config.json")))["quantization_config"]
    sd = load_file(os.path.join(folder, "model.safetensors"))
    names = sorted({k[: -len(".weight_scale")] for k in sd if k.endswith(".weight_scale")})
    return {n: pin_module(sd, n, group_of(cfg, n)) for n in names}



def _generate(out):
    import compressed_tensors
    import llmcompressor
    import torch
    import transformers
    ver = (f"llmcompressor {llmcompressor.__version__}, compressed-tensors {compressed_tensors.__version__}, "
           f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}: oneshot(QuantizationModifier("
           f"config_groups of compressed-tensors presets, bypass_divisibility_checks=True)) on a random one-layer llama "
           f"(hidden 256, intermediate 320), save_pretrained(save_compressed=True); pins from compressed-tensors' dequantize in float32")
    tmp = tempfile.mkdtemp(prefix="pcgen-llmc-mixed-")
    try:
        folders = {}
        for name, groups, what in CASES:
            d = os.path.join(tmp, name)
            run_oneshot(groups, d)
            folders[name] = folder_files(d)
            out.case(FAMILY, name, verdict="pass", layout="mixed", files=folders[name], modules=pins_of(d),
                     source=f"{ver}. {what}")
        negatives(out, folders[CASES[0][0]], CASES[0][0], ver)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def negatives(out, files, base, ver):
    import torch
    from safetensors.torch import load, save

    def case(name, rule, edit, what):
        t = load(files["model.safetensors"])
        edit(t)
        f = dict(files, **{"model.safetensors": save(t, metadata={"format": "pt"})})
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, files=f, source=f"{ver}. The {base} folder: {what}")

    def drop(k):
        return lambda t: t.pop(k)

    def poke(k, v):
        def f(t):
            t[k] = t[k].clone()
            t[k].view(-1)[0] = v
        return f

    case("neg-fp8003-lm-head-scale-missing", "FP8-003", drop("lm_head.weight_scale"),
         "lm_head.weight_scale removed (the FP8 lm_head's scale a loader drops, SGLang #34895)")
    case("neg-fp8013-w4afp8-value-out-of-range", "FP8-013", poke("model.layers.0.mlp.gate_proj.weight", 9),
         "gate_proj.weight[0, 0] (an int4 value stored in int8) set to 9")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    venv_main(_generate)
