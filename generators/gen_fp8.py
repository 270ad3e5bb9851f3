"""FP8 E4M3 and INT8 weights with float scales (family fp8/, rules FP8): compressed-tensors
float-quantized / int-quantized / naive-quantized, and the DeepSeek-native fp8 layout.

Venv: ct (generators/requirements-ct.txt: compressed-tensors 0.20.1, torch 2.15.0); the generator
re-runs itself there (PCGEN_VENV_CT, default /work/venvs/ct) when this interpreter lacks them.

  * compressed-tensors: the library's presets (FP8, FP8_DYNAMIC, FP8_BLOCK, INT8_W8A8, and an
    asymmetric int8 group scheme under naive-quantized), scales from its calculate_qparams over the
    (zero-padded) blocks, weights from its FloatQuantizationCompressor / IntQuantizationCompressor /
    NaiveQuantizationCompressor.compress (quantize to weights.pytorch_dtype(), block padding and
    truncation its own), config.json from ModelCompressor.update_config.
  * DeepSeek-native: no library writes it on a CPU, so the bytes follow the layout its repository
    documents (deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: weight F8_E4M3 [M, N], weight_scale_inv
    F32 [ceil(M/128), ceil(N/128)], s = amax / 448 over zero-padded blocks), cast by torch's
    float8_e4m3fn; its dequantization (inference/kernel.py weight_dequant: x.float() * s) is the pin.

  * transformers fine-grained FP8 fused MoE experts (integrations/finegrained_fp8.py FP8Experts:
    P.gate_up_proj F8_E4M3 [E, 2I, H], P.down_proj [E, H, I], P.<name>_scale_inv F32
    [E, ceil(N/128), ceil(K/128)]; config from FineGrainedFP8Config.to_dict). Its quantizer
    refuses a CPU (FineGrainedFP8HfQuantizer.validate_environment: "A GPU or XPU is needed"), and a
    Qwen3-MoE save_pretrained splits the experts back to per-expert 2-D M.weight (conversion_mapping
    qwen2_moe), which the DeepSeek-native path already reads. The fused bytes come from its
    Fp8Quantize._quantize_one where the shape is a whole number of blocks; it passes any other
    shape through unquantized (bf16), so edge shapes follow the layout _alloc_expert_proj documents
    (ceil grids, s = amax / 448 per zero-padded block). Every case also records how its
    _dequantize_fp8_weight (float32 output) compares with the pin (`library_check`).

Pins: codes = the stored bytes (int8: q + 128); f32 weights = torch float32 x.float() * s with s the
scale of the element's block (one multiply, CONTRACT 3). Each compressed-tensors pass case also
records how the library's own decompress (output in the scale's dtype) compares (`library_check`).
Negative cases edit one thing of those files (named in each case's source).
"""
import copy
import json
import os
import sys

from pcgen.corpus import module_pin
from pcgen.venv import here_or_in_venv

FAMILY = "fp8"
VENV = os.environ.get("PCGEN_VENV_CT", "/work/venvs/ct")
L0 = "model.layers.0"
FP8_RULES = ["FP8-001", "FP8-002", "FP8-003", "FP8-004", "FP8-005", "FP8-006", "FP8-008"]


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "compressed-tensors", ("compressed_tensors", "torch"), _generate)


# ---------------------------------------------------------------- shared

def weights(shape, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * 0.05).to(torch.bfloat16)


