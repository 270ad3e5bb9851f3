"""Reader adapter: the `safetensors` package (Hugging Face) on container cases.

It loads every tensor of every shard with safetensors.safe_open (the crate's header and offset
checks) and refuses (exit 1) what the package refuses. The package decodes no quantization scheme, so
its logical view is always empty: right for container cases, a missing module (wrong-output, listed
as an expected failure) wherever the corpus pins quantized modules. GGUF inputs are out of scope.
"""
import sys

import _common


def decode(inp):
    files, _ = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors input: out of scope")
    from importlib.metadata import version
    print("safetensors " + version("safetensors"), file=sys.stderr)
    _common.read_safetensors(files)
    return {}


if __name__ == "__main__":
    _common.main(decode)
