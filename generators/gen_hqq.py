"""HQQ fixtures (family hqq/). Venv: hqq (generators/requirements-hqq.txt: hqq 0.2.8 on torch CPU; the
path comes from PCGEN_VENV_HQQ, default /work/venvs/hqq). From any other venv this module re-runs itself there.

Every byte comes from hqq itself:
  * models: a tiny llama (transformers' LlamaForCausalLM from a config, no download) quantized by
    hqq.models.hf.base.AutoHQQHFModel.quantize_model on CPU (4-bit g64, and 4-bit with view_as_float,
    whose W_q is stored as F16). AutoHQQHFModel.save_quantized writes a torch pickle (qmodel.pt); the
    same state dict is written here with safetensors' save_file, which is what hqq's encoded state dict
    (HQQLinear.state_dict, encode_safetensor_type: metadata as small tensors) is made for. hqq writes
    no quantization_config: packcheck recognises the modules by their tensors.
  * probes: hqq.core.quantize.HQQLinear over seeded nn.Linear layers at nbits 1, 2, 3, 4, 8, axis 0
    and 1, compute dtype float16 / bfloat16 / float32, group sizes 16..128, one module per file.
Negative cases change one tensor of a probe (named in each case's source), re-saved by save_file.

Pins: codes from hqq's own unpacker (Quantizer.unpack[packing], 3-bit rows past R dropped as hqq's
dequantize does), reshaped to the weight's shape; weights from Quantizer.dequantize(W_q, meta), in the
compute dtype, widened to f32. That is the contract (CONTRACT 3): w = rT(rT(q - z) * s), T the compute dtype.
"""
import io
import os

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv

FAMILY = "hqq"
LAYOUT = "hqq"
VENV = os.environ.get("PCGEN_VENV_HQQ", "/work/venvs/hqq")
RULES = ["HQQ-001", "HQQ-002", "HQQ-003", "HQQ-004"]
SOURCE = "hqq 0.2.8 (torch CPU)"


def generate(out):
    try:
        import hqq  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return run_in_venv(__file__, VENV, out, "hqq and torch")
    return _generate(out)


def st_bytes(sd):
    import torch
    from safetensors.torch import save
    tensors = {k: v.detach().contiguous() for k, v in sd.items() if isinstance(v, torch.Tensor)}
    return save(tensors, metadata={"format": "pt"})


def pin(layer):
    """codes and f32 weights of one HQQLinear as hqq's own unpack and dequantize give them."""
    import torch
    from hqq.core.quantize import Quantizer
    meta, W_q = layer.meta, layer.W_q.data
    shape = tuple(meta["shape"])
    numel = shape[0] * shape[1]
    rows = numel // meta["group_size"] if meta["axis"] == 1 else meta["group_size"]
    raw = W_q.view(meta["unpack_view_dtype"]) if meta["view_as_float"] else W_q
    codes = Quantizer.unpack[meta["packing"]](raw, dtype=torch.uint8)[:rows].reshape(shape)
    w = Quantizer.dequantize(W_q, dict(meta)).float()
    return module_pin(list(shape), meta["nbits"], codes.numpy().tobytes(), w.numpy().astype("<f4").tobytes())


def quantized_linear(seed, out_f, in_f, nbits, group, axis, dtype, view_as_float=False):
    import torch
    from hqq.core.quantize import BaseQuantizeConfig, HQQLinear
    torch.manual_seed(seed)
    lin = torch.nn.Linear(in_f, out_f, bias=False)
    with torch.no_grad():
        lin.weight.mul_(torch.linspace(0.25, 4.0, out_f).unsqueeze(1))  # rows of different ranges
    qc = BaseQuantizeConfig(nbits=nbits, group_size=group, axis=axis, view_as_float=view_as_float)
    return HQQLinear(lin, quant_config=qc, compute_dtype=dtype, device="cpu", initialize=True)


def layer_sd(prefix, layer):
    return {f"{prefix}.{k}": v for k, v in layer.state_dict().items()}


