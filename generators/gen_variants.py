"""The variant matrix (family variants/): the same weights stored the ways real checkpoints store
their companion tensors, each a valid case with pins and `"variant"` in expect.json, and negatives
where the file itself is wrong. Each case names the public loader bug it would have caught
(reports/LOADER-BUGS-COVERAGE.md has the table with the mutant readers that reproduce them).

Venv: modelopt (generators/requirements-modelopt.txt: nvidia-modelopt 0.47.0, compressed-tensors
0.20.1, transformers 5.24.0, torch 2.15.0 CPU); the generator re-runs itself there
(PCGEN_VENV_MODELOPT, default /work/venvs/modelopt) when this interpreter lacks them.

Who wrote the bytes (each case's `source` says it again):
  * ModelOpt cases: nvidia-modelopt's own mtq.quantize + export_hf_checkpoint of a tiny seeded Phi-3
    (transformers Phi3ForCausalLM keeps qkv_proj and gate_up_proj fused, so the export holds fused
    layers with one scalar weight_scale_2 / input_scale each, as nvidia/Phi-4-*-NVFP4 does).
  * compressed-tensors cases: the library's compressors (NVFP4PackedCompressor, MXFP4PackedCompressor,
    FloatQuantizationCompressor, PackedQuantizationCompressor) over seeded weights with scales from its
    generate_gparam / calculate_qparams, and its QuantizationConfig / ModelCompressor config writer.
  * Built by the documented layout (said in the case): storage variants no writer here produces from
    the same weights: the same library bytes restacked (gpt-oss MXFP4 `_blocks`/`_scales`, transformers
    FP8Experts `[E, N, K]` + `_scale_inv`, compressed-tensors 3-D experts), a 0-dim vs [1] global
    scale, and ModelOpt names for per-tensor NVFP4QTensor.quantize output whose gate and up global
    scales differ (ModelOpt's export unifies them across fused layers; checkpoints where they differ
    are what vLLM #54150 met).

Pins: codes and contract f32 weights (CONTRACT 3) from the library-unpacked values, as the family
generators do (gen_nvfp4.library_view, gen_fp8.pin_of, gen_ct_mxfp4.codes_of, pcgen.ct_common).
"""
import copy
import json
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcgen.corpus import module_pin  # noqa: E402
from pcgen.venv import here_or_in_venv  # noqa: E402

FAMILY = "variants"
VENV = os.environ.get("PCGEN_VENV_MODELOPT", "/work/venvs/modelopt")
NV_RULES = ["NV-001", "NV-002", "NV-003", "NV-004", "NV-005", "NV-006", "NV-009", "NV-010"]
FP8_RULES = ["FP8-001", "FP8-002", "FP8-003", "FP8-004", "FP8-005", "FP8-006", "FP8-008"]
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
L0 = "model.layers.0"
EX = f"{L0}.mlp.experts"


def generate(out):
    return here_or_in_venv(__file__, VENV, out, "nvidia-modelopt", ("modelopt", "compressed_tensors"), _generate)


def st_bytes(tensors):
    from safetensors.torch import save
    return save({k: v.contiguous() for k, v in tensors.items()}, metadata={"format": "pt"})


def rand_weight(shape, seed, scale=0.05):
    import torch
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * scale).to(torch.bfloat16)


def versions():
    import compressed_tensors
    import modelopt
    import torch
    import transformers
    return (f"nvidia-modelopt {modelopt.__version__}, compressed-tensors {compressed_tensors.__version__}, "
            f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}")


# ---------------------------------------------------------------- ModelOpt exports (real writer)

def phi3_export(out_dir, cfg_name):
    """mtq.quantize(cfg) + export_hf_checkpoint of a 1-layer Phi-3: hidden 64, 4 heads of 16, 2 KV
    heads (qkv_proj [128, 64] = q 64 + k 32 + v 32 rows), intermediate 64 (gate_up_proj [128, 64])."""
    import modelopt.torch.quantization as mtq
    import torch
    from modelopt.torch.export import export_hf_checkpoint
    from transformers import Phi3Config, Phi3ForCausalLM
    torch.manual_seed(0)
    cfg = Phi3Config(vocab_size=32, hidden_size=64, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                     num_key_value_heads=2, max_position_embeddings=16, pad_token_id=0, bos_token_id=0, eos_token_id=0,
                     tie_word_embeddings=False, architectures=["Phi3ForCausalLM"])
    m = Phi3ForCausalLM(cfg).to(torch.bfloat16).eval()

    def loop(mm):
        g = torch.Generator().manual_seed(1)
        for _ in range(2):
            mm(torch.randint(0, 32, (1, 8), generator=g))
    export_hf_checkpoint(mtq.quantize(m, getattr(mtq, cfg_name), loop), export_dir=out_dir)


