"""A sample loader under test: an AutoAWQ GEMM reader in numpy, as a loader project would write it.
It returns the logical view (CONTRACT 3) of every AWQ module; `bug="awq-order"` plants the classic
bug of not undoing AutoAWQ's slot interleave (FORMATS.md 6.1), which the corpus must catch.

Layout (AutoAWQ awq/modules/linear/gemm.py): qweight I32 [K, N/8], nibble i of word [k, c] holds
output column 8c + ORDER[i], ORDER = 0,2,4,6,1,3,5,7; qzeros I32 [K/gs, N/8] the same way; scales F16
[K/gs, N]; w[n, k] = f32(q - z) * f32(scale)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import numpy as np

from packcheck import _safetensors  # the loader's own safetensors reading; any reader would do

ORDER = np.array([0, 2, 4, 6, 1, 3, 5, 7])


def _config(folder: Path) -> dict:
    cfg = folder / "config.json"
    if cfg.is_file():
        q = json.loads(cfg.read_text()).get("quantization_config")
        if q:
            return {"bits": q.get("bits"), "group_size": q.get("group_size")}
    legacy = folder / "quant_config.json"
    if legacy.is_file():
        q = json.loads(legacy.read_text())
        return {"bits": q.get("w_bit", q.get("bits")), "group_size": q.get("q_group_size", q.get("group_size"))}
    raise ValueError(f"{folder}: no AWQ config")


def _unpack(words: np.ndarray, undo_order: bool) -> np.ndarray:
    """[R, C] int32 -> [R, 8C] nibbles in logical column order."""
    w = words.astype(np.uint32)
    nib = np.stack([(w >> (4 * i)) & 0xF for i in range(8)], axis=-1).astype(np.uint8)  # [R, C, 8] by nibble
    if undo_order:
        out = np.empty_like(nib)
        out[..., ORDER] = nib  # nibble i -> column ORDER[i]
        nib = out
    return nib.reshape(words.shape[0], -1)


def load_awq(path, bug: str = "") -> Dict[str, np.ndarray]:
    folder = Path(path)
    cfg = _config(folder)
    if cfg["bits"] != 4:
        raise ValueError("AWQ GEMM is 4-bit only")
    tensors: Dict[str, np.ndarray] = {}
    for f in sorted(folder.glob("*.safetensors")):
        tensors.update(_safetensors.read(f))
    view: Dict[str, np.ndarray] = {}
    for name in sorted(n for n in tensors if n.endswith(".qweight")):
        m = name[: -len(".qweight")]
        qw, qz, sc = tensors[name], tensors[m + ".qzeros"], tensors[m + ".scales"]
        K = qw.shape[0]
        gs = K if cfg["group_size"] in (-1, None) else int(cfg["group_size"])
        q = _unpack(qw, undo_order=bug != "awq-order")          # [K, N]
        z = _unpack(qz, undo_order=bug != "awq-order")          # [K/gs, N]
        g = np.arange(K) // gs
        w = (q.astype(np.float32) - z[g].astype(np.float32)) * sc[g].astype(np.float32)
        view[m + ".codes"] = np.ascontiguousarray(q.T)
        view[m + ".weight"] = np.ascontiguousarray(w.T.astype(np.float32))
    return view
