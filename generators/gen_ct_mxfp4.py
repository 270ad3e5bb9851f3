"""compressed-tensors `mxfp4-pack-quantized` (family mxfp4/, rules MX-002, MX-004, MX-005) and, from the
0.20.1 venv, `mxfp8-quantized` (E4M3 weights, E8M0 scales per 32: rules FP8-010).

Venvs: ct (compressed-tensors 0.20.1, writes E8M0 bias 127) and ct013 (generators/requirements-ct013.txt:
compressed-tensors 0.13.0 over the ct venv's torch through a .pth, writes bias 125; reports/ct-mxfp4-e8m0-bias.md).
`generate` runs this file once in each venv (PCGEN_VENV_CT, PCGEN_VENV_CT013); each run writes the cases of
the version it imports.

Both versions: the library's MXFP4A16 preset, scales from its own calculate_qparams over each 32-group's
min/max, weight_packed and weight_scale from its MXFP4PackedCompressor, the config from
ModelCompressor.update_config (which records `version`). Pins: codes = the nibbles of weight_packed
(element 2i low, the library's unpack_fp4_from_uint8 order); f32 weights:
  * 0.20.1: the library's own MXFP4PackedCompressor.decompress (bf16, exact: E2M1 times a power of two),
    widened to f32;
  * 0.13.0: its decompress_weight raises NotImplementedError, so the pin is the library's own
    unpack_fp4_from_uint8(..., float32) times the float scale its quantize used (the scale handed to the
    compressor, which it stores as 127 + floor(log2(scale)) - 2: 2^(stored - 125)).
"""
import copy
import os
import sys

from pcgen.corpus import module_pin
from pcgen.ct_config import config_json
from pcgen.venv import run_in_venv

FAMILY = "mxfp4"
VENV = os.environ.get("PCGEN_VENV_CT", "/work/venvs/ct")
VENV013 = os.environ.get("PCGEN_VENV_CT013", "/work/venvs/ct013")
MODS = [("model.layers.0.mlp.up_proj", (64, 96), 1), ("model.layers.0.mlp.down_proj", (40, 160), 2)]
RULES = ["MX-002", "MX-004", "MX-005"]


def generate(out):
    run_in_venv(__file__, VENV, out, "compressed-tensors 0.20.1")
    run_in_venv(__file__, VENV013, out, "compressed-tensors 0.13.0")


def st_bytes(tensors):
    from safetensors.torch import save
    return save({k: v.contiguous() for k, v in tensors.items()}, metadata={"format": "pt"})


