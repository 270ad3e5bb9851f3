"""Reader adapter: compressed-tensors (whatever version the venv holds; the certificates use 0.20.1
and 0.17.1).

Per module, exactly what the library's own decompressors do, in the contract's f32 form:
  pack-quantized:  unpack_from_int32(weight_packed, num_bits, weight_shape) -> int8 q;
                   packed zero points unpack_from_int32(..., packed_dim=0);
                   dequantize(q, scale.float(), zero_point, args, dtype=float32[, g_idx])
                   (g_idx is passed only where the library's dequantize takes it)
  NVFP4:           unpack_fp4_from_uint8 -> E2M1 values (codes read back from the values);
                   dequantize(values, scale.float(), args, global_scale=gs.float(), dtype=float32)
  ModelOpt NVFP4:  first renamed by the library's ModelOptNvfp4Converter (1/weight_scale_2), then as NVFP4.
Modules are whatever carries weight_packed (or ModelOpt's uint8 weight + weight_scale_2); the scheme
comes from config.json's quantization_config. Anything else is out of scope (exit 1).
"""
import inspect
import os
import re
import sys

import _common

E2M1 = {0.0: 0, 0.5: 1, 1.0: 2, 1.5: 3, 2.0: 4, 3.0: 5, 4.0: 6, 6.0: 7}


def scheme_for(qcfg, module):
    """The QuantizationArgs dict of the config group targeting `module`."""
    groups = qcfg.get("config_groups") or {}
    for ign in qcfg.get("ignore") or []:
        if ign == module or (ign.startswith("re:") and re.match(ign[3:], module)):
            return None, None
    fallback = None
    for g in groups.values():
        if not isinstance(g, dict) or not isinstance(g.get("weights"), dict):
            continue
        for t in g.get("targets") or []:
            if t.startswith("re:"):
                if re.match(t[3:], module):
                    return g["weights"], g.get("format") or qcfg.get("format")
            elif fallback is None:
                fallback = (g["weights"], g.get("format") or qcfg.get("format"))
    return fallback if fallback else (None, None)


def helper(kind, name):
    """The library's own unpack helper: compressors/<kind>/helpers.py from 0.15 on; before, the
    compressor modules themselves (compressors/quantized_compressors/pack_quantized.py, fp4_quantized.py)."""
    import importlib
    try:
        return getattr(importlib.import_module(f"compressed_tensors.compressors.{kind}.helpers"), name)
    except ImportError:
        old = {"pack_quantized": "pack_quantized", "nvfp4": "fp4_quantized"}[kind]
        return getattr(importlib.import_module(f"compressed_tensors.compressors.quantized_compressors.{old}"), name)


def decode_pack(t, prefix, wargs):
    import torch
    unpack_from_int32 = helper("pack_quantized", "unpack_from_int32")
    from compressed_tensors.quantization import QuantizationArgs
    from compressed_tensors.quantization.lifecycle.forward import dequantize
    args = QuantizationArgs(**wargs)
    bits = args.num_bits
    packed = t[prefix + ".weight_packed"]
    shape = torch.Size(t[prefix + ".weight_shape"].tolist())
    scale = t[prefix + ".weight_scale"]
    zp = t.get(prefix + ".weight_zero_point")
    strategy = getattr(args.strategy, "value", args.strategy)
    if zp is not None and not args.symmetric and strategy in ("group", "channel"):  # packed on dim 0
        zp = unpack_from_int32(zp, bits, torch.Size((*shape[:-1], scale.shape[-1])), packed_dim=0)
    q = unpack_from_int32(packed, bits, shape)
    kw = {}
    g_idx = t.get(prefix + ".weight_g_idx")
    if g_idx is not None and "g_idx" in inspect.signature(dequantize).parameters:
        kw["g_idx"] = g_idx
    w = dequantize(x_q=q, scale=scale.float(), zero_point=zp, args=args, dtype=torch.float32, **kw)
    codes = (q.to(torch.int32) + (1 << (bits - 1))).to(torch.uint8)
    return codes.numpy(), w.float().numpy()


def decode_fp4(t, prefix, wargs):
    import torch
    unpack_fp4_from_uint8 = helper("nvfp4", "unpack_fp4_from_uint8")
    from compressed_tensors.quantization import QuantizationArgs
    from compressed_tensors.quantization.lifecycle.forward import dequantize
    args = QuantizationArgs(**wargs)
    packed = t[prefix + ".weight_packed"]
    if packed.ndim != 2:
        raise _common.Refuse(f"{prefix}: NVFP4 weight of rank {packed.ndim}")
    m, n = packed.shape
    vals = unpack_fp4_from_uint8(packed, m, n * 2, dtype=torch.float32)
    gs = t[prefix + ".weight_global_scale"]
    w = dequantize(x_q=vals, scale=t[prefix + ".weight_scale"].float(), args=args, global_scale=gs.float(), dtype=torch.float32)
    flat = vals.flatten().tolist()
    codes = [E2M1[abs(v)] | (8 if (v < 0 or (v == 0 and str(v).startswith("-"))) else 0) for v in flat]
    import numpy as np
    return np.array(codes, dtype=np.uint8).reshape(m, n * 2), w.float().numpy()


NVFP4_ARGS = {"num_bits": 4, "type": "float", "symmetric": True, "strategy": "tensor_group", "group_size": 16}


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    names = _common.header_names(files)
    if names is not None and not any(k.endswith((".weight_packed", ".weight_scale_2")) for k in names):
        raise _common.Refuse("no compressed-tensors module (weight_packed) in the input: out of scope")
    import compressed_tensors
    import torch
    print(f"compressed-tensors {compressed_tensors.__version__}", file=sys.stderr)
    t = _common.read_safetensors(files)
    qcfg = _common.quant_config(folder)
    modelopt = [k[: -len(".weight_scale_2")] for k in t if k.endswith(".weight_scale_2")]
    if modelopt:
        try:
            from compressed_tensors.entrypoints.convert.converters.modelopt_nvfp4 import ModelOptNvfp4Converter
        except ImportError:  # releases before the converter (< 0.15) do not read ModelOpt names
            raise _common.Refuse(f"compressed-tensors {compressed_tensors.__version__} has no ModelOpt converter: out of scope")
        # As the converter is meant to be called: with the export's own ignore list.
        ignore = list(qcfg.get("ignore") or [])
        hf = os.path.join(folder, "hf_quant_config.json")
        if os.path.exists(hf):
            ignore += (_common.load_json(hf).get("quantization") or {}).get("exclude_modules") or []
        t = ModelOptNvfp4Converter(ignore=ignore).process(dict(t))
    prefixes = sorted(k[: -len(".weight_packed")] for k in t if k.endswith(".weight_packed"))
    if not prefixes:
        raise _common.Refuse("no compressed-tensors module (weight_packed) in the input: out of scope")
    if qcfg.get("quant_method") not in ("compressed-tensors", "modelopt", None):
        raise _common.Refuse(f"quant_method {qcfg.get('quant_method')!r} is not compressed-tensors")
    out = {}
    for p in prefixes:
        fp4 = t[p + ".weight_packed"].dtype == torch.uint8
        if p in modelopt:
            wargs = NVFP4_ARGS
        else:
            wargs, fmt = scheme_for(qcfg, p)
            if wargs is None:
                raise _common.Refuse(f"{p}: no quantization scheme targets it")
        out[p] = decode_fp4(t, p, wargs) if fp4 else decode_pack(t, p, wargs)
    return out


if __name__ == "__main__":
    _common.main(decode)
