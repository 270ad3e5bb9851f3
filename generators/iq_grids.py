"""Write validator/src/kernels/data/iq_grids.bin: the grid and sign tables of ggml's grid i-quants,
read out of gguf-py 0.19.0 (gguf/quants.py, venv ct), never typed by hand.

Run: /work/venvs/ct/bin/python generators/iq_grids.py [--check]
(--check regenerates in memory and fails on one differing byte, and on a SHA-256 other than the
one CMakeLists.txt pins as PC_IQ_GRIDS_SHA256.)

The file is format data, one unsigned byte per grid element, sections back to back (offsets in
validator/src/kernels/iq_grids.h):
  ksigns_iq2xs[128]      IQ2_XXS.ksigns: 7 sign bits -> 8 sign bits (even parity)
  iq2xxs_grid[256][8]    IQ2_XXS grid values (8, 25, 43)
  iq2xs_grid[512][8]     IQ2_XS
  iq2s_grid[1024][8]     IQ2_S
  iq3xxs_grid[256][4]    IQ3_XXS grid values (4 .. 62)
  iq3s_grid[512][4]      IQ3_S grid values (1 .. 15)
  iq1s_grid[2048][8]     IQ1_S (= IQ1_M) grid values -1, 0, 1 as int8 two's complement
gguf-py decodes each grid from its packed hex (Quant.init_grid); ggml's ggml-common.h holds the same
tables as packed uint64/uint32 words (iq2xxs_grid ...), read little-endian byte by byte.
"""
import hashlib
import pathlib
import re
import sys

import numpy as np
import gguf.quants as q

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "validator/src/kernels/data/iq_grids.bin"


def grid_bytes(cls, dtype):
    cls.init_grid()
    g = cls.grid.reshape(cls.grid_shape)
    assert np.all(g == np.round(g)), cls.__name__
    return g.astype(dtype).tobytes()


def build():
    assert q.IQ1_S.grid_hex == q.IQ1_M.grid_hex and q.IQ1_S.grid_map == q.IQ1_M.grid_map
    assert q.IQ1_S.delta == q.IQ1_M.delta == 0.125
    parts = [
        bytes(q.IQ2_XXS.ksigns),
        grid_bytes(q.IQ2_XXS, np.uint8),
        grid_bytes(q.IQ2_XS, np.uint8),
        grid_bytes(q.IQ2_S, np.uint8),
        grid_bytes(q.IQ3_XXS, np.uint8),
        grid_bytes(q.IQ3_S, np.uint8),
        grid_bytes(q.IQ1_S, np.int8),
    ]
    sizes = [128, 256 * 8, 512 * 8, 1024 * 8, 256 * 4, 512 * 4, 2048 * 8]
    assert [len(p) for p in parts] == sizes, [len(p) for p in parts]
    return b"".join(parts)


def pinned_sha():
    m = re.search(r'set\(PC_IQ_GRIDS_SHA256 "([0-9a-f]{64})"\)', (ROOT / "CMakeLists.txt").read_text())
    return m.group(1) if m else None


def main():
    data = build()
    sha = hashlib.sha256(data).hexdigest()
    if "--check" in sys.argv:
        ok = OUT.read_bytes() == data and pinned_sha() == sha
        print(("ok " if ok else "MISMATCH ") + sha)
        sys.exit(0 if ok else 1)
    OUT.write_bytes(data)
    print(f"{OUT.relative_to(ROOT)}: {len(data)} bytes, sha256 {sha}")


if __name__ == "__main__":
    main()
