"""Inputs for the header rows of bench-peers: many small plain tensors.
  st DIR N      one safetensors file with N F16 tensors of 1 element (header ~55 bytes a tensor)
  index DIR N   N tensors over 8 shards plus model.safetensors.index.json
  gguf DIR N    a GGUF file with N F32 tensors of 1 element, written by gguf-py's GGUFWriter
Written directly (safetensors' header is JSON plus 8 length bytes; its writer wants every tensor
in memory as an object, which for 1M tensors measures the writer, not the reader)."""
import json
import os
import struct
import sys


def write_st(path, names):
    hdr, off = {}, 0
    for n in names:
        hdr[n] = {"dtype": "F16", "shape": [1], "data_offsets": [off, off + 2]}
        off += 2
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"\x00\x3c" * len(names))


def main():
    kind, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(d, exist_ok=True)
    names = ["model.layers.%d.t%d.weight" % (i // 1000, i % 1000) for i in range(n)]
    if kind == "st":
        write_st(os.path.join(d, "model.safetensors"), names)
    elif kind == "index":
        shards, wm = 8, {}
        for s in range(shards):
            fn = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            part = names[s::shards]
            write_st(os.path.join(d, fn), part)
            wm.update({k: fn for k in part})
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": 2 * n}, "weight_map": wm}, f)
    elif kind == "gguf":
        import numpy as np
        from gguf import GGUFWriter
        w = GGUFWriter(os.path.join(d, "model.gguf"), "llama")
        one = np.ones(1, dtype=np.float32)
        for k in names:
            w.add_tensor(k, one)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()


if __name__ == "__main__":
    main()
