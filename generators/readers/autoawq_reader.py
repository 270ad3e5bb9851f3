"""Reader adapter: AutoAWQ (the final release, 0.2.9) on AWQ GEMM checkpoints.

awq.utils.packing_utils: unpack_awq + reverse_awq_order give the codes (masked to 4 bits, as
dequantize_gemm does); dequantize_gemm(qweight, qzeros, scales.float(), 4, group_size) gives the
weights in f32 (the scales are widened first, so the one rounding is f32's). AutoAWQ's package
__init__ imports its calibration stack (datasets); the helpers file is loaded on its own. Modules are
those with qweight, qzeros and scales and no g_idx (GPTQ); anything else is out of scope.
"""
import importlib.util
import os
import sys

import _common


def packing_utils():
    spec = importlib.util.find_spec("awq")
    if spec is None or not spec.submodule_search_locations:
        raise _common.Refuse("AutoAWQ is not installed")
    path = os.path.join(list(spec.submodule_search_locations)[0], "utils", "packing_utils.py")
    s = importlib.util.spec_from_file_location("awq_packing_utils", path)
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    return m


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    names = _common.header_names(files)
    if names is not None:
        prefixes = [k[: -len(".qweight")] for k in names if k.endswith(".qweight")]
        if not prefixes or any(p + ".g_idx" in names for p in prefixes):
            raise _common.Refuse("no AWQ module (qweight without g_idx): out of scope")
    qcfg = _common.quant_config(folder)
    if str(qcfg.get("quant_method", "awq")).lower() != "awq":
        raise _common.Refuse(f"quant_method {qcfg.get('quant_method')!r} is not awq")
    import torch
    pu = packing_utils()
    bits = int(qcfg.get("bits", qcfg.get("w_bit", 4)))
    t = _common.read_safetensors(files)
    out = {}
    for k in sorted(t):
        if not k.endswith(".qweight"):
            continue
        p = k[: -len(".qweight")]
        qweight, qzeros, scales = t[p + ".qweight"], t[p + ".qzeros"], t[p + ".scales"]
        group_size = qweight.shape[0] // scales.shape[0]
        iw, iz = pu.unpack_awq(qweight, qzeros, bits)
        iw, iz = pu.reverse_awq_order(iw, iz, bits)
        codes = torch.bitwise_and(iw, (1 << bits) - 1).to(torch.uint8)
        w = pu.dequantize_gemm(qweight, qzeros, scales.float(), bits, group_size)
        out[p] = (codes.t().contiguous().numpy(), w.float().t().contiguous().numpy())
    return out


if __name__ == "__main__":
    _common.main(decode)