PROBES = [  # name, nbits, group, axis, dtype, out, in
    ("probe-4bit-g64-f16", 4, 64, 1, "float16", 48, 128),
    ("probe-4bit-g32-axis0-f16", 4, 32, 0, "float16", 64, 96),
    ("probe-3bit-g64-f16", 3, 64, 1, "float16", 40, 64),  # R = 40: 3-bit pads to 50 rows
    ("probe-2bit-g16-bf16", 2, 16, 1, "bfloat16", 32, 64),
    ("probe-1bit-g64-f32", 1, 64, 1, "float32", 32, 128),
    ("probe-8bit-g128-f16", 8, 128, 1, "float16", 24, 128),
    ("probe-4bit-g64-view-as-float", 4, 64, 1, "float16", 32, 64),
]


def probes(out):
    import torch
    layers = {}
    for i, (name, nbits, group, axis, dt, o, k) in enumerate(PROBES):
        layer = quantized_linear(100 + i, o, k, nbits, group, axis, getattr(torch, dt), view_as_float="view" in name)
        layers[name] = layer
        out.case(FAMILY, name, source=f"{SOURCE}: HQQLinear(nn.Linear({k}, {o}), nbits={nbits}, group_size={group}, "
                 f"axis={axis}, compute_dtype={dt}{', view_as_float=True' if 'view' in name else ''}), state_dict "
                 f"saved with safetensors' save_file", verdict="pass", layout=LAYOUT, rules=RULES,
                 files={"model.safetensors": st_bytes(layer_sd("layer", layer))}, modules={"layer": pin(layer)})
    return layers


def tiny_model(out, name, view_as_float):
    import torch
    import transformers
    from hqq.core.quantize import BaseQuantizeConfig
    from hqq.models.hf.base import AutoHQQHFModel
    cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2,
                                   num_key_value_heads=1, vocab_size=32, architectures=["LlamaForCausalLM"],
                                   torch_dtype="float16")
    torch.manual_seed(7)
    model = transformers.LlamaForCausalLM(cfg).half()
    qc = BaseQuantizeConfig(nbits=4, group_size=64, view_as_float=view_as_float)
    AutoHQQHFModel.quantize_model(model, quant_config=qc, compute_dtype=torch.float16, device="cpu")
    modules = {}
    for mname, mod in model.named_modules():
        if type(mod).__name__ == "HQQLinear":
            modules[mname] = pin(mod)
    out.case(FAMILY, name, source=f"{SOURCE}: AutoHQQHFModel.quantize_model of a 1-layer llama (nbits=4, group_size=64"
             f"{', view_as_float=True' if view_as_float else ''}, compute_dtype=float16), its state dict saved with "
             f"safetensors' save_file", verdict="pass", layout=LAYOUT, rules=RULES,
             files={"model.safetensors": st_bytes(model.state_dict()), "config.json": cfg.to_dict()}, modules=modules)


def edited(out, name, base, rule, what, edit):
    """One probe's state dict with one change, re-saved."""
    sd = {k: v.clone() for k, v in layer_sd("layer", base).items()}
    edit(sd)
    out.case(FAMILY, name, source=f"{SOURCE}: probe-4bit-g64-f16 with {what}", verdict="reject", reject_rule=rule,
             layout=LAYOUT, rules=[rule], files={"model.safetensors": st_bytes(sd)})


def negatives(out, layers):
    import torch
    base = layers["probe-4bit-g64-f16"]

    def set_nbits(sd):
        sd["layer.nbits"] = torch.tensor(5, dtype=torch.int32)

    def drop_row(sd):
        sd["layer.W_q"] = sd["layer.W_q"][:-1].contiguous()

    def scale_per_row(sd):
        sd["layer.scale"] = sd["layer.scale"][: sd["layer.scale"].shape[0] // 2].contiguous()

    def nan_zero(sd):
        sd["layer.zero"][3, 0] = float("nan")

    edited(out, "neg-hqq001-nbits-vs-packing", base, "HQQ-001", "nbits 5 while packing says 4bit_u8", set_nbits)
    edited(out, "neg-hqq002-wq-short", base, "HQQ-002", "W_q one packed row short", drop_row)
    edited(out, "neg-hqq003-scale-count", base, "HQQ-003", "half the scale rows (one per two groups)", scale_per_row)
    edited(out, "neg-hqq004-zero-nan", base, "HQQ-004", "a NaN zero point", nan_zero)


def _generate(out):
    layers = probes(out)
    tiny_model(out, "model-4bit-g64", False)
    tiny_model(out, "model-4bit-g64-view-as-float", True)
    negatives(out, layers)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
