"""A small safetensors reader and writer over numpy (the logical view is one safetensors file).
Bounded: the header length is checked against the file size and a 100 MB cap before it is read."""
from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Dict, Mapping, Union

import numpy as np

_DTYPES = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16, "I16": np.int16,
           "F16": np.float16, "U32": np.uint32, "I32": np.int32, "F32": np.float32, "U64": np.uint64,
           "I64": np.int64, "F64": np.float64}
_NAMES = {np.dtype(v).str.lstrip("<>|="): k for k, v in _DTYPES.items()}
HEADER_MAX = 100_000_000


def read(path: Union[str, Path]) -> Dict[str, np.ndarray]:
    """Every tensor of a safetensors file (little-endian), by name. BF16 and other dtypes numpy has
    no type for come back as raw uint8 bytes."""
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: shorter than a safetensors header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > HEADER_MAX or 8 + n > len(data):
        raise ValueError(f"{path}: header length {n} does not fit the file")
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out: Dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        if not 0 <= b <= e <= len(data) - base:
            raise ValueError(f"{path}: {name}: data_offsets {b}..{e} outside the data section")
        raw = data[base + b:base + e]
        dt = _DTYPES.get(info["dtype"])
        if dt is None:
            out[name] = np.frombuffer(raw, dtype=np.uint8).copy()
            continue
        out[name] = np.frombuffer(raw, dtype=np.dtype(dt).newbyteorder("<")).reshape(info["shape"]).astype(dt)
    return out


def write(path: Union[str, Path], tensors: Mapping[str, np.ndarray]) -> None:
    """Write tensors in name order, row-major little-endian, header padded to 8 bytes."""
    header: Dict[str, object] = {}
    blobs = []
    off = 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        key = a.dtype.str.lstrip("<>|=")
        if key not in _NAMES:
            raise TypeError(f"{name}: dtype {a.dtype} has no safetensors name")
        raw = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _NAMES[key], "shape": list(a.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