def blocks_minmax(w, bh, bw):
    """Per-block min and max over the zero-padded [ceil(N/bh)*bh, ceil(K/bw)*bw] weight."""
    import torch.nn.functional as F
    n, k = w.shape
    gr, gc = -(-n // bh), -(-k // bw)
    p = F.pad(w.float(), (0, gc * bw - k, 0, gr * bh - n))
    b = p.reshape(gr, bh, gc, bw).permute(0, 2, 1, 3)
    return b.amin((2, 3)), b.amax((2, 3))


def grid_of(strategy, shape, args):
    n, k = shape
    if strategy == "tensor":
        return n, k
    if strategy == "channel":
        return 1, k
    if strategy == "group":
        return 1, args.group_size
    return tuple(args.block_structure)


def expand(scale, bh, bw, shape):
    """The scale of each element: scale[n // bh, k // bw] (a [1] tensor scale is [1, 1])."""
    import torch
    n, k = shape
    s = scale.float().reshape(-1, scale.shape[-1] if scale.dim() == 2 else 1)
    return s[torch.arange(n) // bh][:, torch.arange(k) // bw]


def pin_of(wq, scale, zp, bh, bw, is_int):
    import numpy as np
    import torch
    shape = tuple(wq.shape)
    s = expand(scale, bh, bw, shape)
    if is_int:
        q = wq.to(torch.int32)
        z = expand(zp, bh, bw, shape).to(torch.int32) if zp is not None else 0
        w = (q - z).to(torch.float32) * s
        codes = (q + 128).to(torch.uint8).numpy()
    else:
        w = wq.to(torch.float32) * s
        codes = wq.view(torch.uint8).numpy()
    assert w.dtype == torch.float32
    return module_pin(shape, 8, np.ascontiguousarray(codes).tobytes(), np.ascontiguousarray(w.numpy()).astype("<f4").tobytes())


def st_bytes(tensors):
    from safetensors.torch import save
    return save({k: v.contiguous() for k, v in tensors.items()}, metadata={"format": "pt"})


# ---------------------------------------------------------------- compressed-tensors

def ct_config(schemes, fmt):
    from pcgen.ct_common import config_json
    return config_json(schemes, fmt=fmt)


def ct_module(name, shape, seed, scheme, compressor, scale_dtype, w=None):
    """One Linear through the library: scales (calculate_qparams), compress, decompress (`w`: the
    weight to quantize, else seeded random)."""
    import torch
    from compressed_tensors.quantization.utils.helpers import calculate_qparams
    a = scheme.weights
    strategy = str(getattr(a.strategy, "value", a.strategy))
    w = weights(shape, seed) if w is None else w
    bh, bw = grid_of(strategy, shape, a)
    lo, hi = blocks_minmax(w, bh, bw)
    scale, zp = calculate_qparams(lo, hi, a)
    if strategy == "tensor":
        scale, zp = scale.reshape(1), zp.reshape(1)
    sd = {"weight": w, "weight_scale": scale.to(scale_dtype)}
    if not a.symmetric:
        sd["weight_zero_point"] = zp.round().to(torch.int8)
    out = {k: v.contiguous() for k, v in compressor.compress(sd, scheme).items()}
    if scheme.input_activations is not None and not scheme.input_activations.dynamic:
        x = weights((4, shape[1]), seed + 500).float()  # a calibration batch: the observer's min/max
        s_in, _ = calculate_qparams(x.amin().reshape(1), x.amax().reshape(1), scheme.input_activations)
        out["input_scale"] = s_in.to(scale_dtype)
    is_int = a.type == "int"
    pin = pin_of(out["weight"], out["weight_scale"], out.get("weight_zero_point"), bh, bw, is_int)
    lib = compressor.decompress(dict(out), scheme)["weight"]
    contract = pin_of_f32(out, bh, bw, is_int)
    check = {"library": f"compressed-tensors {compressor.__name__}.decompress ({str(lib.dtype).replace('torch.', '')})",
             "elements": int(lib.numel()),
             "library_of_contract_differs": int((lib != contract.to(lib.dtype)).sum())}
    return {f"{name}.{k}": v for k, v in out.items()}, pin, check


def pin_of_f32(out, bh, bw, is_int):
    import torch
    wq = out["weight"]
    s = expand(out["weight_scale"], bh, bw, tuple(wq.shape))
    if is_int:
        zp = out.get("weight_zero_point")
        z = expand(zp, bh, bw, tuple(wq.shape)).to(torch.int32) if zp is not None else 0
        return (wq.to(torch.int32) - z).to(torch.float32) * s
    return wq.to(torch.float32) * s


def ct_checkpoint(mods, preset, fmt, compressor_name, scale_dtype):
    """mods: [(name, shape, seed)] under one preset scheme. Returns files, pins, library checks."""
    from compressed_tensors.compressors.naive_quantized import base as nq
    from compressed_tensors.quantization import QuantizationScheme
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(preset))
    comp = getattr(nq, compressor_name)
    tensors, pins, checks = {}, {}, {}
    for name, shape, seed in mods:
        t, p, c = ct_module(name, shape, seed, scheme, comp, scale_dtype)
        tensors.update(t)
        pins[name] = p
        checks[name] = c
    tensors["lm_head.weight"] = weights((16, mods[0][1][1]), 99)
    return {"model.safetensors": st_bytes(tensors), "config.json": ct_config({"group_0": scheme}, fmt)}, pins, checks, tensors


def int8_asym_group():
    from compressed_tensors.quantization import QuantizationArgs
    return dict(weights=QuantizationArgs(num_bits=8, type="int", strategy="group", group_size=64, symmetric=False))


# ---------------------------------------------------------------- DeepSeek-native

DS_CONFIG = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
             "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                     "weight_block_size": [128, 128]}}


def ds_module(name, shape, seed, w=None):
    """README_WEIGHTS.md's layout: s = amax / 448 per zero-padded 128x128 block, x = (w / s) cast to
    float8_e4m3fn by torch; dequantization x.float() * s (inference/kernel.py weight_dequant)."""
    import torch
    w = weights(shape, seed).float() if w is None else w
    lo, hi = blocks_minmax(w, 128, 128)
    s = (torch.maximum(lo.abs(), hi.abs()) / 448.0).clamp(min=1e-12).to(torch.float32)
    x = (w / expand(s, 128, 128, shape)).to(torch.float8_e4m3fn)
    return {f"{name}.weight": x, f"{name}.weight_scale_inv": s.contiguous()}, pin_of(x, s, None, 128, 128, False)


DS_MODS = [(f"{L0}.self_attn.q_proj", (260, 400), 1),   # grid [3, 4]: non-square, partial edge blocks
           (f"{L0}.mlp.down_proj", (1000, 300), 2),     # 1000 rows: 8 scale rows (a shape-derived guess says 125)
           (f"{L0}.mlp.up_proj", (128, 256), 3)]         # exact blocks


def ds_checkpoint(mods=DS_MODS):
    import torch
    tensors, pins = {}, {}
    for name, shape, seed in mods:
        t, p = ds_module(name, shape, seed)
        tensors.update(t)
        pins[name] = p
    tensors["model.norm.weight"] = torch.ones(400, dtype=torch.bfloat16)
    return tensors, pins


# ---------------------------------------------------------------- transformers fused FP8 experts

def tf_config():
    from transformers import FineGrainedFP8Config
    q = FineGrainedFP8Config(weight_block_size=(128, 128)).to_dict()
    q = json.loads(json.dumps({k: getattr(v, "value", v) for k, v in q.items()}))  # enum -> str, tuple -> list
    return {"model_type": "qwen3_moe", "quantization_config": q}


def tf_experts(name, shape, seed, scale_mul=1.0):
    """One fused expert tensor [E, N, K]: Fp8Quantize when N, K are whole blocks, else the
    documented layout (per expert, as ds_module). Returns tensors, pin, library check."""
    from types import SimpleNamespace
    import torch
    from transformers import FineGrainedFP8Config
    from transformers.integrations.finegrained_fp8 import Fp8Quantize, _dequantize_fp8_weight
    w = (weights(shape, seed).float() * scale_mul).to(torch.bfloat16)
    e, n, k = shape
    if n % 128 == 0 and k % 128 == 0:
        hq = SimpleNamespace(quantization_config=FineGrainedFP8Config(weight_block_size=(128, 128)))
        out = Fp8Quantize(hq)._quantize_one(name, w)
        x, s = out[name], out[f"{name}_scale_inv"]
        how = "Fp8Quantize._quantize_one"
    else:
        xs, ss = [], []
        for i in range(e):
            t, _ = ds_module("m", (n, k), 0, w[i].float())
            xs.append(t["m.weight"])
            ss.append(t["m.weight_scale_inv"])
        x, s = torch.stack(xs), torch.stack(ss)
        how = "layout of _alloc_expert_proj (Fp8Quantize leaves this shape in bf16)"
    assert x.dtype == torch.float8_e4m3fn and s.dtype == torch.float32 and tuple(s.shape) == (e, -(-n // 128), -(-k // 128))
    ref = torch.cat([x[i].float() * expand(s[i], 128, 128, (n, k))[None] for i in range(e)])
    codes = x.view(torch.uint8).numpy()
    from pcgen.corpus import module_pin
    import numpy as np
    pin = module_pin(shape, 8, np.ascontiguousarray(codes).tobytes(), np.ascontiguousarray(ref.numpy()).astype("<f4").tobytes())
    lib = _dequantize_fp8_weight(x, s, [128, 128], torch.float32)
    check = {"quantized_by": how, "library": "transformers _dequantize_fp8_weight (float32)",
             "elements": int(lib.numel()), "library_of_contract_differs": int((lib != ref).sum())}
    return {name: x.contiguous(), f"{name}_scale_inv": s.contiguous()}, pin, check


def tf_moe_checkpoint(mods):
    import torch
    tensors, pins, checks = {}, {}, {}
    for name, shape, seed in mods:
        t, p, c = tf_experts(name, shape, seed)
        tensors.update(t)
        pins[name] = p
        checks[name] = c
    tensors["model.norm.weight"] = torch.ones(mods[0][1][2], dtype=torch.bfloat16)
    return tensors, pins, checks


EX = f"{L0}.mlp.experts"


def tf_moe_cases(out, tf_src):
    # E = 3, H = 320 (2.5 column blocks), I = 128: gate_up [3, 256, 320], down [3, 320, 128] (partial row block)
    for case, mods, what in [
        ("tf-fp8-moe-fused-edge", [(f"{EX}.gate_up_proj", (3, 256, 320), 31), (f"{EX}.down_proj", (3, 320, 128), 32)],
         "E = 3, hidden 320, intermediate 128: gate_up_proj [3, 256, 320] (grid [3, 2, 3], partial column block), "
         "down_proj [3, 320, 128] (grid [3, 3, 1], partial row block); built by the layout (Fp8Quantize keeps such shapes bf16)"),
        ("tf-fp8-moe-fused-quantize", [(f"{EX}.gate_up_proj", (2, 512, 256), 33), (f"{EX}.down_proj", (2, 256, 256), 34)],
         "E = 2, hidden 256, intermediate 256: whole blocks, bytes and scales from transformers' Fp8Quantize._quantize_one"),
    ]:
        t, pins, checks = tf_moe_checkpoint(mods)
        out.case(FAMILY, case, verdict="pass", layout="fp8-deepseek", rules=FP8_RULES + ["FP8-011"], modules=pins,
                 files={"model.safetensors": st_bytes(t), "config.json": tf_config()}, source=f"{tf_src}. {what}",
                 extra={"library_check": checks})


# ---------------------------------------------------------------- cases

def _generate(out):
    import compressed_tensors
    import torch
    import transformers
    from compressed_tensors.quantization.quant_scheme import FP8, FP8_BLOCK, FP8_DYNAMIC, INT8_W8A8
    ver = f"compressed-tensors {compressed_tensors.__version__}, torch {torch.__version__.split('+')[0]}"
    ct_src = (f"{ver}: the library's {{preset}} preset, scales from calculate_qparams, {{comp}}.compress, "
              f"ModelCompressor.update_config ({{fmt}}); pins torch float32 x.float() * s")
    ds_src = (f"torch {torch.__version__.split('+')[0]} float8_e4m3fn over the layout of deepseek-ai/DeepSeek-V3 "
              f"README_WEIGHTS.md (weight_scale_inv = amax / 448 per 128x128 block, F32 [ceil(M/128), ceil(N/128)]); "
              f"pins its weight_dequant x.float() * s in torch float32")

    ct_cases = [
        ("ct-fp8-tensor-static", FP8, "FP8", "float-quantized", "FloatQuantizationCompressor", torch.bfloat16,
         [(f"{L0}.self_attn.q_proj", (260, 300), 11), (f"{L0}.mlp.down_proj", (48, 64), 12)],
         "tensor strategy, static tensor input activations (input_scale from calculate_qparams on a calibration batch)"),
        ("ct-fp8-dynamic-channel", FP8_DYNAMIC, "FP8_DYNAMIC", "float-quantized", "FloatQuantizationCompressor",
         torch.bfloat16, [(f"{L0}.self_attn.q_proj", (260, 300), 13), (f"{L0}.mlp.up_proj", (130, 200), 14)],
         "channel strategy, dynamic per-token input activations (no input tensors)"),
        ("ct-fp8-block", FP8_BLOCK, "FP8_BLOCK", "float-quantized", "FloatQuantizationCompressor", torch.bfloat16,
         [(f"{L0}.self_attn.q_proj", (260, 400), 15), (f"{L0}.mlp.up_proj", (130, 300), 16),
          (f"{L0}.mlp.down_proj", (128, 128), 17)],
         "block 128x128: grids [3, 4] and [2, 3] (non-square, partial edge blocks) and [1, 1]"),
        ("ct-fp8-block-f32-scale", FP8_BLOCK, "FP8_BLOCK", "float-quantized", "FloatQuantizationCompressor", torch.float32,
         [(f"{L0}.self_attn.q_proj", (260, 400), 18)],
         "block 128x128 with float32 scales: the library's decompress is then the contract's f32 exactly"),
        ("ct-int8-w8a8", INT8_W8A8, "INT8_W8A8", "int-quantized", "IntQuantizationCompressor", torch.bfloat16,
         [(f"{L0}.self_attn.q_proj", (260, 300), 19), (f"{L0}.mlp.down_proj", (48, 64), 20)],
         "int8 channel symmetric, dynamic per-token int8 activations"),
        ("ct-naive-int8-group-asym", int8_asym_group(), "int8 group 64 asymmetric (QuantizationArgs)", "naive-quantized",
         "NaiveQuantizationCompressor", torch.float32, [(f"{L0}.mlp.down_proj", (20, 320), 21)],
         "int8 group 64 asymmetric, weights only: I8 weight_zero_point of the scale's shape"),
    ]
    bases = {}
    for name, preset, pname, fmt, comp, sdt, mods, what in ct_cases:
        files, pins, checks, tensors = ct_checkpoint(mods, preset, fmt, comp, sdt)
        bases[name] = (tensors, files["config.json"])
        layout = "ct-int8" if "int8" in name else "ct-fp8"
        rules = FP8_RULES + (["FP8-009"] if layout == "ct-int8" else [])
        out.case(FAMILY, name, verdict="pass", layout=layout, files=files, modules=pins, rules=rules,
                 source=ct_src.format(preset=pname, comp=comp, fmt=fmt) + f". {what}",
                 extra={"library_check": checks})

    ds_t, ds_pins = ds_checkpoint()
    out.case(FAMILY, "deepseek-fp8-block", verdict="pass", layout="fp8-deepseek", rules=FP8_RULES, modules=ds_pins,
             files={"model.safetensors": st_bytes(ds_t), "config.json": DS_CONFIG}, source=ds_src + ". "
             "q_proj 260x400 (grid [3, 4]), down_proj 1000x300 (grid [8, 3]), up_proj 128x256 (exact blocks)")
    # One module whose grid divides its shape (1000 / 8, 300 / 3): a reader that derives the block from the
    # grid (125 x 100) decodes it without an error and wrong (transformers 5.24.0 Fp8Dequantize,
    # reports/findings/transformers-5.24.0-1.md); in deepseek-fp8-block the 260-row module refuses first.
    r_t, r_pins = ds_checkpoint([m for m in DS_MODS if m[1] == (1000, 300)])
    out.case(FAMILY, "deepseek-fp8-rows-1000", verdict="pass", layout="fp8-deepseek", rules=FP8_RULES, modules=r_pins,
             files={"model.safetensors": st_bytes(r_t), "config.json": DS_CONFIG}, source=ds_src + ". "
             "down_proj 1000x300 alone (grid [8, 3]: a block derived from the shapes, 125x100, divides evenly)")
    tf_src = (f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}: the fused FP8Experts "
              f"layout (integrations/finegrained_fp8.py: gate_up_proj [E, 2I, H], down_proj [E, H, I], *_scale_inv F32 "
              f"[E, ceil(N/128), ceil(K/128)]), config FineGrainedFP8Config(weight_block_size=(128, 128)).to_dict(); "
              f"pins x.float() * s per expert in torch float32 (its _dequantize_fp8_weight agrees: library_check)")
    tf_moe_cases(out, tf_src)
    gate_up_scales_differ(out, ct_src)
    equiv_pairs(out, ds_src, ct_src)
    # The negatives start from q_proj alone (grid [3, 4]), keeping the corpus small.
    negatives(out, bases, ds_checkpoint(DS_MODS[:1])[0], ds_src, ct_src)


def gate_up_scales_differ(out, ct_src):
    """Per-expert gate_proj / up_proj with per-tensor scales that differ (compressed-tensors FP8:
    tensor strategy): legal, and a reader that fuses them under one scale decodes one half wrong
    (vLLM #54150 is the NVFP4 twin, FORMATS-2.md row 10), so certify's pins catch it."""
    from compressed_tensors.quantization.quant_scheme import FP8
    E0 = f"{EX}.0"
    mods = [(f"{E0}.gate_proj", (192, 256), 41), (f"{E0}.up_proj", (192, 256), 42), (f"{E0}.down_proj", (256, 192), 43)]
    files, pins, checks, tensors = ct_checkpoint(mods, FP8, "float-quantized", "FloatQuantizationCompressor", __import__("torch").bfloat16)
    g, u = tensors[f"{E0}.gate_proj.weight_scale"], tensors[f"{E0}.up_proj.weight_scale"]
    assert (g != u).all(), "gate and up scales must differ for this case to test anything"
    out.case(FAMILY, "ct-fp8-tensor-moe-gate-up-scales-differ", verdict="pass", layout="ct-fp8", files=files, modules=pins,
             rules=FP8_RULES, extra={"library_check": checks},
             source=ct_src.format(preset="FP8", comp="FloatQuantizationCompressor", fmt="float-quantized") +
             f". One MoE expert's gate_proj / up_proj [192, 256] with per-tensor weight_scale {float(g):.6g} and "
             f"{float(u):.6g} (they differ: a reader fusing gate/up under one scale decodes a half wrong, vLLM #54150's twin)")


def equiv_pairs(out, ds_src, ct_src):
    """The same bf16 weights as DeepSeek-native fp8 (source) and as compressed-tensors FP8_BLOCK with
    float32 scales (target): both compute s = amax / 448 per zero-padded block and cast w / s to
    float8_e4m3fn, so `packcheck equiv` must find them equal. Then a row-permuting converter that
    swaps q_proj's first two 128-row blocks of the weight but not its scale rows (sgl-project/sglang
    PR #35703): the codes move, so the pair differs, diagnosed rows-permuted-scales-kept; and its twin
    that moves the scale rows too (differs by position, diagnosed rows-permuted)."""
    import torch
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import FP8_BLOCK
    mods = DS_MODS[:1]
    ds_t, ds_pins = ds_checkpoint(mods)
    src_files = {"source/model.safetensors": st_bytes(ds_t), "source/config.json": DS_CONFIG}
    ct_t = {}
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(FP8_BLOCK))
    from compressed_tensors.compressors.naive_quantized.base import FloatQuantizationCompressor as comp
    for name, shape, seed in mods:
        t, _, _ = ct_module(name, shape, seed, scheme, comp, torch.float32)
        ct_t.update(t)
    ct_t["model.norm.weight"] = ds_t["model.norm.weight"]
    cfg = ct_config({"group_0": scheme}, "float-quantized")
    what = ct_src.format(preset="FP8_BLOCK", comp="FloatQuantizationCompressor", fmt="float-quantized")
    Q = mods[0][0]

    def pair(name, target, verdict, rule, note, diagnosis=None):
        files = dict(src_files)
        files.update({"target/model.safetensors": st_bytes(target), "target/config.json": cfg})
        # "diagnosis": module -> the bug equiv must name for it; modules not listed must get none.
        eq = {"source": "source", "target": "target", "verdict": verdict, "rule": rule, "diagnosis": diagnosis or {}}
        out.case(FAMILY, name, verdict="pass", layout="fp8-deepseek", input="source", files=files, modules=ds_pins,
                 rules=FP8_RULES, source=f"source: {ds_src}; target: {what} (float32 scales) over the same bf16 weights. {note}",
                 extra={"equiv": eq})

    pair("equiv-deepseek-vs-ct-block", ct_t, "equal", None, "The two layouts of one quantized model")
    perm = dict(ct_t)
    w = ct_t[f"{Q}.weight"]
    perm[f"{Q}.weight"] = torch.cat([w[128:256], w[:128], w[256:]]).contiguous()
    pair("equiv-ct-rows-permuted-scales-kept", perm, "differ", "EQ-002",
         "target: q_proj.weight rows 0-127 and 128-255 swapped, weight_scale rows left in place",
         {Q: "rows-permuted-scales-kept"})
    moved = dict(perm)
    s = ct_t[f"{Q}.weight_scale"]
    moved[f"{Q}.weight_scale"] = torch.cat([s[1:2], s[:1], s[2:]]).contiguous()
    pair("equiv-ct-rows-permuted-with-scales", moved, "differ", "EQ-002",
         "target: q_proj.weight rows 0-127 and 128-255 swapped and weight_scale rows 0 and 1 with them "
         "(the same weights at other positions)", {Q: "rows-permuted"})


def negatives(out, bases, ds_t, ds_src, ct_src):
    import torch
    Q, D = f"{L0}.self_attn.q_proj", f"{L0}.mlp.down_proj"

    def case(name, rule, tensors, cfg, src, what):
        files = {"model.safetensors": st_bytes(tensors)}
        if cfg is not None:
            files["config.json"] = cfg
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule], files=files,
                 source=f"{src}; then broken by hand to violate {rule} only: {what}")

    def ds(mutate_t=None, mutate_c=None):
        t, c = dict(ds_t), copy.deepcopy(DS_CONFIG)
        if mutate_t:
            mutate_t(t)
        if mutate_c:
            mutate_c(c)
        return t, c

    def ct(base, mutate_t=None, mutate_c=None):
        t, c = dict(bases[base][0]), copy.deepcopy(bases[base][1])
        if mutate_t:
            mutate_t(t)
        if mutate_c:
            mutate_c(c)
        return t, c

    blk = ct_src.format(preset="FP8_BLOCK", comp="FloatQuantizationCompressor", fmt="float-quantized")
    chan = ct_src.format(preset="FP8_DYNAMIC", comp="FloatQuantizationCompressor", fmt="float-quantized")

    def set_(k, v):
        return lambda t: t.__setitem__(k, v)

    def flip_byte(k, i, v):
        def f(t):
            x = t[k].view(torch.uint8).clone().reshape(-1)
            x[i] = v
            t[k] = x.reshape(t[k].shape).view(t[k].dtype)
        return f

    def scale_neg(t):
        s = t[f"{Q}.weight_scale_inv"].clone()
        s[2, 3] = -s[2, 3]
        t[f"{Q}.weight_scale_inv"] = s

    t, c = ct("ct-fp8-block", set_(f"{D}.weight", bases["ct-fp8-block"][0][f"{D}.weight"].view(torch.int8)))
    case("neg-fp8001-int8-under-float", "FP8-001", t, c, blk, "down_proj.weight's bytes relabelled I8 under a float scheme")
    t, c = ds(set_(f"{Q}.weight", ds_t[f"{Q}.weight"].reshape(-1)))
    case("neg-fp8002-flat-weight", "FP8-002", t, c, ds_src, "q_proj.weight flattened to 1-D [104000]")
    t, c = ds(set_(f"{Q}.weight_scale_inv", ds_t[f"{Q}.weight_scale_inv"].t().contiguous()))
    case("neg-fp8003-ds-grid-transposed", "FP8-003", t, c, ds_src, "q_proj.weight_scale_inv [3, 4] stored transposed as [4, 3]")
    t, c = ct("ct-fp8-block", set_(f"{D}.weight_scale", bases["ct-fp8-block"][0][f"{D}.weight_scale"].repeat(2, 1)))
    case("neg-fp8003-ct-grid-rows", "FP8-003", t, c, blk,
         "down_proj (128x128) weight_scale [1, 1] repeated to [2, 1], as a 64-row block guess would have it")
    t, c = ds(mutate_c=lambda c: c["quantization_config"].pop("weight_block_size"))
    case("neg-fp8004-no-block-size", "FP8-004", t, c, ds_src, "quantization_config.weight_block_size removed")
    t, c = ds(scale_neg)
    case("neg-fp8005-negative-scale", "FP8-005", t, c, ds_src, "q_proj.weight_scale_inv[2, 3] (the partial corner block) negated")
    t, c = ct("ct-fp8-dynamic-channel", flip_byte(f"{Q}.weight", 1234, 0x7F))
    case("neg-fp8006-nan-weight", "FP8-006", t, c, chan, "q_proj.weight byte 1234 set to 0x7F (E4M3 NaN)")
    t, c = ds(mutate_c=lambda c: c.pop("quantization_config"))
    case("neg-fp8007-no-config", "FP8-007", t, c, ds_src, "config.json without its quantization_config")
    t, c = ct("ct-fp8-tensor-static", lambda t: t.pop(f"{Q}.input_scale"))
    case("neg-fp8008-no-input-scale", "FP8-008", t, c,
         ct_src.format(preset="FP8", comp="FloatQuantizationCompressor", fmt="float-quantized"),
         "q_proj.input_scale removed under static input activations")
    gu, _, _ = tf_moe_checkpoint([(f"{EX}.gate_up_proj", (2, 384, 256), 35)])
    out.case(FAMILY, "neg-fp8011-gate-up-straddle", verdict="reject", reject_rule="FP8-011", rules=["FP8-011"],
             files={"model.safetensors": st_bytes(gu), "config.json": tf_config()},
             source="the transformers FP8Experts layout of tf-fp8-moe-fused-edge (per expert s = amax / 448 over "
             "zero-padded 128x128 blocks of the fused matrix) with gate_up_proj [2, 384, 256]: intermediate 192 is not "
             "a multiple of the 128-row block, so scale row 1 of each expert covers gate rows 128-191 and up rows "
             "192-255 (the grid, [2, 3, 2], is the ceil grid FP8-003 wants; only FP8-011 is violated)")
    ed, _, _ = tf_moe_checkpoint([(f"{EX}.down_proj", (3, 320, 128), 32)])
    ed[f"{EX}.down_proj_scale_inv"] = ed[f"{EX}.down_proj_scale_inv"][0].contiguous()
    case("neg-fp8003-experts-grid-2d", "FP8-003", ed, tf_config(),
         "the transformers FP8Experts layout of tf-fp8-moe-fused-edge (down_proj [3, 320, 128])",
         "down_proj_scale_inv [3, 3, 1] cut to expert 0's [3, 1]: a grid without its expert dimension")
    t, c = ct("ct-naive-int8-group-asym", lambda t: t.pop(f"{D}.weight_zero_point"))
    case("neg-fp8009-no-zero-point", "FP8-009", t, c,
         ct_src.format(preset="int8 group 64 asymmetric", comp="NaiveQuantizationCompressor", fmt="naive-quantized"),
         "down_proj.weight_zero_point removed from an asymmetric scheme")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
