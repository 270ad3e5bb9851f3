"""GGUF container and Q4_0 fixtures (families gguf, q40). Venv: requirements-ct.txt (gguf 0.19.0).

Valid files are written by gguf's GGUFWriter with Q4_0 blocks from gguf.quants.quantize (which
gguf's own tests hold bit-exact to ggml's quantize_row_q4_0_ref); the seed's random and all-15
probes cannot come out of the reference quantizer (its extreme element always gets code 0), so
those blocks are packed here from the layout (FORMATS.md 7.5) and still written by GGUFWriter.
Pins are computed by gguf itself from the file as GGUFReader maps it: weights by
gguf.quants.dequantize (checked bit-exact against the contract's f32(q - 8) * f32(d)), codes by
the same dequantize with every block's d set to 1.0 (so it returns q - 8 in gguf's element order).

Hostile files are hand-built bytes (pcgen.ggufbytes), one defect each.
"""
import os
import struct
import tempfile

import gguf
import numpy as np
from gguf import GGMLQuantizationType as QT
from gguf.quants import dequantize, quantize

from pcgen.corpus import module_pin
from pcgen import ggufbytes as gb
from pcgen.ggufbytes import ARRAY, BOOL, F32, STRING, U8, U32, I32, U64, gguf_file, kv, tensor

VER = gguf.__version__ if hasattr(gguf, "__version__") else "0.19.0"
SRC_W = f"gguf {VER} GGUFWriter"
SRC_Q = f"gguf {VER} GGUFWriter + gguf.quants.quantize(Q4_0)"
SRC_H = "hand-built bytes (generators/pcgen/ggufbytes.py)"


# ---------------------------------------------------------------------------------------------
# writing with gguf, pinning with gguf

def write_with_gguf(tensors, *, alignment=None, kvs=None, big_endian=False, extra=None):
    """tensors: list of (name, array, raw_dtype or None); extra(writer) adds more metadata through
    GGUFWriter's own methods. Returns the file's bytes."""
    fd, path = tempfile.mkstemp(suffix=".gguf")
    os.close(fd)
    try:
        endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
        w = gguf.GGUFWriter(path, "llama", endianess=endian)
        if alignment is not None:
            w.add_custom_alignment(alignment)
        if extra is not None:
            extra(w)
        for k, v in (kvs or {}).items():
            if isinstance(v, str):
                w.add_string(k, v)
            else:
                w.add_uint32(k, v)
        for name, arr, raw in tensors:
            w.add_tensor(name, arr, raw_dtype=raw)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


def logical_shape(ne):
    """CONTRACT 3: ne reversed; 1-D is one row; 4-D folds its outer two dims (formats/q4_0.c)."""
    ne = [int(x) for x in ne]
    if len(ne) <= 1:
        return [1, ne[0] if ne else 1]
    if len(ne) == 2:
        return [ne[1], ne[0]]
    if len(ne) == 3:
        return [ne[2], ne[1], ne[0]]
    return [ne[3] * ne[2], ne[1], ne[0]]


def q4_0_view(raw):
    """(codes u8, weights f32) of raw Q4_0 bytes (any leading shape), both by gguf's dequantize."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.size == 0:  # gguf's dequantize cannot reshape zero blocks; the view is empty
        return np.zeros(0, np.uint8), np.zeros(0, np.float32)
    w = dequantize(raw, QT.Q4_0).astype(np.float32, copy=False)
    blocks = raw.reshape(-1, 18).copy()
    blocks[:, 0:2] = np.frombuffer(np.float16(1.0).tobytes(), np.uint8)
    qm8 = dequantize(blocks.reshape(raw.shape), QT.Q4_0)
    codes = (qm8 + 8).astype(np.uint8)
    assert np.array_equal(codes.astype(np.float32) - 8, qm8)
    # The contract's form, f32(q - 8) * f32(d), must equal gguf's output bit for bit.
    d = raw.reshape(-1, 18)[:, 0:2].copy().view(np.float16).astype(np.float32)
    contract = ((codes.reshape(-1, 32).astype(np.float32) - np.float32(8)) * d).reshape(w.shape)
    assert np.array_equal(contract.view(np.uint32), w.view(np.uint32)), "gguf dequantize != contract form"
    return codes, w


# The other decoded block types (formats/gguf_blocks.c): bytes per block, offset of the signed
# quant, fp16 fields (d, then m for the "_1" types), which dequantize gives with d = 1 and m = 0.
BLOCKS = {QT.Q8_0: (34, 0, 1), QT.Q4_1: (20, 0, 2), QT.Q5_0: (22, 16, 1), QT.Q5_1: (24, 0, 2)}


def block_view(raw, qt):
    """(codes u8, weights f32) of raw Q8_0/Q4_1/Q5_0/Q5_1 bytes, both by gguf's dequantize: weights
    as stored; codes from the same blocks with d = 1 and m = 0, so dequantize returns the integer
    quant in gguf's element order (Q5_0 minus 16; Q8_0 the int8, whose byte is the code). The
    contract's form (CONTRACT 3: f32(x) * d, then + m) is asserted equal to gguf's bit for bit."""
    size, off, nf = BLOCKS[qt]
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.size == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.float32)
    w = dequantize(raw, qt).astype(np.float32, copy=False)
    blocks = raw.reshape(-1, size).copy()
    blocks[:, 0:2] = np.frombuffer(np.float16(1.0).tobytes(), np.uint8)
    if nf == 2:
        blocks[:, 2:4] = 0
    x = dequantize(blocks.reshape(raw.shape), qt)
    xi = x.astype(np.int64) + off
    assert np.array_equal(xi.astype(np.float32) - off, x)
    codes = (xi & 0xFF).astype(np.uint8)  # Q8_0: the int8 byte as stored
    fields = raw.reshape(-1, size)[:, 0:2 * nf].copy().view(np.float16).astype(np.float32)
    xq = (xi.reshape(-1, 32) - off).astype(np.float32)
    contract = xq * fields[:, 0:1]
    if nf == 2:
        contract = contract + fields[:, 1:2]
    with np.errstate(invalid="ignore"):
        same = contract.reshape(w.shape).view(np.uint32) == w.view(np.uint32)
    assert same.all(), f"gguf dequantize != contract form for {qt.name}"
    return codes, w


def kquant_view(raw, qt):
    """(codes u8, weights f32) of raw Q4_K / Q6_K bytes, both by gguf's dequantize: weights as
    stored; codes from the same blocks with d = 1, dmin = 0 and every sub-block scale 1 (min 0), so
    dequantize returns q (Q4_K) or q - 32 (Q6_K) in gguf's element order."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.size == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.float32)
    w = dequantize(raw, qt).astype(np.float32, copy=False)
    one = np.frombuffer(np.float16(1.0).tobytes(), np.uint8)
    if qt == QT.Q4_K:
        b = raw.reshape(-1, 144).copy()
        b[:, 0:2] = one
        b[:, 2:4] = 0
        b[:, 4:8], b[:, 8:12], b[:, 12:16] = 1, 0, 1  # scales 1 (j < 4: bytes 0-3; j >= 4: low nibbles of 8-11), mins 0
        off = 0
    else:
        b = raw.reshape(-1, 210).copy()
        b[:, 192:208] = 1
        b[:, 208:210] = one
        off = 32
    x = dequantize(b.reshape(raw.shape), qt)
    xi = x.astype(np.int64) + off
    assert np.array_equal(xi.astype(np.float32) - off, x) and xi.min() >= 0 and xi.max() < (16 if qt == QT.Q4_K else 64)
    return xi.astype(np.uint8), w


# The 16-value tables of ggml-common.h as the C kernels hold them; gguf-py's own copies must agree.
IQ4NL_VALUES = (-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113)
MXFP4_VALUES = (0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12)
assert tuple(gguf.quants.IQ4_NL.kvalues) == IQ4NL_VALUES and tuple(gguf.quants.MXFP4.kvalues) == MXFP4_VALUES


def nibble_codes(qs):
    """The 32 nibbles per 16 qs bytes in gguf's element order: the bytes read back as Q4_0 blocks
    with d = 1 through gguf's own Q4_0 dequantize (which returns nibble - 8)."""
    qs = np.ascontiguousarray(qs, dtype=np.uint8).reshape(-1, 16)
    one = np.broadcast_to(np.frombuffer(np.float16(1.0).tobytes(), np.uint8), (qs.shape[0], 2))
    return (dequantize(np.concatenate([one, qs], axis=1), QT.Q4_0).reshape(-1) + 8).astype(np.uint8)


