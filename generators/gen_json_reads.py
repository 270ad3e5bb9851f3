"""JSON that two parsers read differently (CFG-032 duplicate keys, CFG-033 U+0000, BNB-002 trailing bytes).
Venv: none (standard library only).

Every case is a pinned case of another generator (bnb/probe-nf4-dq from bitsandbytes, awq/autoawq-gemm-g32-random
from AutoAWQ, mlx/model-4bit-g64 from mlx_lm), read from fixtures/ and changed in one JSON document: no library
writes a repeated key, so these bytes are hand-made. Python's json.loads (transformers, bitsandbytes'
QuantState.from_dict, mlx_lm) keeps the LAST of two equal keys, cJSON the FIRST: each duplicate below puts the
library's value first and another value last, so a C reader validates what no Python loader loads.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
QS = "probe.a.weight.quant_state.bitsandbytes__nf4"


class Pairs(list):
    """A JSON object as its (key, value) pairs in order, so a key may appear twice."""


def load_pairs(data):
    return json.loads(data, object_pairs_hook=Pairs)


def dump_pairs(v):
    if isinstance(v, Pairs):
        return "{" + ", ".join(json.dumps(k) + ": " + dump_pairs(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump_pairs(x) for x in v) + "]"
    return json.dumps(v)


def get(pairs, key):
    return next(v for k, v in pairs if k == key)


def base_files(case):
    d = os.path.join(FIXTURES, case)
    out = {}
    for n in sorted(os.listdir(d)):
        if n != "expect.json":
            with open(os.path.join(d, n), "rb") as f:
                out[n] = f.read()
    return out


def base_layout(case):
    with open(os.path.join(FIXTURES, case, "expect.json")) as f:
        return json.load(f)["layout"]


def st_replace(data, name, payload):
    """The safetensors file with tensor `name` (1-D U8) holding `payload`; the others keep their
    bytes and order, offsets recomputed."""
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    names = sorted((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
    blobs, pos = [], 0
    for k in names:
        s, e = header[k]["data_offsets"]
        b = payload if k == name else body[s:e]
        if k == name:
            header[k]["shape"] = [len(b)]
        header[k]["data_offsets"] = [pos, pos + len(b)]
        blobs.append(b)
        pos += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((-len(h)) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def st_tensor(data, name):
    n = struct.unpack("<Q", data[:8])[0]
    s, e = json.loads(data[8:8 + n])[name]["data_offsets"]
    return data[8 + n + s:8 + n + e]


def neg(out, family, base, name, rule, what, files):
    out.case(family, name, verdict="reject", reject_rule=rule, rules=[rule], layout=base_layout(base),
             files=files, source=f"{base} (pinned), then one hand-made change: {what}")


def bnb_cases(out):
    base = "bnb/probe-nf4-dq"
    f0 = base_files(base)
    state = st_tensor(f0["model.safetensors"], QS)

    def with_state(payload):
        return dict(f0, **{"model.safetensors": st_replace(f0["model.safetensors"], QS, payload)})

    def state_plus(key, value):
        d = load_pairs(state)
        d.append((key, value))
        return with_state(dump_pairs(d).encode())

    neg(out, "bnb", base, "neg-cfg032-state-blocksize-twice", "CFG-032",
        f"{QS} JSON holds blocksize 64 and then blocksize 128", state_plus("blocksize", 128))
    neg(out, "bnb", base, "neg-cfg032-state-shape-twice", "CFG-032",
        f"{QS} JSON holds shape [6, 70] and then shape [7, 60]", state_plus("shape", [7, 60]))
    neg(out, "bnb", base, "neg-cfg032-state-dtype-twice", "CFG-032",
        f"{QS} JSON holds dtype bfloat16 and then dtype float16", state_plus("dtype", "float16"))
    neg(out, "bnb", base, "neg-bnb002-state-trailing-bytes", "BNB-002",
        f"{QS} JSON followed by the bytes 'garbage'", with_state(state + b"garbage"))
    d = load_pairs(state)
    d[[k for k, _ in d].index("quant_type")] = ("quant_type", "nf4\u0000fp4")
    neg(out, "bnb", base, "neg-cfg033-state-quant-type-nul", "CFG-033",
        f"{QS} JSON quant_type \"nf4\\u0000fp4\" (a C string reads nf4)", with_state(dump_pairs(d).encode()))

    cfg = load_pairs(f0["config.json"])
    qc = get(cfg, "quantization_config")
    qc.append(("quant_method", "gptq"))
    neg(out, "bnb", base, "neg-cfg032-quant-method-twice", "CFG-032",
        "config.json quantization_config holds quant_method bitsandbytes and then quant_method gptq",
        dict(f0, **{"config.json": dump_pairs(cfg).encode() + b"\n"}))
    cfg = load_pairs(f0["config.json"])
    second = Pairs((k, "fp4" if k == "bnb_4bit_quant_type" else v) for k, v in get(cfg, "quantization_config"))
    cfg.append(("quantization_config", second))
    neg(out, "bnb", base, "neg-cfg032-quantization-config-twice", "CFG-032",
        "config.json holds a second quantization_config (bnb_4bit_quant_type fp4) after the first",
        dict(f0, **{"config.json": dump_pairs(cfg).encode() + b"\n"}))


def awq_cases(out):
    base = "awq/autoawq-gemm-g32-random"
    f0 = base_files(base)
    cfg = load_pairs(f0["config.json"])
    get(cfg, "quantization_config").append(("group_size", 64))
    neg(out, "awq", base, "neg-cfg032-group-size-twice", "CFG-032",
        "config.json quantization_config holds group_size 32 and then group_size 64",
        dict(f0, **{"config.json": dump_pairs(cfg).encode() + b"\n"}))


def mlx_cases(out):
    base = "mlx/model-4bit-g64"
    f0 = base_files(base)
    cfg = load_pairs(f0["config.json"])
    cfg.append(("quantization", Pairs([("group_size", 32), ("bits", 4), ("mode", "affine")])))
    neg(out, "mlx", base, "neg-cfg032-quantization-twice", "CFG-032",
        "config.json holds quantization {group_size 64} and then a second quantization {group_size 32}",
        dict(f0, **{"config.json": dump_pairs(cfg).encode() + b"\n"}))


def generate(out):
    bnb_cases(out)
    awq_cases(out)
    mlx_cases(out)