def dir_files(d):
    from gen_nvfp4 import files_of
    return files_of(d)


def nv_pins(d):
    from gen_nvfp4 import pins
    return pins(d)


def modelopt_cases(out, src):
    import torch
    from gen_nvfp4 import load, save
    tmp = tempfile.mkdtemp(prefix="pcgen-variants-")
    try:
        fused, w4a16 = os.path.join(tmp, "fused"), os.path.join(tmp, "w4a16")
        phi3_export(fused, "NVFP4_DEFAULT_CFG")
        phi3_export(w4a16, "W4A16_NVFP4_CFG")
        qkv = f"{L0}.self_attn.qkv_proj"
        t = load(fused)
        assert t[f"{qkv}.weight_scale_2"].dim() == 0 and t[f"{qkv}.input_scale"].dim() == 0
        out.case(FAMILY, "nvfp4-mo-fused-qkv-gate-up", verdict="pass", layout="nvfp4-modelopt", rules=NV_RULES,
                 files=dir_files(fused), modules=nv_pins(fused),
                 source=f"{src}: mtq.quantize(NVFP4_DEFAULT_CFG) + export_hf_checkpoint of a tiny Phi-3",
                 extra={"variant": "ModelOpt NVFP4 with fused qkv_proj [q 64 + k 32 + v 32 rows] and gate_up_proj "
                                   "[gate 64 + up 64 rows] in the checkpoint, one scalar () weight_scale_2 and input_scale "
                                   "per fused layer (loaders that split per shard must give every shard the scalar)",
                        "catches": ["sgl-project/sglang PR #29151"]})
        t = load(w4a16)
        assert not any(k.endswith("input_scale") for k in t)
        out.case(FAMILY, "nvfp4-mo-weight-only-no-input-scale", verdict="pass", layout="nvfp4-modelopt", rules=NV_RULES,
                 files=dir_files(w4a16), modules=nv_pins(w4a16),
                 source=f"{src}: mtq.quantize(W4A16_NVFP4_CFG) + export_hf_checkpoint of the same Phi-3",
                 extra={"variant": "ModelOpt NVFP4 weight-only (quant_algo W4A16_NVFP4): no input_scale tensor at all",
                        "catches": ["vllm-project/vllm #54189"]})
        # [1] instead of (): the same export with every scalar stored as a one-element vector.
        t = load(fused)
        for k in list(t):
            if k.endswith(("weight_scale_2", "input_scale")):
                t[k] = t[k].reshape(1)
        d1 = os.path.join(tmp, "shape1")
        shutil.copytree(fused, d1)
        save(t, d1)
        out.case(FAMILY, "nvfp4-mo-scalars-shape-1", verdict="pass", layout="nvfp4-modelopt", rules=NV_RULES,
                 files=dir_files(d1), modules=nv_pins(d1),
                 source=f"{src}: the fused export above with every weight_scale_2 and input_scale reshaped from () to [1] "
                        "(built by the layout: NV-004 and ModelOpt's loaders take either)",
                 extra={"variant": "ModelOpt NVFP4 global scales stored as [1] instead of the 0-dim () the exporter writes"})
        # Negative: the fused layer's weight_scale_2 stored per shard ([3]) is no NVFP4 global scale.
        t = load(fused)
        g = t[f"{qkv}.weight_scale_2"]
        t[f"{qkv}.weight_scale_2"] = torch.stack([g, g * 2, g * 4]).contiguous()
        dn = os.path.join(tmp, "neg")
        shutil.copytree(fused, dn)
        save(t, dn)
        out.case(FAMILY, "neg-nv004-fused-qkv-scale2-per-shard", verdict="reject", reject_rule="NV-004",
                 layout="nvfp4-modelopt", files=dir_files(dn),
                 source=f"{src}: the fused export with qkv_proj.weight_scale_2 replaced by a per-shard F32 [3] vector",
                 extra={"variant": "fused qkv_proj with a per-shard weight_scale_2 [3] (what a loader's fused parameter holds, "
                                   "not what a checkpoint may store: ModelOpt writes one F32 scalar)"})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- compressed-tensors NVFP4

