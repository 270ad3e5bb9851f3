"""The Python peers' worker in the peers benchmark (scripts/bench-peers.sh; never run in CI).

Same line protocol as packcheck-peer-decode: one request per stdin line,
    PEER KERNEL INPUT ROWS COLS THREADS [OUT]
decodes the packed tensor in INPUT once with the named upstream function and prints the wall
and process CPU seconds of that call alone (the input is read and wrapped as a numpy array / torch tensor before
the clock starts, as a loader holding the bytes would have them). With OUT, the result is then
converted to packcheck's logical view (codes as unsigned u8 in [rows, cols], or f32 weights) and
written for the driver's identity check; that conversion is not timed.

Each peer is one entry of PEERS: prep (bytes -> the array/tensor a loader holds, untimed), call
(timed), out (result -> logical-view bytes) and the distribution whose version the report records. A new peer is a few
lines here plus a task entry in bench_peers.py.
"""
import importlib.util
import os
import sys
import time

import numpy as np

# Nothing here may reach a hub: bitsandbytes' import asks one for optional CPU gemm kernels
os.environ.setdefault("HF_HUB_OFFLINE", "1")

_torch = None


def torch():
    global _torch
    if _torch is None:
        import torch as t
        _torch = t
    return _torch


def bits_of(kernel):
    return int(kernel.split("-")[2]) if kernel.startswith("ct-") else 4  # ct-LAYOUT-B[-f32]


# Each peer: prep(raw, rows, cols, bits) -> args (untimed: the bytes as the array/tensor a loader
# holds), call(args, rows, cols, bits) -> result (timed), out(result, bits) -> logical-view bytes.

def np_u8(raw, rows, cols, bits):
    return np.frombuffer(raw, np.uint8)


def torch_i32(raw, rows, cols, bits):
    return torch().from_numpy(np.frombuffer(raw, np.int32).reshape(rows, -1).copy())


