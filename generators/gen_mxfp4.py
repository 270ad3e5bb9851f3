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
import os
import sys

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv

FAMILY = "mxfp4"
VENV = os.environ.get("PCGEN_VENV_CT", "/work/venvs/ct")
L0 = "model.layers.0.mlp.experts"
CONFIG = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
          "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                             "model.embed_tokens", "lm_head"],
                                  "quant_method": "mxfp4"}}


def _have_libs():
    try:
        import torch  # noqa: F401
        import transformers.integrations.mxfp4  # noqa: F401
        return True
    except ImportError:
        return False


def generate(out):
    if _have_libs():
        return _generate(out)
    run_in_venv(__file__, VENV, out, "torch + transformers")


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


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
