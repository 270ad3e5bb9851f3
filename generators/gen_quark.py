"""AMD Quark fixtures (family quark/). Venv: quark (generators/requirements-quark.txt: amd-quark 0.13 on torch CPU;
the path comes from PCGEN_VENV_QUARK, default /work/venvs/quark). From any other venv this module re-runs itself there.

Every byte comes from Quark itself: a tiny llama (transformers' LlamaForCausalLM from a config, no download, bf16)
quantized by quark.torch.ModelQuantizer on CPU with a QConfig (global_quant_config, layer_quant_config, exclude)
and written by quark.torch.export_safetensors (pack_method "order" or "reorder"): model.safetensors and
config.json exactly as exported. Quark 0.13 cannot export real-quantized MXFP8 (real_quantize_fp8_e4m3 has no
per_group branch), so the mixed model mixes MXFP4 with per-tensor FP8 layers.

Pins: weights from Quark's own reload (import_model_from_safetensors into a fresh model, then each
QParamsLinear._get_qweight(weight), f32); codes are the stored fields (MX: E2M1 nibbles / FP6 6-bit fields of
the little-endian stream; FP8: the byte; int4: Pack_4_bits.unpack's value & 15, the nibble as stored).
Negative cases change one thing of an exported model (named in each case's source), re-saved with save_file.
"""
import json
import os
import tempfile

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv

FAMILY = "quark"
VENV = os.environ.get("PCGEN_VENV_QUARK", "/work/venvs/quark")
RULES = ["QK-001", "QK-002", "QK-003", "QK-004", "QK-005"]
SOURCE = "amd-quark 0.13 (torch CPU)"


def generate(out):
    try:
        import quark  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return run_in_venv(__file__, VENV, out, "amd-quark and torch")
    return _generate(out)


def tiny_llama(intermediate=128, kv_heads=1):
    import torch
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=intermediate, num_hidden_layers=1,
                                   num_attention_heads=2, num_key_value_heads=kv_heads, vocab_size=32,
                                   architectures=["LlamaForCausalLM"])
    torch.manual_seed(7)
    return transformers.LlamaForCausalLM(cfg).to(torch.bfloat16).eval()


def specs():
    from quark.torch.quantization.config.config import (FP8E4M3PerTensorSpec, Int4PerGroupSpec, OCP_MXFP4Spec,
                                                        OCP_MXFP6E2M3Spec, OCP_MXFP6E3M2Spec)
    return {
        "mxfp4": OCP_MXFP4Spec(ch_axis=-1, is_dynamic=False).to_quantization_spec(),
        "e2m3": OCP_MXFP6E2M3Spec(ch_axis=-1, is_dynamic=False).to_quantization_spec(),
        "e3m2": OCP_MXFP6E3M2Spec(ch_axis=-1, is_dynamic=False).to_quantization_spec(),
        "fp8": FP8E4M3PerTensorSpec().to_quantization_spec(),
        "int4": Int4PerGroupSpec(ch_axis=-1, group_size=32).to_quantization_spec(),
    }


def export(model_args, glob, layers, exclude, pack_method):
    """Quantize a tiny llama and export it; returns (files, folder) with files as written."""
    from quark.torch import ModelQuantizer, export_safetensors
    from quark.torch.quantization.config.config import QConfig, QLayerConfig
    s = specs()
    q = QConfig(global_quant_config=QLayerConfig(weight=s[glob]),
                layer_quant_config={k: QLayerConfig(weight=s[v]) for k, v in layers.items()}, exclude=exclude)
    model = ModelQuantizer(q).quantize_model(tiny_llama(**model_args), None)
    d = tempfile.mkdtemp(prefix="pcgen-quark-")
    export_safetensors(model, d, pack_method=pack_method)
    files = {}
    for n in ("model.safetensors", "config.json"):
        with open(os.path.join(d, n), "rb") as f:
            files[n] = f.read()
    return files, d


def codes_of(w, n_k):
    """The stored fields of one module's weight as a [N, K] u8 array (see the module docstring)."""
    import numpy as np
    import torch
    from quark.torch.utils.pack import create_pack_method
    N, K = n_k
    if w.dtype == torch.float8_e4m3fn:
        return w.view(torch.uint8).numpy()
    if w.dtype == torch.int32:  # int4 [K, N/8] words, transposed
        return None
    raw = w.numpy().reshape(N, -1)
    bits = raw.shape[1] * 8 // K
    stream = np.unpackbits(raw, axis=1, bitorder="little").reshape(N, K, bits)
    return (stream * (1 << np.arange(bits))).sum(axis=2).astype(np.uint8)


