"""The tensor accounting a corpus case states in expect.json ("tensors": {checked, plain, unchecked}).

Stated from what the generator wrote, independently of packcheck's C classification (which works
from the claims format modules make while checking): a tensor is `checked` when it is a part of a
module the case pins (expect.json "modules"), `plain` when it is an unquantized float (or BOOL/I64;
GGUF's float and integer types), `unchecked` otherwise; and the float companions of an unchecked
weight (M.weight_scale beside an FP8 M.weight) are unchecked with it. Standard library only.

The parts a module is made of are the formats' own declaration, read from the binary
(`packcheck formats --json`; PACKCHECK_BIN, else build/packcheck), so C and Python keep one list."""
import functools
import json
import os
import struct
import subprocess

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.lru_cache(maxsize=None)
def _formats():
    exe = os.environ.get("PACKCHECK_BIN") or os.path.join(_ROOT, "build", "packcheck")
    if not os.access(exe, os.X_OK):
        raise SystemExit(f"pcgen.accounting: {exe} not found: build packcheck first or set PACKCHECK_BIN")
    out = subprocess.run([exe, "formats", "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["formats"]


@functools.lru_cache(maxsize=None)
def module_parts():
    """Every declared part suffix ("" = the module tensor itself, ".qweight", "_blocks", ...), longest first."""
    suffixes = {p["suffix"] for f in _formats() for p in f["parts"]}
    return tuple(sorted(suffixes, key=len, reverse=True))


def _structured(name, names):
    """Is `name` a codes part of some format's module whose companion part is in the file too? Then
    it is that module's (unchecked when not pinned), never plain, whatever its dtype."""
    for f in _formats():
        comps = [p["suffix"] for p in f["parts"] if p["role"] == "companion"]
        for p in f["parts"]:
            sfx = p["suffix"]
            if p["role"] == "codes" and sfx and name.endswith(sfx) and len(name) > len(sfx):
                prefix = name[:-len(sfx)]
                if any(prefix + c in names for c in comps):
                    return True
    return False


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
        tensors = _gguf_tensors(p) if gguf else _st_tensors(p)
        names = {t[0] for t in tensors}
        for name, dtype, ggml in tensors:
            m, part = name.rpartition(".")[0], name.rpartition(".")[2]
            checked = False
            for sfx in module_parts():
                if name.endswith(sfx) and name[:len(name) - len(sfx)] in mods:
                    m, part, checked = name[:len(name) - len(sfx)], sfx.lstrip("._") or "self", True
                    break
            plain = ((ggml in PLAIN_GGUF) if gguf else (dtype in PLAIN_ST)) and not _structured(name, names)
            rows.append((m, part, "checked" if checked else "plain" if plain else "unchecked"))
    quantized = {m for m, part, c in rows if c == "unchecked" and part == "weight"}
    for m, part, c in rows:
        if c == "plain" and m in quantized and ("." + part) in module_parts() and part != "weight":
            c = "unchecked"
        counts[c] += 1
    return counts
