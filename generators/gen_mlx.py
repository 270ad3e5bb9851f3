"""MLX affine fixtures (family mlx/). Venv: mlx (generators/requirements-mlx.txt: mlx 0.32.4 with its Linux
CPU wheel mlx-cpu, mlx-lm 0.32.2; the path comes from PCGEN_VENV_MLX, default /work/venvs/mlx). From any
other venv this module re-runs itself there.

Every byte comes from MLX itself:
  * probes: mlx.core.quantize (mode affine) of seeded numpy rows at every width 1, 2, 3, 4, 5, 6, 8 and
    group 32, 64, 128, one module per scale dtype (f32, bf16, f16), saved by mx.save_safetensors; and one
    3-D [E, out, in] expert stack;
  * models: a tiny llama built by mlx_lm.models.llama (no download), mlx_lm.utils.quantize_model (4-bit g64,
    and the mixed_3_6 recipe from mlx_lm.convert, where every module carries a per-layer override while the
    top level says 4 bits), written by mlx_lm.utils.save_model and save_config (which adds the duplicate
    `quantization_config`). Embedding and lm_head are quantized too.
  * fp modes: mx.quantize(mode=mxfp4 / nvfp4 / mxfp8) probes (f32 groups whose absmax reaches every scale
    byte mx.quantize writes without wrapping, random rows, a bf16 expert stack) and quantize_model(mode=...)
    model folders (what `mlx_lm.convert --q-mode` calls), pinned from mx.dequantize(mode, dtype=float32).
    Surprise: for a group whose absmax is below about 2^-125 (mxfp4) / 2^-119 (mxfp8), mx.quantize's E8M0
    exponent wraps around (2^-147 gives byte 234 = 2^107, 2^-126 gives 255 = NaN), so tiny groups
    dequantize to huge values or inf/NaN; and its CPU dequantize reads E8M0 255 as 2^128, not NaN.
Negative cases change one thing of the 4-bit model (named in each case's source), tensors re-saved by
mx.save_safetensors.

Pins: codes from mlx.core.dequantize with unit scales and zero biases (exactly q); weights from
mlx.core.dequantize with the stored scales and biases, widened to f32. That is the contract (CONTRACT 3):
mlx computes in the scales' dtype T and rounds twice, w = rT(rT(s*q) + b), also for f32 (no FMA).
"""
import json
import os
import shutil
import sys
import tempfile

from pcgen.corpus import module_pin
from pcgen.venv import run_in_venv

FAMILY = "mlx"
LAYOUT = "mlx-affine"
VENV = os.environ.get("PCGEN_VENV_MLX", "/work/venvs/mlx")
RULES = ["MLX-001", "MLX-002", "MLX-003", "MLX-004", "MLX-005", "MLX-006", "MLX-007"]


def generate(out):
    try:
        import mlx.core  # noqa: F401
        import mlx_lm  # noqa: F401
    except ImportError:
        return run_in_venv(__file__, VENV, out, "mlx and mlx-lm")
    return _generate(out)


# ---------------------------------------------------------------- pins and files

def pin(w, s, b, bits, group):
    """codes and f32 weights of one module as mlx.core.dequantize gives them."""
    import mlx.core as mx
    one, zero = mx.ones(s.shape, mx.float32), mx.zeros(s.shape, mx.float32)
    codes = mx.dequantize(w, one, zero, group_size=group, bits=bits).astype(mx.uint8)
    wf = mx.dequantize(w, s, b, group_size=group, bits=bits).astype(mx.float32)
    import numpy as np
    c, f = np.array(codes), np.array(wf)
    return module_pin(list(c.shape), bits, c.tobytes(), f.astype("<f4").tobytes())