def ct_nvfp4_module(w, seed):
    """compressed-tensors NVFP4 for one 2-D weight, global scale from this tensor alone."""
    import torch
    from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import NVFP4
    from compressed_tensors.quantization.utils.helpers import calculate_qparams, generate_gparam
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(NVFP4))
    n, k = w.shape
    gs = generate_gparam(w.min(), w.max())
    grp = w.float().reshape(n, k // 16, 16)
    scale, _ = calculate_qparams(grp.amin(-1), grp.amax(-1), scheme.weights, global_scale=gs)
    act = torch.randn(8, k, generator=torch.Generator().manual_seed(seed))
    igs = generate_gparam(act.min(), act.max())
    sd = NVFP4PackedCompressor.compress({"weight": w, "weight_scale": scale, "weight_global_scale": gs,
                                         "input_global_scale": igs}, scheme)
    return {k2: v.contiguous() for k2, v in sd.items()}, scheme


def ct_config(groups, fmt, ignore=("lm_head",)):
    from pcgen.ct_common import config_json
    return config_json(groups, fmt=fmt, ignore=ignore)


def nv_pins_of(tensors):
    from gen_nvfp4 import library_view, naming_modules
    pins = {}
    for prefix, naming in naming_modules(tensors):
        codes, w = library_view(tensors, prefix, naming)
        pins[prefix] = module_pin(codes.shape, 4, codes.tobytes(), w.astype("<f4").tobytes())
    return pins


def ct_nvfp4_cases(out, src):
    import torch
    mods = {}
    for e in range(2):  # per-expert MoE: gate and up of one expert with global scales that differ
        for j, (p, shape, mul) in enumerate([("gate_proj", (32, 64), 1.0), ("up_proj", (32, 64), 3.0), ("down_proj", (64, 32), 1.0)]):
            mods[f"{EX}.{e}.{p}"] = (rand_weight(shape, 100 + 10 * e + j).float() * mul).to(torch.bfloat16)
    for j, (p, rows, mul) in enumerate([("q_proj", 64, 1.0), ("k_proj", 32, 2.0), ("v_proj", 32, 0.5)]):
        mods[f"{L0}.self_attn.{p}"] = (rand_weight((rows, 64), 200 + j).float() * mul).to(torch.bfloat16)
    tensors, scheme = {}, None
    for i, (name, w) in enumerate(sorted(mods.items())):
        sd, scheme = ct_nvfp4_module(w, 300 + i)
        tensors.update({f"{name}.{k}": v for k, v in sd.items()})
    g = {p: float(tensors[f"{EX}.0.{p}.weight_global_scale"]) for p in ("gate_proj", "up_proj")}
    qkvg = [float(tensors[f"{L0}.self_attn.{p}.weight_global_scale"]) for p in ("q_proj", "k_proj", "v_proj")]
    assert g["gate_proj"] != g["up_proj"] and len(set(qkvg)) == 3
    tensors["lm_head.weight"] = rand_weight((32, 64), 7)
    cfg = ct_config({"group_0": scheme}, "nvfp4-pack-quantized")
    out.case(FAMILY, "nvfp4-ct-moe-per-expert-shard-scales-differ", verdict="pass", layout="nvfp4-ct", rules=NV_RULES,
             files={"model.safetensors": st_bytes(tensors), "config.json": cfg}, modules=nv_pins_of(tensors),
             source=f"{src}: NVFP4PackedCompressor.compress per tensor (generate_gparam, calculate_qparams over each weight alone)",
             extra={"variant": "compressed-tensors NVFP4 MoE stored per expert (experts.N.{gate,up,down}_proj.weight_packed + "
                               f"weight_global_scale each), gate and up global scales differ ({g['gate_proj']:.6g} vs {g['up_proj']:.6g}), "
                               f"and split q/k/v with three different global scales ({', '.join(f'{v:.6g}' for v in qkvg)})",
                    "catches": ["huggingface/transformers #48371", "vllm-project/vllm #54150", "vllm-project/vllm #54974"]})
    # 0-dim global scales: the same bytes with () instead of the [1] compressed-tensors writes.
    t0 = {k: (v.reshape(()) if k.endswith(("weight_global_scale", "input_global_scale")) else v) for k, v in tensors.items()}
    out.case(FAMILY, "nvfp4-ct-global-scales-0dim", verdict="pass", layout="nvfp4-ct", rules=NV_RULES,
             files={"model.safetensors": st_bytes(t0), "config.json": cfg}, modules=nv_pins_of(t0),
             source=f"{src}: the per-expert case above with every weight_global_scale / input_global_scale reshaped from [1] to () "
                    "(built by the layout; CONTRACT 3: a 0-dim global scale is read like a [1] one)",
             extra={"variant": "compressed-tensors NVFP4 global scales stored 0-dim () instead of [1]"})
    # Negative: one expert's global scale missing (the file itself is wrong: NV-004).
    tn = dict(tensors)
    del tn[f"{EX}.1.up_proj.weight_global_scale"]
    out.case(FAMILY, "neg-nv004-expert-global-scale-missing", verdict="reject", reject_rule="NV-004", layout="nvfp4-ct",
             files={"model.safetensors": st_bytes(tn), "config.json": cfg},
             source=f"{src}: the per-expert case with experts.1.up_proj.weight_global_scale deleted",
             extra={"variant": "per-expert NVFP4 with one expert's weight_global_scale absent"})
    # ModelOpt names, gate != up weight_scale_2: ModelOpt's own per-tensor quantizer on the same experts.
    mo = {}
    from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
    for e in range(2):
        for p, q in (("gate_proj", "w1"), ("up_proj", "w3"), ("down_proj", "w2")):
            w = mods[f"{EX}.{e}.{p}"].float()
            qt, ws, ws2 = NVFP4QTensor.quantize(w, 16)
            base = f"{L0}.block_sparse_moe.experts.{e}.{q}"
            mo[f"{base}.weight"] = qt._quantized_data.contiguous()
            mo[f"{base}.weight_scale"] = ws.contiguous()
            mo[f"{base}.weight_scale_2"] = ws2.float().reshape(()).contiguous()
    s2 = [float(mo[f"{L0}.block_sparse_moe.experts.0.{q}.weight_scale_2"]) for q in ("w1", "w3")]
    assert s2[0] != s2[1]
    mo["lm_head.weight"] = rand_weight((32, 64), 7)
    hq = {"producer": {"name": "modelopt", "version": __import__("modelopt").__version__},
          "quantization": {"quant_algo": "W4A16_NVFP4", "kv_cache_quant_algo": None, "group_size": 16, "exclude_modules": ["lm_head"]}}
    out.case(FAMILY, "nvfp4-mo-moe-gate-up-scale2-differ", verdict="pass", layout="nvfp4-modelopt", rules=NV_RULES,
             files={"model.safetensors": st_bytes(mo), "hf_quant_config.json": hq,
                    "config.json": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral"}},
             modules=nv_pins_of(mo),
             source=f"{src}: ModelOpt NVFP4QTensor.quantize(w, 16) per expert tensor (weight, weight_scale, weight_scale_2), "
                    "named and configured as export_hf_checkpoint names a Mixtral (hf_quant_config.json W4A16_NVFP4; built by the "
                    "layout: the exporter itself unifies gate/up global scales, the checkpoints vLLM met did not)",
             extra={"variant": f"ModelOpt NVFP4 MoE per expert with gate (w1) weight_scale_2 {s2[0]:.6g} != up (w3) {s2[1]:.6g}",
                    "catches": ["vllm-project/vllm #54150", "vllm-project/vllm #54974"]})


# ---------------------------------------------------------------- FP8

def fp8_cases(out, src):
    import torch
    from compressed_tensors.compressors.naive_quantized.base import FloatQuantizationCompressor
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import FP8, FP8_BLOCK
    from gen_fp8 import ct_module, tf_experts  # noqa: F401
    from gen_fp8 import pin_of
    # Far from 448: |w| <= 0.68 (transformers #47145), so codes reach 448 and the scale is 0.68 / 448.
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(FP8))
    tensors, pins = {}, {}
    for j, p in enumerate(("q_proj", "k_proj", "v_proj", "o_proj")):
        w = rand_weight((32, 64), 400 + j, 0.2).float()
        w = (w / w.abs().max() * 0.68).to(torch.bfloat16)
        t, pin, _ = ct_module_from(f"{L0}.self_attn.{p}", w, scheme, FloatQuantizationCompressor, torch.float32)
        tensors.update(t)
        pins[f"{L0}.self_attn.{p}"] = pin
    s = float(tensors[f"{L0}.self_attn.q_proj.weight_scale"].reshape(-1)[0])
    assert s < 0.01
    tensors["lm_head.weight"] = rand_weight((32, 64), 7)
    cfg = ct_config({"group_0": scheme}, "float-quantized")
    out.case(FAMILY, "fp8-ct-tensor-far-from-448", verdict="pass", layout="ct-fp8", rules=FP8_RULES,
             files={"model.safetensors": st_bytes(tensors), "config.json": cfg}, modules=pins,
             source=f"{src}: FloatQuantizationCompressor.compress (FP8 preset, tensor strategy) of weights with max |w| = 0.68",
             extra={"variant": f"compressed-tensors FP8 per-tensor, weights within +-0.68, weight_scale {s:.6g} F32 [1]: codes reach "
                               "+-448, so a reader that drops the scale is off by 660x",
                    "catches": ["huggingface/transformers #47145", "ISEEKYAN/Megatron-LM PR #135"]})
    # 0-dim scale: the same bytes with weight_scale and input_scale of shape ().
    t0 = {k: (v.reshape(()) if k.endswith(("weight_scale", "input_scale")) else v) for k, v in tensors.items()}
    out.case(FAMILY, "fp8-ct-tensor-scale-0dim", verdict="pass", layout="ct-fp8", rules=FP8_RULES,
             files={"model.safetensors": st_bytes(t0), "config.json": cfg}, modules=pins,
             source=f"{src}: the far-from-448 case with weight_scale / input_scale reshaped from [1] to () (built by the layout; "
                    "ModelOpt's FP8 export writes per-tensor scales 0-dim, and fp8.c reads either)",
             extra={"variant": "compressed-tensors FP8 per-tensor scales stored 0-dim () instead of [1]"})
    tn = dict(tensors)
    del tn[f"{L0}.self_attn.k_proj.weight_scale"]
    out.case(FAMILY, "neg-fp8003-weight-scale-missing", verdict="reject", reject_rule="FP8-003", layout="ct-fp8",
             files={"model.safetensors": st_bytes(tn), "config.json": cfg},
             source=f"{src}: the far-from-448 case with k_proj.weight_scale deleted (transformers #47145's checkpoint as its loader saw it)",
             extra={"variant": "compressed-tensors FP8 weight with no weight_scale"})
    # Per-expert vs stacked: the same block-FP8 bytes (128 x 128 blocks, F32 scales) two ways.
    bscheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(FP8_BLOCK))
    per, stacked_w, stacked_s, per_pins = {}, {"gate_up_proj": [], "down_proj": []}, {"gate_up_proj": [], "down_proj": []}, {}
    for e in range(2):
        parts = {}
        for j, (p, shape) in enumerate((("gate_proj", (128, 128)), ("up_proj", (128, 128)), ("down_proj", (128, 128)))):
            w = rand_weight(shape, 500 + 10 * e + j)
            w[e * 8:(e * 8) + 4, :] *= 0.001  # small rows: subnormal E4M3 codes
            t, pin, _ = ct_module_from(f"{EX}.{e}.{p}", w, bscheme, FloatQuantizationCompressor, torch.float32)
            per.update(t)
            per_pins[f"{EX}.{e}.{p}"] = pin
            parts[p] = (t[f"{EX}.{e}.{p}.weight"], t[f"{EX}.{e}.{p}.weight_scale"])
        stacked_w["gate_up_proj"].append(torch.cat([parts["gate_proj"][0], parts["up_proj"][0]]))
        stacked_s["gate_up_proj"].append(torch.cat([parts["gate_proj"][1], parts["up_proj"][1]]))
        stacked_w["down_proj"].append(parts["down_proj"][0])
        stacked_s["down_proj"].append(parts["down_proj"][1])
    sub = int(sum(((v.view(torch.uint8) & 0x78) == 0).sum() for k, v in per.items() if k.endswith("proj.weight")))
    assert sub > 0
    per["lm_head.weight"] = rand_weight((32, 128), 7)
    out.case(FAMILY, "fp8-ct-block-moe-per-expert", verdict="pass", layout="ct-fp8", rules=FP8_RULES,
             files={"model.safetensors": st_bytes(per), "config.json": ct_config({"group_0": bscheme}, "float-quantized")},
             modules=per_pins,
             source=f"{src}: FloatQuantizationCompressor.compress (FP8_BLOCK preset, 128 x 128, F32 scales) per expert tensor",
             extra={"variant": f"block-FP8 MoE stored per expert (experts.N.{{gate,up,down}}_proj.weight [128, 128] + weight_scale "
                               f"[1, 1]); engine-sized blocks, {sub} subnormal E4M3 codes"})
    from gen_fp8 import tf_config
    st, st_pins = {}, {}
    for p in ("gate_up_proj", "down_proj"):
        x, s = torch.stack(stacked_w[p]), torch.stack(stacked_s[p]).float()
        st[f"{EX}.{p}"], st[f"{EX}.{p}_scale_inv"] = x.contiguous(), s.contiguous()
        e, n, k = x.shape
        codes = x.view(torch.uint8).numpy()
        ref = torch.stack([x[i].float() * s[i].repeat_interleave(128, 0).repeat_interleave(128, 1)[:n, :k] for i in range(e)])
        st_pins[f"{EX}.{p}"] = module_pin((e, n, k), 8, np.ascontiguousarray(codes).tobytes(), ref.numpy().astype("<f4").tobytes())
    st["model.norm.weight"] = torch.ones(128, dtype=torch.bfloat16)
    out.case(FAMILY, "fp8-tf-block-moe-stacked", verdict="pass", layout="fp8-deepseek", rules=FP8_RULES + ["FP8-011"],
             files={"model.safetensors": st_bytes(st), "config.json": tf_config()}, modules=st_pins,
             source=f"{src}: the per-expert block-FP8 bytes above restacked as transformers FP8Experts stores fused experts "
                    "(gate_up_proj [E, 2I, H] = gate rows then up rows, down_proj [E, H, I], <name>_scale_inv F32 "
                    "[E, N/128, K/128]; built by the layout, integrations/finegrained_fp8.py)",
             extra={"variant": "block-FP8 MoE experts stacked 3-D (fused gate_up_proj), the same weights as fp8-ct-block-moe-per-expert"})
    return pin_of


