"""Reader adapter: diffusers' GGUF loader on GGUF cases (the GGUF reader of Flux/SD3 checkpoints).

The file is read as `from_single_file` reads it: diffusers.models.model_loading_utils.
load_gguf_checkpoint (gguf-py's GGUFReader, then every tensor that is not F32/F16 becomes a
GGUFParameter; a type outside diffusers' SUPPORTED_GGUF_QUANT_TYPES raises, which is its refusal).
Every quantized parameter is dequantized with diffusers' torch ports of ggml's dequantizers
(diffusers.quantizers.gguf.utils), on one of two paths chosen by PC_READER_ENV:

  f32  `dequantize_functions[type](blocks, block_size, type_size, dtype=torch.float32)`: block scales
       widened to float32 before the products (M.weight F32).
  f16  `dequantize_gguf_tensor(param)`, what GGUFLinear.forward calls as diffusers loads a model: the
       port runs with dtype=None, so the f16 block scales stay float16 and every product and sum is
       rounded in float16 (M.weight F16; certify compares it with the logical view rounded once to f16).
       IQ4_NL/IQ4_XS multiply by a float32 value table and come back float32; forward_native's cast to
       the compute dtype (float16 here) is applied to them.

diffusers offers no code-level unpack, so this reader writes weights only. M is the tensor name without
a trailing ".weight"; a tensor's shape is ggml's ne reversed ([out, in]; a 1-D tensor is one row).
BF16/F32/F16 tensors are not quantized: not in the view. Non-GGUF inputs are out of scope (exit 1).

load_gguf_checkpoint's first step on the file is gguf-py's GGUFReader: the adapter runs it first, before
torch's import (about 25 s a case on a loaded machine), so a file gguf-py refuses is refused the same way,
and a file holding no quantized tensor (where diffusers' torch part wraps tensors and dequantizes nothing)
answers the empty view. Every file with a quantized tensor goes through load_gguf_checkpoint itself.
"""
import os
import sys

import _common

PATHS = {"f32": "float32", "f16": "float16"}
UNQUANTIZED = ("F32", "F16", "BF16")


def path_of_environment():
    env = os.environ.get("PC_READER_ENV", "f32")
    if env not in PATHS:
        raise SystemExit(f"diffusers_gguf_reader: unknown PC_READER_ENV {env!r} (f32 or f16)")
    return env


def dequantize(param, path):
    """One GGUFParameter through diffusers' port, on the chosen path; returns a torch tensor."""
    import torch
    from diffusers.quantizers.gguf import utils
    if path == "f16":
        # IQ4_NL/IQ4_XS look their values up in a float32 table, so the port hands back float32 there;
        # GGUFLinear.forward_native then casts the weight to its compute_dtype (float16 on this path).
        return utils.dequantize_gguf_tensor(param).to(torch.float16)
    block_size, type_size = utils.GGML_QUANT_SIZES[param.quant_type]
    raw = param.as_tensor().view(torch.uint8)
    blocks = raw.reshape((raw.numel() // type_size, type_size))
    w = utils.dequantize_functions[param.quant_type](blocks, block_size, type_size, dtype=torch.float32)
    return w.reshape((*raw.shape[:-1], raw.shape[-1] // type_size * block_size))  # bytes -> values per row


def decode(inp, path):
    files, _ = _common.container_files(inp)
    if len(files) != 1 or not files[0].endswith(".gguf"):
        raise _common.Refuse("not a GGUF file: out of scope")
    from importlib.metadata import version
    from gguf import GGUFReader
    print(f"diffusers {version('diffusers')} (gguf {version('gguf')}), {path} path", file=sys.stderr)
    if all(t.tensor_type.name in UNQUANTIZED for t in GGUFReader(files[0]).tensors):
        return {}
    from diffusers.models.model_loading_utils import load_gguf_checkpoint
    out = {}
    for name, param in load_gguf_checkpoint(files[0]).items():
        qtype = getattr(param, "quant_type", None)
        if qtype is None or qtype.name in UNQUANTIZED:
            continue
        w = dequantize(param, path).numpy()
        if w.ndim < 2:
            w = w.reshape(1, -1)
        out[name[: -len(".weight")] if name.endswith(".weight") else name] = (None, w)
    return out


if __name__ == "__main__":
    chosen = path_of_environment()
    _common.main(lambda inp: decode(inp, chosen), PATHS[chosen])