def st_bytes(tensors):
    import mlx.core as mx
    d = tempfile.mkdtemp(prefix="pcgen-mlx-")
    try:
        p = os.path.join(d, "m.safetensors")
        mx.save_safetensors(p, tensors, metadata={"format": "mlx"})
        with open(p, "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(d)


def st_load(data):
    import mlx.core as mx
    d = tempfile.mkdtemp(prefix="pcgen-mlx-")
    try:
        p = os.path.join(d, "m.safetensors")
        with open(p, "wb") as f:
            f.write(data)
        t = mx.load(p)
        mx.eval(t)
        return dict(t)
    finally:
        shutil.rmtree(d)


def qdict(bits, group):
    return {"bits": bits, "group_size": group, "mode": "affine"}


# ---------------------------------------------------------------- probes

def probe_rows(rng, shape):
    """Rows with both signs of scale: a ramp, noise, a large-range row with one all-zero group, and a
    mostly positive row (|max| > |min|: mlx makes the max the bias and the scale negative)."""
    import numpy as np
    w = rng.standard_normal(shape).astype(np.float32)
    flat = w.reshape(-1, shape[-1])
    n = shape[-1]
    flat[0] = np.linspace(-1, 1, n, dtype=np.float32)
    flat[2] *= 100
    flat[2, :32] = 0
    flat[3] = np.abs(flat[3]) + 0.01
    flat[3, 0] = -0.05
    return w


def probes(out):
    import mlx.core as mx
    import numpy as np
    for bits in (1, 2, 3, 4, 5, 6, 8):
        for group in (32, 64, 128):
            rng = np.random.default_rng(1000 + 10 * bits + group)
            tensors, mods = {}, {}
            for dname, dt in (("f32", mx.float32), ("bf16", mx.bfloat16), ("f16", mx.float16)):
                w = mx.array(probe_rows(rng, (4, 256))).astype(dt)
                q, s, b = mx.quantize(w, group_size=group, bits=bits, mode="affine")
                m = f"probe.{dname}"
                tensors.update({f"{m}.weight": q, f"{m}.scales": s, f"{m}.biases": b})
                mods[m] = pin(q, s, b, bits, group)
            cfg = {"model_type": "probe", "quantization": qdict(bits, group), "quantization_config": qdict(bits, group)}
            out.case(FAMILY, f"probe-b{bits}-g{group}", verdict="pass", layout=LAYOUT, rules=RULES, modules=mods,
                     files={"model.safetensors": st_bytes(tensors), "config.json": cfg},
                     source=f"mlx {mx.__version__} mx.quantize(bits={bits}, group_size={group}, mode=affine) of [4, 256] "
                            f"rows in f32, bf16 and f16; pins: mx.dequantize")
    rng = np.random.default_rng(7)
    w = mx.array(probe_rows(rng, (2, 8, 64))).astype(mx.bfloat16)
    q, s, b = mx.quantize(w, group_size=32, bits=3)
    out.case(FAMILY, "probe-experts-b3-g32", verdict="pass", layout=LAYOUT, rules=RULES,
             modules={"experts": pin(q, s, b, 3, 32)},
             files={"model.safetensors": st_bytes({"experts.weight": q, "experts.scales": s, "experts.biases": b}),
                    "config.json": {"quantization": qdict(3, 32), "quantization_config": qdict(3, 32)}},
             source=f"mlx {mx.__version__} mx.quantize(bits=3, group_size=32) of a bf16 [2, 8, 64] expert stack "
                    f"(SwitchLinear layout); pins: mx.dequantize")


# ---------------------------------------------------------------- models

def tiny_model(seed):
    import mlx.core as mx
    import numpy as np
    from mlx.utils import tree_flatten, tree_unflatten
    from mlx_lm.models import llama
    args = dict(model_type="llama", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
                num_attention_heads=2, rms_norm_eps=1e-5, vocab_size=64, num_key_value_heads=2,
                tie_word_embeddings=False)
    model = llama.Model(llama.ModelArgs(**args))
    rng = np.random.default_rng(seed)
    params = [(k, mx.array(rng.standard_normal(v.shape).astype(np.float32) * 0.05).astype(mx.bfloat16))
              for k, v in tree_flatten(model.parameters())]
    model.update(tree_unflatten(params))
    mx.eval(model.parameters())
    cfg = dict(args, architectures=["LlamaForCausalLM"], torch_dtype="bfloat16")
    return model, cfg


def save_folder(model, cfg):
    """mlx_lm's own writers; returns {relative path: bytes}."""
    from mlx_lm.utils import save_config, save_model
    d = tempfile.mkdtemp(prefix="pcgen-mlx-")
    try:
        save_model(d, model)
        save_config(dict(cfg), os.path.join(d, "config.json"))
        files = {}
        for n in sorted(os.listdir(d)):
            with open(os.path.join(d, n), "rb") as f:
                files[n] = f.read()
        return files
    finally:
        shutil.rmtree(d)


def model_pins(files, cfg):
    q = cfg["quantization"]
    t = st_load(files["model.safetensors"])
    mods = {}
    for k in sorted(t):
        if k.endswith(".scales"):
            m = k[:-len(".scales")]
            p = q.get(m) if isinstance(q.get(m), dict) else q
            mods[m] = pin(t[m + ".weight"], t[k], t[m + ".biases"], p["bits"], p["group_size"])
    return mods


def models(out):
    import mlx.core as mx
    import mlx_lm
    from mlx_lm.convert import mixed_quant_predicate_builder
    from mlx_lm.utils import quantize_model
    made = {}
    for name, recipe in (("model-4bit-g64", None), ("model-mixed-3-6", "mixed_3_6")):
        model, cfg = tiny_model(11)
        pred = mixed_quant_predicate_builder(recipe, model, 64) if recipe else None
        model, cfg = quantize_model(model, cfg, 64, 4, mode="affine", quant_predicate=pred)
        files = save_folder(model, cfg)
        cfg = json.loads(files["config.json"])
        mods = model_pins(files, cfg)
        what = "4-bit group 64" if not recipe else "the mixed_3_6 recipe (top level 4-bit; every module overridden, 3 or 6 bits)"
        out.case(FAMILY, name, verdict="pass", layout=LAYOUT, rules=RULES, modules=mods, files=files,
                 source=f"mlx {mx.__version__}, mlx-lm {mlx_lm.__version__}: a tiny bf16 llama (mlx_lm.models.llama, "
                        f"2 layers, hidden 64, vocab 64), quantize_model with {what}, save_model + save_config; "
                        f"pins: mx.dequantize")
        made[name] = files
    return made


# ---------------------------------------------------------------- negatives

def negatives(out, base):
    import mlx.core as mx
    Q = "model.layers.0.self_attn.q_proj"

    def neg(name, rule, what, cfg_edit=None, t_edit=None):
        files = dict(base)
        cfg = json.loads(files["config.json"])
        if cfg_edit:
            cfg_edit(cfg)
            files["config.json"] = (json.dumps(cfg, indent=4) + "\n").encode()
        if t_edit:
            t = st_load(files["model.safetensors"])
            t_edit(t)
            files["model.safetensors"] = st_bytes(t)
            idx = json.loads(files["model.safetensors.index.json"])
            idx["weight_map"] = {k: "model.safetensors" for k in sorted(t)}
            files["model.safetensors.index.json"] = (json.dumps(idx, indent=4)).encode()
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule], layout=LAYOUT, files=files,
                 source=f"mlx {mx.__version__} / mlx-lm model-4bit-g64 (quantize_model, save_model), then one change: {what}")

    def drop_q(c):
        c.pop("quantization")
        c.pop("quantization_config")

    def both(f):
        def g(c):
            f(c["quantization"])
            c["quantization_config"] = c["quantization"]
        return g

    neg("neg-mlx001-no-config", "MLX-001", "config.json without quantization and quantization_config", cfg_edit=drop_q)
    neg("neg-mlx001-bits-7", "MLX-001", "quantization.bits = 7", cfg_edit=both(lambda q: q.update(bits=7)))
    neg("neg-mlx001-group-48", "MLX-001", "quantization.group_size = 48", cfg_edit=both(lambda q: q.update(group_size=48)))
    neg("neg-mlx002-override-bits-7", "MLX-002", f"quantization[{Q}] = {{bits: 7, group_size: 64}}",
        cfg_edit=both(lambda q: q.update({Q: {"bits": 7, "group_size": 64}})))
    neg("neg-mlx002-override-false", "MLX-002", f"quantization[{Q}] = false while the module is packed",
        cfg_edit=both(lambda q: q.update({Q: False})))
    neg("neg-mlx004-biases-dtype", "MLX-004", f"{Q}.biases cast to float32 (scales stay bfloat16)",
        t_edit=lambda t: t.update({Q + ".biases": t[Q + ".biases"].astype(mx.float32)}))
    neg("neg-mlx004-biases-missing", "MLX-004", f"{Q}.biases removed", t_edit=lambda t: t.pop(Q + ".biases"))
    neg("neg-mlx005-bits-5", "MLX-005", "quantization.bits = 5 over 4-bit tensors (8 words per row = 51.2 fields)",
        cfg_edit=both(lambda q: q.update(bits=5)))
    neg("neg-mlx005-override-group-32", "MLX-005", f"quantization[{Q}] = {{bits: 4, group_size: 32}} over group-64 tensors",
        cfg_edit=both(lambda q: q.update({Q: {"bits": 4, "group_size": 32, "mode": "affine"}})))
    neg("neg-mlx005-override-bits-8", "MLX-005", f"quantization[{Q}] = {{bits: 8, group_size: 64}} over 4-bit tensors "
        "(in = 32, not a multiple of 64)", cfg_edit=both(lambda q: q.update({Q: {"bits": 8, "group_size": 64}})))

    def nan_scale(t):
        s = t[Q + ".scales"]
        t[Q + ".scales"] = mx.where(mx.arange(s.size).reshape(s.shape) == 5, mx.array(float("nan"), s.dtype), s)
    neg("neg-mlx006-nan-scale", "MLX-006", f"{Q}.scales element 5 set to NaN", t_edit=nan_scale)

    def inf_bias(t):
        b = t[Q + ".biases"]
        t[Q + ".biases"] = mx.where(mx.arange(b.size).reshape(b.shape) == 0, mx.array(float("inf"), b.dtype), b)
    neg("neg-mlx006-inf-bias", "MLX-006", f"{Q}.biases element 0 set to +inf", t_edit=inf_bias)


