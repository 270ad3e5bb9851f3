"""Reader adapter: transformers' own FP8 and MXFP4 weight readers (the certificate uses 5.24.0).

transformers picks the reader from config.json's `quantization_config.quant_method`:
  fp8:    FineGrainedFP8Config(**quantization_config) validates the config; every `M.weight` with a
          `M.weight_scale_inv`, and every fused expert tensor `P` (FP8Experts: `gate_up_proj`,
          `down_proj` [E, N, K]) with its `P_scale_inv`, is dequantized by `Fp8Dequantize._dequantize_one` (integrations/
          finegrained_fp8.py), the op that `from_pretrained(..., FineGrainedFP8Config(dequantize=True))`
          runs on CPU, asked for float32 (the contract's f32 form; at load it targets the parameter's
          dtype). Codes: the stored F8_E4M3 bytes as transformers holds them (no unpacking exists).
  mxfp4:  Mxfp4Config(**quantization_config); every `M_blocks` / `M_scales` pair is dequantized by
          `convert_moe_packed_tensors(blocks, scales, dtype=float32)` (integrations/mxfp4.py, the
          dequantize path gpt-oss takes without the Triton kernel), transposed back from transformers'
          [E, K, R] parameter orientation to the stored [E, R, K]. No codes: transformers only returns
          values.
Anything else (compressed-tensors, GGUF, other methods) is out of scope: exit 1.
"""
import sys

import _common


def fp8_modules(t, qcfg):
    import torch
    from transformers import FineGrainedFP8Config
    from transformers.integrations.finegrained_fp8 import Fp8Dequantize
    FineGrainedFP8Config(**{k: v for k, v in qcfg.items() if k != "quant_method"})
    deq = Fp8Dequantize(hf_quantizer=None)  # _dequantize_one reads nothing from the quantizer
    out = {}
    for k in sorted(t):
        if k.endswith(".weight_scale_inv"):  # a linear: M.weight + M.weight_scale_inv
            m = k[: -len(".weight_scale_inv")]
            w = t.get(m + ".weight")
        elif k.endswith("_scale_inv"):  # fused experts (FP8Experts): P [E, N, K] + P_scale_inv
            m = k[: -len("_scale_inv")]
            w = t.get(m)
        else:
            continue
        if w is None:
            raise _common.Refuse(f"{m}: {k} without its weight")
        f = deq._dequantize_one(w, t[k], output_dtype=torch.float32)
        out[m] = (w.contiguous().view(torch.uint8).numpy(), f.numpy())
    return out


def mxfp4_modules(t, qcfg):
    import torch
    from transformers import Mxfp4Config
    from transformers.integrations.mxfp4 import convert_moe_packed_tensors
    Mxfp4Config(**{k: v for k, v in qcfg.items() if k != "quant_method"})
    out = {}
    for k in sorted(t):
        if not k.endswith("_blocks"):
            continue
        m = k[: -len("_blocks")]
        s = t.get(m + "_scales")
        if s is None:
            raise _common.Refuse(f"{m}: _blocks without _scales")
        f = convert_moe_packed_tensors(t[k], s, dtype=torch.float32)
        out[m] = (None, f.transpose(1, 2).contiguous().numpy())
    return out


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    qcfg = _common.quant_config(folder)
    method = qcfg.get("quant_method")
    if method not in ("fp8", "mxfp4"):
        raise _common.Refuse(f"quant_method {method!r}: not a transformers FP8/MXFP4 checkpoint, out of scope")
    import transformers
    print(f"transformers {transformers.__version__}", file=sys.stderr)
    t = _common.read_safetensors(files)
    out = fp8_modules(t, qcfg) if method == "fp8" else mxfp4_modules(t, qcfg)
    if not out:
        raise _common.Refuse(f"no {method} module in the input")
    return out


if __name__ == "__main__":
    _common.main(decode)
