"""transformers FineGrainedFP8 with scale_fmt "ue8m0" (family fp8/, cases tf-fp8-ue8m0-*, rule FP8-012).

Venv: peers (transformers 5.25.0, torch 2.15.0: the first transformers whose FineGrainedFP8Config
takes scale_fmt); the path comes from PCGEN_VENV_PEERS, default /work/venvs/peers29. From any other
interpreter this module re-runs itself there.

transformers' quantizer refuses a CPU (FineGrainedFP8HfQuantizer.validate_environment), so the bytes
come from the conversion op its save path runs, Fp8Quantize._quantize_one, with the config the
quantizer carries (FineGrainedFP8Config(weight_block_size=(128, 128), scale_fmt="ue8m0")): a weight
M.weight [N, K] of whole 128-blocks becomes F8_E4M3 M.weight plus M.weight_scale_inv as
torch.float8_e8m0fnu (safetensors F8_E8M0), each block's inverse scale rounded up to a power of two
(integrations/finegrained_fp8.py). Fused experts P [E, N, K] get P_scale_inv [E, N/128, K/128].
Files are written by safetensors' torch save_file, config.json from FineGrainedFP8Config.to_dict().

Pins: codes = the stored bytes; f32 weights = transformers' own _dequantize_fp8_weight(x, s,
[128, 128], torch.float32) (x.float() * s.float() per block: one multiply, CONTRACT 3).
The U8 case stores the same bytes as U8, which the quantizer's reload views as float8_e8m0fnu
(quantizer_finegrained_fp8.py _process_model_after_weight_loading). The F32 case stores the same
powers of two as float32 (the value each E8M0 byte stands for). Negatives edit one thing each.
"""
import os
import sys

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv, venv_main

FAMILY = "fp8"
VENV = os.environ.get("PCGEN_VENV_PEERS", "/work/venvs/peers29")
L0 = "model.layers.0"
RULES = ["FP8-001", "FP8-002", "FP8-003", "FP8-004", "FP8-005", "FP8-006", "FP8-008", "FP8-012"]


def _have_libs():
    try:
        import torch
        import transformers
        return hasattr(torch, "float8_e8m0fnu") and transformers.__version__ >= "5.25"
    except ImportError:
        return False


def generate(out):
    if _have_libs():
        return _generate(out)
    run_in_venv(__file__, VENV, out, "transformers 5.25")


def config():
    import json
    from transformers import FineGrainedFP8Config
    q = FineGrainedFP8Config(weight_block_size=(128, 128), scale_fmt="ue8m0").to_dict()
    q = json.loads(json.dumps({k: getattr(v, "value", v) for k, v in q.items()}))  # enum -> str, tuple -> list
    return {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "quantization_config": q}


def weights(shape, seed, mul):
    import torch
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * 0.05 * mul).to(torch.bfloat16)


# (name, shape, seed, magnitude): magnitudes spread the block scales over many exponents
MODS = [(f"{L0}.self_attn.q_proj.weight", (256, 384), 1, 1.0),
        (f"{L0}.self_attn.o_proj.weight", (128, 256), 2, 1e-6),
        (f"{L0}.mlp.experts.gate_up_proj", (2, 256, 128), 3, 30.0),
        (f"{L0}.mlp.experts.down_proj", (2, 128, 128), 4, 1.0)]