def ct_module_from(name, w, scheme, compressor, scale_dtype):
    """gen_fp8.ct_module for a given weight (scales by calculate_qparams over the blocks)."""
    import gen_fp8
    orig = gen_fp8.weights
    gen_fp8.weights = lambda shape, seed: w if tuple(shape) == tuple(w.shape) else orig(shape, seed)
    try:
        return gen_fp8.ct_module(name, tuple(w.shape), 0, scheme, compressor, scale_dtype)
    finally:
        gen_fp8.weights = orig


# ---------------------------------------------------------------- MXFP4

def mxfp4_cases(out, src):
    import torch
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import MXFP4
    from gen_ct_mxfp4 import codes_of, ct_config as mx_config, module_new
    from gen_mxfp4 import CONFIG as GPTOSS_CONFIG
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(MXFP4))
    per, pins, stack = {}, {}, {"gate_up_proj": [], "down_proj": []}
    for e in range(2):
        parts = {}
        for j, (p, shape) in enumerate((("gate_proj", (32, 64)), ("up_proj", (32, 64)), ("down_proj", (64, 32)))):
            w = rand_weight(shape, 600 + 10 * e + j)
            w[e, :32] *= 40.0
            t, _ = module_new(w, scheme)
            codes = codes_of(t["weight_packed"])
            s = t["weight_scale"].numpy().astype(np.int32)
            vals = np.where(codes & 8, -1, 1).astype(np.float32) * E2M1[codes & 7]
            wf = (vals * np.ldexp(np.float32(1), np.repeat(s, 32, axis=1) - 127).astype(np.float32)).astype(np.float32)
            name = f"{EX}.{e}.{p}"
            per.update({f"{name}.{k}": v for k, v in t.items()})
            pins[name] = module_pin(codes.shape, 4, codes.tobytes(), wf.astype("<f4").tobytes())
            parts[p] = (t["weight_packed"], t["weight_scale"], codes, wf)
        # gpt-oss interleaves gate and up rows in gate_up_proj (even rows gate, odd rows up).
        gu = [torch.stack([parts["gate_proj"][i], parts["up_proj"][i]], 1).reshape(64, -1) if i < 2 else
              np.stack([parts["gate_proj"][i], parts["up_proj"][i]], 1).reshape(64, -1) for i in range(4)]
        stack["gate_up_proj"].append(gu)
        stack["down_proj"].append(list(parts["down_proj"]))
    per["lm_head.weight"] = rand_weight((32, 64), 7)
    out.case(FAMILY, "mxfp4-ct-moe-per-expert", verdict="pass", layout="mxfp4-ct", rules=["MX-002", "MX-004"],
             files={"model.safetensors": st_bytes(per), "config.json": mx_config(scheme)}, modules=pins,
             source=f"{src}: MXFP4PackedCompressor.compress (MXFP4 preset) per expert tensor",
             extra={"variant": "compressed-tensors MXFP4 MoE stored per expert (experts.N.{gate,up,down}_proj.weight_packed U8 + "
                               "weight_scale U8 E8M0 [N, K/32])",
                    "catches": ["sgl-project/sglang PR #33541"]})
    gp, gpins = {}, {}
    for p, lst in stack.items():
        packed = torch.stack([x[0] for x in lst])
        scales = torch.stack([x[1] for x in lst])
        e, r, half = packed.shape
        gp[f"{EX}.{p}_blocks"] = packed.reshape(e, r, half // 16, 16).contiguous()
        gp[f"{EX}.{p}_scales"] = scales.contiguous()
        codes = np.stack([x[2] for x in lst])
        wf = np.stack([x[3] for x in lst])
        gpins[f"{EX}.{p}"] = module_pin(codes.shape, 4, codes.tobytes(), wf.astype("<f4").tobytes())
    gp["model.norm.weight"] = torch.ones(64, dtype=torch.bfloat16)
    out.case(FAMILY, "mxfp4-gptoss-moe-stacked", verdict="pass", layout="mxfp4-gptoss", rules=["MX-001", "MX-002"],
             files={"model.safetensors": st_bytes(gp), "config.json": GPTOSS_CONFIG}, modules=gpins,
             source=f"{src}: the per-expert MXFP4 bytes above restacked as gpt-oss stores experts (P_blocks U8 [E, R, G, 16], "
                    "P_scales U8 [E, R, G], gate_up_proj rows interleaved gate/up; built by the layout, transformers "
                    "integrations/mxfp4.py; both layouts use bias 127)",
             extra={"variant": "MXFP4 MoE experts stacked 3-D (gpt-oss _blocks/_scales), the same weights as mxfp4-ct-moe-per-expert"})


# ---------------------------------------------------------------- int4

def int4_cases(out, src):
    import torch
    from pcgen.ct_common import Module, config_json, make_scheme, quantize_module
    scheme = make_scheme(4, "group", group_size=32)
    per, pins, stacked = {}, {}, {}
    for p, shape in (("gate_proj", (16, 64)), ("down_proj", (64, 16 * 2))):
        outs = []
        for e in range(3):
            o, pin = quantize_module(Module(f"{EX}.{e}.{p}", shape, "random", seed=700 + 10 * e + len(p)), scheme)
            per.update({f"{EX}.{e}.{p}.{k}": v for k, v in o.items()})
            pins[f"{EX}.{e}.{p}"] = pin
            outs.append(o)
        stacked[p] = outs
    cfg = config_json({"group_0": scheme})
    out.case(FAMILY, "int4-ct-moe-per-expert", verdict="pass", layout="ct-dense", rules=["CT-001", "CT-003"],
             files={"model.safetensors": st_bytes(per), "config.json": cfg}, modules=pins,
             source=f"{src}: PackedQuantizationCompressor.compress (4-bit group 32) per expert tensor",
             extra={"variant": "compressed-tensors int4 MoE stored per expert (experts.N.{gate,down}_proj.weight_packed I32)"})
    st, spins = {}, {}
    for p, outs in stacked.items():
        st[f"{EX}.{p}.weight_packed"] = torch.stack([o["weight_packed"] for o in outs]).contiguous()
        st[f"{EX}.{p}.weight_scale"] = torch.stack([o["weight_scale"] for o in outs]).contiguous()
        shape = [3] + [int(v) for v in outs[0]["weight_shape"].tolist()]
        st[f"{EX}.{p}.weight_shape"] = torch.tensor(shape, dtype=torch.int64)
        # the pin of a stacked module is its experts' pins' bytes concatenated: recompute from the library view
        from pcgen.ct_common import library_pin
        spins[f"{EX}.{p}"] = library_pin({"weight_packed": st[f"{EX}.{p}.weight_packed"], "weight_scale": st[f"{EX}.{p}.weight_scale"],
                                          "weight_shape": st[f"{EX}.{p}.weight_shape"]}, 4, "group", 32, None)
    out.case(FAMILY, "int4-ct-moe-stacked", verdict="pass", layout="ct-dense", rules=["CT-001", "CT-003"],
             files={"model.safetensors": st_bytes(st), "config.json": cfg}, modules=spins,
             source=f"{src}: the per-expert int4 tensors above stacked into 3-D experts (weight_packed [E, N, K/8], weight_scale "
                    "[E, N, K/32], weight_shape [E, N, K]; built by the layout compressed-tensors' 3-D MoE parameters have)",
             extra={"variant": "compressed-tensors int4 MoE experts stacked 3-D, the same weights as int4-ct-moe-per-expert"})


# ---------------------------------------------------------------- mixed

def mixed_case(out, src):
    """compressed-tensors mixed config groups: NVFP4 MLP, FP8 attention and FP8 lm_head (sglang #34895)."""
    import torch
    from compressed_tensors.compressors.naive_quantized.base import FloatQuantizationCompressor
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import FP8, NVFP4
    from compressed_tensors.config import CompressionFormat  # noqa: F401
    tensors, pins = {}, {}
    fp8 = QuantizationScheme(targets=["re:.*self_attn.*", "lm_head"], format="float-quantized", **copy.deepcopy(FP8))
    nv = QuantizationScheme(targets=["re:.*mlp.*"], format="nvfp4-pack-quantized", **copy.deepcopy(NVFP4))
    for j, p in enumerate(("gate_proj", "up_proj", "down_proj")):
        shape = (64, 32) if p == "down_proj" else (32, 64)
        sd, _ = ct_nvfp4_module(rand_weight(shape, 800 + j), 810 + j)
        tensors.update({f"{L0}.mlp.{p}.{k}": v for k, v in sd.items()})
    for j, name in enumerate([f"{L0}.self_attn.{p}" for p in ("q_proj", "k_proj", "v_proj", "o_proj")] + ["lm_head"]):
        w = rand_weight((32, 64), 820 + j, 0.2).float()
        w = (w / w.abs().max() * 0.5).to(torch.bfloat16)
        t, pin, _ = ct_module_from(name, w, fp8, FloatQuantizationCompressor, torch.float32)
        tensors.update(t)
        pins[name] = pin
    pins.update(nv_pins_of(tensors))
    tensors["model.embed_tokens.weight"] = rand_weight((32, 64), 9)
    cfg = ct_config({"group_0": nv, "group_1": fp8}, "mixed-precision", ignore=())
    out.case(FAMILY, "mixed-ct-nvfp4-mlp-fp8-attn-lm-head", verdict="pass", layout="mixed", rules=NV_RULES + FP8_RULES,
             files={"model.safetensors": st_bytes(tensors), "config.json": cfg}, modules=pins,
             source=f"{src}: NVFP4PackedCompressor (MLP) and FloatQuantizationCompressor (FP8 preset: attention and lm_head) "
                    "per tensor; config_groups with per-group format (QuantizationConfig format mixed-precision)",
             extra={"variant": "compressed-tensors mixed checkpoint: NVFP4 MLP group, FP8 per-tensor attention and FP8 lm_head group",
                    "catches": ["sgl-project/sglang #34895"]})


def _generate(out):
    src = f"gen_variants.py, {versions()}"
    modelopt_cases(out, src)
    ct_nvfp4_cases(out, src)
    fp8_cases(out, src)
    mxfp4_cases(out, src)
    int4_cases(out, src)
    mixed_case(out, src)


if __name__ == "__main__":
    from pcgen.venv import venv_main
    venv_main(_generate)