# gguf-py (numpy): gguf.quants.dequantize(data, qtype) -> f32
def gguf_q4_0(a, rows, cols, bits):
    import gguf
    return gguf.quants.dequantize(a.reshape(rows, cols // 32 * 18), gguf.GGMLQuantizationType.Q4_0)


# compressed-tensors (torch): unpack_from_int32(value, num_bits, shape) -> int8 (code - 2^(b-1)).
# Both layouts have this name in compressors/pack_quantized/helpers.py; the peers-ct017 venv holds
# 0.17.1, whose body is the word-aligned layout.
def ct_unpack(words, rows, cols, bits):
    from compressed_tensors.compressors.pack_quantized.helpers import unpack_from_int32
    return unpack_from_int32(words, bits, torch().Size([rows, cols]))


def ct_codes_out(res, bits):
    return (res.to(torch().int16) + (1 << (bits - 1))).to(torch().uint8).numpy().tobytes()


# compressed-tensors NVFP4: unpack_fp4_from_uint8 (E2M1 values), then one multiply by the group scale
def nvfp4_prep(raw, rows, cols, bits):
    t = torch()
    packed = t.from_numpy(np.frombuffer(raw, np.uint8, rows * cols // 2).reshape(rows, cols // 2).copy())
    scales = t.from_numpy(np.frombuffer(raw, np.float32, rows * cols // 16, rows * cols // 2).reshape(rows, cols // 16, 1).copy())
    return packed, scales


def ct_nvfp4(a, rows, cols, bits):
    from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
    packed, scales = a
    v = unpack_fp4_from_uint8(packed, rows, cols, dtype=torch().float32)
    return (v.view(rows, cols // 16, 16) * scales).view(rows, cols)


# AutoAWQ (torch): awq.utils.packing_utils.unpack_awq + reverse_awq_order, then the & mask its
# dequantize_gemm applies
_awq = None


def awq_module():
    # Loaded by file path: the package's __init__ imports its model zoo (transformers, CUDA kernels).
    global _awq
    if _awq is None:
        spec = importlib.util.find_spec("awq")
        path = os.path.join(os.path.dirname(spec.origin), "utils", "packing_utils.py")
        s = importlib.util.spec_from_file_location("awq_packing_utils", path)
        _awq = importlib.util.module_from_spec(s)
        s.loader.exec_module(_awq)
    return _awq


def awq_prep(raw, rows, cols, bits):
    return torch_i32(raw, rows, cols, bits), torch().zeros((1, cols // 8), dtype=torch().int32)


def awq_unpack(a, rows, cols, bits):
    m = awq_module()
    iw, iz = m.unpack_awq(a[0], a[1], bits)
    iw, iz = m.reverse_awq_order(iw, iz, bits)
    return torch().bitwise_and(iw, (1 << bits) - 1)


# bitsandbytes 4-bit (torch, CPU backend): bitsandbytes.functional.dequantize_4bit with a QuantState
# as Linear4bit holds it (blocksize 64, f32 absmax, f32 result); its CPU kernel runs on OpenMP, whose
# thread count is set to the request's (the system libgomp it links, not torch's own)
def bnb_prep(raw, rows, cols, bits):
    t = torch()
    packed = t.from_numpy(np.frombuffer(raw, np.uint8, rows * cols // 2).reshape(rows * cols // 2, 1).copy())
    absmax = t.from_numpy(np.frombuffer(raw, np.float32, rows * cols // 64, rows * cols // 2).copy())
    return packed, absmax


def bnb_call(quant_type):
    def call(a, rows, cols, bits):
        import bitsandbytes.functional as F
        st = F.QuantState(absmax=a[1], shape=torch().Size([rows, cols]), blocksize=64, quant_type=quant_type,
                          dtype=torch().float32)
        return F.dequantize_4bit(a[0], st)
    return call


_gomp = None


def bnb_threads(n):
    global _gomp
    if _gomp is None:
        import ctypes
        _gomp = ctypes.CDLL("libgomp.so.1")
    _gomp.omp_set_num_threads(n)


# MLX (mlx on CPU): mlx.core.dequantize(w, scales, biases, group_size=64, bits=4), evaluated inside the
# timing (mlx is lazy); the inputs are evaluated mx.arrays before the clock starts
def mlx_prep(raw, rows, cols, bits):
    import mlx.core as mx
    g = rows * cols // 64
    w = mx.array(np.frombuffer(raw, np.uint32, rows * cols // 8).reshape(rows, cols // 8))
    s = mx.array(np.frombuffer(raw, np.float32, g, rows * cols // 2).reshape(rows, cols // 64))
    b = mx.array(np.frombuffer(raw, np.float32, g, rows * cols // 2 + 4 * g).reshape(rows, cols // 64))
    mx.eval(w, s, b)
    return w, s, b


def mlx_call(a, rows, cols, bits):
    import mlx.core as mx
    r = mx.dequantize(a[0], a[1], a[2], group_size=64, bits=4)
    mx.eval(r)
    return r


def mlx_out(res, bits):
    return np.array(res, copy=False).astype(np.float32, copy=False).tobytes()


# transformers FineGrainedFP8 (torch): the load-time dequantization (quantization_config dequantize=True),
# transformers.integrations.finegrained_fp8.Fp8Dequantize._dequantize_one(weight, weight_scale_inv) with
# an f32 result; the block comes from the scale grid: [rows/128, cols/128] or per channel [rows, 1]
def fp8_prep(block):
    def prep(raw, rows, cols, bits):
        t = torch()
        w = t.from_numpy(np.frombuffer(raw, np.uint8, rows * cols).reshape(rows, cols).copy()).view(t.float8_e4m3fn)
        gr, gc = ((rows + 127) // 128, (cols + 127) // 128) if block else (rows, 1)
        s = t.from_numpy(np.frombuffer(raw, np.float32, gr * gc, rows * cols).reshape(gr, gc).copy())
        return w, s
    return prep


def fp8_call(a, rows, cols, bits):
    from transformers.integrations.finegrained_fp8 import Fp8Dequantize
    return Fp8Dequantize(None)._dequantize_one(a[0], a[1], output_dtype=torch().float32)


# compressed-tensors pack-quantized, whole f32 weight: PackedQuantizationCompressor.decompress (unpack,
# then its dequantize) on a module's state dict: weight_packed, f32 weight_scale [rows, cols/128],
# weight_shape; scheme int4 symmetric, strategy group, group_size 128
def ct_f32_prep(raw, rows, cols, bits):
    t = torch()
    words = t.from_numpy(np.frombuffer(raw, np.int32, rows * cols // 8).reshape(rows, cols // 8).copy())
    s = t.from_numpy(np.frombuffer(raw, np.float32, rows * cols // 128, rows * cols // 2).reshape(rows, cols // 128).copy())
    from compressed_tensors.quantization import QuantizationArgs, QuantizationScheme
    scheme = QuantizationScheme(targets=["Linear"], weights=QuantizationArgs(
        num_bits=4, type="int", symmetric=True, strategy="group", group_size=128))
    return {"weight_packed": words, "weight_scale": s, "weight_shape": t.tensor([rows, cols])}, scheme


def ct_f32_call(a, rows, cols, bits):
    from compressed_tensors.compressors.pack_quantized.base import PackedQuantizationCompressor
    return PackedQuantizationCompressor.decompress(a[0], a[1])["weight"]


def torch_codes_out(res, bits):
    return res.to(torch().uint8).numpy().tobytes()


def f32_out(res, bits):
    a = res.numpy() if hasattr(res, "numpy") else res
    return np.ascontiguousarray(a, dtype=np.float32).tobytes()


PEERS = {
    "gguf-py": (np_u8, gguf_q4_0, f32_out, "gguf"),
    "compressed-tensors": (torch_i32, ct_unpack, ct_codes_out, "compressed-tensors"),
    "compressed-tensors-0.17": (torch_i32, ct_unpack, ct_codes_out, "compressed-tensors"),  # run in the 0.17.1 venv
    "compressed-tensors-nvfp4": (nvfp4_prep, ct_nvfp4, f32_out, "compressed-tensors"),
    "autoawq": (awq_prep, awq_unpack, torch_codes_out, "autoawq"),
    "bitsandbytes-nf4": (bnb_prep, bnb_call("nf4"), f32_out, "bitsandbytes"),
    "bitsandbytes-fp4": (bnb_prep, bnb_call("fp4"), f32_out, "bitsandbytes"),
    "mlx": (mlx_prep, mlx_call, mlx_out, "mlx"),
    "transformers-fp8-block": (fp8_prep(True), fp8_call, f32_out, "transformers"),
    "transformers-fp8-channel": (fp8_prep(False), fp8_call, f32_out, "transformers"),
    "compressed-tensors-decompress": (ct_f32_prep, ct_f32_call, f32_out, "compressed-tensors"),
}
NO_TORCH = {"gguf", "mlx"}  # numpy / mlx only: no torch version to record, no torch threads to set


def version(dist):
    from importlib.metadata import version as v
    try:
        out = v(dist)
    except Exception:
        return "?"
    if dist == "mlx":
        try:
            out += " (mlx-cpu %s)" % v("mlx-cpu")
        except Exception:
            pass
    elif dist not in NO_TORCH:
        try:
            out += " (torch %s)" % v("torch")
        except Exception:
            pass
    return out + " numpy %s" % np.__version__


def main():
    cache = {}
    for line in sys.stdin:
        f = line.split()
        try:
            if f[0] == "version":
                print(version(PEERS[f[1]][3]), flush=True)
                continue
            peer, kernel, path, rows, cols, threads = f[0], f[1], f[2], int(f[3]), int(f[4]), int(f[5])
            prep, call, out, _ = PEERS[peer]
            bits = bits_of(kernel)
            key = (peer, path)
            if key not in cache:
                cache.clear()
                with open(path, "rb") as fh:
                    cache[key] = prep(fh.read(), rows, cols, bits)
            if PEERS[peer][3] not in NO_TORCH:
                torch().set_num_threads(threads)
            if peer.startswith("bitsandbytes"):
                bnb_threads(threads)
            t0, c0 = time.perf_counter(), time.process_time()
            res = call(cache[key], rows, cols, bits)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            if len(f) > 6:
                with open(f[6], "wb") as fh:
                    fh.write(out(res, bits))
            del res
            print("%.9f %.9f" % (dt, dc), flush=True)
        except Exception as e:  # the driver records the peer as failed, with the reason
            print("error %s: %s" % (type(e).__name__, str(e).replace("\n", " ")[:200]), flush=True)


if __name__ == "__main__":
    main()