def iquant_view(raw, qt):
    """(codes u8, weights f32) of raw Q5_K / IQ4_NL / IQ4_XS / MXFP4 bytes, weights by gguf's
    dequantize. Codes: Q5_K with d = 1, dmin = 0 and scales 1 (dequantize returns q); IQ4_NL and
    IQ4_XS with d = 1 (and every ls = 33, i.e. a factor 1), the table value mapped back to its index;
    MXFP4 (whose table maps two codes to 0) by nibble_codes of its qs."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.size == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.float32)
    with np.errstate(over="ignore"):  # MXFP4 e = 254, 255: |value| >= 2^128 is inf, in ggml too
        w = dequantize(raw, qt).astype(np.float32, copy=False)
    one = np.frombuffer(np.float16(1.0).tobytes(), np.uint8)
    if qt == QT.MXFP4:
        return nibble_codes(raw.reshape(-1, 17)[:, 1:]), w
    size = {QT.Q5_K: 176, QT.IQ4_NL: 18, QT.IQ4_XS: 136, QT.Q2_K: 84, QT.Q3_K: 110, QT.TQ1_0: 54, QT.TQ2_0: 66}[qt]
    b = raw.reshape(-1, size).copy()
    if qt in (QT.TQ1_0, QT.TQ2_0):  # d = 1 (last two bytes): dequantize returns x - 1
        b[:, size - 2:size] = one
        x = dequantize(b.reshape(raw.shape), qt)
        xi = x.astype(np.int64) + 1
        assert np.array_equal(xi.astype(np.float32) - 1, x) and xi.min() >= 0 and xi.max() < 4
        return xi.astype(np.uint8), w
    if qt in (QT.Q2_K, QT.Q3_K):  # d is at the block's end: bytes 0-1 are scales / hmask
        # Q2_K: d = 1, dmin = 0, every scale byte 0x01 (scale 1, min 0): dequantize returns q.
        # Q3_K: d = 1, every 6-bit scale 33 (factor 1): dequantize returns q - 4.
        if qt == QT.Q2_K:
            b[:, 0:16], b[:, 80:82], b[:, 82:84] = 1, one, 0
        else:
            b[:, 96:104], b[:, 104:108], b[:, 108:110] = 0x11, 0xAA, one
        off = 0 if qt == QT.Q2_K else 4
        x = dequantize(b.reshape(raw.shape), qt)
        xi = x.astype(np.int64) + off
        assert np.array_equal(xi.astype(np.float32) - off, x) and xi.min() >= 0 and xi.max() < (4 if qt == QT.Q2_K else 8)
        return xi.astype(np.uint8), w
    b[:, 0:2] = one
    if qt == QT.Q5_K:
        b[:, 2:4] = 0
        b[:, 4:8], b[:, 8:12], b[:, 12:16] = 1, 0, 1
        x = dequantize(b.reshape(raw.shape), qt)
        xi = x.astype(np.int64)
        assert np.array_equal(xi.astype(np.float32), x) and xi.min() >= 0 and xi.max() < 32
        return xi.astype(np.uint8), w
    if qt == QT.IQ4_XS:
        b[:, 2:4] = np.frombuffer(struct.pack("<H", 0xAAAA), np.uint8)  # bits 4-5 of every ls: 10
        b[:, 4:8] = 0x11                                                 # low nibbles: 1 (ls = 33)
    x = dequantize(b.reshape(raw.shape), qt).astype(np.int64).reshape(-1)
    lut = {v: i for i, v in enumerate(IQ4NL_VALUES)}
    return np.array([lut[v] for v in x], np.uint8), w


# Grid i-quants: (block bytes, byte edits that make every scale a factor 1, kind). With them gguf's
# dequantize returns the signed grid value (IQ2/IQ3: d = 8 or 4 and sub-scale 0 give db = 1; IQ3_S
# d = 1, s = 0) or, for IQ1, grid + -0.125 (d = 1, every 3-bit scale 0 so dl = 1).
def _and(lo, hi, step, mask):
    return lambda b: b.__setitem__((slice(None), slice(lo, hi, step)), b[:, lo:hi:step] & mask)


GRID = {
    QT.IQ2_XXS: (66, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x4800)), _and(9, 66, 8, 0x0F)]),
    QT.IQ2_XS: (74, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x4800)), lambda b: b.__setitem__((slice(None), slice(66, 74)), 0)]),
    QT.IQ2_S: (82, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x4800)), lambda b: b.__setitem__((slice(None), slice(74, 82)), 0)]),
    QT.IQ3_XXS: (98, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x4400)), _and(69, 98, 4, 0x0F)]),
    QT.IQ3_S: (110, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x3C00)), lambda b: b.__setitem__((slice(None), slice(106, 110)), 0)]),
    QT.IQ1_S: (50, [lambda b: b.__setitem__((slice(None), slice(0, 2)), F16B(0x3C00)), _and(35, 50, 2, 0x8F)]),
    QT.IQ1_M: (56, [lambda b: b.__setitem__((slice(None), slice(48, 56)), np.frombuffer(struct.pack("<4H", 0, 0, 0xC000, 0x3000), np.uint8))]),
}


def F16B(bits):
    return np.frombuffer(struct.pack("<H", bits), np.uint8)


def grid_view(raw, qt):
    """(codes u8, weights f32) of raw grid i-quant bytes, both by gguf's dequantize: weights as stored;
    codes (the signed grid value as int8, CONTRACT 3) from the same blocks with the GRID edits."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    w = dequantize(raw, qt).astype(np.float32, copy=False)
    size, edits = GRID[qt]
    b = raw.reshape(-1, size).copy()
    for e in edits:
        e(b)
    x = dequantize(b.reshape(raw.shape), qt).reshape(-1).astype(np.float64)
    if qt in (QT.IQ1_S, QT.IQ1_M):
        g = np.round(x)
        assert np.all(np.abs(x - g) == 0.125) and np.all(np.abs(g) <= 1), qt.name
    else:
        g = x
        assert np.all(g == np.round(g)) and np.all(np.abs(g) <= 127) and np.all(g != 0), qt.name
    return g.astype(np.int8).view(np.uint8), w


BITS = {QT.Q4_0: 4, QT.Q8_0: 8, QT.Q4_1: 4, QT.Q5_0: 5, QT.Q5_1: 5, QT.Q4_K: 4, QT.Q6_K: 6,
        QT.Q5_K: 5, QT.IQ4_NL: 4, QT.IQ4_XS: 4, QT.MXFP4: 4, QT.Q2_K: 2, QT.Q3_K: 3,
        QT.TQ1_0: 2, QT.TQ2_0: 2, **{qt: 8 for qt in GRID}}


def pins(data):
    """Module pins of every decoded block-type tensor of a GGUF file, read back with GGUFReader."""
    fd, path = tempfile.mkstemp(suffix=".gguf")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    try:
        r = gguf.GGUFReader(path)
        mods = {}
        for t in r.tensors:
            if t.tensor_type not in BITS:
                continue
            raw = np.array(t.data)
            if t.tensor_type == QT.Q4_0:
                codes, w = q4_0_view(raw)
            elif t.tensor_type in (QT.Q4_K, QT.Q6_K):
                codes, w = kquant_view(raw, t.tensor_type)
            elif t.tensor_type in GRID:
                codes, w = grid_view(raw, t.tensor_type)
            elif t.tensor_type in (QT.Q5_K, QT.IQ4_NL, QT.IQ4_XS, QT.MXFP4, QT.Q2_K, QT.Q3_K, QT.TQ1_0, QT.TQ2_0):
                codes, w = iquant_view(raw, t.tensor_type)
            else:
                codes, w = block_view(raw, t.tensor_type)
            prefix = t.name[:-len(".weight")] if t.name.endswith(".weight") and len(t.name) > 7 else t.name
            mods[prefix] = module_pin(logical_shape(t.shape), BITS[t.tensor_type], codes.tobytes(), w.astype("<f4").tobytes())
        return mods
    finally:
        os.unlink(path)


def q4(x):
    return quantize(np.asarray(x, dtype=np.float32), QT.Q4_0)