def weights(shape, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(shape, generator=g) * 0.05
    w[0, :32] *= 40.0  # one group with a large scale
    return w.to(torch.bfloat16)


def ct_config(scheme, fmt="mxfp4-pack-quantized"):
    return config_json({"group_0": scheme}, fmt=fmt)


def qparams(w, a, bf16_stats):
    from compressed_tensors.quantization.utils.helpers import calculate_qparams
    r, k = w.shape
    g = w.reshape(r, k // 32, 32)
    if not bf16_stats:
        g = g.float()
    scale, _ = calculate_qparams(g.amin(-1), g.amax(-1), a)
    return scale


def codes_of(packed):
    import numpy as np
    p = packed.numpy()
    return np.stack([p & 0x0F, p >> 4], axis=-1).reshape(p.shape[0], -1).astype(np.uint8)


def module_new(w, scheme):
    """compressed-tensors >= 0.15: the classmethod compressor and its decompress."""
    from compressed_tensors.compressors.mxfp4.base import MXFP4PackedCompressor as C
    scale = qparams(w, scheme.weights, False)
    out = {k: v.contiguous() for k, v in C.compress({"weight": w, "weight_scale": scale}, scheme).items()}
    lib = C.decompress(dict(out), scheme)["weight"]
    return out, lib.float()


def module_013(w, scheme):
    """compressed-tensors 0.13.0: the instance compressor; no decompressor (see the docstring)."""
    import torch
    from compressed_tensors.compressors.quantized_compressors.fp4_quantized import (
        MXFP4PackedCompressor, unpack_fp4_from_uint8)
    scale = qparams(w, scheme.weights, True)
    out = MXFP4PackedCompressor().compress_weight(weight=w, scale=scale, global_scale=None, quantization_args=scheme.weights)
    out = {k: v.contiguous() for k, v in out.items()}
    p = out["weight_packed"]
    vals = unpack_fp4_from_uint8(p, p.shape[0], p.shape[1] * 2, dtype=torch.float32)
    s = scale.float().repeat_interleave(32, dim=1)
    exp = out["weight_scale"].to(torch.int32) - 125
    assert torch.equal(s, torch.pow(2.0, exp.float()).repeat_interleave(32, dim=1)), "0.13.0 stores 2^(s - 125)"
    return out, vals * s


def _generate(out):
    import compressed_tensors
    import torch
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import MXFP4A16
    ver = compressed_tensors.__version__
    old = ver == "0.13.0"
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(MXFP4A16))
    tensors, pins = {}, {}
    for name, shape, seed in MODS:
        o, wf = (module_013 if old else module_new)(weights(shape, seed), scheme)
        c = codes_of(o["weight_packed"])
        pins[name] = module_pin(c.shape, 4, c.tobytes(), wf.contiguous().numpy().astype("<f4").tobytes())
        tensors.update({f"{name}.{k}": v for k, v in o.items()})
    tensors["lm_head.weight"] = weights((16, 96), 99)
    cfg = ct_config(scheme)
    how = ("pins: its unpack_fp4_from_uint8 (float32) times the scale its quantize used (decompress_weight raises "
           "NotImplementedError in 0.13.0)" if old else "pins: its MXFP4PackedCompressor.decompress (bf16, exact) widened to f32")
    src = (f"compressed-tensors {ver}, torch {torch.__version__.split('+')[0]}: the MXFP4A16 preset, scales from "
           f"calculate_qparams, MXFP4PackedCompressor, config from ModelCompressor.update_config (version {ver}, "
           f"E8M0 bias {125 if old else 127}); {how}. up_proj [64, 96], down_proj [40, 160]")
    tag = ver.replace(".", "")
    files = {"model.safetensors": st_bytes(tensors), "config.json": cfg}
    out.case(FAMILY, f"ct-v{tag}", verdict="pass", layout="mxfp4-ct", modules=pins, rules=RULES, files=files, source=src)
    if old:
        return
    mxfp8(out, ver, torch)
    # the version that settles the bias removed: decoded with 127 (right for these bytes) and a warning
    nov = copy.deepcopy(cfg)
    nov["quantization_config"].pop("version", None)
    out.case(FAMILY, f"ct-v{tag}-no-version", verdict="pass", layout="mxfp4-ct", modules=pins, rules=RULES,
             files={"model.safetensors": files["model.safetensors"], "config.json": nov},
             source=src + "; then quantization_config.version removed by hand: MX-005 warns, bias 127 assumed")
    U = "model.layers.0.mlp.up_proj"

    def neg(name, rule, mutate, what):
        t = dict(tensors)
        mutate(t)
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule],
                 files={"model.safetensors": st_bytes(t), "config.json": cfg},
                 source=f"{src}; then broken by hand to violate {rule} only: {what}")

    def nan_scale(t):
        s = t[f"{U}.weight_scale"].clone()
        s[5, 2] = 255
        t[f"{U}.weight_scale"] = s
    neg("neg-mx002-ct-nan-scale", "MX-002", nan_scale, "up_proj.weight_scale[5, 2] = 255 (E8M0 NaN)")
    neg("neg-mx004-ct-scale-transposed", "MX-004",
        lambda t: t.__setitem__(f"{U}.weight_scale", t[f"{U}.weight_scale"].t().contiguous()),
        "up_proj.weight_scale stored [K/32, N] = [3, 64]")
    neg("neg-mx004-ct-packed-i32", "MX-004",
        lambda t: t.__setitem__(f"{U}.weight_packed", t[f"{U}.weight_packed"].view(torch.int32).contiguous()),
        "up_proj.weight_packed viewed as I32 [64, 12] (the int pack-quantized word layout)")


def mxfp8(out, ver, torch):
    """compressed-tensors >= 0.15 mxfp8-quantized: E4M3 weights, E8M0 U8 scales per 32 (rules FP8-010).
    Pins: codes = the stored E4M3 bytes; f32 = MXFP8QuantizationCompressor.decompress (bf16, exact) widened."""
    from compressed_tensors.compressors.mxfp8.base import MXFP8QuantizationCompressor as C
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import MXFP8A16
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(MXFP8A16))
    tensors, pins = {}, {}
    for name, shape, seed in MODS:
        w = weights(shape, seed)
        scale = qparams(w, scheme.weights, False)
        o = {k: v.contiguous() for k, v in C.compress({"weight": w, "weight_scale": scale}, scheme).items()}
        lib = C.decompress(dict(o), scheme)["weight"].float()
        c = o["weight"].view(torch.uint8).numpy()
        pins[name] = module_pin(c.shape, 8, c.tobytes(), lib.contiguous().numpy().astype("<f4").tobytes())
        tensors.update({f"{name}.{k}": v for k, v in o.items()})
    tensors["lm_head.weight"] = weights((16, 96), 99)
    cfg = ct_config(scheme, "mxfp8-quantized")
    src = (f"compressed-tensors {ver}, torch {torch.__version__.split('+')[0]}: the MXFP8A16 preset, scales from "
           f"calculate_qparams, MXFP8QuantizationCompressor.compress, config from ModelCompressor.update_config; pins: "
           f"its MXFP8QuantizationCompressor.decompress (bf16, exact) widened to f32. up_proj [64, 96], down_proj [40, 160]")
    out.case(FAMILY, "ct-mxfp8-v" + ver.replace(".", ""), verdict="pass", layout="ct-mxfp8", modules=pins,
             rules=["FP8-010"], files={"model.safetensors": st_bytes(tensors), "config.json": cfg}, source=src)
    U = "model.layers.0.mlp.up_proj.weight_scale"
    t = dict(tensors)
    s = t[U].clone()
    s[3, 1] = 255
    t[U] = s
    out.case(FAMILY, "neg-fp8010-mxfp8-nan-scale", verdict="reject", reject_rule="FP8-010", rules=["FP8-010"],
             files={"model.safetensors": st_bytes(t), "config.json": cfg},
             source=src + "; then broken by hand to violate FP8-010 only: up_proj.weight_scale[3, 1] = 255 (E8M0 NaN)")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