def equiv_resave(out, base):
    """mx.load + mx.save_safetensors of the 4-bit model: the same quantized model (CONTRACT 7)."""
    import mlx.core as mx
    cfg = json.loads(base["config.json"])
    t = st_load(base["model.safetensors"])
    target = dict(base, **{"model.safetensors": st_bytes(t)})
    files = {f"source/{k}": v for k, v in base.items()}
    files.update({f"target/{k}": v for k, v in target.items()})
    mods = model_pins(base, cfg)
    out.case(FAMILY, "equiv-resave-same", verdict="pass", input="source", layout=LAYOUT, rules=RULES, modules=mods,
             files=files, extra={"equiv": {"source": "source", "target": "target", "verdict": "equal", "rule": None,
                                           "bug_class": None, "caught_by": None,
                                           "target_modules": model_pins(target, cfg)}},
             source=f"mlx {mx.__version__}: model-4bit-g64 (source) and its mx.load + mx.save_safetensors re-save (target)")


# ---------------------------------------------------------------- fp modes (mxfp4, nvfp4, mxfp8)

FP_MODES = {"mxfp4": (4, 32), "nvfp4": (4, 16), "mxfp8": (8, 32)}
FP_RULES = ["MLX-001", "MLX-002", "MLX-003", "MLX-005", "MLX-007", "MLX-008", "MLX-009", "MLX-010"]


