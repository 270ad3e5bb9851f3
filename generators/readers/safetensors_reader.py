"""Reader adapter: the `safetensors` package (Hugging Face) on container cases.

It loads every tensor with safetensors.safe_open (the crate's header checks) and, since the package
decodes no quantization scheme, refuses inputs that hold quantized modules (out of scope). A
container-only input yields an empty logical view.
"""
import _common

QUANT_SUFFIXES = (".weight_packed", ".qweight", ".qzeros", ".weight_scale_2", ".weight_global_scale")


def decode(inp):
    files, _ = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors input")
    tensors = _common.read_safetensors(files)
    if any(k.endswith(QUANT_SUFFIXES) for k in tensors):
        raise _common.Refuse("quantized modules: the safetensors package does not decode them (out of scope)")
    return {}


if __name__ == "__main__":
    _common.main(decode)
