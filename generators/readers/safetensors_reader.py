"""Reader adapter: the `safetensors` package (Hugging Face) on container cases.

It loads every tensor of every shard with safetensors.safe_open (the crate's header and offset
checks) and refuses (exit 1) what the package refuses. The package decodes no quantization scheme, so
its logical view is always empty: right for container cases, a missing module (wrong-output, listed
as an expected failure) wherever the corpus pins quantized modules. GGUF inputs are out of scope.
"""
import sys

import _common

NUMPY_DTYPES = {"BOOL", "U8", "I8", "U16", "I16", "F16", "U32", "I32", "F32", "U64", "I64", "F64", "C64"}


def decode(inp):
    files, _ = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors input: out of scope")
    from importlib.metadata import version
    from safetensors import safe_open
    print("safetensors " + version("safetensors"), file=sys.stderr)
    # The numpy framework keeps torch out (fast); opening checks the whole header, offsets and file
    # length; every tensor numpy can hold is then read as well.
    for p in files:
        with safe_open(p, framework="numpy") as f:
            for k in f.keys():
                if f.get_slice(k).get_dtype() in NUMPY_DTYPES:
                    f.get_tensor(k)
    return {}


if __name__ == "__main__":
    _common.main(decode)