def pack_codes(codes, d):
    """Q4_0 blocks from codes [rows, K] (K % 32 == 0) and one fp16 scale per block, from the
    layout: byte j = code j | code j+16 << 4."""
    codes = np.asarray(codes, dtype=np.uint8)
    rows, k = codes.shape
    blocks = codes.reshape(rows, k // 32, 32)
    qs = blocks[..., :16] | (blocks[..., 16:] << 4)
    dd = np.broadcast_to(np.asarray(d, dtype=np.float16), (rows, k // 32)).copy().view(np.uint8).reshape(rows, k // 32, 2)
    return np.concatenate([dd, qs], axis=-1).reshape(rows, k // 32 * 18)


# ---------------------------------------------------------------------------------------------
# valid files

def gen_valid(out):
    rng = np.random.default_rng(20260330)
    attn = rng.standard_normal((64, 128)).astype(np.float32)
    attn[5] = 0.0  # an all-zero row: d = -0.0 stored as 0x8000 in every block
    down = (rng.standard_normal((96, 64)) * 0.02).astype(np.float32)
    exps = rng.standard_normal((4, 32, 64)).astype(np.float32)
    norm = rng.standard_normal(128).astype(np.float32)
    vec = rng.standard_normal(64).astype(np.float32)
    qa = q4(attn)
    d = qa.reshape(-1, 18)[:, :2].copy().view(np.float16).ravel()
    assert (d.view(np.uint16) == 0x8000).sum() >= 4 and (d < 0).sum() > 0, "want -0.0 and negative scales"
    tensors = [("blk.0.attn_q.weight", qa, QT.Q4_0), ("blk.0.ffn_down.weight", q4(down), QT.Q4_0),
               ("blk.0.ffn_up_exps.weight", q4(exps), QT.Q4_0), ("output_norm.weight", norm, None),
               ("rope_freqs", q4(vec), QT.Q4_0)]
    data = write_with_gguf(tensors)
    out.case("gguf", "q4_0-shapes", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_Q}: randn (seeded) Q4_0 [64,128] with one all-zero row (d = -0.0), [96,64], MoE [4,32,64], "
                    f"a 1-D [64] tensor named without .weight, and an F32 [128] beside them; default alignment 32",
             rules=["GGUF-001", "GGUF-002", "GGUF-027", "GGUF-028", "Q40-001", "Q40-002"], modules=pins(data))
    # CONTRACT 3: a declared n_dims = 3 with ne2 = 1 is the view [1, 4, 256]; a ggml-based reader (ggml pads ne
    # with 1s) writes [4, 256], which certify accepts (leading 1s dropped from both). cli_certify_shapes uses it.
    lead = np.random.default_rng(20261202).standard_normal((1, 4, 256)).astype(np.float32)
    data = write_with_gguf([("blk.0.attn_k.weight", q4(lead), QT.Q4_0)])
    assert pins(data)["blk.0.attn_k"]["shape"] == [1, 4, 256]
    out.case("gguf", "q4_0-3d-leading-1", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_Q}: randn (seeded) Q4_0 of numpy shape (1, 4, 256): n_dims 3, ne = [256, 4, 1]",
             rules=["GGUF-019", "Q40-001"], modules=pins(data))
    for a in (1, 8, 64):
        data = write_with_gguf([("blk.0.attn_k.weight", q4(attn[:16]), QT.Q4_0), ("blk.0.attn_norm.weight", norm[:7], None),
                                ("blk.0.attn_v.weight", q4(down[:8]), QT.Q4_0)], alignment=a)
        out.case("gguf", f"q4_0-align-{a}", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
                 source=f"{SRC_Q} with add_custom_alignment({a}); an F32 tensor of 7 elements between the Q4_0 ones forces padding",
                 rules=["GGUF-012", "GGUF-026", "GGUF-027"], modules=pins(data), profile="compat" if a == 1 else None,
                 notes="alignment 1 is not a multiple of 8: GGUF-034 rejects it under the strict profile, so this "
                       "positive case runs under compat (ggml accepts alignment 1)" if a == 1 else None)

    # The seed's probes as codes. Patterned: every 32-element block holds code 0, so the reference
    # quantizer reproduces it exactly from x = (u - 8) * 2^-3; random and all-15 are packed here.
    r, c = np.meshgrid(np.arange(64), np.arange(256), indexing="ij")
    patterned = ((r * 7 + c * 3) % 16).astype(np.uint8)
    qp = q4((patterned.astype(np.float32) - 8) * np.float32(0.125))
    assert np.array_equal(q4_0_view(qp)[0].reshape(64, 256), patterned)
    rand = np.random.default_rng(0).integers(0, 16, size=(64, 256), dtype=np.uint8)
    scales = np.where(np.arange(64 * 8).reshape(64, 8) % 3 == 0, -0.25, 0.5).astype(np.float16)
    qr = pack_codes(rand, scales)
    q15 = pack_codes(np.full((8, 64), 15, np.uint8), np.float16(-1.5))
    assert np.array_equal(q4_0_view(qr)[0].reshape(64, 256), rand)
    data = write_with_gguf([("probe.patterned.weight", qp, QT.Q4_0), ("probe.random.weight", qr, QT.Q4_0),
                            ("probe.all15.weight", q15, QT.Q4_0)])
    out.case("gguf", "q4_0-probes", verdict="pass", layout="gguf", files={"probes.gguf": data}, input="probes.gguf",
             source=f"{SRC_W}: seed probes as Q4_0 codes: patterned u=(r*7+c*3)%16 [64,256] via gguf.quants.quantize "
                    f"of (u-8)/8; random codes (numpy default_rng(0)) [64,256] with scales 0.5 and -0.25, and all-15 [8,64] "
                    f"with d = -1.5, both packed from the layout (byte j = code j | code j+16 << 4)",
             rules=["Q40-001", "Q40-002"], modules=pins(data))

    # FORMATS.md 7.6 worked vectors through gguf's quantizer.
    j = np.arange(32, dtype=np.float32)
    x70 = np.zeros(32, np.float32)
    x70[0] = 70000
    wv = q4(np.stack([np.zeros(32, np.float32), j - 16, 16 - j, x70]))
    want = [bytes.fromhex("0080" + "88" * 16), bytes.fromhex("0040" + "8091 91a2 a2b3 b3c4 c4d5 d5e6 e6f7 f7f8".replace(" ", "")),
            bytes.fromhex("00c0" + "8091 91a2 a2b3 b3c4 c4d5 d5e6 e6f7 f7f8".replace(" ", "")),
            bytes.fromhex("46f0" + "80" + "88" * 15)]
    assert [bytes(b) for b in wv] == want, "gguf's quantizer disagrees with FORMATS.md 7.6"
    data = write_with_gguf([("worked.weight", wv, QT.Q4_0)])
    out.case("gguf", "q4_0-worked-vectors", verdict="pass", layout="gguf", files={"worked.gguf": data}, input="worked.gguf",
             source=f"{SRC_Q}: FORMATS.md 7.6 rows (all zero; j-16, d=+2; 16-j, d=-2; 70000 then zeros, d=-8752), bytes asserted",
             rules=["Q40-002"], modules=pins(data))

    f16 = rng.standard_normal((8, 32)).astype(np.float16)
    q8 = quantize(rng.standard_normal((4, 64)).astype(np.float32), QT.Q8_0)
    q41 = quantize(rng.standard_normal((2, 64)).astype(np.float32), QT.Q4_1)
    data = write_with_gguf([("a.f32.weight", norm[:32].reshape(4, 8), None), ("b.f16.weight", f16, None),
                            ("c.q8_0.weight", q8, QT.Q8_0), ("d.q4_1.weight", q41, QT.Q4_1),
                            ("e.q4_0.weight", q4(down[:4]), QT.Q4_0)])
    out.case("gguf", "mixed-types", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: F32, F16, Q8_0 and Q4_1 (gguf.quants.quantize) beside one Q4_0 tensor: all three block types decoded",
             rules=["GGUF-022", "GGUF-023", "GGUF-024"], modules=pins(data))
    data = write_with_gguf([("a.f32.weight", norm[:32].reshape(4, 8), None), ("c.q8_0.weight", q8, QT.Q8_0)])
    out.case("gguf", "no-q4_0", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: F32 and Q8_0 only: a valid container without Q4_0, its Q8_0 tensor decoded",
             rules=["GGUF-022", "GGUF-028", "GQ-001", "GQ-002"], modules=pins(data))
    iq2 = np.zeros((2, 66), np.uint8)  # two all-zero IQ2_XXS blocks: decoded since the grid types (all 0.0)
    data = write_with_gguf([("a.f32.weight", norm[:32].reshape(4, 8), None), ("k.iq2_xxs.weight", iq2, QT.IQ2_XXS)])
    out.case("gguf", "checked-iq2_xxs", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: F32 and a [2, 256] IQ2_XXS tensor (raw zero blocks: d = 0, grid row 0): decoded, every weight 0",
             rules=["GGUF-022", "GQ-001", "GQ-002"], modules=pins(data))
    q8k = np.zeros((2, 292), np.uint8)  # two all-zero Q8_K blocks: a type not decoded (ggml's activation type)
    data = write_with_gguf([("a.f32.weight", norm[:32].reshape(4, 8), None), ("k.q8_k.weight", q8k, QT.Q8_K)])
    out.case("gguf", "unchecked-q8_k", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: F32 and a [2, 256] Q8_K tensor (raw zero blocks): a block type not decoded is unchecked",
             rules=["GGUF-022"], modules={})
    data = write_with_gguf([], kvs={"general.name": "metadata only"})
    out.case("gguf", "metadata-only", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: no tensors (the data section starts unpadded at the header end)", rules=["GGUF-004", "GGUF-011"])
    v3 = write_with_gguf([("x.weight", q4(down[:2]), QT.Q4_0)])
    v2 = v3[:4] + struct.pack("<I", 2) + v3[8:]
    out.case("gguf", "version-2", verdict="pass", layout="gguf", files={"model.gguf": v2}, input="model.gguf",
             source=f"{SRC_Q}, then the version field patched from 3 to 2 (ggml and gguf-py read v2 and v3 alike)",
             rules=["GGUF-002"], modules=pins(v2))
    be = write_with_gguf([("x.weight", q4(down[:2]), QT.Q4_0)], big_endian=True)
    assert be[:4] == b"GGUF" and be[4:8] == b"\0\0\0\3"
    # GGUF-038: the spec permits big-endian v3; packcheck cannot read it (strict: its own LIMIT, certify `either`),
    # ggml on a little-endian host refuses it (compat: MUST). The twin carries the compat expectation.
    for name, prof in (("big-endian-gguf-py", None), ("big-endian-gguf-py-compat", "compat")):
        out.case("gguf", name, verdict="reject", reject_rule="GGUF-038", files={"model.gguf": be},
                 input="model.gguf", rules=["GGUF-038"], profile=prof,
                 source=f"{SRC_Q} with endianess=GGUFEndian.BIG: the magic stays \"GGUF\", the version reads 0x03000000 "
                        f"in little-endian ({'compat: MUST, ggml refuses it' if prof else 'strict: LIMIT, the spec permits it but packcheck reads little-endian only'})")
    # GGUF-014 as llama.cpp reads it today: INT32 scores (gguf-py writes them when every score is an
    # integer; llama.cpp PR #27260) and scores longer than the token list (refused only when shorter).
    def tok(scores):
        return lambda w: (w.add_token_list(["a", "b", "c"]), w.add_token_scores(scores))
    data = write_with_gguf([("x.weight", q4(down[:2]), QT.Q4_0)], extra=tok([0, -1, -2]))
    out.case("gguf", "tokenizer-scores-i32", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_Q}: add_token_list of 3 tokens, add_token_scores([0, -1, -2]): gguf-py writes an ARRAY of INT32 "
                    f"(llama.cpp reads it since PR #27260, issue #27254)", rules=["GGUF-014"], modules=pins(data))
    data = write_with_gguf([("x.weight", q4(down[:2]), QT.Q4_0)], extra=tok([0.0, -1.0, -2.0, -3.0]))
    out.case("gguf", "tokenizer-scores-long", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_Q}: 3 tokens and 4 FLOAT32 scores (llama.cpp refuses only fewer scores than tokens, PR #20737)",
             rules=["GGUF-014"], modules=pins(data))
    zero_rows = write_with_gguf([("empty.weight", np.zeros((0, 18), np.uint8), QT.Q4_0), ("x.weight", q4(down[:2]), QT.Q4_0)])
    out.case("gguf", "q4_0-ne1-zero", verdict="pass", layout="gguf", files={"model.gguf": zero_rows}, input="model.gguf",
             source=f"{SRC_Q}: a Q4_0 tensor with ne = [32, 0] (ggml c2cdd2b2: ne1 = 0 must load) beside a normal one",
             rules=["GGUF-020", "GGUF-021"], modules=pins(zero_rows))
    return v3


# ---------------------------------------------------------------------------------------------
# hostile files: one defect each

def base_kvs():
    return [kv("general.architecture", STRING, "llama"), kv("general.alignment", U32, 32),
            kv("llama.block_count", U32, 1), kv("general.tags", ARRAY, ["q4_0", "test"], etype=STRING)]


def base_tensors():
    blocks = bytes(q4(np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)).ravel())
    return [tensor("blk.0.attn_q.weight", [32, 2], "Q4_0", data=blocks), tensor("output_norm.weight", [4], "F32")]


def reject(out, family, name, rule, data, why, *, profile=None):
    out.case(family, name, verdict="reject", reject_rule=rule, files={"bad.gguf": data}, input="bad.gguf",
             source=f"{SRC_H}: {why}", rules=[rule], profile=profile)


def passing(out, name, data, rules, why, profile=None):
    out.case("gguf", name, verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_H}: {why}", rules=rules, modules=pins(data), profile=profile)


def gen_header(out):
    good, _ = gguf_file(base_kvs(), base_tensors())
    passing(out, "hand-built-base", good, ["GGUF-003", "GGUF-027", "GGUF-030"], "the valid file every hostile case below breaks once")
    reject(out, "gguf", "magic-bad", "GGUF-001", b"GGUX" + good[4:], "magic GGUX")
    reject(out, "gguf", "magic-byte-swapped", "GGUF-001", b"FUGG" + good[4:], "magic FUGG (byte-swapped)")
    for v, n in ((0, "version-0"), (1, "version-1"), (4, "version-4"), (0x02000000, "version-byte-swapped-2")):
        reject(out, "gguf", n, "GGUF-002", gguf_file(base_kvs(), base_tensors(), version=v)[0], f"version field {v:#x}")
    reject(out, "gguf", "version-byte-swapped", "GGUF-038", gguf_file(base_kvs(), base_tensors(), version=0x03000000)[0],
           "version field 0x3000000 (a byte-swapped 3: big-endian v3, GGUF-038)")
    reject(out, "gguf", "n-kv-huge", "GGUF-004", gguf_file(base_kvs(), base_tensors(), n_kv=1 << 63)[0],
           "n_kv = 2^63 (CVE-2024-23605: n_kv integer overflow)")
    reject(out, "gguf", "n-tensors-negative", "GGUF-004", gguf_file(base_kvs(), base_tensors(), n_tensors=-1)[0],
           "n_tensors = -1 as i64")
    reject(out, "gguf", "n-kv-1-no-bytes", "GGUF-004", gguf_file([], [], n_kv=1)[0], "n_kv = 1 and nothing after the counts")
    reject(out, "gguf", "n-tensors-huge", "GGUF-004", gguf_file(base_kvs(), base_tensors(), n_tensors=(1 << 62) + 1)[0],
           "n_tensors = 2^62 + 1 (count x record size overflows 64 bits)")


def gen_kv(out):
    k = base_kvs()
    t = base_tensors()
    data = bytearray(gguf_file(k + [kv("general.name", STRING, "abcdef")], [])[0])
    struct.pack_into("<Q", data, len(data) - 6 - 8, 1000)
    reject(out, "gguf", "string-length-past-eof", "GGUF-006", bytes(data), "string length 1000 with 6 bytes left")
    data = bytearray(gguf_file(k + [kv("general.name", STRING, "abcdef")], [])[0])
    struct.pack_into("<Q", data, len(data) - 6 - 8, 1 << 40)
    reject(out, "gguf", "string-length-2-40", "GGUF-007", bytes(data), "string length 2^40 (absurd)")
    reject(out, "gguf", "array-count-past-eof", "GGUF-006",
           gguf_file(k + [kv("x.arr", ARRAY, struct.pack("<4I", 1, 2, 3, 4), etype=U32, count=1000)], [])[0],
           "UINT32 array of 1000 elements with 16 bytes left")
    reject(out, "gguf", "string-array-count-past-eof", "GGUF-006",
           gguf_file(k + [kv("x.arr", ARRAY, struct.pack("<Q", 1) + b"a", etype=STRING, count=100)], [])[0],
           "STRING array of 100 elements: 100 x 8 length bytes exceed the 9 bytes left")
    reject(out, "gguf", "array-count-2-63", "GGUF-007",
           gguf_file([kv("a", ARRAY, b"", etype=U8, count=1 << 63)], [])[0],
           "array count 2^63 in a tiny file (gguf-py PR #27188: hung gguf 0.19.0)")
    reject(out, "gguf", "value-type-13", "GGUF-008", gguf_file(k + [kv("x.y", 13, b"\0" * 8)], [])[0], "value type 13")
    reject(out, "gguf", "value-type-negative", "GGUF-008", gguf_file(k + [kv("x.y", 0xFFFFFFFF, b"\0" * 8)], [])[0], "value type -1")
    reject(out, "gguf", "array-element-type-13", "GGUF-008", gguf_file(k + [kv("x.y", ARRAY, b"", etype=13, count=0)], [])[0],
           "array element type 13")
    nested = struct.pack("<IQ", U8, 2) + b"\1\2"
    reject(out, "gguf", "nested-array", "GGUF-009", gguf_file(k + [kv("x.y", ARRAY, nested, etype=ARRAY, count=1)], [])[0],
           "an ARRAY of ARRAY (ggml rejects element type 9)")
    reject(out, "gguf", "empty-key", "GGUF-010", gguf_file(k + [kv("", U32, 1)], t)[0], "an empty key (ggml 64b07822)")
    reject(out, "gguf", "duplicate-key", "GGUF-011", gguf_file(k + [kv("llama.block_count", U32, 2)], t)[0],
           "llama.block_count defined twice")
    for name, val, why in (("alignment-0", kv("general.alignment", U32, 0), "general.alignment = 0"),
                           ("alignment-u64", kv("general.alignment", U64, 32), "general.alignment typed UINT64"),
                           ("alignment-i32", kv("general.alignment", I32, 32), "general.alignment typed INT32 (llama.cpp PR #25596)")):
        kk = [val] + [x for x in k if x[0] != "general.alignment"]
        reject(out, "gguf", name, "GGUF-012", gguf_file(kk, t)[0], why)
    # GGUF-037: 24 is the spec's (a multiple of 8) but not ggml's (a power of two): strict warns, compat refuses.
    # gguf-py refuses the file too, so the pins come from the same tensors at alignment 32 (the bytes are the same).
    kk = [kv("general.alignment", U32, 24)] + [x for x in k if x[0] != "general.alignment"]
    a24 = gguf_file(kk, t, align=24)[0]
    out.case("gguf", "alignment-24", verdict="pass", layout="gguf", files={"model.gguf": a24}, input="model.gguf",
             source=f"{SRC_H}: general.alignment = 24 (strict: GGUF-037 warns, docs/gguf.md asks only a multiple of 8)",
             rules=["GGUF-037", "GGUF-034"], modules=pins(gguf_file(k, t)[0]))
    reject(out, "gguf", "alignment-24-compat", "GGUF-037", a24, "general.alignment = 24 under compat (ggml: not a power of 2)",
           profile="compat")
    kk = [kv("general.alignment", U32, 1 << 21)] + [x for x in k if x[0] != "general.alignment"]
    reject(out, "gguf", "alignment-2mib", "GGUF-013", gguf_file(kk, [])[0], "general.alignment = 2^21, no tensors (ggml PR #1516)")
    toks = [kv("tokenizer.ggml.tokens", ARRAY, ["a", "b", "c"], etype=STRING)]
    reject(out, "gguf", "tokenizer-scores-u8", "GGUF-014",
           gguf_file(k + toks + [kv("tokenizer.ggml.scores", ARRAY, [1, 2, 3], etype=U8)], t)[0],
           "tokenizer.ggml.scores as a UINT8 array (llama.cpp PR #26690 heap over-read)")
    reject(out, "gguf", "tokenizer-token-type-short", "GGUF-014",
           gguf_file(k + toks + [kv("tokenizer.ggml.token_type", ARRAY, [1, 1], etype=I32)], t)[0],
           "tokenizer.ggml.token_type with 2 entries for 3 tokens")


def gen_tensors(out):
    k = base_kvs()
    q = base_tensors()[0]
    f = base_tensors()[1]

    def one(name, rule, ts, why, **kw):
        reject(out, "gguf", name, rule, gguf_file(k, ts, **kw)[0], why)

    one("name-65-bytes", "GGUF-015", [dict(q, name="n" * 65), f], "a 65-byte tensor name (docs/gguf.md: at most 64)")
    # GGUF-036: 64 bytes is the spec's bound, one over ggml's (GGML_MAX_NAME counts the NUL): strict warns, compat refuses.
    n64 = gguf_file(k, [dict(q, name="n" * 64), f])[0]
    passing(out, "name-64-bytes", n64, ["GGUF-015", "GGUF-036"], "a 64-byte tensor name (strict: GGUF-036 warns; the spec allows 64)")
    reject(out, "gguf", "name-64-bytes-compat", "GGUF-036", n64, "a 64-byte tensor name under compat (ggml: 64 >= GGML_MAX_NAME)",
           profile="compat")
    # GGUF-016/017 are SHOULD in both profiles (docs/gguf.md does not forbid an empty name or U+0000):
    # the strict cases pass with a warning; the NUL alias of another tensor's name breaks GGUF-018.
    out.case("gguf", "name-empty", verdict="pass", layout="gguf",
             files={"model.gguf": gguf_file(k, [dict(q, name=""), f])[0]}, input="model.gguf",
             source=f"{SRC_H}: an empty tensor name (strict: GGUF-016 warns; the spec does not forbid it)", rules=["GGUF-016"],
             modules={"": pins(gguf_file(k, [dict(q, name="x"), f])[0])["x"]})
    passing(out, "name-with-nul", gguf_file(k, [q, dict(f, name="f32\0hidden")])[0], ["GGUF-017"],
            "an F32 tensor name holding NUL (strict: GGUF-017 warns; U+0000 is valid UTF-8)")
    one("name-nul-alias", "GGUF-018", [q, dict(f, name=q["name"] + "\0b")],
        "a second tensor named blk.0.attn_q.weight NUL b: a C-string duplicate of the first (ggml 0.25.3 accepts it, "
        "the second tensor unreachable by name)")
    one("name-duplicate", "GGUF-018", [q, dict(f, name=q["name"])], "two tensors named blk.0.attn_q.weight")
    one("name-not-utf8", "GGUF-035", [dict(q, name=b"blk.0.\xff.weight"), f], "a tensor name holding byte ff (not UTF-8)")
    one("n-dims-5", "GGUF-019", [tensor("x", [32, 1, 1, 1, 1], "F32"), f], "n_dims = 5 (ggml PR #709)")
    one("ne-negative", "GGUF-020", [tensor("x", [-1 & 0xFFFFFFFFFFFFFFFF, 1], "F32", nbytes=0), f], "ne[0] = -1")
    one("ne-product-wraps", "GGUF-021", [tensor("x", [1 << 32, 1 << 32], "F32", nbytes=0), f],
        "F32 ne = [2^32, 2^32]: the element count wraps to 0 (ggml d99724f accepts it; FORMATS.md 8.1)")
    one("ne-huge-cve-2024-21802", "GGUF-021", [tensor("x", [1 << 40, 1 << 40, 1 << 40], "F32", nbytes=0), f],
        "ne = [2^40, 2^40, 2^40] (CVE-2024-21802: heap overflow via info->ne)")
    for tid in (4, 31, 43, -1):
        one(f"type-{tid if tid >= 0 else 'negative'}", "GGUF-022", [dict(q, type=tid & 0xFFFFFFFF), f], f"ggml type {tid}")
    # The type registry (container/gguf_types.c): fork-only ids (GGUF-039) and fork-era collisions (GGUF-040), with
    # each fork's block geometry, so the bytes are what the fork writes (random codes, fp16 d = 1.0 in each block).
    def fork_blocks(nblocks, size, d_at):
        rng = np.random.default_rng(20261204 + size)
        b = rng.integers(0, 256, (nblocks, size), dtype=np.uint8)
        b[:, d_at:d_at + 2] = np.frombuffer(np.float16(1.0).tobytes(), np.uint8)
        return b.tobytes()
    for tid, name, size, d_at in ((142, "PQ2_0", 34, 0), (143, "PTQ1_0", 28, 26)):
        one(f"type-{tid}-prismml-{name.lower()}", "GGUF-039",
            [q, f, tensor("blk.0.ffn_down.weight", [128, 2], "F32", type_id=tid, nbytes=2 * size, data=fork_blocks(2, size, d_at))],
            f"a [2, 128] tensor of ggml type {tid} (PrismML fork {name}, {size} bytes per 128; llama.cpp #29058)")
    one("fork-q2_0-g128-as-42", "GGUF-040",
        [q, f] + [tensor(f"blk.0.ffn_{p}.weight", [256, 8], "F32", type_id=42, nbytes=16 * 34, data=fork_blocks(16, 34, 0))
                  for p in ("up", "down")],
        "two [8, 256] tensors of type 42 laid out as PrismML prism-v5's group-128 Q2_0 (34 bytes per 128; "
        "PrismML-Eng/llama.cpp #167), not upstream's group-64 (18 bytes per 64)")
    one("fork-q1_0-g32-as-40", "GGUF-040",
        [q, f, tensor("blk.0.ffn_up.weight", [96, 2], "F32", type_id=40, nbytes=6 * 6, data=fork_blocks(6, 6, 0))],
        "a [2, 96] tensor of type 40 laid out as PrismML's early group-32 Q1_0 (6 bytes per 32; llama-turboquant PR #6), "
        "not upstream NVFP4 (36 bytes per 64)")
    one("q4_0-ne0-33", "GGUF-023", [tensor("x.weight", [33, 1], "Q4_0", nbytes=18), f], "Q4_0 with ne[0] = 33")
    one("nbytes-cve-2026-33298", "GGUF-024", [tensor("x", [1 << 62], "F32", nbytes=1 << 64), f],
        "F32 ne[0] = 2^62: byte size 2^64 (CVE-2026-33298)")
    one("pad-wrap-26978", "GGUF-024", [tensor("x", [4, (1 << 30) - 1, (1 << 30) + 1, 1], "F32", nbytes=(1 << 64) - 16, offset=0)],
        "384-byte-class F32 [4, 2^30-1, 2^30+1, 1]: nbytes 2^64-16, PAD wraps to 0 (llama.cpp #26978; ggml d99724f accepts)")
    big = 0x7FFFFFFFFFFFFFC0
    one("mem-size-cve-2026-27940", "GGUF-025",
        [tensor("a", [big], "I8", offset=0), tensor("b", [big], "I8", offset=big)],
        "two I8 tensors of ne0 = 0x7FFFFFFFFFFFFFC0 at their running offsets (CVE-2026-27940)")
    third = 0x6000000000000000
    one("size-sum-cve-2025-53630", "GGUF-025",
        [tensor("a", [third], "I8", offset=0), tensor("b", [third], "I8", offset=third), tensor("c", [32], "I8", offset=2 * third)],
        "I8 tensors of 0x6000000000000000 bytes: the running padded size passes 2^63 (CVE-2025-53630)")
    one("offset-unaligned", "GGUF-026", [q, dict(f, offset=48)], "second tensor at offset 48 with alignment 32")
    one("offset-gap", "GGUF-027", [dict(q, offset=32), f], "single first tensor at offset 32 (a gap)")
    one("offset-out-of-order", "GGUF-027", [dict(q, offset=32), dict(f, offset=0)], "offsets swapped")
    data, _ = gguf_file(k, [q, f])
    reject(out, "gguf", "data-past-eof", "GGUF-028", data[:-40], "the last tensor's data cut short")
    nz, _ = gguf_file(k, [q, f], pad_byte=0x5A)
    passing(out, "padding-nonzero", nz, ["GGUF-030"], "non-zero pre-data padding (GGUF-030 warns in strict; ggml accepts)")
    short, _ = gguf_file(k, [f, q], final_pad=False)
    passing(out, "no-final-padding", short, ["GGUF-029"],
            "the data section ends at the last tensor's last byte (GGUF-029 warns; ggml no_alloc loads it)")
    reject(out, "gguf", "bool-2", "GGUF-031", gguf_file(k + [kv("x.flag", BOOL, 2)], [q, f])[0],
           "a BOOL value of 2 (strict: docs/gguf.md 'anything else is invalid')")
    passing(out, "key-not-snake-case", gguf_file(k + [kv("General.Name", STRING, "x")], [q, f])[0], ["GGUF-032"],
            "key General.Name (warns in strict)")
    passing(out, "string-not-utf8", gguf_file(k + [kv("general.name", STRING, b"\xff\xfe")], [q, f])[0], ["GGUF-033"],
            "string value ff fe (warns in strict)")
    kk = [kv("general.alignment", U32, 4)] + [x for x in k if x[0] != "general.alignment"]
    reject(out, "gguf", "alignment-4", "GGUF-034", gguf_file(kk, [q, f], align=4)[0],
           "alignment 4 (strict: docs/gguf.md 'must be a multiple of 8'; ggml accepts)")
    # The compat profile relaxes what ggml accepts: the same files pass there without a warning.
    passing(out, "padding-nonzero-compat", nz, ["GGUF-030"], "non-zero pre-data padding under compat (GGUF-030 off)", profile="compat")
    passing(out, "bool-2-compat", gguf_file(k + [kv("x.flag", BOOL, 2)], [q, f])[0], ["GGUF-031"], "a BOOL value of 2 under compat", profile="compat")
    passing(out, "key-not-snake-case-compat", gguf_file(k + [kv("General.Name", STRING, "x")], [q, f])[0], ["GGUF-032"],
            "key General.Name under compat", profile="compat")
    passing(out, "string-not-utf8-compat", gguf_file(k + [kv("general.name", STRING, b"\xff\xfe")], [q, f])[0], ["GGUF-033"],
            "string value ff fe under compat", profile="compat")
    passing(out, "alignment-4-compat", gguf_file(kk, [q, f], align=4)[0], ["GGUF-034"], "alignment 4 under compat", profile="compat")
    passing(out, "name-with-nul-compat", gguf_file(k, [q, dict(f, name="f32\0hidden")])[0], ["GGUF-017"],
            "an F32 tensor name holding NUL under compat (GGUF-017 warns; ggml compares names as C strings)", profile="compat")
    out.case("gguf", "name-empty-compat", verdict="pass", layout="gguf", profile="compat",
             files={"model.gguf": gguf_file(k, [dict(q, name=""), f])[0]}, input="model.gguf",
             source=f"{SRC_H}: an empty tensor name under the compat profile (ggml accepts it)", rules=["GGUF-016"],
             modules={"": pins(gguf_file(k, [dict(q, name="x"), f])[0])["x"]})


def gen_truncations(out):
    """One case per section boundary of the hand-built base file, truncated right there."""
    kvs, ts = base_kvs(), base_tensors()
    data, marks = gguf_file(kvs, ts)
    min_header = 13 * len(kvs) + 24 * len(ts)
    last = ts[-1]
    done = set()
    for off, label, kind in marks:
        if off in done or off >= len(data):
            continue
        done.add(off)
        if off < 4:
            rule = "GGUF-001"
        elif off < 24:
            rule = "GGUF-003"
        elif off - 24 < min_header:
            rule = "GGUF-004"
        elif label.startswith("kv") and "[" in label:
            rule = "GGUF-006"  # array elements: the count x element size bound sees the cut first
        elif kind == "fixed":
            rule = "GGUF-003"
        elif kind == "bytes":
            rule = "GGUF-006"
        elif label == f"ti{len(ts) - 1} padding":
            continue  # only the final padding missing: valid (case no-final-padding)
        else:
            rule = "GGUF-028"
        slug = label.replace(" ", "-").replace("[", "-").replace("]", "")
        reject(out, "gguf", f"trunc-{off:04d}-{slug}", rule, data[:off],
               f"the base file truncated at byte {off}, where {label} starts ({kind})")
    assert last["name"] == "output_norm.weight"


def gen_q40(out, v3):
    fd, path = tempfile.mkstemp(suffix=".gguf")
    with os.fdopen(fd, "wb") as f:
        f.write(v3)
    try:
        start = gguf.GGUFReader(path).tensors[0].data_offset
    finally:
        os.unlink(path)
    for name, dbits in (("d-inf", 0x7C00), ("d-neg-inf", 0xFC00), ("d-nan", 0x7E00)):
        b = bytearray(v3)
        struct.pack_into("<H", b, start + 18, dbits)
        out.case("q40", name, verdict="reject", reject_rule="Q40-002", files={"model.gguf": bytes(b)}, input="model.gguf",
                 source=f"{SRC_Q} ([2,32] Q4_0), then block 1's d patched to {dbits:#06x}", rules=["Q40-002"])
    k = base_kvs()
    q = base_tensors()[0]
    out.case("q40", "prefix-collision", verdict="reject", reject_rule="Q40-003", input="bad.gguf",
             files={"bad.gguf": gguf_file(k, [dict(q, name="blk.0.attn_q"), q])[0]},
             source=f"{SRC_H}: Q4_0 tensors blk.0.attn_q and blk.0.attn_q.weight map to one module prefix", rules=["Q40-003"])


# ---------------------------------------------------------------------------------------------
# family gq: Q8_0, Q4_1, Q5_0, Q5_1

SRC_GQ = f"gguf {VER} GGUFWriter + gguf.quants.quantize"
F16 = lambda bits: np.array([bits], np.uint16).view(np.float16)[0]  # noqa: E731


def pack_blocks(qt, codes, d, m=None):
    """Blocks of one of the GQ types from codes [rows, K] (K % 32 == 0, the stored quant: Q8_0 the
    int8 byte as u8, else 0..15 / 0..31) and one fp16 d (and m) per block, from ggml's block structs:
    Q8_0 d, qs[32]; Q4_1 d, m, qs[16]; Q5_0 d, qh (LE u32, bit e = bit 4 of code e), qs[16];
    Q5_1 d, m, qh, qs[16]; qs byte j = low 4 bits of code j | those of code j+16 << 4."""
    codes = np.asarray(codes, dtype=np.uint8)
    rows, k = codes.shape
    nb = k // 32
    blk = codes.reshape(rows, nb, 32)

    def half(v):
        return np.broadcast_to(np.asarray(v, dtype=np.float16), (rows, nb)).copy().view(np.uint8).reshape(rows, nb, 2)

    parts = [half(d)]
    if qt in (QT.Q4_1, QT.Q5_1):
        parts.append(half(m))
    if qt == QT.Q8_0:
        parts.append(blk)
    else:
        if qt in (QT.Q5_0, QT.Q5_1):
            hb = ((blk >> 4) & 1).astype(np.uint32) << np.arange(32, dtype=np.uint32)
            parts.append(hb.sum(axis=-1, dtype=np.uint32).astype("<u4").view(np.uint8).reshape(rows, nb, 4))
        lo = blk & 15
        parts.append(lo[..., :16] | (lo[..., 16:] << 4))
    return np.concatenate(parts, axis=-1).reshape(rows, nb * BLOCKS[qt][0])


MAXCODE = {QT.Q8_0: 256, QT.Q4_1: 16, QT.Q5_0: 32, QT.Q5_1: 32}
ALLMAX = {QT.Q8_0: 0x7F, QT.Q4_1: 15, QT.Q5_0: 31, QT.Q5_1: 31}
GQ_TYPES = (QT.Q8_0, QT.Q4_1, QT.Q5_0, QT.Q5_1)


def gen_gq(out):
    rng = np.random.default_rng(20261201)
    # gguf-py's own quantizers (held bit-exact to ggml's quantize_row_<type>_ref by gguf's tests):
    # 2-D, MoE 3-D and 1-D tensors of each type, one row all zero.
    ts = []
    for qt in GQ_TYPES:
        t = qt.name.lower()
        x = rng.standard_normal((16, 128)).astype(np.float32)
        x[3] = 0.0
        ts += [(f"blk.0.{t}_2d.weight", quantize(x, qt), qt),
               (f"blk.0.{t}_exps.weight", quantize(rng.standard_normal((2, 8, 64)).astype(np.float32), qt), qt),
               (f"{t}_1d", quantize(rng.standard_normal(96).astype(np.float32), qt), qt)]
    ts.append(("output_norm.weight", rng.standard_normal(128).astype(np.float32), None))
    data = write_with_gguf(ts)
    out.case("gq", "quantized", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_GQ}(Q8_0, Q4_1, Q5_0, Q5_1) of seeded randn: [16,128] with one all-zero row, MoE [2,8,64], "
                    f"1-D [96] named without .weight, per type; an F32 norm beside them",
             rules=["GQ-001", "GQ-002"], modules=pins(data))

    # Probes packed from the layout (the reference quantizers cannot emit them): random codes with
    # mixed-sign scales, patterned codes, all-max codes, and fp16 specials for d and m: subnormal
    # (0x0001, 0x03ff), +0, -0, negative, large (65504).
    specials = [F16(0x0001), F16(0x03FF), F16(0x0000), F16(0x8000), np.float16(-0.75), np.float16(65504), np.float16(0.5)]
    ts = []
    for qt in GQ_TYPES:
        t = qt.name.lower()
        mx = MAXCODE[qt]
        rand = rng.integers(0, mx, size=(8, 256), dtype=np.int64).astype(np.uint8)
        nblk = 8 * 8
        d = np.array([specials[i % len(specials)] for i in range(nblk)], np.float16).reshape(8, 8)
        m = np.array([specials[(i * 3 + 1) % len(specials)] for i in range(nblk)], np.float16).reshape(8, 8)
        r, c = np.meshgrid(np.arange(4), np.arange(64), indexing="ij")
        patterned = ((r * 7 + c * 3) % mx).astype(np.uint8)
        ts += [(f"probe.{t}.random.weight", pack_blocks(qt, rand, d, m), qt),
               (f"probe.{t}.patterned.weight", pack_blocks(qt, patterned, np.float16(0.125), np.float16(-1.0)), qt),
               (f"probe.{t}.allmax.weight", pack_blocks(qt, np.full((2, 64), ALLMAX[qt], np.uint8), np.float16(-1.5), np.float16(2.0)), qt)]
        for codes, (_, packed, _) in zip((rand, patterned), ts[-3:]):  # gguf reads back the codes packed here
            assert np.array_equal(block_view(packed, qt)[0].reshape(codes.shape), codes), qt.name
        if qt == QT.Q8_0:  # the int8 extremes: -128 (byte 0x80) and -1 (0xff)
            ts.append(("probe.q8_0.min.weight", pack_blocks(qt, np.tile(np.array([0x80, 0xFF, 0x00, 0x01], np.uint8), (2, 16)), np.float16(3.0)), qt))
    data = write_with_gguf(ts)
    out.case("gq", "probes", verdict="pass", layout="gguf", files={"probes.gguf": data}, input="probes.gguf",
             source=f"{SRC_W}: per type, random codes [8,256] (numpy default_rng(20261201)) with d and m cycling through fp16 "
                    f"0x0001, 0x03ff (subnormal), +0, -0, -0.75, 65504, 0.5; patterned (r*7+c*3) % max [4,64]; all-max codes "
                    f"[2,64] with d = -1.5, m = 2; Q8_0 also -128/-1/0/1; packed from ggml's block structs",
             rules=["GQ-001", "GQ-002"], modules=pins(data))

    # A llama-quantize-shaped file: Q4_0 and Q4_1 layers, output.weight in Q8_0 (llama-quantize's
    # fallback for the output tensor), F32 norms.
    x = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    ts = [("token_embd.weight", quantize(x(32, 64), QT.Q4_0), QT.Q4_0),
          ("blk.0.attn_norm.weight", x(64), None),
          ("blk.0.attn_q.weight", quantize(x(64, 64), QT.Q4_1), QT.Q4_1),
          ("blk.0.attn_k.weight", quantize(x(64, 64), QT.Q4_0), QT.Q4_0),
          ("blk.0.ffn_down.weight", quantize(x(64, 128), QT.Q4_1), QT.Q4_1),
          ("output_norm.weight", x(64), None),
          ("output.weight", quantize(x(32, 64), QT.Q8_0), QT.Q8_0)]
    data = write_with_gguf(ts)
    out.case("gq", "mixed-q4_0-q4_1-q8_0", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_GQ}: Q4_0 and Q4_1 layers side by side (a loader reading Q4_1 with Q4_0's block size fails here), "
                    f"output.weight in Q8_0 as llama-quantize writes it, F32 norms",
             rules=["Q40-001", "Q40-002", "GQ-001", "GQ-002"], modules=pins(data))

    # GQ-002: one non-finite field per type (d for Q8_0 and Q5_0, m for Q4_1 and Q5_1).
    for qt, field, bits in ((QT.Q8_0, 0, 0x7C00), (QT.Q4_1, 1, 0x7E00), (QT.Q5_0, 0, 0xFE00), (QT.Q5_1, 1, 0xFC00)):
        blocks = quantize(x(2, 64), qt)
        blocks[1, BLOCKS[qt][0] + 2 * field:BLOCKS[qt][0] + 2 * field + 2] = np.frombuffer(struct.pack("<H", bits), np.uint8)
        data = write_with_gguf([("x.weight", blocks, qt)])
        what = ("d", "m")[field]
        kind = "nan" if bits & 0x3FF else "inf"
        out.case("gq", f"{qt.name.lower()}-{what}-{kind}", verdict="reject", reject_rule="GQ-002", files={"model.gguf": data},
                 input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_GQ}({qt.name}) [2,64], then block 3's {what} patched to {bits:#06x} ({kind})")
    ts = [("blk.0.attn_q", quantize(x(2, 64), QT.Q4_0), QT.Q4_0), ("blk.0.attn_q.weight", quantize(x(2, 64), QT.Q8_0), QT.Q8_0)]
    out.case("gq", "prefix-collision", verdict="reject", reject_rule="GQ-003", files={"model.gguf": write_with_gguf(ts)},
             input="model.gguf", rules=["GQ-003"],
             source=f"{SRC_GQ}: a Q4_0 tensor blk.0.attn_q and a Q8_0 tensor blk.0.attn_q.weight map to one module prefix")


