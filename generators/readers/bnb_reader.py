"""Reader adapter: bitsandbytes 4-bit (NF4/FP4) and LLM.int8 on its CPU backend (the certificate uses 0.50.2).

As transformers loads a saved 4-bit checkpoint: each `M.weight` with its `M.weight.<key>` quant-state
tensors becomes `bitsandbytes.nn.Params4bit.from_prequantized(weight, stats, device="cpu")`
(QuantState.from_dict parses the packed JSON state, nested absmax and all), and the weight is
`bitsandbytes.functional.dequantize_4bit(weight, quant_state)` with the state's dtype set to float32
(the contract's f32 form; at load it is the model dtype). bitsandbytes offers no code-level unpack, so
this reader writes weights only. LLM.int8 (`M.weight` I8 with `M.SCB`, config `load_in_8bit`):
`bitsandbytes.functional.int8_vectorwise_dequant(weight, SCB)`, as Linear8bitLt dequantizes it, after
the `weight_format` check transformers' loader makes (bitsandbytes.nn.modules maybe_rearrange_weight:
anything but row-major raises). Inputs without either are out of scope (exit 1).

Environment (PC_READER_ENV, the matrix's environment axis): bitsandbytes picks its native library at
import (cextension.get_native_library): `libbitsandbytes_cuda<torch.version.cuda>.so` when
torch.cuda.is_available(), else `libbitsandbytes_cpu.so`. CPU tensors then run that library's
`cdequantize_blockwise_cpu_*` (backends/cpu/ops.py), so the answer depends on the build loaded.
`cpu-library` (default) is what a machine without CUDA loads; `cuda-library` is what a CUDA machine
loads: torch.cuda answers "one device" for the import only, the CUDA build is loaded (it loads without a
GPU: the CUDA runtime comes with torch's wheels), and the decode runs its CPU code on CPU tensors.
"""
import os
import sys

import _common

STATE = ".quant_state.bitsandbytes__"


def load_bitsandbytes(env):
    """Import bitsandbytes with the native library of the environment; say which one was loaded."""
    import torch
    if env not in ("cpu-library", "cuda-library"):
        raise SystemExit(f"bnb_reader: unknown PC_READER_ENV {env!r} (cpu-library or cuda-library)")
    real = (torch.cuda.is_available, torch.cuda.device_count, torch.cuda.get_device_capability)
    if env == "cuda-library":  # as on a CUDA machine: get_cuda_specs() sees one device
        torch.cuda.is_available, torch.cuda.device_count = (lambda: True), (lambda: 1)
        torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    try:
        import bitsandbytes
        from bitsandbytes import cextension
    finally:
        torch.cuda.is_available, torch.cuda.device_count, torch.cuda.get_device_capability = real
    native = getattr(getattr(cextension.lib, "_lib", None), "_name", "") or "none"
    if ("_cuda" in os.path.basename(native)) != (env == "cuda-library"):
        raise SystemExit(f"bnb_reader: {env} asked, {native} loaded")
    print(f"bitsandbytes {bitsandbytes.__version__} ({os.path.basename(native)})", file=sys.stderr)
    return bitsandbytes


def decode(inp):
    files, _ = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    names = _common.header_names(files)
    if names is not None and not any(STATE in k or k.endswith(".SCB") for k in names):
        raise _common.Refuse("no bitsandbytes quant state (4-bit) or SCB (8-bit) in the input: out of scope")
    import torch
    bitsandbytes = load_bitsandbytes(os.environ.get("PC_READER_ENV", "cpu-library"))
    import bitsandbytes.functional as F
    from bitsandbytes.nn import Params4bit
    t = _common.read_safetensors(files)
    out = {}
    for k in sorted(t):
        if STATE not in k:
            continue
        wname = k[: k.index(STATE)]          # M.weight
        pre = wname + "."
        stats = {n[len(pre):]: v for n, v in t.items() if n.startswith(pre)}
        p = Params4bit.from_prequantized(t[wname], stats, requires_grad=False, device="cpu")
        p.quant_state.dtype = torch.float32
        w = F.dequantize_4bit(p.data, p.quant_state)
        out[wname[: -len(".weight")]] = (None, w.float().numpy())
    for k in sorted(t):
        if k.endswith(".SCB"):
            m = k[: -len(".SCB")]
            fmt = t.get(m + ".weight_format")
            if fmt is not None and int(fmt.reshape(-1)[0]) != 0:
                raise _common.Refuse(f"{m}: weight_format {int(fmt.reshape(-1)[0])} is not row-major; bitsandbytes raises")
            w = F.int8_vectorwise_dequant(t[m + ".weight"], t[k])
            out[m] = (None, w.float().numpy())
    if not out:
        raise _common.Refuse("no bitsandbytes module in the input")
    return out


if __name__ == "__main__":
    _common.main(decode)
