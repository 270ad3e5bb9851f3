"""The seed's small-ct example, byte for byte (seed spec card 'Example'; FORMATS.md 2.5).

88 bytes: header length 72, the compact header JSON `{"ct.weight_packed":{"dtype":"I32","shape":[2,1],
"data_offsets":[0,8]}}` (71 bytes) padded with one space, then 8 data bytes: the two int32 words that
compressed-tensors' pack_to_int32 makes of the 4-bit patterned probe u[r][c] = (r*7 + c*3) mod 16 over a
2 x 8 matrix, passed as int8 codes q = u - 8. Venv: requirements-ct.txt.
"""
import json
import struct

import compressed_tensors
import torch
from compressed_tensors.compressors.pack_quantized.helpers import pack_to_int32

from pcgen.stbytes import st_file

HEADER = '{"ct.weight_packed":{"dtype":"I32","shape":[2,1],"data_offsets":[0,8]}}'


def probe():
    return [[(r * 7 + c * 3) % 16 for c in range(8)] for r in range(2)]


def generate(out):
    u = torch.tensor(probe(), dtype=torch.int16)
    packed = pack_to_int32((u - 8).to(torch.int8), num_bits=4)
    assert tuple(packed.shape) == (2, 1) and packed.dtype == torch.int32
    data = packed.numpy().astype("<i4").tobytes()
    assert json.loads(HEADER) and len(HEADER) == 71
    b = st_file(HEADER.encode(), data)
    assert len(b) == 88 and struct.unpack("<Q", b[:8])[0] == 72
    words = [w & 0xFFFFFFFF for w in struct.unpack("<2i", data)]
    out.case("st", "small-ct", verdict="pass", layout="safetensors",
             files={"small-ct.safetensors": b}, input="small-ct.safetensors",
             rules=["ST-001", "ST-005", "ST-018", "ST-019", "ST-021"],
             source=f"seed spec card 'small-ct.safetensors' (88 bytes); data = compressed-tensors "
                    f"{compressed_tensors.__version__} pack_to_int32(q, num_bits=4) of the 2x8 patterned "
                    f"probe u=(r*7+c*3)%16, q=u-8: words {words[0]:#010x}, {words[1]:#010x}",
             extra={"probe": {"num_bits": 4, "u": probe(), "words": words}})