# ---------------------------------------------------------------------------------------------
# family gq, K-quants: gguf-py has no quantizer for them, so blocks are packed here from ggml's
# block structs, pinned by gguf's dequantize, which is also asserted equal to the contract's form
# computed from the packer's own inputs.

def pack_q4k(codes, d, dmin, sc, m):
    """block_q4_K from codes [n, 256] (0..15), fp16 d, dmin [n], 6-bit sc, m [n, 8]."""
    n = codes.shape[0]
    sc, m = sc.astype(np.uint8), m.astype(np.uint8)
    s = np.zeros((n, 12), np.uint8)
    s[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)  # j < 4 low 6 bits; top bits: sub j + 4's scale bits 4-5
    s[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    s[:, 8:12] = (sc[:, 4:8] & 15) | ((m[:, 4:8] & 15) << 4)
    c = codes.reshape(n, 4, 2, 32)
    qs = (c[:, :, 0, :] | (c[:, :, 1, :] << 4)).reshape(n, 128)
    h = lambda v: np.asarray(v, np.float16).reshape(n, 1).view(np.uint8)  # noqa: E731
    return np.concatenate([h(d), h(dmin), s, qs], axis=1)


def pack_q6k(codes, sc, d):
    """block_q6_K from codes [n, 256] (0..63), int8 scales [n, 16], fp16 d [n]."""
    n = codes.shape[0]
    c = codes.reshape(n, 2, 4, 32)
    lo, hi = c & 15, c >> 4
    ql = np.concatenate([lo[:, :, 0] | (lo[:, :, 2] << 4), lo[:, :, 1] | (lo[:, :, 3] << 4)], axis=2).reshape(n, 128)
    qh = (hi[:, :, 0] | (hi[:, :, 1] << 2) | (hi[:, :, 2] << 4) | (hi[:, :, 3] << 6)).reshape(n, 64)
    return np.concatenate([ql, qh, sc.astype(np.int8).view(np.uint8), np.asarray(d, np.float16).reshape(n, 1).view(np.uint8)], axis=1)


def contract_q4k(codes, d, dmin, sc, m):
    f = lambda v: np.asarray(v, np.float16).astype(np.float32).reshape(-1, 1, 1)  # noqa: E731
    d1 = (f(d) * sc.astype(np.float32).reshape(-1, 8, 1))
    m1 = (f(dmin) * m.astype(np.float32).reshape(-1, 8, 1))
    return (d1 * codes.reshape(-1, 8, 32).astype(np.float32) - m1).reshape(codes.shape)


def contract_q6k(codes, sc, d):
    ds = np.asarray(d, np.float16).astype(np.float32).reshape(-1, 1, 1) * sc.astype(np.float32).reshape(-1, 16, 1)
    return (ds * (codes.reshape(-1, 16, 16).astype(np.float32) - 32)).reshape(codes.shape)


def same_bits(a, b):
    return np.array_equal(np.asarray(a, np.float32).view(np.uint32), np.asarray(b, np.float32).view(np.uint32))


def gen_kquants(out):
    rng = np.random.default_rng(20261202)
    specials = np.array([F16(0x0001), F16(0x03FF), F16(0x0000), F16(0x8000), np.float16(-0.75), np.float16(0.5), np.float16(3.0e-3)], np.float16)
    n = 64
    b = np.arange(n).reshape(n, 1)
    j = np.arange(8).reshape(1, 8)
    sc, m = (b + 7 * j) % 64, (5 * b + 13 * j + 3) % 64  # every 6-bit value at every sub-block position, both branches
    codes4 = rng.integers(0, 16, size=(n, 256)).astype(np.uint8)
    d4, dm4 = specials[np.arange(n) % 7], specials[(np.arange(n) * 3 + 2) % 7]
    q4k = pack_q4k(codes4, d4, dm4, sc, m)
    assert same_bits(dequantize(q4k, QT.Q4_K), contract_q4k(codes4, d4, dm4, sc, m)), "gguf Q4_K != contract form"
    assert np.array_equal(kquant_view(q4k, QT.Q4_K)[0], codes4)
    slots = (np.arange(n * 16) * 37 % 256 - 128).reshape(n, 16)  # every int8 scale value
    codes6 = rng.integers(0, 64, size=(n, 256)).astype(np.uint8)
    codes6[0], codes6[1] = 63, 0
    d6 = specials[np.arange(n) % 7]
    q6k = pack_q6k(codes6, slots, d6)
    assert same_bits(dequantize(q6k, QT.Q6_K), contract_q6k(codes6, slots, d6)), "gguf Q6_K != contract form"
    assert np.array_equal(kquant_view(q6k, QT.Q6_K)[0], codes6)
    ts = [("probe.q4_k.weight", q4k.reshape(8, 8 * 144), QT.Q4_K), ("probe.q6_k.weight", q6k.reshape(8, 8 * 210), QT.Q6_K),
          ("probe.q4_k.allmax.weight", pack_q4k(np.full((2, 256), 15, np.uint8), np.float16([-1.5, 2.0]), np.float16([0.25, -0.5]),
                                                np.full((2, 8), 63), np.full((2, 8), 63)), QT.Q4_K)]
    data = write_with_gguf(ts)
    out.case("gq", "kquant-probes", verdict="pass", layout="gguf", files={"probes.gguf": data}, input="probes.gguf",
             source=f"{SRC_W}: Q4_K [8, 2048] whose 64 super-blocks give every sub-block position (get_scale_min_k4's j < 4 and "
                    f"j >= 4 branches) all 64 scale and min values, random codes (numpy default_rng(20261202)), d and dmin cycling "
                    f"through fp16 0x0001, 0x03ff (subnormal), +0, -0, -0.75, 0.5, 0.003; Q6_K [8, 2048] with every int8 scale "
                    f"-128..127, random 6-bit codes plus all-63 and all-0 blocks; Q4_K all-max (codes 15, scales and mins 63); packed "
                    f"from ggml's block structs (gguf-py has no K-quant quantizer)", rules=["GQ-001", "GQ-002"], modules=pins(data))

    # A Q4_K_M-shaped llama file: Q4_K attention and ffn, Q6_K ffn_down and output.weight, F32 norms.
    def q4k_rand(rows, cols):
        nb = rows * cols // 256
        return pack_q4k(rng.integers(0, 16, size=(nb, 256)).astype(np.uint8), np.float16(rng.uniform(0.001, 0.01, nb)),
                        np.float16(rng.uniform(0.001, 0.01, nb)), rng.integers(0, 64, (nb, 8)), rng.integers(0, 64, (nb, 8))).reshape(rows, -1)

    def q6k_rand(rows, cols):
        nb = rows * cols // 256
        return pack_q6k(rng.integers(0, 64, size=(nb, 256)).astype(np.uint8), rng.integers(-128, 128, (nb, 16)),
                        np.float16(rng.uniform(0.0001, 0.001, nb))).reshape(rows, -1)

    x = lambda *sh: rng.standard_normal(sh).astype(np.float32)  # noqa: E731
    ts = [("token_embd.weight", q4k_rand(32, 256), QT.Q4_K), ("blk.0.attn_norm.weight", x(256), None),
          ("blk.0.attn_q.weight", q4k_rand(256, 256), QT.Q4_K), ("blk.0.attn_v.weight", q6k_rand(64, 256), QT.Q6_K),
          ("blk.0.ffn_down.weight", q6k_rand(256, 512), QT.Q6_K), ("blk.0.ffn_up.weight", q4k_rand(512, 256), QT.Q4_K),
          ("output_norm.weight", x(256), None), ("output.weight", q6k_rand(32, 256), QT.Q6_K)]
    data = write_with_gguf(ts)
    out.case("gq", "q4_k_m-shaped", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: a one-layer llama laid out as llama-quantize's Q4_K_M mix (Q4_K attention/ffn, Q6_K attn_v, ffn_down "
                    f"and output.weight, F32 norms), random blocks packed from ggml's block structs: every tensor checked",
             rules=["GQ-001", "GQ-002"], modules=pins(data))

    for qt, at, bits, what in ((QT.Q4_K, 2, 0x7C00, "dmin"), (QT.Q6_K, 208, 0x7E01, "d")):
        blocks = q4k_rand(2, 256) if qt == QT.Q4_K else q6k_rand(2, 256)
        size = 144 if qt == QT.Q4_K else 210
        blocks[1, at:at + 2] = np.frombuffer(struct.pack("<H", bits), np.uint8)
        kind = "nan" if bits & 0x3FF else "inf"
        out.case("gq", f"{qt.name.lower()}-{what}-{kind}", verdict="reject", reject_rule="GQ-002", files={"model.gguf": write_with_gguf([("x.weight", blocks, qt)])},
                 input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_W}: a [2, 256] {qt.name} tensor packed from the block struct, block 1's {what} (byte {at} of {size}) set to {bits:#06x} ({kind})")


def pack_q5k(codes, d, dmin, sc, m):
    """block_q5_K: Q4_K's fields, then qh[32] (bit j of qh[l]: bit 4 of element 32 j + l) before qs."""
    n = codes.shape[0]
    q4 = pack_q4k(codes & 15, d, dmin, sc, m)
    hb = (codes.reshape(n, 8, 32) >> 4) & 1
    qh = (hb << np.arange(8, dtype=np.uint8).reshape(1, 8, 1)).sum(axis=1, dtype=np.uint16).astype(np.uint8)
    return np.concatenate([q4[:, :16], qh, q4[:, 16:]], axis=1)


def pack_iq4nl(codes, d):
    n = codes.shape[0] * codes.shape[1] // 32
    c = codes.reshape(n, 2, 16)
    return np.concatenate([np.asarray(d, np.float16).reshape(n, 1).view(np.uint8), c[:, 0] | (c[:, 1] << 4)], axis=1)


def pack_iq4xs(codes, d, ls):
    """block_iq4_xs from codes [n, 256], fp16 d [n], 6-bit ls [n, 8] (the factor is ls - 32)."""
    n = codes.shape[0]
    ls = ls.astype(np.uint16)
    sh = ((ls >> 4) << (2 * np.arange(8, dtype=np.uint16))).sum(axis=1, dtype=np.uint16).astype("<u2").view(np.uint8).reshape(n, 2)
    sl = ((ls[:, 0::2] & 15) | ((ls[:, 1::2] & 15) << 4)).astype(np.uint8)
    c = codes.reshape(n, 8, 2, 16)
    qs = (c[:, :, 0] | (c[:, :, 1] << 4)).reshape(n, 128)
    return np.concatenate([np.asarray(d, np.float16).reshape(n, 1).view(np.uint8), sh, sl, qs], axis=1)


def pack_mxfp4(codes, e):
    n = codes.shape[0] * codes.shape[1] // 32
    c = codes.reshape(n, 2, 16)
    return np.concatenate([np.asarray(e, np.uint8).reshape(n, 1), c[:, 0] | (c[:, 1] << 4)], axis=1)


def gen_more_types(out):
    rng = np.random.default_rng(20261203)
    specials = np.array([F16(0x0001), F16(0x03FF), F16(0x0000), F16(0x8000), np.float16(-0.75), np.float16(0.5), np.float16(3.0e-3)], np.float16)
    n = 64
    b = np.arange(n).reshape(n, 1)
    j = np.arange(8).reshape(1, 8)
    sc, m = (b + 11 * j) % 64, (3 * b + 17 * j + 1) % 64
    c5 = rng.integers(0, 32, size=(n, 256)).astype(np.uint8)
    c5[0], c5[1] = 31, 0
    d5, dm5 = specials[np.arange(n) % 7], specials[(np.arange(n) * 5 + 1) % 7]
    q5k = pack_q5k(c5, d5, dm5, sc, m)
    assert same_bits(dequantize(q5k, QT.Q5_K), contract_q4k(c5, d5, dm5, sc, m)), "gguf Q5_K != contract form"
    assert np.array_equal(iquant_view(q5k, QT.Q5_K)[0].reshape(-1), c5.reshape(-1))
    cn = rng.integers(0, 16, size=(16, 64)).astype(np.uint8)
    dn = specials[np.arange(32) % 7]
    nl = pack_iq4nl(cn, dn)
    assert same_bits(dequantize(nl, QT.IQ4_NL).reshape(-1), (dn.astype(np.float32).reshape(-1, 1) * np.array(IQ4NL_VALUES, np.float32)[cn.reshape(-1, 32)]).reshape(-1))
    cx = rng.integers(0, 16, size=(n, 256)).astype(np.uint8)
    lsx = (b + 13 * j) % 64  # every 6-bit ls (factor -32..31) at every sub-block position
    dx = specials[np.arange(n) % 7]
    xs = pack_iq4xs(cx, dx, lsx)
    want = ((dx.astype(np.float32).reshape(-1, 1, 1) * (lsx.astype(np.float32) - 32).reshape(n, 8, 1))
            * np.array(IQ4NL_VALUES, np.float32)[cx.reshape(n, 8, 32)]).reshape(n, 256)
    assert same_bits(dequantize(xs, QT.IQ4_XS), want), "gguf IQ4_XS != contract form"
    cm = rng.integers(0, 16, size=(256, 32)).astype(np.uint8)
    em = np.arange(256)  # every E8M0 exponent, 0 and 255 included
    mx = pack_mxfp4(cm, em)
    assert np.array_equal(nibble_codes(mx[:, 1:]), cm.reshape(-1))
    ts = [("probe.q5_k.weight", q5k.reshape(8, 8 * 176), QT.Q5_K), ("probe.iq4_nl.weight", nl.reshape(16, 2 * 18), QT.IQ4_NL),
          ("probe.iq4_xs.weight", xs.reshape(8, 8 * 136), QT.IQ4_XS), ("probe.mxfp4.weight", mx.reshape(16, 16 * 17), QT.MXFP4),
          ("quant.mxfp4.weight", quantize(rng.standard_normal((8, 128)).astype(np.float32), QT.MXFP4), QT.MXFP4)]
    data = write_with_gguf(ts)
    out.case("gq", "more-types-probes", verdict="pass", layout="gguf", files={"probes.gguf": data}, input="probes.gguf",
             source=f"{SRC_W}: Q5_K [8, 2048] (every 6-bit scale and min at every sub-block position, 5-bit codes with all-31 and "
                    f"all-0 blocks), IQ4_NL [16, 64], IQ4_XS [8, 2048] (every 6-bit ls at every sub-block position), MXFP4 [16, 512] "
                    f"with every E8M0 exponent 0..255, fp16 d/dmin cycling through 0x0001, 0x03ff, +0, -0, -0.75, 0.5, 0.003 "
                    f"(numpy default_rng(20261203)), packed from ggml's block structs; and MXFP4 [8, 128] from gguf.quants.quantize",
             rules=["GQ-001", "GQ-002"], modules=pins(data))
    for qt, blocks, at, bits, what in ((QT.Q5_K, q5k[:2], 2, 0xFC00, "dmin"), (QT.IQ4_NL, nl[:4], 0, 0x7C00, "d"),
                                       (QT.IQ4_XS, xs[:2], 0, 0x7D00, "d")):
        blocks = blocks.copy()
        blocks[1, at:at + 2] = np.frombuffer(struct.pack("<H", bits), np.uint8)
        kind = "nan" if bits & 0x3FF else "inf"
        rows = blocks.reshape(2, -1)
        out.case("gq", f"{qt.name.lower()}-{what}-{kind}", verdict="reject", reject_rule="GQ-002",
                 files={"model.gguf": write_with_gguf([("x.weight", rows, qt)])}, input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_W}: a {qt.name} tensor packed from the block struct, block 1's {what} set to {bits:#06x} ({kind})")


def pack_q2k(codes, d, dmin, sc, m):
    """block_q2_K from codes [n, 256] (0..3), fp16 d, dmin [n], 4-bit sc, m [n, 16]."""
    n = codes.shape[0]
    c = codes.reshape(n, 2, 4, 32).astype(np.uint8)
    qs = (c[:, :, 0] | (c[:, :, 1] << 2) | (c[:, :, 2] << 4) | (c[:, :, 3] << 6)).reshape(n, 64)
    h = lambda v: np.asarray(v, np.float16).reshape(n, 1).view(np.uint8)  # noqa: E731
    return np.concatenate([(sc | (m << 4)).astype(np.uint8), qs, h(d), h(dmin)], axis=1)


def pack_q3k(codes, sc, d):
    """block_q3_K from codes [n, 256] (0..7), 6-bit scales [n, 16], fp16 d [n]: scale i's low 4 bits
    in a nibble of byte i % 8 (low for i < 8), its high 2 bits at bits 2 (i // 4) of byte 8 + i % 4."""
    n = codes.shape[0]
    c = codes.reshape(n, 2, 4, 32).astype(np.uint8)
    lo = c & 3
    qs = (lo[:, :, 0] | (lo[:, :, 1] << 2) | (lo[:, :, 2] << 4) | (lo[:, :, 3] << 6)).reshape(n, 64)
    hb = (c >> 2) & 1  # [n, h, j, l]: hmask bit 4h + j of byte l
    hm = (hb << (4 * np.arange(2).reshape(1, 2, 1, 1) + np.arange(4).reshape(1, 1, 4, 1))).sum(axis=(1, 2)).astype(np.uint8)
    sc = sc.astype(np.uint8)
    s = np.zeros((n, 12), np.uint8)
    s[:, 0:8] = (sc[:, 0:8] & 15) | ((sc[:, 8:16] & 15) << 4)
    for i in range(16):
        s[:, 8 + i % 4] |= ((sc[:, i] >> 4) & 3) << (2 * (i // 4))
    return np.concatenate([hm, qs, s, np.asarray(d, np.float16).reshape(n, 1).view(np.uint8)], axis=1)


def gen_low_kquants(out):
    rng = np.random.default_rng(20261204)
    specials = np.array([F16(0x0001), F16(0x03FF), F16(0x0000), F16(0x8000), np.float16(-0.75), np.float16(0.5), np.float16(3.0e-3)], np.float16)
    n = 64
    b = np.arange(n).reshape(n, 1)
    i = np.arange(16).reshape(1, 16)
    c2 = rng.integers(0, 4, size=(n, 256)).astype(np.uint8)
    c2[0], c2[1] = 3, 0
    sc2, m2 = (b + 3 * i) % 16, (5 * b + i + 2) % 16  # every 4-bit scale and min at every position
    d2, dm2 = specials[np.arange(n) % 7], specials[(np.arange(n) * 3 + 1) % 7]
    q2k = pack_q2k(c2, d2, dm2, sc2, m2)
    f = lambda v: np.asarray(v, np.float16).astype(np.float32).reshape(-1, 1, 1)  # noqa: E731
    want2 = ((f(d2) * sc2.astype(np.float32).reshape(n, 16, 1)) * c2.reshape(n, 16, 16).astype(np.float32)
             - f(dm2) * m2.astype(np.float32).reshape(n, 16, 1)).reshape(n, 256)
    assert same_bits(dequantize(q2k, QT.Q2_K), want2), "gguf Q2_K != contract form"
    assert np.array_equal(iquant_view(q2k, QT.Q2_K)[0].reshape(-1), c2.reshape(-1))
    c3 = rng.integers(0, 8, size=(n, 256)).astype(np.uint8)
    c3[0], c3[1] = 7, 0
    sc3 = (b + 7 * i) % 64  # every 6-bit scale at every one of the 16 positions (the 4+2-bit split)
    d3 = specials[np.arange(n) % 7]
    q3k = pack_q3k(c3, sc3, d3)
    want3 = ((f(d3) * (sc3.astype(np.float32) - 32).reshape(n, 16, 1)) * (c3.reshape(n, 16, 16).astype(np.float32) - 4)).reshape(n, 256)
    assert same_bits(dequantize(q3k, QT.Q3_K), want3), "gguf Q3_K != contract form"
    assert np.array_equal(iquant_view(q3k, QT.Q3_K)[0].reshape(-1), c3.reshape(-1))
    ts = [("probe.q2_k.weight", q2k.reshape(8, 8 * 84), QT.Q2_K), ("probe.q3_k.weight", q3k.reshape(8, 8 * 110), QT.Q3_K)]
    data = write_with_gguf(ts)
    out.case("gq", "low-kquant-probes", verdict="pass", layout="gguf", files={"probes.gguf": data}, input="probes.gguf",
             source=f"{SRC_W}: Q2_K [8, 2048] with every 4-bit scale and min at every one of the 16 positions, Q3_K [8, 2048] with "
                    f"every 6-bit scale at every position (a loader reading them as 4-bit gets 252 of 256 wrong), random codes with "
                    f"all-max and all-0 blocks (numpy default_rng(20261204)), d/dmin cycling through fp16 0x0001, 0x03ff, +0, -0, "
                    f"-0.75, 0.5, 0.003; packed from ggml's block structs (gguf-py has no quantizer for them)",
             rules=["GQ-001", "GQ-002"], modules=pins(data))
    for qt, blocks, at, bits, what in ((QT.Q2_K, q2k[:2], 82, 0x7C00, "dmin"), (QT.Q3_K, q3k[:2], 108, 0xFE00, "d")):
        blocks = blocks.copy()
        blocks[1, at:at + 2] = np.frombuffer(struct.pack("<H", bits), np.uint8)
        kind = "nan" if bits & 0x3FF else "inf"
        out.case("gq", f"{qt.name.lower()}-{what}-{kind}", verdict="reject", reject_rule="GQ-002",
                 files={"model.gguf": write_with_gguf([("x.weight", blocks.reshape(2, -1), qt)])}, input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_W}: a {qt.name} tensor packed from the block struct, block 1's {what} (byte {at}) set to {bits:#06x} ({kind})")


def gen_ternary(out):
    rng = np.random.default_rng(20261205)
    specials = np.array([F16(0x0001), F16(0x03FF), F16(0x0000), F16(0x8000), np.float16(-0.75), np.float16(0.5), np.float16(3.0e-3)], np.float16)
    # Raw probes: every byte value 0..255 in every TQ1_0 trit byte position (bytes above 242 are not
    # canonical base-3, and ggml still decodes them), every TQ2_0 field value, d cycling the specials.
    n = 16
    tq1 = np.zeros((n, 54), np.uint8)
    tq1[:, :52] = (np.arange(n).reshape(n, 1) * 52 + np.arange(52).reshape(1, 52)) % 256
    tq1[:, 52:54] = specials[np.arange(n) % 7].reshape(n, 1).view(np.uint8)
    tq2 = np.zeros((n, 66), np.uint8)
    tq2[:, :64] = rng.integers(0, 256, size=(n, 64))
    tq2[:, 64:66] = specials[np.arange(n) % 7].reshape(n, 1).view(np.uint8)
    x = lambda *sh: rng.standard_normal(sh).astype(np.float32)  # noqa: E731
    ts = [("probe.tq1_0.weight", tq1.reshape(2, 8 * 54), QT.TQ1_0), ("probe.tq2_0.weight", tq2.reshape(2, 8 * 66), QT.TQ2_0),
          ("quant.tq1_0.weight", quantize(x(4, 256), QT.TQ1_0), QT.TQ1_0), ("quant.tq2_0.weight", quantize(x(4, 256), QT.TQ2_0), QT.TQ2_0)]
    data = write_with_gguf(ts)
    out.case("gq", "ternary", verdict="pass", layout="gguf", files={"model.gguf": data}, input="model.gguf",
             source=f"{SRC_W}: TQ1_0 [2, 2048] raw blocks holding every byte value in the trit bytes (non-canonical bytes above 242 "
                    f"included), TQ2_0 [2, 2048] random bytes (numpy default_rng(20261205)), d cycling through fp16 0x0001, 0x03ff, "
                    f"+0, -0, -0.75, 0.5, 0.003; and [4, 256] of each from gguf.quants.quantize", rules=["GQ-001", "GQ-002"], modules=pins(data))
    for qt, blocks, at in ((QT.TQ1_0, tq1[:2], 52), (QT.TQ2_0, tq2[:2], 64)):
        blocks = blocks.copy()
        blocks[1, at:at + 2] = np.frombuffer(struct.pack("<H", 0x7C00), np.uint8)
        out.case("gq", f"{qt.name.lower()}-d-inf", verdict="reject", reject_rule="GQ-002",
                 files={"model.gguf": write_with_gguf([("x.weight", blocks.reshape(1, -1), qt)])}, input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_W}: a {qt.name} tensor of 2 raw blocks, block 1's d (byte {at}) set to 0x7c00 (inf)")


def grid_probe_blocks(qt, n, rng):
    """n random blocks of a grid type with a sane fp16 scale (0.25 .. 2, either sign): random bytes, then
    d (IQ1_M: the top nibbles of its four scale words) overwritten."""
    size = GRID[qt][0]
    b = rng.integers(0, 256, size=(n, size), dtype=np.uint8)
    d = (rng.uniform(0.25, 2.0, n) * rng.choice([-1, 1], n)).astype(np.float16).view(np.uint16)
    if qt == QT.IQ1_M:
        for k in range(4):  # nibble k of d is the top nibble of scale word k (bytes 48 + 2k, 49 + 2k)
            b[:, 49 + 2 * k] = (b[:, 49 + 2 * k] & 0x0F) | (((d >> (4 * k)) & 0xF) << 4).astype(np.uint8)
    else:
        b[:, 0:2] = d.reshape(n, 1).view(np.uint8)
    return b


def gen_grid(out):
    """GQ-002 negatives for the grid i-quants (d = inf; IQ1_M's assembled scale NaN). Their probes, pinned by
    ggml's C dequantize, are in gen_gguf_llama (llama/grid-probes)."""
    rng = np.random.default_rng(20261202)
    for qt in GRID:
        blocks = grid_probe_blocks(qt, 2, rng)
        if qt == QT.IQ1_M:  # scale word 3's top nibble 0x7, word 2's 0xe: the assembled fp16 is 0x7exx (NaN)
            blocks[1, 55] = (blocks[1, 55] & 0x0F) | 0x70
            blocks[1, 53] = (blocks[1, 53] & 0x0F) | 0xE0
            why = "block 1's scale words 3 and 2 given top nibbles 7 and e, so the assembled fp16 scale is 0x7exx (NaN)"
        else:
            blocks[1, 0:2] = F16B(0x7C00)
            why = "block 1's d (byte 0) set to 0x7c00 (inf)"
        out.case("gq", f"{qt.name.lower()}-d-nonfinite", verdict="reject", reject_rule="GQ-002",
                 files={"model.gguf": write_with_gguf([("x.weight", blocks.reshape(1, -1), qt)])}, input="model.gguf", rules=["GQ-002"],
                 source=f"{SRC_W}: a {qt.name} tensor of 2 random blocks (numpy default_rng(20261202), sane d), {why}")


def generate(out):
    v3 = gen_valid(out)
    gen_header(out)
    gen_kv(out)
    gen_tensors(out)
    gen_truncations(out)
    gen_q40(out, v3)
    gen_gq(out)
    gen_kquants(out)
    gen_more_types(out)
    gen_low_kquants(out)
    gen_ternary(out)
    gen_grid(out)
