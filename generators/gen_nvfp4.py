"""NVFP4 fixtures (family nvfp4/): both namings, the ModelOpt -> compressed-tensors conversion, and
`packcheck equiv` pairs. Venv: modelopt (generators/requirements-modelopt.txt, a superset of the ct
venv: nvidia-modelopt 0.47.0 next to compressed-tensors 0.20.1 and torch 2.15.0 CPU).

Every byte comes from the real libraries:
  * nvfp4-modelopt: nvidia-modelopt's own NVFP4 path on the CPU, mtq.quantize(NVFP4_DEFAULT_CFG) of a
    tiny seeded Llama, then modelopt.torch.export.export_hf_checkpoint (config.json, hf_quant_config.json,
    model.safetensors). ModelOpt installed and ran here, so no file is built from the documented layout.
  * nvfp4-ct: compressed-tensors' NVFP4PackedCompressor.compress over the same bf16 weights, with the
    global and block scales from compressed-tensors' generate_gparam / calculate_qparams, and the config
    from its QuantizationConfig (NVFP4 preset).
  * converted: compressed-tensors' convert_checkpoint with ModelOptNvfp4Converter over the ModelOpt export.
Negative cases edit one thing of those files (named in each case's source).

Pins: codes from compressed-tensors' unpack_fp4_from_uint8 (the library's own unpack; its values carry
the sign of zero, so the nibble is recovered exactly); f32 weights by numpy float32 with the contract's
operation order (CONTRACT 3) over those library-decoded values and the fp8 scales as torch decodes them.
Each pass case also records how the libraries' own dequantizers compare with the contract's view
(`library_check`): compressed-tensors' decompress (bf16 output), and ModelOpt's NVFP4QTensor.dequantize.
"""
import copy
import json
import os
import shutil
import sys
import tempfile

import numpy as np

from pcgen.corpus import folder_files, folder_tensors, module_pin
from pcgen.venv import run_in_venv

FAMILY = "nvfp4"
E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
TARGETS = [r"re:.*mlp.*\.(gate_up|gate|up|down)_proj$", r"re:.*self_attn.*\.(q|k|v|o)_proj$"]


VENV = os.environ.get("PCGEN_VENV_MODELOPT", "/work/venvs/modelopt")


def _have_modelopt():
    try:
        import modelopt  # noqa: F401
        return True
    except ImportError:
        return False


# ---------------------------------------------------------------- the model and its weights

