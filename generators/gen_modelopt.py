"""ModelOpt beyond NVFP4 (family modelopt/): FP8 per-tensor / per-channel / block and INT4 AWQ
(W4A16_AWQ, W4A8_AWQ), alone and as MIXED_PRECISION. Venv: modelopt (generators/requirements-modelopt.txt:
nvidia-modelopt 0.47.0 on torch 2.15.0 CPU).

Every file is written by nvidia-modelopt on the CPU: mtq.quantize(<preset>) of a tiny seeded Llama, then
modelopt.torch.export.export_hf_checkpoint (config.json, hf_quant_config.json, model.safetensors). The
exporter needs config.architectures (it crashes without it) and takes quant_cfg as a list of
{"quantizer_name", "cfg"} entries (a dict-style override is ignored), so the mixed preset appends to the list.
Negative cases edit one thing of those files (named in each case's source).

Pins: FP8 codes are the stored bytes, weights f32(e4m3) * f32(scale) with the scale of the element's
tensor / row / 128x128 block (ModelOpt's from_quantized_weight order: weight.to(f32) * scale). INT4 codes
are the stored nibbles (element (n, k) in byte (n // 2, k), low nibble for even n: pack_int4_in_uint8), weights
f32(two's-complement nibble) * f32(weight_scale[n, k // group]). Each pass case records the library check:
ModelOpt's from_quantized_weight for per-tensor FP8, and for INT4 that ModelOpt's own pack_int4_in_uint8
over the pinned weights re-creates the file's bytes.
"""
import copy
import json
import os
import shutil
import sys
import tempfile

import numpy as np

from pcgen.corpus import folder_files, folder_tensors, module_pin
from pcgen.venv import run_in_venv, venv_main

FAMILY = "modelopt"
VENV = os.environ.get("PCGEN_VENV_MODELOPT", "/work/venvs/modelopt")
FP8_BLOCK = 128  # ModelOpt's FP8_2D_BLOCKWISE preset; the export does not record it (quant_algo fp8_pb_wo)


def _have_modelopt():
    try:
        import modelopt  # noqa: F401
        return True
    except ImportError:
        return False


def tiny_model(hidden, inter, seed=0):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=32, hidden_size=hidden, intermediate_size=inter, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=16,
                      architectures=["LlamaForCausalLM"], tie_word_embeddings=False)
    return LlamaForCausalLM(cfg).to(torch.bfloat16).eval()


def calib_loop(model):
    import torch
    g = torch.Generator().manual_seed(1)
    for _ in range(2):
        model(torch.randint(0, 32, (1, 8), generator=g))


def export(preset, hidden, inter, out_dir, extra=()):
    import modelopt.torch.quantization as mtq
    from modelopt.torch.export import export_hf_checkpoint
    cfg = copy.deepcopy(getattr(mtq, preset))
    cfg["quant_cfg"] += list(extra)
    m = mtq.quantize(tiny_model(hidden, inter), cfg, calib_loop)
    export_hf_checkpoint(m, export_dir=out_dir)


# ---------------------------------------------------------------- reading and pinning



def modules(t):
    """(prefix, kind) of every quantized Linear: 'fp8' (F8_E4M3 weight) or 'int4' (U8 weight)."""
    import torch
    out = []
    for k, v in sorted(t.items()):
        if not k.endswith(".weight") or k[:-7] + ".weight_scale" not in t:
            continue
        if v.dtype == torch.float8_e4m3fn:
            out.append((k[:-7], "fp8"))
        elif v.dtype == torch.uint8:
            out.append((k[:-7], "int4"))
    return out


def fp8_view(t, prefix):
    import torch
    w = t[f"{prefix}.weight"]
    n, k = w.shape
    s = t[f"{prefix}.weight_scale"].float().numpy().astype(np.float32)
    if s.ndim == 0:
        grid = np.full((n, k), s, np.float32)
    elif s.ndim == 1:
        grid = np.repeat(s[:, None], k, axis=1)
    else:  # [ceil(N/128), 1, ceil(K/128), 1]
        s2 = s.reshape(s.shape[0], s.shape[2])
        grid = np.repeat(np.repeat(s2, FP8_BLOCK, axis=0), FP8_BLOCK, axis=1)[:n, :k]
    vals = w.to(torch.float32).numpy()
    return w.view(torch.uint8).numpy(), (vals * grid).astype(np.float32)


