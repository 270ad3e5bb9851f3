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
"""
import sys

import _common

STATE = ".quant_state.bitsandbytes__"


def decode(inp):
    files, _ = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    names = _common.header_names(files)
    if names is not None and not any(STATE in k or k.endswith(".SCB") for k in names):
        raise _common.Refuse("no bitsandbytes quant state (4-bit) or SCB (8-bit) in the input: out of scope")
    import torch
    import bitsandbytes
    import bitsandbytes.functional as F
    from bitsandbytes.nn import Params4bit
    print(f"bitsandbytes {bitsandbytes.__version__}", file=sys.stderr)
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