def tiny_model():
    """A 1-layer Llama: hidden 32 (K/16 = 2, even) and intermediate 48 (down_proj K/16 = 3, odd)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=32, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=16,
                      architectures=["LlamaForCausalLM"], tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16).eval()
    probe_rows(model.model.layers[0].self_attn.q_proj.weight.data)
    return model


def probe_rows(w):
    """Rows that reach every E2M1 code under both libraries, with an exact -0.0 and tiny negatives.

    Row 0 is [0, .5, 1, 1.5, 2, 3, 4, 6, -0.0, -.5, ..., -6] * 0.25 in both groups; row 1 holds an exact
    -0.0 and tiny negatives (-0.001) next to a 6-step maximum. The tensor maximum is row 0's 1.5, so
    the block scale of row 0 is the global one and every value lands on the grid."""
    import torch
    vals = [0, .5, 1, 1.5, 2, 3, 4, 6]
    row0 = torch.tensor(vals + [-v for v in vals], dtype=torch.float32) * 0.25
    row0[8] = -0.0
    w[0, :16] = row0.to(w.dtype)
    w[0, 16:32] = row0.to(w.dtype)
    row1 = torch.full((16,), -0.001)
    row1[0] = 1.5
    row1[1] = -0.0
    row1[2] = 0.0
    w[1, :16] = row1.to(w.dtype)


def calib_loop(model):
    import torch
    g = torch.Generator().manual_seed(1)
    for _ in range(2):
        model(torch.randint(0, 32, (1, 8), generator=g))


def modelopt_export(model, out_dir):
    import modelopt.torch.quantization as mtq
    from modelopt.torch.export import export_hf_checkpoint
    m = mtq.quantize(model, mtq.NVFP4_DEFAULT_CFG, calib_loop)
    export_hf_checkpoint(m, export_dir=out_dir)


def modelopt_mixed_export(model, out_dir):
    """NVFP4 for the MLP, FP8 for attention: ModelOpt writes quant_algo MIXED_PRECISION with
    quantized_layers, and FP8 weights (F8_E4M3 weight, F32 weight_scale) that are not NVFP4."""
    import modelopt.torch.quantization as mtq
    from modelopt.torch.export import export_hf_checkpoint
    cfg = copy.deepcopy(mtq.NVFP4_DEFAULT_CFG)
    cfg["quant_cfg"] += [{"quantizer_name": "*self_attn*weight_quantizer", "cfg": {"num_bits": (4, 3), "axis": None}},
                         {"quantizer_name": "*self_attn*input_quantizer", "cfg": {"num_bits": (4, 3), "axis": None}}]
    m = mtq.quantize(model, cfg, calib_loop)
    export_hf_checkpoint(m, export_dir=out_dir)


def modelopt_moe_export(out_dir):
    """A 2-expert Mixtral: transformers 5 fuses the experts into 3-D parameters, ModelOpt's export writes
    them back per expert (block_sparse_moe.experts.E.w1/w2/w3), each a 2-D NVFP4 weight."""
    import modelopt.torch.quantization as mtq
    import torch
    from modelopt.torch.export import export_hf_checkpoint
    from transformers import MixtralConfig, MixtralForCausalLM
    torch.manual_seed(3)
    cfg = MixtralConfig(vocab_size=32, hidden_size=32, intermediate_size=48, num_hidden_layers=1, num_attention_heads=2,
                        num_key_value_heads=2, num_local_experts=2, num_experts_per_tok=1, max_position_embeddings=16,
                        architectures=["MixtralForCausalLM"])
    m = MixtralForCausalLM(cfg).to(torch.bfloat16).eval()

    def loop(mm):
        g = torch.Generator().manual_seed(4)
        for _ in range(4):
            mm(torch.randint(0, 32, (1, 16), generator=g))
    export_hf_checkpoint(mtq.quantize(m, mtq.NVFP4_DEFAULT_CFG, loop), export_dir=out_dir)


def ct_compress(model, config_src_dir, out_dir):
    """compressed-tensors NVFP4 names for every Linear but lm_head, from the bf16 weights."""
    import torch
    from compressed_tensors import __version__ as ct_version
    from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
    from compressed_tensors.quantization import QuantizationConfig, QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import NVFP4
    from compressed_tensors.quantization.utils.helpers import calculate_qparams, generate_gparam
    from safetensors.torch import save_file
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(NVFP4))
    tensors = {}
    g = torch.Generator().manual_seed(2)
    for name, t in model.state_dict().items():
        tensors[name] = t.detach().clone().contiguous()
    for name, mod in model.named_modules():
        if not isinstance(mod, torch.nn.Linear) or name == "lm_head":
            continue
        w = tensors.pop(f"{name}.weight")
        n, k = w.shape
        gs = generate_gparam(w.min(), w.max())
        grp = w.float().reshape(n, k // 16, 16)
        scale, _ = calculate_qparams(grp.amin(-1), grp.amax(-1), scheme.weights, global_scale=gs)
        act = torch.randn(8, k, generator=g)
        igs = generate_gparam(act.min(), act.max())
        sd = NVFP4PackedCompressor.compress({"weight": w, "weight_scale": scale, "weight_global_scale": gs,
                                             "input_global_scale": igs}, scheme)
        for pn, pv in sd.items():
            tensors[f"{name}.{pn}"] = pv.contiguous()
    save_file(tensors, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    qc = QuantizationConfig(config_groups={"group_0": scheme}, format="nvfp4-pack-quantized",
                            quantization_status="compressed", ignore=["lm_head"]).model_dump()
    qc["version"] = ct_version
    with open(os.path.join(config_src_dir, "config.json")) as f:
        cfg = json.load(f)
    cfg["quantization_config"] = qc
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)


def ct_requantize_with_modelopt_scales(model, mo_dir, out_dir):
    """compressed-tensors' compressor over the same bf16 weights, given ModelOpt's own block scales and
    the converter's global scales (f32 reciprocals): what a correct re-quantizing converter writes."""
    import torch
    from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
    from compressed_tensors.quantization import QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import NVFP4
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(NVFP4))
    mo = folder_tensors(mo_dir)
    tensors = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    for name, mod in model.named_modules():
        if not isinstance(mod, torch.nn.Linear) or name == "lm_head":
            continue
        w = tensors.pop(f"{name}.weight")
        sd = NVFP4PackedCompressor.compress({"weight": w, "weight_scale": mo[f"{name}.weight_scale"].float(),
                                             "weight_global_scale": 1 / mo[f"{name}.weight_scale_2"],
                                             "input_global_scale": 1 / mo[f"{name}.input_scale"]}, scheme)
        for pn, pv in sd.items():
            tensors[f"{name}.{pn}"] = pv.contiguous()
    os.makedirs(out_dir)
    save(tensors, out_dir)
    for fn in ("config.json", "generation_config.json"):
        shutil.copy(os.path.join(conv_dir_of(out_dir), fn), os.path.join(out_dir, fn))


def conv_dir_of(d):
    return os.path.join(os.path.dirname(d), "converted")


def convert(src_dir, out_dir):
    from compressed_tensors.entrypoints.convert import convert_checkpoint
    from compressed_tensors.entrypoints.convert.converters.modelopt_nvfp4 import ModelOptNvfp4Converter
    conv = ModelOptNvfp4Converter(targets=TARGETS, ignore=["lm_head"])
    convert_checkpoint(src_dir, out_dir, conv, max_workers=1, device="cpu")


# ---------------------------------------------------------------- reading, pinning, checking