def int4_view(t, prefix):
    packed = t[f"{prefix}.weight"].numpy()
    half, k = packed.shape
    codes = np.empty((2 * half, k), np.uint8)
    codes[0::2] = packed & 0x0F
    codes[1::2] = packed >> 4
    q = np.where(codes >= 8, codes.astype(np.int16) - 16, codes).astype(np.float32)
    s = t[f"{prefix}.weight_scale"].float().numpy().astype(np.float32)
    g = k // s.shape[1]
    return codes, (q * np.repeat(s, g, axis=1)).astype(np.float32)


def view(t, prefix, kind):
    return fp8_view(t, prefix) if kind == "fp8" else int4_view(t, prefix)


def pins(dir_):
    t = folder_tensors(dir_)
    out = {}
    for prefix, kind in modules(t):
        if kind == "int4" and f"{prefix}.weight_scale_2" in t and t[f"{prefix}.weight_scale"].dtype.itemsize == 1:
            continue  # NVFP4 (formats/nvfp4) in a mixed export
        codes, w = view(t, prefix, kind)
        out[prefix] = module_pin(codes.shape, 8 if kind == "fp8" else 4, codes.tobytes(), w.astype("<f4").tobytes())
    return out


def library_check(dir_):
    """ModelOpt's own code against the pinned view, per module."""
    import torch
    from modelopt.torch.export.quant_utils import from_quantized_weight, pack_int4_in_uint8
    t = folder_tensors(dir_)
    rep = {}
    for prefix, kind in modules(t):
        codes, w = view(t, prefix, kind)
        s = t[f"{prefix}.weight_scale"]
        if kind == "fp8" and s.ndim == 0:
            lib = from_quantized_weight(t[f"{prefix}.weight"], s, "fp8", torch.float32).numpy()
            rep[prefix] = {"library": "modelopt from_quantized_weight(fp8, float32)",
                           "f32_differs": int((lib.view(np.uint32) != w.view(np.uint32)).sum()), "elements": int(w.size)}
        elif kind == "int4":
            g = w.shape[1] // s.shape[1]
            again = pack_int4_in_uint8(torch.from_numpy(w), s.float(), g)
            rep[prefix] = {"library": "modelopt pack_int4_in_uint8 over the pinned f32 weights",
                           "bytes_differ": int((again.numpy() != t[f"{prefix}.weight"].numpy()).sum()),
                           "elements": int(w.size)}
    return rep


# ---------------------------------------------------------------- edits for negative cases

def save(t, dir_, name="model.safetensors"):
    from safetensors.torch import save_file
    save_file({k: v.contiguous() for k, v in t.items()}, os.path.join(dir_, name), metadata={"format": "pt"})