def pins(folder, args, reorder):
    import torch
    from quark.torch import import_model_from_safetensors
    from quark.torch.utils.pack import create_pack_method
    model = import_model_from_safetensors(tiny_llama(**args), folder)
    mods = {}
    for name, m in model.named_modules():
        if type(m).__name__ != "QParamsLinear":
            continue
        w = m._get_qweight(m.weight).float().contiguous()
        N, K = w.shape
        c = codes_of(m.weight.data, (N, K))
        if c is None:
            pm = create_pack_method(qscheme="per_group", dtype="int4")
            c = (pm.unpack(m.weight.data, reorder, origin_packed_axis_size=N) & 15).to(torch.uint8).numpy()
        bits = 8 if m.weight.dtype == torch.float8_e4m3fn else 4 if m.weight.dtype == torch.int32 else \
            m.weight.shape[1] * 8 // K
        mods[name] = module_pin([N, K], bits, c.tobytes(), w.numpy().astype("<f4").tobytes())
    return mods


MODELS = [  # name, model args, global, layer_quant_config, exclude, pack_method
    ("model-mxfp4-fp8-exclude", {}, "mxfp4", {"*self_attn.q_proj": "fp8", "*self_attn.k_proj": "fp8"},
     ["lm_head", "*mlp.down_proj"], "reorder"),
    ("model-int4-order", {}, "int4", {}, ["lm_head"], "order"),
    ("model-int4-reorder", {}, "int4", {}, ["lm_head"], "reorder"),
    ("model-mxfp6-e2m3-e3m2", {}, "e2m3", {"*mlp*": "e3m2"}, ["lm_head"], "reorder"),
    ("model-fp8", {}, "fp8", {}, ["lm_head"], "reorder"),
]


LAYOUTS = {"mxfp4": "quark-mx", "e2m3": "quark-mx", "e3m2": "quark-mx", "fp8": "quark-fp8", "int4": "quark-int4"}


def rules_of(glob, layers):
    """The rules a model's modules evaluate: config, spec, exclude, and the data rule of each scheme."""
    kinds = {LAYOUTS[glob]} | {LAYOUTS[v] for v in layers.values()}
    return ["QK-001", "QK-002", "QK-003"] + (["QK-004"] if "quark-mx" in kinds else []) + \
        (["QK-005"] if kinds - {"quark-mx"} else [])


def layout_of(glob, layers):
    """The one layout a model holds, None when it mixes layouts."""
    kinds = {LAYOUTS[glob]} | {LAYOUTS[v] for v in layers.values()}
    return kinds.pop() if len(kinds) == 1 else None


def models(out):
    made = {}
    for name, args, glob, layers, exclude, pm in MODELS:
        files, d = export(args, glob, layers, exclude, pm)
        made[name] = files
        out.case(FAMILY, name, source=f"{SOURCE}: ModelQuantizer(QConfig(global {glob}, layer_quant_config {layers}, "
                 f"exclude {exclude})) of a 1-layer bf16 llama, export_safetensors(pack_method={pm!r})",
                 verdict="pass", layout=layout_of(glob, layers),
                 rules=rules_of(glob, layers), files=files, modules=pins(d, args, pm == "reorder"))
    return made


def st_edit(st_bytes, edit):
    from safetensors.torch import load, save
    sd = load(st_bytes)
    edit(sd)
    return save(sd, metadata={"format": "pt"})


def negatives(out, made):
    def case(name, base, rule, what, cfg_edit=None, st=None):
        files = dict(made[base])
        if cfg_edit:
            cfg = json.loads(files["config.json"])
            cfg_edit(cfg["quantization_config"])
            files["config.json"] = cfg
        if st:
            files["model.safetensors"] = st_edit(files["model.safetensors"], st)
        out.case(FAMILY, name, source=f"{SOURCE}: {base} with {what}", verdict="reject", reject_rule=rule,
                 rules=[rule], files=files)

    def mx_group16(q):
        q["global_quant_config"]["weight"]["group_size"] = 16

    def drop_layer_specs(q):
        q["layer_quant_config"] = {}

    def exclude_down(q):
        q["exclude"].append("model.layers.0.mlp.down_proj")

    def e8m0_nan(sd):
        sd["model.layers.0.mlp.up_proj.weight_scale"][3, 1] = 255

    def scale_nan(sd):
        sd["model.layers.0.self_attn.o_proj.weight_scale"][1, 5] = float("nan")

    case("neg-qk001-mx-group16", "model-mxfp4-fp8-exclude", "QK-001", "global MXFP4 spec group_size 16", mx_group16)
    case("neg-qk002-layer-specs-dropped", "model-mxfp4-fp8-exclude", "QK-002",
         "layer_quant_config emptied: the FP8 q_proj/k_proj fall under the global MXFP4 spec", drop_layer_specs)
    case("neg-qk003-excluded-fp8-scale", "model-fp8", "QK-003",
         "down_proj added to exclude while it keeps its FP8 weight and weight_scale", exclude_down)
    case("neg-qk004-e8m0-255", "model-mxfp4-fp8-exclude", "QK-004", "an up_proj E8M0 scale byte set to 255 (NaN)",
         st=e8m0_nan)
    case("neg-qk005-int4-scale-nan", "model-int4-reorder", "QK-005", "an o_proj int4 scale set to NaN", st=scale_nan)


def _generate(out):
    made = models(out)
    negatives(out, made)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
