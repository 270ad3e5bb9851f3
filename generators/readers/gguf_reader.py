"""Reader adapter: gguf-py (the `gguf` package from llama.cpp) on GGUF cases.

GGUFReader parses the file (its own checks); every quantized tensor is dequantized with
gguf.quants.dequantize, the package's reference decoder, and written as M.weight (gguf-py offers no
code-level unpack, so this reader writes weights only; CONTRACT 5 allows that). M is the tensor name
without a trailing ".weight". Non-GGUF inputs are out of scope (exit 1).
"""
import sys

import _common

FLOAT_TYPES = ("F32", "F16", "BF16", "F64")


def decode(inp):
    files, _ = _common.container_files(inp)
    if len(files) != 1 or not files[0].endswith(".gguf"):
        raise _common.Refuse("not a GGUF file: out of scope")
    import gguf
    from gguf import GGUFReader
    from gguf.quants import dequantize
    from importlib.metadata import version
    print('gguf ' + version('gguf'), file=sys.stderr)
    reader = GGUFReader(files[0])
    out = {}
    for t in reader.tensors:
        qtype = t.tensor_type
        if qtype.name in FLOAT_TYPES or qtype.name.startswith("I"):
            continue
        w = dequantize(t.data, qtype)
        ne = [int(x) for x in t.shape]        # ne[0] first
        while len(ne) < 2:                    # missing dims are 1 (a 1-D tensor is one row)
            ne.append(1)
        w = w.reshape(list(reversed(ne)))     # [ne1, ne0] = [out, in]
        name = t.name[: -len(".weight")] if t.name.endswith(".weight") else t.name
        out[name] = (None, w)
    return out


if __name__ == "__main__":
    _common.main(decode)