def variant(base_dir, edit_tensors=None, edit_hq=None, drop_files=()):
    """A copy of base_dir with one edit (tensors, or hf_quant_config.json's quantization and config.json's
    quantization_config alike); returns its files."""
    d = tempfile.mkdtemp(prefix="modelopt-variant-")
    try:
        shutil.copytree(base_dir, d, dirs_exist_ok=True)
        for fn in drop_files:
            os.remove(os.path.join(d, fn))
        if edit_tensors:
            t = folder_tensors(d)
            edit_tensors(t)
            save(t, d)
        if edit_hq:
            for fn, key in (("hf_quant_config.json", "quantization"), ("config.json", "quantization_config")):
                p = os.path.join(d, fn)
                if not os.path.exists(p):
                    continue
                with open(p) as f:
                    j = json.load(f)
                edit_hq(j[key])
                with open(p, "w") as f:
                    json.dump(j, f, indent=2, sort_keys=True)
        return folder_files(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------- the cases

BUILDS = {
    # name: (preset, hidden, intermediate, extra quant_cfg entries, what)
    "fp8-per-tensor": ("FP8_DEFAULT_CFG", 32, 48, (), "quant_algo FP8: F8_E4M3 weight, F32 0-dim weight_scale and input_scale"),
    "fp8-per-channel": ("FP8_PER_CHANNEL_PER_TOKEN_CFG", 32, 48, (), "quant_algo FP8_PER_CHANNEL_PER_TOKEN: F32 weight_scale [N]"),
    "fp8-block": ("FP8_2D_BLOCKWISE_WEIGHT_ONLY_CFG", 128, 192, (),
                  "quant_algo fp8_pb_wo: weight_scale [ceil(N/128), 1, ceil(K/128), 1]; N = 192 and K = 192 end in partial 64-wide blocks"),
    "fp8-block-one-block": ("FP8_2D_BLOCKWISE_WEIGHT_ONLY_CFG", 32, 48, (),
                            "quant_algo fp8_pb_wo on weights smaller than one 128x128 block: weight_scale is 0-dim"),
    "int4-awq": ("INT4_AWQ_CFG", 128, 256, (), "quant_algo W4A16_AWQ group 128: U8 weight [N/2, K], F32 weight_scale [N, K/128], BF16 pre_quant_scale [K]"),
    "w4a8-awq": ("W4A8_AWQ_BETA_CFG", 128, 256, (), "quant_algo W4A8_AWQ: W4A16_AWQ's tensors plus F32 0-dim weight_scale_2 and input_scale"),
    "mixed-int4-fp8": ("INT4_AWQ_CFG", 128, 256,
                       ({"quantizer_name": "*self_attn*weight_quantizer", "cfg": {"num_bits": (4, 3), "axis": None}},
                        {"quantizer_name": "*self_attn*input_quantizer", "cfg": {"num_bits": (4, 3), "axis": None}}),
                       "MIXED_PRECISION: W4A16_AWQ MLP, FP8 attention (quantized_layers per module)"),
}
RULES = ["MO-001", "MO-002", "MO-003", "MO-004", "MO-005", "MO-006", "MO-007", "MO-008", "MO-009", "MO-010"]


def generate(out):
    if _have_modelopt():
        return _generate(out)
    run_in_venv(__file__, VENV, out, "nvidia-modelopt")


def _generate(out):
    import modelopt
    import torch
    versions = f"nvidia-modelopt {modelopt.__version__}, torch {torch.__version__}"
    work = tempfile.mkdtemp(prefix="gen-modelopt-")
    try:
        dirs, sources = {}, {}
        for name, (preset, h, i, extra, what) in BUILDS.items():
            dirs[name] = os.path.join(work, name)
            export(preset, h, i, dirs[name], extra)
            sources[name] = (f"{versions}: mtq.quantize({preset}{' + ' + str(len(extra)) + ' quant_cfg entries' if extra else ''}) + "
                             f"export_hf_checkpoint of a seeded 1-layer Llama (hidden {h}, intermediate {i}) on the CPU: {what}")
        pass_cases(out, dirs, sources)
        reject_cases(out, dirs, sources)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def pass_cases(out, dirs, sources):
    for name, d in dirs.items():
        out.case(FAMILY, name, source=sources[name], verdict="pass", layout=None, rules=RULES, files=folder_files(d),
                 modules=pins(d), extra={"library_check": library_check(d)})
    out.case(FAMILY, "int4-awq-config-json-only", source=f"{sources['int4-awq']}; hf_quant_config.json removed",
             verdict="pass", rules=RULES, files=variant(dirs["int4-awq"], drop_files=("hf_quant_config.json",)),
             modules=pins(dirs["int4-awq"]))
    out.case(FAMILY, "fp8-block-hf-quant-config-only", source=f"{sources['fp8-block']}; config.json removed",
             verdict="pass", rules=RULES, files=variant(dirs["fp8-block"], drop_files=("config.json",)),
             modules=pins(dirs["fp8-block"]))


def _first(t, suffix):
    return sorted(k for k in t if k.endswith(suffix))[0]


def reject_cases(out, dirs, sources):
    import torch

    def algo(name):
        return lambda q: q.__setitem__("quant_algo", name)

    def fp8_weight_bf16(t):
        k = _first(t, "down_proj.weight")
        t[k] = t[k].to(torch.bfloat16)

    def block_grid(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = t[k][:, :, :1, :].clone()

    def channel_shape(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = t[k][:16].clone()

    def scale_nan(t):
        k = _first(t, "down_proj.weight_scale")
        v = t[k].clone()
        v.view(-1)[0] = float("nan")
        t[k] = v

    def scale_zero(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = torch.zeros_like(t[k])

    def packed_rows_odd(t):
        k = _first(t, "down_proj.weight")
        t[k] = t[k].view(torch.int8).view(torch.uint8)[:, :200].clone()  # K = 200: not a multiple of 128

    def int4_scale_shape(t):
        k = _first(t, "down_proj.weight_scale")
        t[k] = t[k][:, :1].clone()

    def pqs_shape(t):
        k = _first(t, "down_proj.pre_quant_scale")
        t[k] = t[k][:128].clone()

    def pqs_negative(t):
        k = _first(t, "down_proj.pre_quant_scale")
        t[k] = -t[k]

    def drop_ws2(t):
        del t[_first(t, "down_proj.weight_scale_2")]

    def exclude_down(q):
        q.setdefault("exclude_modules", q.get("ignore", []))
        for key in ("exclude_modules", "ignore"):
            if key in q:
                q[key].append("model.layers.*.mlp.down_proj")

    def mixed_swap(q):
        layers = q.get("quantized_layers")
        if layers:
            layers["model.layers.0.mlp.down_proj"] = {"quant_algo": "FP8"}

    def mixed_drop(q):
        layers = q.get("quantized_layers")
        if layers:
            del layers["model.layers.0.mlp.down_proj"]

    cases = [
        ("neg-mo001-unknown-algo", "int4-awq", "MO-001", None, algo("W4A16_AWQX"), "quant_algo set to 'W4A16_AWQX' in both configs"),
        ("neg-mo002-fp8-weight-bf16", "fp8-per-tensor", "MO-002", fp8_weight_bf16, None, "down_proj.weight cast to bf16 under quant_algo FP8"),
        ("neg-mo003-block-grid", "fp8-block", "MO-003", block_grid, None, "down_proj.weight_scale cut to [2, 1, 1, 1] (K = 192 needs 2 column blocks)"),
        ("neg-mo003-channel-shape", "fp8-per-channel", "MO-003", channel_shape, None, "down_proj.weight_scale cut to [16] (N = 32)"),
        ("neg-mo004-fp8-scale-nan", "fp8-per-tensor", "MO-004", scale_nan, None, "down_proj.weight_scale = NaN"),
        ("neg-mo004-int4-scale-zero", "int4-awq", "MO-004", scale_zero, None, "down_proj.weight_scale all 0"),
        ("neg-mo005-k-not-group-multiple", "int4-awq", "MO-005", packed_rows_odd, None,
         "down_proj.weight cut to 200 columns (K = 200, group 128: ModelOpt's packer refuses partial groups)"),
        ("neg-mo006-int4-scale-shape", "int4-awq", "MO-006", int4_scale_shape, None, "down_proj.weight_scale cut to [N, 1] (K/128 = 2)"),
        ("neg-mo007-pre-quant-scale-shape", "int4-awq", "MO-007", pqs_shape, None, "down_proj.pre_quant_scale cut to [128] (K = 256)"),
        ("neg-mo007-pre-quant-scale-negative", "int4-awq", "MO-007", pqs_negative, None, "down_proj.pre_quant_scale negated"),
        ("neg-mo008-w4a8-weight-scale-2-missing", "w4a8-awq", "MO-008", drop_ws2, None, "down_proj.weight_scale_2 removed under W4A8_AWQ"),
        ("neg-mo009-excluded-module-quantized", "int4-awq", "MO-009", None, exclude_down, "exclude_modules / ignore gain 'model.layers.*.mlp.down_proj'"),
        ("neg-mo010-layer-spec-other-algo", "mixed-int4-fp8", "MO-010", None, mixed_swap,
         "quantized_layers names down_proj FP8 while it holds W4A16_AWQ tensors"),
        ("neg-mo010-layer-missing-from-map", "mixed-int4-fp8", "MO-010", None, mixed_drop,
         "down_proj removed from quantized_layers while it holds W4A16_AWQ tensors"),
    ]
    for name, base, rule, et, eq, what in cases:
        out.case(FAMILY, name, source=f"{sources[base]}; then one edit: {what}", verdict="reject", reject_rule=rule,
                 rules=[rule], files=variant(dirs[base], edit_tensors=et, edit_hq=eq))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    venv_main(_generate)
