"""Reader adapter: MLX (mlx.core on its CPU build; the certificate uses 0.32.4) on MLX checkpoints.

As mlx_lm loads a quantized folder: `quantization` in config.json (mlx_lm writes `quantization_config`
as a copy) gives group_size, bits and mode, and a per-module entry overrides them (a dict) or marks the
module unquantized (false), as mlx_lm.utils.load_model's class predicate reads it. Tensors come from
mlx.core.load. Each module with `M.scales` is decoded by mlx.core.dequantize(M.weight, M.scales,
M.biases, group_size, bits, mode): the weights in the scales' dtype (as mlx_lm computes with them),
widened to f32; the codes by the same call with unit scales and zero biases (MLX has no unpack; for the
affine mode this is exactly q). Folders without an MLX quantization config are out of scope (exit 1).
"""
import os
import sys

import _common


def module_args(q, m):
    o = q.get(m)
    if o is False:
        return None
    p = o if isinstance(o, dict) else q
    return p.get("group_size", q.get("group_size")), p.get("bits", q.get("bits")), p.get("mode", q.get("mode", "affine"))


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    cfg_path = os.path.join(folder, "config.json")
    cfg = _common.load_json(cfg_path) if os.path.exists(cfg_path) else {}
    q = cfg.get("quantization")
    if not isinstance(q, dict) or "quant_method" in q:
        raise _common.Refuse("no MLX `quantization` in config.json: out of scope")
    import mlx.core as mx
    print(f"mlx {mx.__version__}", file=sys.stderr)
    t = {}
    for f in files:
        t.update(mx.load(f))
    out = {}
    for k in sorted(t):
        if not k.endswith(".scales"):
            continue
        m = k[: -len(".scales")]
        args = module_args(q, m)
        if args is None:
            raise _common.Refuse(f"{m}: packed, but config.json marks it unquantized")
        group, bits, mode = args
        w, s, b = t[m + ".weight"], t[k], t.get(m + ".biases")
        # `mode` is passed only when it is not the default: releases before the mxfp4/nvfp4/mxfp8
        # modes (0.28) take no `mode` keyword and dequantize affine only.
        kw = {} if mode == "affine" else {"mode": mode}
        try:
            wf = mx.dequantize(w, s, b, group_size=group, bits=bits, **kw).astype(mx.float32)
        except TypeError:
            if kw:
                raise _common.Refuse(f"mlx {mx.__version__} has no quantization mode {mode!r}: out of scope")
            raise
        codes = None
        if mode == "affine":
            one, zero = mx.ones(s.shape, dtype=mx.float32), mx.zeros(s.shape, dtype=mx.float32)
            codes = mx.dequantize(w, one, zero, group_size=group, bits=bits).astype(mx.uint8)
        import numpy as np
        out[m] = (None if codes is None else np.array(codes), np.array(wf))
    if not out:
        raise _common.Refuse("no MLX quantized module (M.scales) in the input")
    return out


if __name__ == "__main__":
    _common.main(decode)
