"""The tensor accounting a corpus case states in expect.json ("tensors": {checked, plain, unchecked}).

Stated from what the generator wrote, independently of packcheck's C classification (which works
from the claims format modules make while checking): a tensor is `checked` when it is a part of a
module the case pins (expect.json "modules"), `plain` when it is an unquantized float (or BOOL/I64;
GGUF's float and integer types), `unchecked` otherwise; and the float companions of an unchecked
weight (M.weight_scale beside an FP8 M.weight) are unchecked with it. Standard library only."""
import json
import os
import struct

# The parts of a pinned module M: M.<part> (GGUF: M.weight or M itself).
MODULE_PARTS = {"weight_packed", "weight_scale", "weight_zero_point", "weight_g_idx", "weight_shape",
                "weight_global_scale", "input_global_scale", "weight", "weight_scale_2", "input_scale",
                "qweight", "qzeros", "scales", "g_idx", "biases",
                "weight_scale_inv", "input_zero_point",
                "SCB", "weight_format"}  # bitsandbytes LLM.int8: M.weight I8, M.SCB, M.weight_format
# Parts with dots (bitsandbytes 4-bit: M.weight.absmax, M.weight.quant_state.bitsandbytes__nf4, ...).
DOTTED_PARTS = ("weight.absmax", "weight.quant_map", "weight.nested_absmax", "weight.nested_quant_map",
                "weight.quant_state.bitsandbytes__nf4", "weight.quant_state.bitsandbytes__fp4")
PLAIN_ST = {"F16", "BF16", "F32", "F64", "BOOL", "I64"}
PLAIN_GGUF = {0, 1, 30, 28, 24, 25, 26, 27}  # F32 F16 BF16 F64 I8 I16 I32 I64


def _st_tensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
    return [(k, v["dtype"], None) for k, v in hdr.items() if k != "__metadata__"]


def _gguf_tensors(path):
    with open(path, "rb") as f:
        b = f.read()
    off = 8
    ntens, nkv = struct.unpack_from("<QQ", b, off)
    off += 16

    def string(o):
        n = struct.unpack_from("<Q", b, o)[0]
        return b[o + 8:o + 8 + n].decode("utf-8", "replace"), o + 8 + n

    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def value(t, o):
        if t == 8:
            return string(o)[1]
        if t == 9:
            et, cnt = struct.unpack_from("<IQ", b, o)
            o += 12
            for _ in range(cnt):
                o = value(et, o)
            return o
        return o + sizes[t]

    for _ in range(nkv):
        _, off = string(off)
        t = struct.unpack_from("<I", b, off)[0]
        off = value(t, off + 4)
    out = []
    for _ in range(ntens):
        name, off = string(off)
        nd = struct.unpack_from("<I", b, off)[0]
        off += 4 + 8 * nd
        typ = struct.unpack_from("<I", b, off)[0]
        off += 4 + 8
        out.append((name, None, typ))
    return out


def _input_files(path):
    if os.path.isfile(path):
        return [path]
    names = sorted(os.listdir(path))
    st = [n for n in names if n.endswith(".safetensors")]
    return [os.path.join(path, n) for n in (st or [n for n in names if n.endswith(".gguf")])]


def tensor_accounting(case_dir, input_rel, modules):
    """{"checked", "plain", "unchecked"} for the case's input, given its pinned modules."""
    counts = {"checked": 0, "plain": 0, "unchecked": 0}
    mods = set(modules or {})
    rows = []  # (module, part, class)
    for p in _input_files(os.path.normpath(os.path.join(case_dir, input_rel))):
        with open(p, "rb") as f:
            magic = f.read(4)
        gguf = magic in (b"GGUF", b"FUGG") or p.endswith(".gguf")
        for name, dtype, ggml in (_gguf_tensors(p) if gguf else _st_tensors(p)):
            if gguf:
                m, part = (name[:-len(".weight")] if name.endswith(".weight") else name), None
                checked = m in mods
            else:
                m, _, part = name.rpartition(".")
                checked = m in mods and part in MODULE_PARTS
                for dotted in DOTTED_PARTS:
                    if not checked and name.endswith("." + dotted) and name[:-len(dotted) - 1] in mods:
                        m, part, checked = name[:-len(dotted) - 1], dotted, True
                # gpt-oss MXFP4: module P is made of P_blocks and P_scales
                if not checked and name[-7:] in ("_blocks", "_scales") and name[:-7] in mods:
                    m, part, checked = name[:-7], name[-6:], True
                # transformers fused FP8 experts: module P is P, P_scale_inv (and P_activation_scale)
                for sfx in ("", "_scale_inv", "_activation_scale"):
                    if not checked and name.endswith(sfx) and name[:len(name) - len(sfx)] in mods:
                        m, part, checked = name[:len(name) - len(sfx)], sfx or "self", True
            plain = (ggml in PLAIN_GGUF) if gguf else (dtype in PLAIN_ST)
            rows.append((m, part, "checked" if checked else "plain" if plain else "unchecked"))
    quantized = {m for m, part, c in rows if c == "unchecked" and part == "weight"}
    for m, part, c in rows:
        if c == "plain" and m in quantized and part in MODULE_PARTS and part != "weight":
            c = "unchecked"
        counts[c] += 1
    return counts