def naming_modules(t):
    """(prefix, naming) of every NVFP4 module: U8 weight_packed (ct) or U8 weight with weight_scale_2."""
    import torch
    mods = []
    for k, v in sorted(t.items()):
        if k.endswith(".weight_packed") and v.dtype == torch.uint8:
            mods.append((k[: -len(".weight_packed")], "ct"))
        elif k.endswith(".weight") and v.dtype == torch.uint8 and k[: -len(".weight")] + ".weight_scale_2" in t:
            mods.append((k[: -len(".weight")], "mo"))
    return mods


def library_view(t, prefix, naming):
    """Codes and contract f32 weights from library-decoded values (see the module docstring)."""
    import torch
    from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
    packed = t[f"{prefix}.weight_packed" if naming == "ct" else f"{prefix}.weight"]
    n, half = packed.shape
    vals = unpack_fp4_from_uint8(packed, n, half * 2, dtype=torch.float32).numpy()
    mag = np.abs(vals)
    idx = np.searchsorted(E2M1, mag)
    assert np.array_equal(E2M1[idx], mag)
    codes = (idx + 8 * np.signbit(vals)).astype(np.uint8)
    fp8 = t[f"{prefix}.weight_scale"].float().numpy().astype(np.float32)
    g = np.float32(t[f"{prefix}.weight_global_scale" if naming == "ct" else f"{prefix}.weight_scale_2"].float().reshape(-1)[0].item())
    s = (fp8 / g if naming == "ct" else fp8 * g).astype(np.float32)
    w = (vals * np.repeat(s, 16, axis=1)).astype(np.float32)
    return codes, w


def pins(dir_):
    t = folder_tensors(dir_)
    out = {}
    for prefix, naming in naming_modules(t):
        codes, w = library_view(t, prefix, naming)
        out[prefix] = module_pin(codes.shape, 4, codes.tobytes(), w.astype("<f4").tobytes())
    return out


def library_check(dir_):
    """How the libraries' own dequantizers compare with the contract view, per naming."""
    import torch
    t = folder_tensors(dir_)
    rep = {}
    for prefix, naming in naming_modules(t):
        codes, w = library_view(t, prefix, naming)
        if naming == "ct":
            from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
            from compressed_tensors.quantization import QuantizationScheme
            from compressed_tensors.quantization.quant_scheme import NVFP4
            scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(NVFP4))
            gs = t[f"{prefix}.weight_global_scale"]
            sd = NVFP4PackedCompressor.decompress({k: t[f"{prefix}.{k}"] for k in ("weight_packed", "weight_scale", "weight_global_scale")}, scheme)
            lib = sd["weight"].view(torch.int16).numpy()
            ours = torch.from_numpy(w).to(torch.bfloat16).view(torch.int16).numpy()
            # The 0-dim path (FORMATS.md 4.3 left it open): the group scale f32(fp8) / gs is rounded to bf16
            # (gs itself is not), then bf16(e2m1 * that). Counted against the library too.
            vals = torch.from_numpy(np.where(codes & 8, -1, 1).astype(np.float32) * E2M1[codes & 7])
            s_bf16 = (t[f"{prefix}.weight_scale"].float() / gs.float()).to(torch.bfloat16).float().repeat_interleave(16, 1)
            model_0dim = (vals * s_bf16).to(torch.bfloat16).view(torch.int16).numpy()
            rep[prefix] = {"library": "compressed-tensors NVFP4PackedCompressor.decompress (bf16)",
                           "global_scale_shape": list(gs.shape),
                           "elements": int(w.size), "bf16_of_contract_differs": int((lib != ours).sum()),
                           "bf16_of_bf16_rounded_scale_differs": int((lib != model_0dim).sum())}
        else:
            from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
            packed = t[f"{prefix}.weight"]
            q = NVFP4QTensor(torch.Size([packed.shape[0], packed.shape[1] * 2]), torch.float32, packed)
            lib = q.dequantize(dtype=torch.float32, scale=t[f"{prefix}.weight_scale"], double_scale=t[f"{prefix}.weight_scale_2"],
                               block_sizes={-1: 16}).numpy()
            differ = lib.view(np.uint32) != w.view(np.uint32)
            rep[prefix] = {"library": "modelopt NVFP4QTensor.dequantize (f32)", "elements": int(w.size),
                           "f32_differs": int(differ.sum()),
                           "differs_only_in_sign_of_zero": bool(np.all((lib[differ] == 0) & (w[differ] == 0))),
                           "code_8_count": int((codes == 8).sum())}
    return rep


# ---------------------------------------------------------------- edits for negative cases

def save(t, dir_, name="model.safetensors", metadata=None):
    from safetensors.torch import save_file
    save_file({k: v.contiguous() for k, v in t.items()}, os.path.join(dir_, name), metadata=metadata or {"format": "pt"})


