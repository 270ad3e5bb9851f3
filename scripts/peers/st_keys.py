"""Peer in bench-peers: the header pass with the safetensors package (its Rust core parses the
header): safe_open each file and list its tensors; --index DIR reads the shard index first."""
import json
import os
import sys

from safetensors import safe_open

paths = sys.argv[1:]
if paths[0] == "--index":
    d = paths[1]
    with open(os.path.join(d, "model.safetensors.index.json")) as fh:
        wm = json.load(fh)["weight_map"]
    paths = sorted({os.path.join(d, v) for v in wm.values()})
n = 0
for path in paths:
    with safe_open(path, framework="np") as f:
        n += len(f.keys())
print(n)