def fp_pin(w, s, mode):
    """codes: the fields of the LSB-first stream over the U32 words (E2M1 nibbles or E4M3 bytes);
    weights: mx.dequantize(mode=..., dtype=float32)."""
    import mlx.core as mx
    import numpy as np
    bits, group = FP_MODES[mode]
    raw = np.ascontiguousarray(np.array(w).astype("<u4")).view(np.uint8).reshape(-1)
    if bits == 4:
        codes = np.empty(raw.size * 2, np.uint8)
        codes[0::2], codes[1::2] = raw & 15, raw >> 4
    else:
        codes = raw.copy()
    shape = list(w.shape[:-1]) + [w.shape[-1] * 32 // bits]
    f = np.array(mx.dequantize(w, s, mode=mode, group_size=group, bits=bits, dtype=mx.float32))
    assert list(f.shape) == shape
    return module_pin(shape, bits, codes.tobytes(), f.astype("<f4").tobytes())


def fp_qdict(mode):
    bits, group = FP_MODES[mode]
    return {"group_size": group, "bits": bits, "mode": mode}


def scale_groups(rng, mode):
    """One group per scale byte mx.quantize can write without wrapping: absmax = max element value x
    scale for E8M0 bytes 0..254 (mx) or absmax = 6 x e4m3(b) for E4M3 bytes 0..126 (nv), random
    signs and magnitudes below it; rows of 4 groups."""
    import numpy as np
    bits, group = FP_MODES[mode]
    if mode == "nvfp4":
        def e4m3(b):
            e, m = b >> 3, b & 7
            return m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        amax = [6 * e4m3(b) for b in range(127)]
    else:
        top = 6.0 if mode == "mxfp4" else 448.0
        amax = [min(top * 2.0 ** (b - 127) * 0.75, 3.0e38) for b in range(255)]
    g = rng.standard_normal((len(amax), group))
    g /= np.abs(g).max(axis=1, keepdims=True)
    g *= np.array(amax)[:, None]
    while len(g) % 4:
        g = np.vstack([g, rng.standard_normal((1, group))])
    return g.astype(np.float32).reshape(-1, 4 * group)


def fp_probes(out):
    import mlx.core as mx
    import numpy as np
    for mode in FP_MODES:
        rng = np.random.default_rng(2000 + len(mode) + FP_MODES[mode][1])
        tensors, mods, reached = {}, {}, set()
        w = scale_groups(rng, mode)
        for m, arr in (("probe.scales", mx.array(w)), ("probe.random", mx.array(rng.standard_normal((6, 128)).astype(np.float32))),
                       ("probe.bf16", mx.array(rng.standard_normal((4, 64)).astype(np.float32) * 3).astype(mx.bfloat16)),
                       ("experts", mx.array(rng.standard_normal((2, 8, 64)).astype(np.float32)).astype(mx.bfloat16))):
            q, s = mx.quantize(arr, mode=mode)
            reached |= set(np.array(s).reshape(-1).tolist())
            tensors.update({f"{m}.weight": q, f"{m}.scales": s})
            mods[m] = fp_pin(q, s, mode)
        assert 255 not in reached
        cfg = {"model_type": "probe", "quantization": fp_qdict(mode), "quantization_config": fp_qdict(mode)}
        out.case(FAMILY, f"probe-{mode}", verdict="pass", layout=f"mlx-{mode}", rules=FP_RULES, modules=mods,
                 notes=f"scale bytes written: {len(reached)} distinct, {min(reached)}..{max(reached)}",
                 files={"model.safetensors": st_bytes(tensors), "config.json": cfg},
                 source=f"mlx {mx.__version__} mx.quantize(mode={mode}) of f32 groups whose absmax reaches every scale "
                        f"byte mx.quantize writes without wrapping, random f32 [6, 128] and bf16 [4, 64] rows, a bf16 "
                        f"[2, 8, 64] expert stack; pins: mx.dequantize(mode={mode}, dtype=float32)")


def fp_models(out):
    import mlx.core as mx
    import mlx_lm
    from mlx_lm.utils import quantize_model
    made = {}
    for mode in FP_MODES:
        model, cfg = tiny_model(13)
        bits, group = FP_MODES[mode]
        model, cfg = quantize_model(model, cfg, group, bits, mode=mode)
        files = save_folder(model, cfg)
        cfg = json.loads(files["config.json"])
        t = st_load(files["model.safetensors"])
        mods = {k[:-len(".scales")]: fp_pin(t[k[:-len(".scales")] + ".weight"], t[k], mode) for k in sorted(t) if k.endswith(".scales")}
        out.case(FAMILY, f"model-{mode}", verdict="pass", layout=f"mlx-{mode}", rules=FP_RULES, modules=mods, files=files,
                 source=f"mlx {mx.__version__}, mlx-lm {mlx_lm.__version__}: a tiny bf16 llama (mlx_lm.models.llama), "
                        f"quantize_model(mode={mode}) (what mlx_lm.convert --q-mode {mode} calls), save_model + save_config; "
                        f"pins: mx.dequantize(mode={mode}, dtype=float32)")
        made[mode] = files
    return made


def fp_negatives(out, made):
    import mlx.core as mx
    import numpy as np
    Q = "model.layers.0.self_attn.q_proj"

    def neg(name, rule, mode, what, cfg_edit=None, t_edit=None, files=None):
        files = dict(files or made[mode])
        cfg = json.loads(files["config.json"])
        if cfg_edit:
            cfg_edit(cfg)
            cfg["quantization_config"] = cfg["quantization"]
            files["config.json"] = (json.dumps(cfg, indent=4) + "\n").encode()
        if t_edit:
            t = st_load(files["model.safetensors"])
            t_edit(t)
            files["model.safetensors"] = st_bytes(t)
            if "model.safetensors.index.json" in files:
                idx = json.loads(files["model.safetensors.index.json"])
                idx["weight_map"] = {k: "model.safetensors" for k in sorted(t)}
                files["model.safetensors.index.json"] = (json.dumps(idx, indent=4)).encode()
        out.case(FAMILY, name, verdict="reject", reject_rule=rule, rules=[rule], layout=f"mlx-{mode}" if rule != "MLX-008" or "mode" not in name else LAYOUT,
                 files=files, source=f"mlx {mx.__version__} / mlx-lm model-{mode} (quantize_model, save_model), then one change: {what}")

    def set_byte(k, i, v):
        def f(t):
            s = np.array(t[k])
            s.reshape(-1)[i] = v
            t[k] = mx.array(s)
        return f

    neg("neg-mlx008-mxfp4-group-64", "MLX-008", "mxfp4", "quantization.group_size = 64 under mode mxfp4",
        cfg_edit=lambda c: c["quantization"].update(group_size=64))
    neg("neg-mlx008-nvfp4-bits-8", "MLX-008", "nvfp4", f"quantization[{Q}] = {{mode: nvfp4, bits: 8, group_size: 16}}",
        cfg_edit=lambda c: c["quantization"].update({Q: {"mode": "nvfp4", "bits": 8, "group_size": 16}}))
    neg("neg-mlx008-mode-unknown", "MLX-008", "mxfp4", "quantization.mode = \"fp4\"",
        cfg_edit=lambda c: c["quantization"].update(mode="fp4"))
    neg("neg-mlx009-scales-f16", "MLX-009", "mxfp4", f"{Q}.scales cast to float16",
        t_edit=lambda t: t.update({Q + ".scales": t[Q + ".scales"].astype(mx.float16)}))
    neg("neg-mlx009-biases", "MLX-009", "nvfp4", f"{Q}.biases added (zeros of the scales' shape, bfloat16)",
        t_edit=lambda t: t.update({Q + ".biases": mx.zeros(t[Q + ".scales"].shape, mx.bfloat16)}))
    neg("neg-mlx010-nvfp4-nan-scale", "MLX-010", "nvfp4", f"{Q}.scales byte 3 = 0x7F (E4M3 NaN)", t_edit=set_byte(Q + ".scales", 3, 0x7F))
    neg("neg-mlx010-nvfp4-negative-scale", "MLX-010", "nvfp4", f"{Q}.scales byte 0 with its sign bit set",
        t_edit=lambda t: set_byte(Q + ".scales", 0, int(np.array(t[Q + ".scales"]).reshape(-1)[0]) | 0x80)(t))
    # mx.quantize itself writes E8M0 255 for a finite group whose absmax lies in [2^-126, 2^-125):
    # the exponent wraps below the E8M0 range (2^-147 gives byte 234 = 2^107).
    w = np.zeros((1, 64), np.float32)
    w[0, :32] = np.float32(2.0 ** -126)
    w[0, 32:] = np.linspace(-1, 1, 32, dtype=np.float32)
    q, s = mx.quantize(mx.array(w), mode="mxfp4")
    assert int(np.array(s)[0, 0]) == 255
    cfg = {"model_type": "probe", "quantization": fp_qdict("mxfp4"), "quantization_config": fp_qdict("mxfp4")}
    out.case(FAMILY, "neg-mlx010-e8m0-255-from-quantize", verdict="reject", reject_rule="MLX-010", rules=["MLX-010"],
             layout="mlx-mxfp4", files={"model.safetensors": st_bytes({"probe.weight": q, "probe.scales": s}), "config.json": cfg},
             source=f"mlx {mx.__version__} mx.quantize(mode=mxfp4) of a [1, 64] f32 row whose first group is 2^-126: "
                    f"MLX writes scale byte 255 (E8M0 NaN; its exponent wraps below 2^-127) and mx.dequantize gives NaN/inf")


def _generate(out):
    probes(out)
    made = models(out)
    negatives(out, made["model-4bit-g64"])
    equiv_resave(out, made["model-4bit-g64"])
    fp_probes(out)
    fp_negatives(out, fp_models(out))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcgen.venv import venv_main
    venv_main(_generate)