def variant(base_dir, edit_tensors=None, edit_config=None, drop_files=()):
    """A copy of base_dir with one edit; returns its files (relative path -> bytes)."""
    d = tempfile.mkdtemp(prefix="nvfp4-variant-")
    try:
        shutil.copytree(base_dir, d, dirs_exist_ok=True)
        for fn in drop_files:
            os.remove(os.path.join(d, fn))
        if edit_tensors:
            st = [fn for fn in os.listdir(d) if fn.endswith(".safetensors")]
            assert len(st) == 1, st
            t = folder_tensors(d)
            edit_tensors(t)
            save(t, d, st[0])
            ix = os.path.join(d, "model.safetensors.index.json")
            if os.path.exists(ix):  # keep the shard index in step with the renamed tensors
                with open(ix) as f:
                    index = json.load(f)
                index["weight_map"] = {k: st[0] for k in sorted(t)}
                with open(ix, "w") as f:
                    json.dump(index, f, indent=2, sort_keys=True)
        if edit_config:
            p = os.path.join(d, "config.json")
            with open(p) as f:
                cfg = json.load(f)
            edit_config(cfg)
            with open(p, "w") as f:
                json.dump(cfg, f, indent=2, sort_keys=True)
        return folder_files(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def nested(files, sub):
    return {f"{sub}/{k}": v for k, v in files.items()}


# ---------------------------------------------------------------- the cases

def generate(out):
    """Runs here when this interpreter has ModelOpt; otherwise re-runs itself in the modelopt venv
    (PCGEN_VENV_MODELOPT, default /work/venvs/modelopt), writing into the same corpus folder, as
    gen_ct_legacy does. Without that venv: NeedsVenv (regen.py skips this generator)."""
    if _have_modelopt():
        return _generate(out)
    run_in_venv(__file__, VENV, out, "nvidia-modelopt")


def _generate(out):
    import compressed_tensors
    import modelopt
    import torch
    versions = f"nvidia-modelopt {modelopt.__version__}, compressed-tensors {compressed_tensors.__version__}, torch {torch.__version__}"
    work = tempfile.mkdtemp(prefix="gen-nvfp4-")
    try:
        mo_dir, ct_dir, conv_dir = (os.path.join(work, n) for n in ("modelopt", "ct", "converted"))
        model = tiny_model()
        bf16 = copy.deepcopy(model)
        bf16_2 = copy.deepcopy(model)
        bf16_3 = copy.deepcopy(model)
        modelopt_export(model, mo_dir)
        os.makedirs(ct_dir)
        ct_compress(bf16, mo_dir, ct_dir)
        for fn in ("generation_config.json",):
            shutil.copy(os.path.join(mo_dir, fn), os.path.join(ct_dir, fn))
        convert(mo_dir, conv_dir)
        moe_dir = os.path.join(work, "moe")
        modelopt_moe_export(moe_dir)
        mixed_dir = os.path.join(work, "mixed")
        modelopt_mixed_export(bf16_3, mixed_dir)
        requant_dir = os.path.join(work, "requant")
        ct_requantize_with_modelopt_scales(bf16_2, mo_dir, requant_dir)
        ties = requant_finding(bf16_2, mo_dir, requant_dir)
        sources = {
            "mo": f"{versions}: mtq.quantize(NVFP4_DEFAULT_CFG) + export_hf_checkpoint of a seeded 1-layer Llama (hidden 32, intermediate 48) on the CPU",
            "ct": f"{versions}: NVFP4PackedCompressor.compress with generate_gparam / calculate_qparams scales, QuantizationConfig(NVFP4) config",
            "conv": f"{versions}: convert_checkpoint(ModelOptNvfp4Converter(targets={TARGETS}, ignore=['lm_head'])) of the ModelOpt export",
            "requant": f"{versions}: NVFP4PackedCompressor.compress of the same bf16 weights given ModelOpt's block scales and 1/weight_scale_2, 1/input_scale",
        }
        dirs = {"mo": mo_dir, "ct": ct_dir, "conv": conv_dir, "requant": requant_dir, "mixed": mixed_dir, "moe": moe_dir}
        sources["mixed"] = (f"{versions}: mtq.quantize(NVFP4_DEFAULT_CFG with FP8 for *self_attn* quantizers) + "
                            f"export_hf_checkpoint of the same seeded Llama: quant_algo MIXED_PRECISION")
        sources["ties"] = ties
        sources["modelopt_version"] = modelopt.__version__
        pass_cases(out, dirs, sources)
        reject_cases(out, dirs, sources)
        equiv_cases(out, dirs, sources)
        negzero_cases(out, sources)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def pass_cases(out, dirs, sources):
    rules = ["NV-001", "NV-002", "NV-003", "NV-004", "NV-005", "NV-006", "NV-007", "NV-008", "NV-009", "NV-010"]
    names = {"mo": ("modelopt-export", "nvfp4-modelopt"), "ct": ("ct-compressor", "nvfp4-ct"),
             "conv": ("ct-converted-from-modelopt", "nvfp4-ct")}
    for key, (name, layout) in names.items():
        d = dirs[key]
        t = folder_tensors(d)
        codes = set()
        for prefix, naming in naming_modules(t):
            codes |= set(np.unique(library_view(t, prefix, naming)[0]).tolist())
        assert codes == set(range(16)), (name, sorted(codes))
        out.case(FAMILY, name, source=sources[key], verdict="pass", layout=layout, rules=rules,
                 files=folder_files(d), modules=pins(d),
                 notes="all 16 E2M1 codes appear (q_proj rows 0-1); bf16 embed_tokens / lm_head / norms stay unpacked; "
                       "K/16 = 2 (attention, gate/up) and 3 (down_proj)",
                 extra={"library_check": library_check(d)})
    out.case(FAMILY, "modelopt-moe-export", verdict="pass", layout="nvfp4-modelopt", files=folder_files(dirs["moe"]),
             modules=pins(dirs["moe"]), rules=["NV-001", "NV-002", "NV-003", "NV-004", "NV-010"],
             source=f"{sources['mo'].split(':')[0]}: mtq.quantize(NVFP4_DEFAULT_CFG) + export_hf_checkpoint of a seeded "
                    f"2-expert Mixtral (fused 3-D experts in transformers, exported per expert by ModelOpt)",
             extra={"library_check": library_check(dirs["moe"])})
    import gen_modelopt  # its FP8 pins: the attention layers are formats/modelopt's
    out.case(FAMILY, "modelopt-mixed-precision", source=sources["mixed"], verdict="pass", layout="mixed",
             files=folder_files(dirs["mixed"]), modules={**pins(dirs["mixed"]), **gen_modelopt.pins(dirs["mixed"])},
             rules=["NV-001", "NV-003", "NV-008"],
             notes="the FP8 attention layers (F8_E4M3 weight, F32 0-dim weight_scale) are ModelOpt FP8 (layout modelopt-fp8, family MO)",
             extra={"library_check": library_check(dirs["mixed"])})
    # config.json's quantization_config (quant_method modelopt) alone names the scheme.
    out.case(FAMILY, "modelopt-config-json-only", source=f"{sources['mo']}; hf_quant_config.json removed", verdict="pass",
             layout="nvfp4-modelopt", files=variant(dirs["mo"], drop_files=("hf_quant_config.json",)), modules=pins(dirs["mo"]),
             rules=["NV-008", "NV-009", "NV-010"])
    # No config at all: the tensor-name fingerprints (FORMATS.md 1.2) name the layout, but no loader
    # reads NVFP4 without a config naming it: rejected by CFG-030 (one policy with CFG-002/CFG-028).
    for key, name, layout in (("mo", "modelopt-file-only", "nvfp4-modelopt"), ("ct", "ct-file-only", "nvfp4-ct")):
        with open(os.path.join(dirs[key], "model.safetensors"), "rb") as f:
            data = f.read()
        out.case(FAMILY, name, source=f"{sources[key]}; model.safetensors alone, without config.json", verdict="reject",
                 reject_rule="CFG-030", layout=layout, input="model.safetensors", files={"model.safetensors": data},
                 rules=["CFG-030"])


def _first(t, suffix):
    return sorted(k for k in t if k.endswith(suffix))[0]


def reject_cases(out, dirs, sources):
    import torch

    def nan_scale(t):
        k = _first(t, "down_proj.weight_scale")
        b = t[k].view(torch.uint8).clone()
        b[0, 0] = 0x7F
        t[k] = b.view(torch.float8_e4m3fn)

    def neg_scale(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = (-t[k].float()).to(torch.float8_e4m3fn)

    def odd_width(t):
        k = _first(t, "down_proj.weight_packed")
        t[k] = t[k][:, :23].clone()

    def scale_shape(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = t[k][:, :2].clone()

    def scale_dtype(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = t[k].float()

    def global_shape(t):
        k = _first(t, "down_proj.weight_scale_2")
        t[k] = t[k].reshape(1).repeat(2)

    def global_zero(t):
        t[_first(t, "down_proj.weight_scale_2")] = torch.tensor(0.0)

    def global_inf(t):
        t[_first(t, "down_proj.weight_global_scale")] = torch.tensor([float("inf")])

    def embed_renamed(t):
        t["model.embed_tokens.weight_packed"] = t.pop("model.embed_tokens.weight")

    def mo_dequantized(t):
        k = _first(t, "down_proj.weight")
        t[k] = torch.zeros(t[k].shape[0], t[k].shape[1] * 2, dtype=torch.bfloat16)

    def drop_input(t):
        del t[_first(t, "down_proj.input_global_scale")]

    def group32(cfg):
        for g in cfg["quantization_config"]["config_groups"].values():
            g["weights"]["group_size"] = 32

    def ignore_down(cfg):
        cfg["quantization_config"]["ignore"].append("re:.*down_proj$")

    cases = [
        ("reject-nonuint8-embedding-packed", "conv", "NV-001", embed_renamed, None,
         "model.embed_tokens.weight (bf16) renamed to weight_packed, as a converter without a dtype check does (FORMATS.md 4.6)"),
        ("reject-modelopt-weight-not-uint8", "mo", "NV-001", mo_dequantized, None,
         "down_proj.weight replaced by a bf16 [N, K] tensor while its weight_scale / weight_scale_2 stay"),
        ("reject-odd-packed-width", "ct", "NV-002", odd_width, None, "down_proj.weight_packed cut to 23 columns (K = 46)"),
        ("reject-scale-shape", "ct", "NV-003", scale_shape, None, "down_proj.weight_scale cut to [N, 2] (K/16 = 3)"),
        ("reject-scale-dtype", "mo", "NV-003", scale_dtype, None, "down_proj.weight_scale stored as F32"),
        ("reject-global-shape", "mo", "NV-004", global_shape, None, "down_proj.weight_scale_2 of shape [2]"),
        ("reject-scale-nan", "ct", "NV-005", nan_scale, None, "down_proj.weight_scale[0, 0] = 0x7F (NaN)"),
        ("reject-scale-negative", "ct", "NV-005", neg_scale, None, "down_proj.weight_scale negated"),
        ("reject-global-zero", "mo", "NV-006", global_zero, None, "down_proj.weight_scale_2 = 0"),
        ("reject-global-inf", "ct", "NV-006", global_inf, None, "down_proj.weight_global_scale = inf"),
        ("reject-group-size-32", "ct", "NV-008", None, group32, "config group_size 32 under nvfp4-pack-quantized (that is MXFP4)"),
        ("reject-ignored-module-packed", "ct", "NV-009", None, ignore_down, "ignore gains 're:.*down_proj$' while down_proj stays packed"),
        ("reject-missing-input-global-scale", "ct", "NV-010", drop_input, None,
         "down_proj.input_global_scale removed; the config's input activations are dynamic 'local'"),
    ]
    for name, base, rule, et, ec, what in cases:
        files = variant(dirs[base], edit_tensors=et, edit_config=ec)
        out.case(FAMILY, name, source=f"{sources[base]}; then one edit: {what}", verdict="reject", reject_rule=rule,
                 layout=None, rules=[rule], files=files)
    # ModelOpt's exclude_modules is read from hf_quant_config.json: a separate edit.
    d = tempfile.mkdtemp(prefix="nvfp4-variant-")
    try:
        shutil.copytree(dirs["mo"], d, dirs_exist_ok=True)
        p = os.path.join(d, "hf_quant_config.json")
        with open(p) as f:
            hq = json.load(f)
        hq["quantization"]["exclude_modules"].append("model.layers.*.mlp.down_proj")
        with open(p, "w") as f:
            json.dump(hq, f, indent=4)
        os.remove(os.path.join(d, "config.json"))  # hf_quant_config.json alone names the scheme
        out.case(FAMILY, "reject-modelopt-excluded-module-packed", verdict="reject", reject_rule="NV-009", rules=["NV-009"],
                 source=f"{sources['mo']}; then config.json removed and exclude_modules gains 'model.layers.*.mlp.down_proj'",
                 files=folder_files(d))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def requant_finding(model, mo_dir, requant_dir):
    """Where the two quantizers disagree given the same bf16 weights and the same scales: only within a
    few ULP of a rounding boundary of the E2M1 grid, where x / (fp8 * weight_scale_2) and
    x / (fp8 / f32(1/weight_scale_2)) fall on either side (FORMATS.md 4.6). Exact -0.0 weights get 0x0 from both (see negzero_cases). Asserted here."""
    mo, rq = folder_tensors(mo_dir), folder_tensors(requant_dir)
    ties = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0], np.float32)
    where = {}
    for prefix, _ in naming_modules(mo):
        a = library_view(mo, prefix, "mo")[0]
        b = library_view(rq, prefix, "ct")[0]
        w = model.get_submodule(prefix).weight.data.float().numpy()
        s = np.repeat(mo[f"{prefix}.weight_scale"].float().numpy() * np.float32(mo[f"{prefix}.weight_scale_2"].item()), 16, axis=1)
        x = np.abs(w / s.astype(np.float32)).astype(np.float32)
        diff = np.argwhere(a != b)
        for r, c in diff:
            assert np.any(np.abs(ties - x[r, c]) <= 4e-7 * ties), (prefix, r, c, x[r, c])
        if len(diff):
            where[prefix] = [list(map(int, ix)) for ix in diff]
    return where


def negzero_cases(out, sources):
    """The sign of an exact -0.0: compressed-tensors' packer (pack_fp4_to_uint8, signbit) writes 0x8,
    ModelOpt's quantizer (_cast_fp4, x < 0) writes 0x0. (compressed-tensors' own compress path on the
    CPU goes through cast_to_fp4, whose torch.sign turns -0.0 into +0.0 first, so it writes 0x0 too.)
    Both files hold FORMATS.md 4.7's worked vector, K = 16 (one group)."""
    import torch
    from compressed_tensors import __version__ as ct_version
    from compressed_tensors.compressors.nvfp4.helpers import pack_fp4_to_uint8
    from compressed_tensors.quantization import QuantizationConfig, QuantizationScheme
    from compressed_tensors.quantization.quant_scheme import NVFP4
    from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
    vals = [0, .5, 1, 1.5, 2, 3, 4, 6]
    x = torch.tensor([vals + [-v for v in vals], [-v for v in vals] + vals], dtype=torch.float32)
    x[0, 8] = -0.0
    x[1, 0] = -0.0
    one8 = torch.ones(2, 1).to(torch.float8_e4m3fn)
    ct_packed = pack_fp4_to_uint8(x)
    qt, mo_scale, mo_s2 = NVFP4QTensor.quantize(x.clone(), 16, weights_scaling_factor=one8, weights_scaling_factor_2=torch.tensor(1.0))
    mo_packed = qt._quantized_data
    assert ct_packed[0].tolist() == [0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]
    assert mo_packed[0].tolist() == [0x10, 0x32, 0x54, 0x76, 0x90, 0xba, 0xdc, 0xfe]
    scheme = QuantizationScheme(targets=["Linear"], **copy.deepcopy(NVFP4))
    qc = QuantizationConfig(config_groups={"group_0": scheme}, format="nvfp4-pack-quantized", quantization_status="compressed").model_dump()
    qc["version"] = ct_version
    hq = {"producer": {"name": "modelopt", "version": sources["modelopt_version"]},
          "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": None, "group_size": 16, "exclude_modules": []}}
    work = tempfile.mkdtemp(prefix="nvfp4-negzero-")
    try:
        ct_dir, mo_dir = os.path.join(work, "ct"), os.path.join(work, "mo")
        os.makedirs(ct_dir)
        os.makedirs(mo_dir)
        save({"m.weight_packed": ct_packed, "m.weight_scale": one8, "m.weight_global_scale": torch.ones(1),
              "m.input_global_scale": torch.ones(1)}, ct_dir)
        with open(os.path.join(ct_dir, "config.json"), "w") as f:
            json.dump({"quantization_config": qc}, f, indent=2, sort_keys=True)
        save({"m.weight": mo_packed, "m.weight_scale": mo_scale, "m.weight_scale_2": mo_s2.reshape([]),
              "m.input_scale": torch.tensor(1.0)}, mo_dir)
        with open(os.path.join(mo_dir, "hf_quant_config.json"), "w") as f:
            json.dump(hq, f, indent=4)
        src_ct = f"compressed-tensors {ct_version} pack_fp4_to_uint8 of FORMATS.md 4.7's vector with exact -0.0 at [0, 8] and [1, 0]; fp8 scales 1, global scales 1"
        src_mo = f"nvidia-modelopt {sources['modelopt_version']} NVFP4QTensor.quantize of the same values (block scale 1, weight_scale_2 1); layout of hf_quant_config.json from its export"
        rules = ["NV-001", "NV-002", "NV-003", "NV-004", "NV-005", "NV-006", "NV-007", "NV-008", "NV-010"]
        out.case(FAMILY, "ct-packer-negzero", source=src_ct, verdict="pass", layout="nvfp4-ct", rules=rules,
                 files=folder_files(ct_dir), modules=pins(ct_dir), notes="exact -0.0 -> code 0x8 (signbit)",
                 extra={"library_check": library_check(ct_dir)})
        out.case(FAMILY, "modelopt-quantize-negzero", source=src_mo, verdict="pass", layout="nvfp4-modelopt", rules=rules,
                 files=folder_files(mo_dir), modules=pins(mo_dir), notes="exact -0.0 -> code 0x0 (x < 0); weight of code 0x8 would be -0.0 in the contract view, ModelOpt's dequantize gives +0.0",
                 extra={"library_check": library_check(mo_dir)})
        files = nested(folder_files(mo_dir), "source")
        files.update(nested(folder_files(ct_dir), "target"))
        out.case(FAMILY, "equiv-negzero-modelopt-vs-ct-packer", verdict="pass", layout="nvfp4-modelopt", input="source",
                 files=files, modules=pins(mo_dir), source=f"source = {src_mo}; target = {src_ct}",
                 notes="the two libraries encode an exact -0.0 differently (0x90 vs 0x98 at byte [0, 4]): not the same codes",
                 extra={"equiv": {"source": "source", "target": "target", "verdict": "differ", "rule": "CT-005"}})
    finally:
        shutil.rmtree(work, ignore_errors=True)


def equiv_cases(out, dirs, sources):
    import torch

    def swap_nibble(t):
        k = _first(t, "q_proj.weight_packed")
        b = t[k].clone()
        r, c = next((r, c) for r in range(b.shape[0]) for c in range(b.shape[1]) if (b[r, c] >> 4) != (b[r, c] & 15))
        b[r, c] = ((b[r, c] & 15) << 4) | (b[r, c] >> 4)
        t[k] = b

    mo = folder_tensors(dirs["mo"])

    def global_copied(t):
        k = _first(t, "down_proj.weight_global_scale")
        t[k] = mo[k.replace("weight_global_scale", "weight_scale_2")].clone()

    def input_copied(t):
        k = _first(t, "down_proj.input_global_scale")
        t[k] = mo[k.replace("input_global_scale", "input_scale")].clone()

    def scale_bumped(t):
        k = _first(t, "o_proj.weight_scale")
        b = t[k].view(torch.uint8).clone()
        b[0, 0] += 1
        t[k] = b.view(torch.float8_e4m3fn)

    def global_zero(t):
        t[_first(t, "down_proj.weight_global_scale")] = torch.tensor(0.0)

    def not_converted(t):
        p = _first(t, "down_proj.weight_packed")[: -len(".weight_packed")]
        for k in [k for k in t if k.startswith(p + ".")]:
            del t[k]
        for k in [k for k in mo if k.startswith(p + ".")]:
            t[k] = mo[k].clone()

    def code_changed(t):
        k = _first(t, "up_proj.weight_packed")
        b = t[k].clone()
        b[3, 5] ^= 0x01
        t[k] = b

    def global_ulp(t):
        k = _first(t, "up_proj.weight_global_scale")
        t[k] = torch.from_numpy(np.nextafter(t[k].numpy(), np.float32(np.inf)).astype(np.float32))

    def drop_module(t):
        p = _first(t, "k_proj.weight_packed")[: -len(".weight_packed")]
        for k in [k for k in t if k.startswith(p + ".")]:
            del t[k]

    def norm_changed(t):
        k = "model.norm.weight"
        t[k] = t[k].clone()
        t[k][0] = t[k][0] * 2

    conv_src = f"source = {sources['mo']}; target = {sources['conv']}"
    cases = [
        # name, source key, target files, verdict, rule, what
        ("equiv-modelopt-to-ct-converter", "mo", folder_files(dirs["conv"]), "equal", None, "the real converter's output"),
        ("equiv-converter-swapped-nibble", "mo", variant(dirs["conv"], swap_nibble), "differ", "CT-005",
         "target: one q_proj.weight_packed byte with its nibbles swapped"),
        ("equiv-converter-global-not-inverted", "mo", variant(dirs["conv"], global_copied), "differ", "CT-005",
         "target: down_proj.weight_global_scale = weight_scale_2 (not inverted)"),
        ("equiv-converter-input-not-inverted", "mo", variant(dirs["conv"], input_copied), "differ", "CT-005",
         "target: down_proj.input_global_scale = input_scale (not inverted)"),
        ("equiv-converter-scale-changed", "mo", variant(dirs["conv"], scale_bumped), "differ", "CT-005",
         "target: o_proj.weight_scale[0, 0] one fp8 step up"),
        ("equiv-converter-embedding-packed", "mo", variant(dirs["conv"], lambda t: t.__setitem__(
            "model.embed_tokens.weight_packed", t.pop("model.embed_tokens.weight"))), "differ", "NV-001",
         "target: bf16 embed_tokens.weight renamed to weight_packed"),
        ("equiv-converter-global-zero", "mo", variant(dirs["conv"], global_zero), "differ", "NV-006",
         "target: down_proj.weight_global_scale = 0"),
        ("equiv-converter-module-not-converted", "mo", variant(dirs["conv"], not_converted), "differ", "CT-005",
         "target: down_proj left with its ModelOpt names and scales (a converter whose targets missed it)"),
        ("equiv-ct-code-changed", "ct", variant(dirs["ct"], code_changed), "differ", "EQ-002",
         "target: one up_proj code changed (bit 0 of byte [3, 5])"),
        ("equiv-ct-global-one-ulp", "ct", variant(dirs["ct"], global_ulp), "differ", "EQ-003",
         "target: up_proj.weight_global_scale one ULP up (codes equal, weights not)"),
        ("equiv-ct-module-dropped", "ct", variant(dirs["ct"], drop_module), "differ", "EQ-001",
         "target: every k_proj tensor removed"),
        ("equiv-ct-norm-changed", "ct", variant(dirs["ct"], norm_changed), "differ", "EQ-004",
         "target: model.norm.weight[0] doubled"),
        ("equiv-ct-self", "ct", folder_files(dirs["ct"]), "equal", None, "target: the same files"),
        ("equiv-modelopt-vs-ct-requantized", "mo", folder_files(dirs["requant"]), "differ", "CT-005",
         f"target = {sources['requant']}. Re-quantizing instead of copying moves codes at exact rounding ties "
         f"(elements {sources['ties']}), so the bytes are not a copy"),
    ]
    for name, src, target_files, verdict, rule, what in cases:
        files = nested(folder_files(dirs[src]), "source")
        files.update(nested(target_files, "target"))
        layout = "nvfp4-modelopt" if src == "mo" else "nvfp4-ct"
        out.case(FAMILY, name, verdict="pass", layout=layout, input="source", files=files, modules=pins(dirs[src]),
                 source=(conv_src if "converter" in name else f"source = {sources[src]}") + f"; {what}",
                 extra={"equiv": {"source": "source", "target": "target", "verdict": verdict, "rule": rule}})


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
