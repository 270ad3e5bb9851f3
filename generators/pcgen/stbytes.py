"""Hand-built safetensors bytes, for the broken containers no real writer produces."""
import json
import struct


def header_bytes(header, *, compact=True, pad_to=8, pad_byte=b" "):
    if isinstance(header, (bytes, bytearray)):
        h = bytes(header)
    else:
        h = json.dumps(header, separators=(",", ":") if compact else None).encode()
    if pad_to:
        h += pad_byte * ((-len(h)) % pad_to)
    return h


def st_file(header, data=b"", *, length=None, **kw) -> bytes:
    """8-byte LE header length (or `length` to lie), header, then data."""
    h = header_bytes(header, **kw)
    n = len(h) if length is None else length
    return struct.pack("<Q", n) + h + data
