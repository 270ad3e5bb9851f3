#!/usr/bin/env python3
"""Write fuzz_folder's seeds (corpus/folder/) from pinned corpus cases: <u32 LE len><config.json><model.safetensors>.
The fused FP8 seed keeps expert 0 and the first 128 input columns of tf-fp8-moe-fused-edge's gate_up_proj
(one 128 x 128 block per half), so the seed stays small. Run from the repository root."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(HERE, "corpus", "folder")


def read(case, name):
    with open(os.path.join(ROOT, "fixtures", case, name), "rb") as f:
        return f.read()


def st(tensors):
    header, blobs, pos = {}, [], 0
    for name, (dtype, shape, b) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [pos, pos + len(b)]}
        blobs.append(b)
        pos += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((-len(h)) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def fused_fp8():
    data = read("fp8/tf-fp8-moe-fused-edge", "model.safetensors")
    n = struct.unpack("<Q", data[:8])[0]
    h, body = json.loads(data[8:8 + n]), data[8 + n:]
    name = "model.layers.0.mlp.experts.gate_up_proj"
    s, _ = h[name]["data_offsets"]
    _, rows, cols = h[name]["shape"]
    w = b"".join(body[s + r * cols:s + r * cols + 128] for r in range(rows))
    ss, _ = h[name + "_scale_inv"]["data_offsets"]
    _, srows, scols = h[name + "_scale_inv"]["shape"]
    sc = b"".join(body[ss + 4 * r * scols:ss + 4 * r * scols + 4] for r in range(srows))
    return st({name: ("F8_E4M3", [1, rows, 128], w), name + "_scale_inv": ("F32", [1, srows, 1], sc)})


def seed(name, config, shard):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack("<I", len(config)) + config + shard)


def main():
    os.makedirs(OUT, exist_ok=True)
    for case in ("bnb/probe-nf4-dq", "bnb/probe-fp4", "bnb/probe-int8", "mlx/model-mxfp4"):
        seed(case.replace("/", "-"), read(case, "config.json"), read(case, "model.safetensors"))
    seed("fp8-fused-experts", read("fp8/tf-fp8-moe-fused-edge", "config.json"), fused_fp8())


if __name__ == "__main__":
    main()