def quantize():
    """Fp8Quantize._quantize_one per tensor; returns tensors, pins, library facts."""
    from types import SimpleNamespace
    import numpy as np
    import torch
    from transformers import FineGrainedFP8Config
    from transformers.integrations.finegrained_fp8 import Fp8Quantize, _dequantize_fp8_weight
    hq = SimpleNamespace(quantization_config=FineGrainedFP8Config(weight_block_size=(128, 128), scale_fmt="ue8m0"))
    tensors, pins, scales = {}, {}, {}
    for name, shape, seed, mul in MODS:
        out = Fp8Quantize(hq)._quantize_one(name, weights(shape, seed, mul))
        sname = name[:-len(".weight")] + ".weight_scale_inv" if name.endswith(".weight") else name + "_scale_inv"
        x, s = out[name], out[sname]
        assert x.dtype == torch.float8_e4m3fn and s.dtype == torch.float8_e8m0fnu, (x.dtype, s.dtype)
        ref = _dequantize_fp8_weight(x, s, [128, 128], torch.float32)
        module = name[:-len(".weight")] if name.endswith(".weight") else name
        pins[module] = module_pin(shape, 8, np.ascontiguousarray(x.view(torch.uint8).numpy()).tobytes(),
                                  np.ascontiguousarray(ref.numpy()).astype("<f4").tobytes())
        tensors[name], tensors[sname] = x.contiguous(), s.contiguous()
        scales[sname] = s
    tensors["model.norm.weight"] = torch.ones(384, dtype=torch.bfloat16)
    return tensors, pins, scales


def st_bytes(tensors):
    from safetensors.torch import save
    return save(tensors)


def _generate(out):
    import torch
    import transformers
    tensors, pins, scales = quantize()
    exps = sorted({int(b) for s in scales.values() for b in s.view(torch.uint8).flatten()})
    src = (f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}: Fp8Quantize._quantize_one "
           f"under FineGrainedFP8Config(weight_block_size=(128, 128), scale_fmt=\"ue8m0\") (integrations/finegrained_fp8.py); "
           f"q_proj [256, 384], o_proj [128, 256] (tiny weights: scale bytes near 100), fused experts gate_up_proj [2, 256, 128], "
           f"down_proj [2, 128, 128]; E8M0 scale bytes {exps[0]}..{exps[-1]}; pins from its _dequantize_fp8_weight (float32)")
    cfg = config()

    def case(name, t, what, **kw):
        kw.setdefault("verdict", "pass")
        if kw["verdict"] == "pass":
            kw.update(layout="fp8-deepseek", rules=RULES, modules=pins)
        out.case(FAMILY, name, files={"model.safetensors": st_bytes(t), "config.json": kw.pop("cfg", cfg)},
                 source=f"{src}. {what}", **kw)

    case("tf-fp8-ue8m0", tensors, "The scales as transformers saves them: F8_E8M0")
    as_u8 = {k: (v.view(torch.uint8) if k in scales else v) for k, v in tensors.items()}
    case("tf-fp8-ue8m0-u8-scales", as_u8, "The same bytes stored U8, as MXFP8 checkpoints ship them (the reload views them as float8_e8m0fnu)")
    as_f32 = {k: (v.float() if k in scales else v) for k, v in tensors.items()}
    case("tf-fp8-ue8m0-f32-pow2", as_f32, "The same scales as float32 powers of two (each the value its E8M0 byte stands for)")

    neg = dict(verdict="reject", reject_rule="FP8-012")
    bad = dict(as_f32)
    k = f"{L0}.self_attn.q_proj.weight_scale_inv"
    bad[k] = bad[k].clone()
    bad[k][0, 0] *= 1.5
    case("neg-fp8012-f32-not-pow2", bad, f"{k}[0, 0] of the F32 case times 1.5: no E8M0 value", **neg)
    nan = dict(tensors)
    nan[k] = nan[k].view(torch.uint8).clone()
    nan[k][1, 2] = 255
    nan[k] = nan[k].view(torch.float8_e8m0fnu)
    case("neg-fp8012-e8m0-nan", nan, f"{k}[1, 2] set to byte 255, the E8M0 NaN", **neg)
    odd = dict(cfg, quantization_config=dict(cfg["quantization_config"], scale_fmt="e8m0"))
    case("neg-fp8012-scale-fmt-unknown", tensors, "config scale_fmt \"e8m0\" (FineGrainedFP8Config accepts float or ue8m0)", cfg=odd, **neg)
    flt = dict(cfg, quantization_config=dict(cfg["quantization_config"], scale_fmt="float"))
    case("neg-fp8003-e8m0-under-float", tensors, "config scale_fmt \"float\" with the F8_E8M0 scales: a float-scale reader reads them as F32",
         cfg=flt, verdict="reject", reject_rule="FP8-003")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    venv_main(_generate)
