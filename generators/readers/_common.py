"""Shared plumbing of the upstream-reader adapters (`packcheck certify` readers).

An adapter turns one upstream library into a reader under the certify protocol (CONTRACT 5):
    python ADAPTER.py INPUT OUTPUT
INPUT is a .safetensors file, a .gguf file or a checkpoint folder. The adapter decodes every quantized
weight it finds with the library's own unpack/dequantize functions and writes the logical view
(M.codes U8 [out, in], M.weight F32; either may be omitted when the library offers only one) to
OUTPUT, exit 0. It exits 1 when the library refuses the input (raises) or the input holds nothing the
library reads (out of scope). It never implements unpacking itself: the point is to test the library.
"""
import glob
import json
import os
import sys
import traceback


class Refuse(Exception):
    """The library (or the adapter, for out-of-scope inputs) refuses this input: exit 1."""


def container_files(inp):
    """The .safetensors (or .gguf) files of INPUT, and the folder holding its configs."""
    if os.path.isdir(inp):
        st = sorted(glob.glob(os.path.join(inp, "*.safetensors")))
        gg = sorted(glob.glob(os.path.join(inp, "*.gguf")))
        return (st or gg), inp
    return [inp], os.path.dirname(os.path.abspath(inp))


def load_json(path):
    with open(path) as f:
        return json.load(f)


def quant_config(folder):
    """The quantization config that applies (config.json's quantization_config, else a sidecar)."""
    cfg = os.path.join(folder, "config.json")
    if os.path.exists(cfg):
        q = load_json(cfg).get("quantization_config")
        if isinstance(q, dict):
            return q
    for name in ("quantize_config.json", "quant_config.json", "hf_quant_config.json"):
        p = os.path.join(folder, name)
        if os.path.exists(p):
            return load_json(p)
    return {}


def header_names(paths):
    """Tensor names of safetensors shards from their JSON headers, without importing torch (a cheap
    scope check: out-of-scope inputs are refused before the library's heavy import). None when a
    header cannot be read this way (the library then gets to judge the file)."""
    names = {}
    for p in paths:
        try:
            with open(p, "rb") as f:
                n = int.from_bytes(f.read(8), "little")
                if n > 100_000_000:
                    return None
                h = json.loads(f.read(n))
            for k, v in h.items():
                if k != "__metadata__" and isinstance(v, dict):
                    names[k] = v.get("dtype")
        except Exception:
            return None
    return names


def read_safetensors(paths):
    """Every tensor of the shards, through the safetensors package (torch tensors)."""
    from safetensors import safe_open
    out = {}
    for p in paths:
        with safe_open(p, framework="pt") as f:
            for k in f.keys():
                out[k] = f.get_tensor(k)
    return out


def write_view(path, modules, weight_dtype="float32"):
    """modules: {prefix: (codes uint8 array or None, weights array or None)} -> OUTPUT. Weights given
    as torch BF16/F16 tensors keep that dtype (the reader's precision, CONTRACT 5); numpy weights are
    written as weight_dtype: float32 (the contract's default), or float16 for a reader whose own answer
    is half precision (certify then compares at that precision)."""
    import numpy as np
    if any(is_half_tensor(w) for _, w in modules.values()):
        return write_view_torch(path, modules)
    from safetensors.numpy import save_file
    tensors = {}
    for prefix, (codes, weights) in modules.items():
        if codes is not None:
            tensors[prefix + ".codes"] = np.ascontiguousarray(np.asarray(codes, dtype=np.uint8))
        if weights is not None:
            w = np.asarray(weights)
            if w.dtype != np.dtype(weight_dtype):  # a reader at f16 must hand over f16, never be rounded here
                if weight_dtype != "float32":
                    raise TypeError(f"{prefix}: weights are {w.dtype}, the reader answers in {weight_dtype}")
                w = w.astype(np.float32)
            tensors[prefix + ".weight"] = np.ascontiguousarray(w)
    save_file(tensors, path)


def is_half_tensor(w):
    dtype = getattr(w, "dtype", None)
    return dtype is not None and str(dtype) in ("torch.bfloat16", "torch.float16")


def write_view_torch(path, modules):
    """write_view for torch tensors: BF16/F16 weights keep their dtype, the rest as F32/U8."""
    import torch
    from safetensors.torch import save_file
    tensors = {}
    for prefix, (codes, weights) in modules.items():
        if codes is not None:
            tensors[prefix + ".codes"] = torch.as_tensor(codes).to(torch.uint8).contiguous()
        if weights is not None:
            w = torch.as_tensor(weights)
            tensors[prefix + ".weight"] = (w if is_half_tensor(w) else w.to(torch.float32)).contiguous()
    save_file(tensors, path)


def main(decode, weight_dtype="float32"):
    """decode(input_path) -> modules dict for write_view; raise Refuse (or anything) to refuse."""
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} INPUT OUTPUT", file=sys.stderr)
        sys.exit(2)
    inp, out = sys.argv[1], sys.argv[2]
    try:
        modules = decode(inp)
    except Refuse as e:
        print(f"refused: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception:  # the library raised: that is its refusal
        traceback.print_exc()
        sys.exit(1)
    write_view(out, modules, weight_dtype)
    sys.exit(0)
