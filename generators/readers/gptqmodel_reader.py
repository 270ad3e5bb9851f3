"""Reader adapter: GPTQModel (7.7.0) on GPTQ and AWQ checkpoints, through its dequantization tool
gptqmodel.utils.model_dequant: convert_gptq_file / convert_awq_file (f32 target) give the weights,
and its unpack_rows (GPTQ, packed along K) / unpack_cols (AWQ, packed along N) give the codes.
checkpoint_format follows the library's own rule (_uses_gptq_v1_qzeros: "gptq" or missing = v1).
Anything without qweight is out of scope.
"""
import sys

import _common


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    names = _common.header_names(files)
    if names is not None and not any(k.endswith(".qweight") for k in names):
        raise _common.Refuse("no GPTQ/AWQ module (qweight): out of scope")
    qcfg = _common.quant_config(folder)
    method = str(qcfg.get("quant_method", "")).lower()
    import torch
    from pathlib import Path
    import gptqmodel
    from gptqmodel.utils import model_dequant as md
    print(f"gptqmodel {getattr(gptqmodel, '__version__', '?')}", file=sys.stderr)
    out = {}
    for f in files:
        t = _common.read_safetensors([f])
        is_gptq = any(k.endswith(".g_idx") for k in t) or method == "gptq"
        if is_gptq:
            cfg = dict(qcfg)
            cfg.setdefault("bits", 4)
            deq = md.convert_gptq_file(Path(f), torch.float32, cfg, "cpu")
        else:
            deq = md.convert_awq_file(Path(f), torch.float32, "cpu")
        bits = int(qcfg.get("bits", qcfg.get("w_bit", 4)))
        for k in sorted(t):
            if not k.endswith(".qweight"):
                continue
            p = k[: -len(".qweight")]
            if is_gptq:
                codes = md.unpack_rows(t[k], bits).t()
            else:
                codes = md.unpack_cols(t[k], 4).t()
            out[p] = (codes.to(torch.uint8).contiguous().numpy(), deq[p + ".weight"].float().contiguous().numpy())
    return out


if __name__ == "__main__":
    _common.main(decode)
