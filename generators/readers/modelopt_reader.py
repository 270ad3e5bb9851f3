"""Reader adapter: nvidia-modelopt (0.47) on its own FP8 exports (quant_algo FP8,
FP8_PER_CHANNEL_PER_TOKEN, fp8_pb_wo, and the FP8 layers of MIXED_PRECISION).

ModelOpt's dequantizer for a stored FP8 weight is FP8QTensor.dequantize
(modelopt/torch/quantization/qtensor/fp8_tensor.py: quantized_data.to(dtype) * scales.to(dtype), the
scales repeated over 128x128 blocks when block_sizes is given); the adapter passes the exported
weight_scale in the shape that function takes (a 0-dim scale as is, a per-channel [N] scale as
[N, 1], the exported 4-D block grid [gr, 1, gc, 1] as [gr, gc]). Codes are the stored E4M3 bytes.
ModelOpt ships no decoder for its exported INT4 AWQ layout (pack_int4_in_uint8 pairs rows along N;
INT4QTensor.dequantize reads another packing: offset-8 nibbles, high first, along K): those inputs
are refused as out of scope, like NVFP4 (certified through compressed-tensors' converter elsewhere).
"""
import os

import _common


def modelopt_config(folder):
    p = os.path.join(folder, "hf_quant_config.json")
    if os.path.exists(p):
        hq = _common.load_json(p)
        if hq.get("producer", {}).get("name") == "modelopt":
            return hq.get("quantization", {})
    q = _common.quant_config(folder)
    return q if q.get("quant_method") == "modelopt" else None


def decode(inp):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: out of scope")
    cfg = modelopt_config(folder)
    names = _common.header_names(files)
    if cfg is None:
        raise _common.Refuse("no ModelOpt config: out of scope")
    if names is not None and not any(v == "F8_E4M3" and k.endswith(".weight") for k, v in names.items()):
        raise _common.Refuse("no FP8 weight: out of scope (ModelOpt has no decoder for its INT4 AWQ export)")
    import torch
    from modelopt.torch.quantization.qtensor.fp8_tensor import FP8QTensor
    t = _common.read_safetensors(files)
    out = {}
    for k, w in sorted(t.items()):
        if not k.endswith(".weight") or w.dtype != torch.float8_e4m3fn:
            continue
        m = k[: -len(".weight")]
        s = t.get(m + ".weight_scale")
        if s is None:
            raise _common.Refuse(f"{m}: FP8 weight without weight_scale")
        kw = {}
        if s.dim() == 1:
            s = s.view(-1, 1)
        elif s.dim() == 4:
            s = s.reshape(s.shape[0], s.shape[2])
            kw["block_sizes"] = {-1: 128, -2: 128}
        q = FP8QTensor(w.shape, torch.float32, w)
        wf = q.dequantize(dtype=torch.float32, scale=s.float(), **kw)
        out[m] = (w.view(torch.uint8).numpy(), wf.numpy())
    if not out:
        raise _common.Refuse("no FP8 module: out of scope")
    return out


if __name__ == "__main__":
    _common.main(decode)
