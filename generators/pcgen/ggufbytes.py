"""Hand-built GGUF bytes for hostile fixtures (FORMATS.md 7.1): files no library would write.

`Builder` appends little-endian fields and records a mark before every field, naming the field and
what a reader is reading when the file ends there (for truncation cases). `gguf_file` lays out a
whole file from key/value pairs and tensor infos, with every count, offset and byte overridable.
"""
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<B",
              U64: "<Q", I64: "<q", F64: "<d"}
# ggml type id -> (elements per block, bytes per block), the few the fixtures use.
GGML = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q8_0": (8, 32, 34), "I8": (24, 1, 1)}


class Builder:
    def __init__(self):
        self.b = bytearray()
        self.marks = []  # (offset, label, kind): kind = "fixed" | "bytes" | "data" | "pad"

    def mark(self, label, kind):
        self.marks.append((len(self.b), label, kind))

    def raw(self, data, label=None, kind="bytes"):
        if label and data:
            self.mark(label, kind)
        self.b += data

    def u32(self, v, label):
        self.mark(label, "fixed")
        self.b += struct.pack("<I", v & 0xFFFFFFFF)

    def u64(self, v, label):
        self.mark(label, "fixed")
        self.b += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)

    def string(self, s, label, length=None):
        s = s.encode() if isinstance(s, str) else bytes(s)
        self.u64(len(s) if length is None else length, f"{label} length")
        self.raw(s, f"{label} bytes")


def kv(key, vtype, value, *, etype=None, count=None):
    """A key/value pair as (key, vtype, value, etype, count): value is a Python value, a list for
    ARRAY (of element type etype), or raw bytes to write verbatim after the type (and for ARRAY after
    element type and count)."""
    return (key, vtype, value, etype, count)


def _value(w, vtype, value, label, etype=None, count=None):
    if isinstance(value, (bytes, bytearray)) and vtype != STRING:
        if vtype == ARRAY:
            w.u32(etype, f"{label} element type")
            w.u64(count, f"{label} count")
        w.raw(value, f"{label} value")
        return
    if vtype == STRING:
        w.string(value, f"{label} string")
    elif vtype == ARRAY:
        w.u32(etype, f"{label} element type")
        w.u64(len(value) if count is None else count, f"{label} count")
        for i, x in enumerate(value):
            if etype == STRING:
                w.string(x, f"{label}[{i}]")
            else:
                w.mark(f"{label}[{i}]", "fixed")
                w.b += struct.pack(SCALAR_FMT[etype], x)
    else:
        w.mark(f"{label} value", "fixed")
        w.b += struct.pack(SCALAR_FMT[vtype], value)


def tensor(name, ne, gtype="F32", *, type_id=None, offset=None, nbytes=None, n_dims=None, data=None):
    """A tensor info: ne is ggml order (ne[0] contiguous). nbytes defaults to the type's size;
    offset None = the running padded sum; data None = a patterned fill of nbytes."""
    tid, blck, size = GGML[gtype]
    if nbytes is None:
        n = 1
        for d in ne:
            n *= d
        nbytes = n // blck * size
    return {"name": name, "ne": list(ne), "type": tid if type_id is None else type_id, "offset": offset,
            "nbytes": nbytes, "n_dims": len(ne) if n_dims is None else n_dims, "data": data}


def pad(n, a):
    return (n + a - 1) // a * a


def gguf_file(kvs=(), tensors=(), *, magic=b"GGUF", version=3, n_tensors=None, n_kv=None, align=32,
              write_data=True, pad_byte=0, final_pad=True):
    """Return (bytes, marks). Tensor data is written at the running padded offsets (capped to what
    is sensible: huge declared sizes write no data)."""
    w = Builder()
    w.mark("magic", "fixed")
    w.b += magic
    w.u32(version, "version")
    w.u64(len(tensors) if n_tensors is None else n_tensors, "n_tensors")
    w.u64(len(kvs) if n_kv is None else n_kv, "n_kv")
    for i, (key, vtype, value, etype, count) in enumerate(kvs):
        w.string(key, f"kv{i} key")
        w.u32(vtype, f"kv{i} value type")
        _value(w, vtype, value, f"kv{i}", etype, count)
    running, offsets = 0, []
    for i, t in enumerate(tensors):
        w.string(t["name"], f"ti{i} name")
        w.u32(t["n_dims"], f"ti{i} n_dims")
        for j, d in enumerate(t["ne"]):
            w.u64(d, f"ti{i} ne[{j}]")
        w.u32(t["type"], f"ti{i} type")
        offsets.append(running if t["offset"] is None else t["offset"])
        w.u64(offsets[-1], f"ti{i} offset")
        running += pad(t["nbytes"], align)
    if not tensors or not write_data:
        return bytes(w.b), w.marks
    if len(w.b) % align:
        w.mark("pre-data padding", "pad")
        w.b += bytes([pad_byte]) * (pad(len(w.b), align) - len(w.b))
    start = len(w.b)
    for i, t in enumerate(tensors):
        if t["nbytes"] > 1 << 20 or offsets[i] > 1 << 20:
            continue  # declared sizes no file holds: nothing to write
        off = start + offsets[i]
        data = t["data"] if t["data"] is not None else bytes((7 * k + 3) % 251 for k in range(t["nbytes"]))
        if len(w.b) < off:
            w.b += bytes(off - len(w.b))
        w.marks.append((off, f"ti{i} data", "data"))
        if len(data) > 1:
            w.marks.append((off + len(data) // 2, f"ti{i} data middle", "data"))
        w.b[off:off + len(data)] = data
        end = off + len(data)
        if pad(end, align) > end and (final_pad or i + 1 < len(tensors)):
            w.marks.append((end, f"ti{i} padding", "pad"))
            if len(w.b) < pad(end, align):
                w.b += bytes(pad(end, align) - len(w.b))
    return bytes(w.b), w.marks
