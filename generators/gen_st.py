"""The safetensors container family (rules ST-001..ST-034), venv: requirements-st.txt (light: no torch).

Valid containers are written by the real `safetensors` package (safetensors.numpy.save for every dtype
numpy has, safetensors.serialize with TensorSpec for BF16, F8_*, F4); only F6 (which the package cannot
write) and the orderings the writer never produces are hand-built. Every broken container is hand-built
(pcgen/stbytes.py) and breaks exactly one thing.

Every single-file case is also handed to the real reader (`safetensors.deserialize`), and the generator
asserts what the crate does with it, so the catalogue's compat profile stays pinned to the crate:
  - a case the crate accepts is a pass under compat, or a reject only by a LIMIT rule;
  - a case the crate rejects is a reject under both profiles.
expect.json records the crate's answer in "crate".
"""
import json
import re
import struct

import numpy as np
import safetensors
import safetensors.numpy as stnp
from safetensors import TensorSpec, serialize

from pcgen.stbytes import st_file

FAMILY = "st"
SRC = f"safetensors {safetensors.__version__}"
HAND = "hand-built bytes (generators/pcgen/stbytes.py)"

U64_MAX = 2**64 - 1


# ---------------------------------------------------------------------------------------------
# building blocks

def ent(dtype, shape, begin, end, **extra):
    d = {"dtype": dtype, "shape": list(shape), "data_offsets": [begin, end]}
    d.update(extra)
    return d


def hdr(*pairs, meta=None):
    """Header JSON text from (name, value) pairs in the order given; duplicates allowed. A value that
    is a str is inserted verbatim (for numbers JSON cannot say through json.dumps)."""
    parts = []
    if meta is not None:
        parts.append('"__metadata__":' + (meta if isinstance(meta, str) else json.dumps(meta, separators=(",", ":"))))
    for k, v in pairs:
        val = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
        parts.append(json.dumps(k) + ":" + val)
    return "{" + ",".join(parts) + "}"


def raw(text, data=b"", *, pad=b" ", pad_to=8, length=None):
    h = text.encode() if isinstance(text, str) else text
    if pad_to:
        h += pad * ((-len(h)) % pad_to)
    return st_file(h, data, length=length, pad_to=None)


def u8_file(n=4):
    """A minimal valid file holding one U8 tensor `t` of n bytes."""
    return raw(hdr(("t", ent("U8", [n], 0, n))), bytes(range(n)))


def crate(b):
    """What the reference reader says: 'accept', or 'reject: <message>'."""
    try:
        safetensors.deserialize(b)
        return "accept"
    except Exception as e:  # SafetensorError
        # Which of two aliased tensors the crate names depends on its HashMap order: drop the name.
        return "reject: " + re.sub(r"invalid offset for tensor `.*`", "invalid offset for a tensor", str(e))


def spec(dtype, shape, data: np.ndarray):
    buf = np.ascontiguousarray(data)
    return buf, TensorSpec(dtype=dtype, shape=list(shape), data_ptr=buf.ctypes.data, data_len=buf.nbytes)


# ---------------------------------------------------------------------------------------------
# the catalogue: strict/compat severities decide the compat twins

def load_rules():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "rules", "rules.json")) as f:
        cat = json.load(f)
    out = {}
    for fam in cat["families"]:
        for r in fam["rules"]:
            out[r["id"]] = (r["severity"], r.get("compat", r["severity"]))
    return out


def rules_without_fixture():
    """Rules whose catalogue entry says why no pinned file can break them (a CTest covers them)."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "rules", "rules.json")) as f:
        cat = json.load(f)
    return {r["id"] for fam in cat["families"] for r in fam["rules"] if r.get("no_fixture")}


class St:
    def __init__(self, out):
        self.out = out
        self.rules = load_rules()
        self.covered = {}

    def _crate_ok(self, cid, b, expect_crate):
        got = crate(b)
        if expect_crate is not None and (got == "accept") != (expect_crate == "accept"):
            raise AssertionError(f"{cid}: the crate says {got!r}, the catalogue assumes {expect_crate}")
        return got

    def valid(self, name, b, *, rules, source, notes=None, fname=None, profile=None, extra=None):
        fname = fname or f"{name}.safetensors"
        got = self._crate_ok(f"st/{name}", b, "accept")
        x = {"crate": got}
        x.update(extra or {})
        self.out.case(FAMILY, name, verdict="pass", layout="safetensors", files={fname: b}, input=fname,
                      rules=rules, source=source, notes=notes, profile=profile, extra=x)
        for r in rules:
            self.covered.setdefault(r, []).append(f"st/{name}")

    def reject(self, name, rule, b, *, notes, source=HAND, twin=None):
        """A strict reject by `rule`. `twin` names the compat twin's expectation: None derives it
        from the catalogue (MUST under compat: reject too, the crate must reject; OFF/SHOULD: a pass
        case `<name>-compat`, the crate must accept)."""
        strict, compat = self.rules[rule]
        fname = f"{name}.safetensors"
        if strict == "LIMIT":
            crate_expect = None  # a packcheck limit: the crate's answer is recorded, not asserted
        elif compat in ("OFF", "SHOULD"):
            crate_expect = "accept"
        else:
            crate_expect = twin if twin else "reject"
        got = self._crate_ok(f"st/{name}", b, crate_expect)
        self.out.case(FAMILY, name, verdict="reject", reject_rule=rule, layout="safetensors",
                      files={fname: b}, input=fname, rules=[rule], source=source, notes=notes,
                      extra={"crate": got})
        self.covered.setdefault(rule, []).append(f"st/{name}")
        if compat in ("OFF", "SHOULD"):
            self.out.case(FAMILY, f"{name}-compat", verdict="pass", layout="safetensors", files={fname: b},
                          input=fname, rules=[rule], profile="compat", source=source,
                          notes=f"compat twin of st/{name}: {rule} is {compat} under compat (the crate accepts). " + notes,
                          extra={"crate": got})
            self.covered[rule].append(f"st/{name}-compat")

    def reject_compat(self, name, rule, b, *, notes, source=HAND, fname=None):
        """A reject that must hold under compat too (the crate rejects)."""
        fname = fname or f"{name}.safetensors"
        got = self._crate_ok(f"st/{name}", b, "reject")
        self.out.case(FAMILY, name, verdict="reject", reject_rule=rule, layout="safetensors",
                      files={fname: b}, input=fname, rules=[rule], profile="compat", source=source,
                      notes=notes, extra={"crate": got})
        self.covered.setdefault(rule, []).append(f"st/{name}")

    def folder(self, name, files, *, verdict, rule=None, rules, notes, source):
        self.out.case(FAMILY, name, verdict=verdict, reject_rule=rule, layout="safetensors", files=files,
                      input=".", rules=rules, source=source, notes=notes)
        for r in rules:
            self.covered.setdefault(r, []).append(f"st/{name}")


# ---------------------------------------------------------------------------------------------
# valid containers written by the package

NUMPY_DTYPES = ["F64", "F32", "F16", "I64", "U64", "I32", "U32", "I16", "U16", "I8", "U8", "BOOL", "C64"]
SPEC_DTYPES = {"BF16": ("bfloat16", 2), "F8_E4M3": ("float8_e4m3fn", 1), "F8_E5M2": ("float8_e5m2", 1),
               "F8_E8M0": ("float8_e8m0fnu", 1), "F8_E4M3FNUZ": ("float8_e4m3fnuz", 1),
               "F8_E5M2FNUZ": ("float8_e5m2fnuz", 1)}
ALL_RULES_FILE = ["ST-001", "ST-002", "ST-003", "ST-004", "ST-005", "ST-006", "ST-007", "ST-008",
                  "ST-010", "ST-011", "ST-012", "ST-013", "ST-014", "ST-015", "ST-016", "ST-017", "ST-018",
                  "ST-019", "ST-020", "ST-021", "ST-022", "ST-024", "ST-027"]


def numpy_array(rng, code, shape):
    t = stnp._TYPES[code]
    if code == "BOOL":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if code == "C64":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    if np.issubdtype(t, np.floating):
        return rng.standard_normal(shape).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, size=shape, dtype=t, endpoint=True)


def gen_valid(s: St):
    rng = np.random.default_rng(20261130)
    arrays = {f"dtype.{c.lower()}": numpy_array(rng, c, (3, 5)) for c in NUMPY_DTYPES}
    b = stnp.save(arrays)
    s.valid("valid-numpy-dtypes", b, rules=ALL_RULES_FILE,
            source=f"{SRC} safetensors.numpy.save: one [3,5] tensor of every dtype numpy can express "
                   f"({', '.join(NUMPY_DTYPES)}), numpy default_rng(20261130)")

    keep, specs = [], {}
    for code, (tname, size) in SPEC_DTYPES.items():
        data = rng.integers(0, 256, size=4 * 6 * size, dtype=np.uint8)
        buf, sp = spec(tname, [4, 6], data)
        keep.append(buf)
        specs[f"dtype.{code.lower()}"] = sp
    # F4: the package takes the storage shape of float4_e2m1fn_x2 (bytes) and doubles the last dim.
    data = rng.integers(0, 256, size=4 * 3, dtype=np.uint8)
    buf, sp = spec("float4_e2m1fn_x2", [4, 3], data)
    keep.append(buf)
    specs["dtype.f4"] = sp
    b = bytes(serialize(specs))
    assert b'"F4","shape":[4,6]' in b
    s.valid("valid-spec-dtypes", b, rules=["ST-012", "ST-015", "ST-016", "ST-018", "ST-019"],
            source=f"{SRC} safetensors.serialize with TensorSpec (bfloat16, float8_e4m3fn, float8_e5m2, "
                   f"float8_e8m0fnu, float8_e4m3fnuz, float8_e5m2fnuz, float4_e2m1fn_x2 storage [4,3] -> F4 [4,6])")

    # F6: the package has no TensorSpec spelling for it; hand-built in the writer's canonical form.
    f6 = raw(hdr(("dtype.f6_e2m3", ent("F6_E2M3", [2, 4], 0, 6)), ("dtype.f6_e3m2", ent("F6_E3M2", [4], 6, 9))),
             bytes(rng.integers(0, 256, size=9, dtype=np.uint8)))
    s.valid("valid-f6", f6, rules=["ST-012", "ST-015", "ST-016", "ST-018"], source=HAND,
            notes="F6_E2M3 [2,4] in 6 bytes and F6_E3M2 [4] in 3 bytes (safetensors cannot write F6 from "
                  "Python); rows of 4 six-bit elements end on a byte.")

    scal = {f"scalar.{c.lower()}": numpy_array(rng, c, ()) for c in ("F32", "I64", "U8", "BOOL", "F16")}
    s.valid("valid-scalars", stnp.save(scal), rules=["ST-013", "ST-018"],
            source=f"{SRC} safetensors.numpy.save of 0-d arrays (shape [])")

    zero = {"zero.a": np.zeros((0,), np.float32), "zero.b": np.zeros((2, 0), np.int32),
            "zero.c": np.zeros((0, 3, 4), np.uint8), "zero.d": np.ones((2,), np.float16)}
    s.valid("valid-zero-size", stnp.save(zero), rules=["ST-013", "ST-018", "ST-019", "ST-021"],
            source=f"{SRC} safetensors.numpy.save of zero-size arrays [0], [2,0], [0,3,4] beside a [2] F16")

    big = raw(hdr(("huge.zero", ent("F32", [0, 2**62], 0, 0)), ("t", ent("U8", [4], 0, 4))), b"\1\2\3\4")
    s.valid("valid-zero-hides-huge-dim", big, rules=["ST-014", "ST-018"], source=HAND,
            notes="FORMATS.md 2.4: shape [0, 2^62] holds no elements; the zero factor hides the huge dim.")

    # The crate keeps __metadata__ in a HashMap: more than one entry would come out in a random order.
    s.valid("valid-metadata", stnp.save({"w": numpy_array(rng, "F32", (2, 2))}, metadata={"format": "pt"}),
            rules=["ST-009", "ST-023"], source=f"{SRC} safetensors.numpy.save(..., metadata={{'format': 'pt'}})")
    meta = {"format": "pt", "producer": "packcheck gen_st", "unicode": "\u00e9\u4e2d\U0001f600", "empty": ""}
    s.valid("valid-metadata-many", raw(hdr(("w", ent("F32", [2], 0, 8)), meta=meta), bytes(8)),
            rules=["ST-009", "ST-023"], source=HAND,
            notes="four __metadata__ strings, one of them empty and one outside the BMP (hand-built: the "
                  "package writes metadata in HashMap order)")

    many = {f"model.layers.{i}.mlp.w{j}": numpy_array(rng, ("F32", "I32", "U8", "F16")[(i + j) % 4], (1 + i % 3, 2))
            for i in range(64) for j in range(4)}
    s.valid("valid-many-tensors", stnp.save(many), rules=["ST-019", "ST-021", "ST-022"],
            source=f"{SRC} safetensors.numpy.save of 256 small tensors of 4 dtypes")

    s.valid("valid-empty", stnp.save({}), rules=["ST-005", "ST-021"],
            source=f"{SRC} safetensors.numpy.save({{}}): the 16-byte empty file of FORMATS.md 2.5")

    order = raw(hdr(("a", ent("U8", [4], 8, 12)), ("b", ent("F32", [2], 0, 8))), bytes(12))
    s.valid("valid-key-order", order, rules=["ST-019", "ST-021"], source=HAND,
            notes="JSON key order (a, b) differs from offset order (b at 0, a at 8); the crate sorts by offsets.")

    h = hdr(("t", ent("U8", [4], 0, 4)))
    unpadded = raw(h, b"\0\1\2\3", pad_to=None)
    assert struct.unpack("<Q", unpadded[:8])[0] % 8 != 0
    s.valid("valid-unpadded-header", unpadded, rules=["ST-007"], source=HAND,
            notes=f"header length {len(h)} is not a multiple of 8: padding is writer behaviour, not a rule.")

    odd = raw(hdr(("__foo__", ent("U8", [1], 0, 1)), ("x.y/z:0", ent("U8", [1], 1, 2))), b"\0\0")
    s.valid("valid-odd-names", odd, rules=["ST-025", "ST-026"], source=HAND,
            notes="names __foo__ and x.y/z:0 are ordinary tensor names.")

    # SHOULD rules: a pass with a warning.
    s.valid("should-empty-name", raw(hdr(("", ent("U8", [2], 0, 2))), b"\0\0"), rules=["ST-025"], source=HAND,
            notes="ST-025 (SHOULD) warns on a tensor named \"\"; the crate accepts it.")
    s.valid("should-nul-in-name", raw(hdr(("a\u0000b", ent("U8", [2], 0, 2)), ("a", ent("U8", [2], 2, 4))), bytes(4)),
            rules=["ST-026", "ST-022"], source=HAND,
            notes="ST-026 (SHOULD) warns on a name holding U+0000; \"a\\u0000b\" and \"a\" are different names "
                  "(no ST-022), though a C reader truncating at NUL sees \"a\" twice.")


# ---------------------------------------------------------------------------------------------
# one negative per rule (and the FORMATS.md 2.4 rows)

def gen_negative(s: St):
    t4 = ("t", ent("U8", [4], 0, 4))
    d4 = b"\0\1\2\3"

    s.reject("st001-three-byte-file", "ST-001", b"\x08\x00\x00", notes="a 3-byte file: HeaderTooSmall")
    s.reject("st001-seven-byte-file", "ST-001", b"\x00" * 7, notes="7 bytes: one short of the header length")

    s.reject("st002-length-over-limit", "ST-002", raw(hdr(t4), d4, length=100_000_001),
             notes="header length 100,000,001 in a small file: HeaderTooLarge before any allocation")
    s.reject("st002-length-u64-max", "ST-002", raw(hdr(t4), d4, length=U64_MAX),
             notes="header length u64::MAX: HeaderTooLarge (FORMATS.md 2.4)")

    b = u8_file()
    s.reject("st003-length-past-eof", "ST-003", struct.pack("<Q", len(b) - 7) + b[8:],
             notes="header length one byte more than the rest of the file: InvalidHeaderLength")

    s.reject("st004-invalid-utf8", "ST-004", raw(b'{"t\xff":' + json.dumps(ent("U8", [4], 0, 4)).encode() + b"}", d4),
             notes="byte 0xff inside a tensor name")
    s.reject("st004-overlong", "ST-004", raw(b'{"t\xc0\xae":' + json.dumps(ent("U8", [4], 0, 4)).encode() + b"}", d4),
             notes="overlong 2-byte encoding of '.' (C0 AE)")
    s.reject("st004-surrogate", "ST-004", raw(b'{"t\xed\xa0\x80":' + json.dumps(ent("U8", [4], 0, 4)).encode() + b"}", d4),
             notes="UTF-8-encoded surrogate U+D800 (ED A0 80), which Rust's from_utf8 refuses")

    s.reject("st005-top-level-array", "ST-005", raw("[" + json.dumps(ent("U8", [4], 0, 4)) + "]", d4),
             notes="top-level JSON array instead of an object")
    s.reject("st005-header-length-0", "ST-005", struct.pack("<Q", 0),
             notes="header length 0: the crate reports InvalidHeaderDeserialization (EOF), not HeaderTooSmall")
    s.reject("st005-bom", "ST-005", raw(b"\xef\xbb\xbf" + hdr(t4).encode(), d4),
             notes="UTF-8 BOM before '{' (cJSON would skip it; serde_json does not)")
    s.reject("st005-comment", "ST-005", raw("/* c */" + hdr(t4), d4), notes="a comment before the object")
    s.reject("st005-truncated-json", "ST-005", raw(hdr(t4)[:-1], d4), notes="the closing brace is missing")
    s.reject("st005-leading-zero", "ST-005", raw('{"t":{"dtype":"U8","shape":[04],"data_offsets":[0,4]}}', d4),
             notes="shape entry 04: RFC 8259 forbids leading zeros (cJSON would read 4)")
    s.reject("st005-control-in-string", "ST-005", raw(b'{"t\x01":' + json.dumps(ent("U8", [4], 0, 4)).encode() + b"}", d4),
             notes="raw U+0001 inside a name")
    s.reject("st005-formfeed-before-object", "ST-005", raw(b"\x0c" + hdr(t4).encode(), d4),
             notes="form feed before '{' is not JSON whitespace (cJSON would skip it)")
    s.reject("st005-vt-between-tokens", "ST-005", raw(b'{"t":\x0b' + json.dumps(ent("U8", [4], 0, 4)).encode() + b"}", d4),
             notes="vertical tab between tokens")
    s.reject("st005-lone-surrogate-escape", "ST-005", raw('{"t\\ud800":' + json.dumps(ent("U8", [4], 0, 4)) + "}", d4),
             notes="\\ud800 escape without its low surrogate")
    s.reject("st005-trailing-comma", "ST-005", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4],}}', d4),
             notes="trailing comma in the tensor entry")

    s.reject("st006-trailing-text", "ST-006", raw(hdr(t4) + "x", d4), notes="a byte 'x' after the object")
    s.reject("st006-nul-padding", "ST-006", raw(hdr(t4), d4, pad=b"\0"),
             notes="header padded with NUL instead of spaces: serde_json 'trailing characters' (ruvnet/RuView PR #809)")
    s.reject("st006-second-object", "ST-006", raw(hdr(t4) + "{}", d4), notes="two JSON objects")
    tabnul = raw(hdr(t4) + "\t\0", d4, pad=b" ")
    s.reject_compat("st006-nul-behind-tab-compat", "ST-006", tabnul,
                    notes="a tab (compat-tolerated) then a NUL: the NUL still breaks ST-006 under compat")

    s.reject("st007-tab-padding", "ST-007", raw(hdr(t4), d4, pad=b"\t"),
             notes="padding with tabs: JSON whitespace the crate tolerates, but the README says 0x20")
    s.reject("st007-newline-padding", "ST-007", raw(hdr(t4) + "\n", d4),
             notes="a newline after the object (e.g. a text editor's final newline)")

    s.reject("st008-leading-space", "ST-008", raw(" " + hdr(t4), d4),
             notes="a space before '{': the crate accepts it deliberately since PR #686")
    s.reject("st008-leading-newline", "ST-008", raw("\n\n" + hdr(t4), d4), notes="two newlines before '{'")

    s.reject("st009-metadata-int-value", "ST-009", raw(hdr(t4, meta='{"a":1}'), d4),
             notes="__metadata__ value is a number (issue #278)")
    s.reject("st009-metadata-nested", "ST-009", raw(hdr(t4, meta='{"a":{"b":"c"}}'), d4),
             notes="__metadata__ value is an object")
    s.reject("st009-metadata-string", "ST-009", raw(hdr(t4, meta='"x"'), d4), notes="__metadata__ is a string")
    s.reject("st009-metadata-twice", "ST-009", raw('{"__metadata__":{},' + hdr(t4)[1:-1] + ',"__metadata__":{}}', d4),
             notes="two __metadata__ keys: serde 'duplicate field'")
    s.reject("st009-tensor-named-metadata", "ST-009", raw(hdr(("__metadata__", ent("U8", [0], 0, 0)))),
             notes="a tensor named __metadata__ (the writer produces it, issue #849; the reader rejects it)")
    s.reject("st035-metadata-null", "ST-035", raw(hdr(t4, meta="null"), d4),
             notes="__metadata__: null: not a map (strict); the crate reads it as absent")

    s.reject("st010-missing-dtype", "ST-010", raw(hdr(("t", {"shape": [4], "data_offsets": [0, 4]})), d4),
             notes="tensor entry without dtype")
    s.reject("st010-missing-shape", "ST-010", raw(hdr(("t", {"dtype": "U8", "data_offsets": [0, 4]})), d4),
             notes="tensor entry without shape")
    s.reject("st010-missing-offsets", "ST-010", raw(hdr(("t", {"dtype": "U8", "shape": [4]})), d4),
             notes="tensor entry without data_offsets")
    s.reject("st010-duplicate-field", "ST-010",
             raw('{"t":{"dtype":"U8","dtype":"U8","shape":[4],"data_offsets":[0,4]}}', d4),
             notes="dtype given twice inside one entry: serde 'duplicate field'")
    s.reject("st010-entry-not-object", "ST-010", raw('{"t":[1,2,3]}'), notes="a tensor entry that is an array")

    s.reject("st011-unknown-field", "ST-011", raw(hdr(("t", ent("U8", [4], 0, 4, quant="int4"))), d4),
             notes="an extra field in a tensor entry: the schema's additionalProperties:false; the crate ignores it")
    deep = lambda d: '{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":' + "[" * d + "]" * d + "}}"
    s.reject("st011-deep-unknown-field", "ST-011", raw(deep(125), d4),
             notes="an unknown field nesting arrays 125 deep: 127 levels in all, the deepest serde_json (and so "
                   "the crate) parses")
    s.reject("st005-nesting-128", "ST-005", raw(deep(126), d4),
             notes="128 levels of nesting: serde_json's recursion limit ('recursion limit exceeded'); "
                   "cJSON alone would accept up to 1000")
    s.reject("st005-number-out-of-range", "ST-005", raw(hdr(("t", ent("U8", [4], 0, 4, scale="@"))).replace('"@"', "1e400"), d4),
             notes="an unknown field holding 1e400: serde_json refuses numbers that overflow f64 ('number out of "
                   "range') even where the value is ignored; cJSON would read infinity")
    s.reject("st011-big-number-field", "ST-011", raw(hdr(("t", ent("U8", [4], 0, 4, scale="@"))).replace('"@"', "1.7976931348623157e308"), d4),
             notes="an unknown field holding the largest finite double: in range, so only ST-011 (strict) objects")
    s.reject("st011-nul-field-name", "ST-011",
             raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"dtype\\u0000x":"I8"}}', d4),
             notes="a field named \"dtype\\u0000x\" is an unknown field, not a second dtype")

    for name, dt, note in [("st012-f8-e4m3fn", "F8_E4M3FN", "F8_E4M3FN: the crate spells it F8_E4M3"),
                           ("st012-lowercase", "u8", "lower-case u8"), ("st012-i4", "I4", "I4 is no safetensors dtype"),
                           ("st012-trailing-space", "U8 ", "\"U8 \" with a trailing space")]:
        s.reject(name, "ST-012", raw(hdr(("t", ent(dt, [4], 0, 4))), d4), notes=note)
    s.reject("st012-nul-suffix", "ST-012", raw('{"t":{"dtype":"U8\\u0000","shape":[4],"data_offsets":[0,4]}}', d4),
             notes="dtype \"U8\\u0000\": a C string would read U8")
    s.reject("st012-number", "ST-012", raw('{"t":{"dtype":8,"shape":[4],"data_offsets":[0,4]}}', d4),
             notes="dtype is a number")

    s.reject("st013-negative", "ST-013", raw('{"t":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}}', d4),
             notes="negative shape entry")
    s.reject("st013-float", "ST-013", raw('{"t":{"dtype":"U8","shape":[4.0],"data_offsets":[0,4]}}', d4),
             notes="shape entry 4.0")
    s.reject("st013-exponent", "ST-013", raw('{"t":{"dtype":"U8","shape":[4e0],"data_offsets":[0,4]}}', d4),
             notes="shape entry 4e0")
    s.reject("st013-two-to-64", "ST-013", raw('{"t":{"dtype":"U8","shape":[18446744073709551616,0],"data_offsets":[0,0]}}'),
             notes="shape entry 2^64 (one past u64), beside a 0 so only the entry itself is wrong")
    s.reject("st013-string", "ST-013", raw('{"t":{"dtype":"U8","shape":["4"],"data_offsets":[0,4]}}', d4),
             notes="shape entry is a string")
    s.reject("st013-not-array", "ST-013", raw('{"t":{"dtype":"U8","shape":4,"data_offsets":[0,4]}}', d4),
             notes="shape is a number, not a list")

    s.reject("st014-shape-overflow", "ST-014", raw(hdr(("t", ent("U8", [2, 2**63], 0, 4))), d4),
             notes="shape [2, 2^63]: element count overflows 64 bits (ValidationOverflow)")
    s.reject("st014-bits-overflow", "ST-014", raw(hdr(("t", ent("F64", [2**61], 0, 4))), d4),
             notes="F64 [2^61]: 2^61 elements fit, 2^67 bits do not")

    s.reject("st015-f4-odd-total", "ST-015", raw(hdr(("t", ent("F4", [3], 0, 2))), b"\0\0"),
             notes="F4 [3]: 12 bits, not whole bytes (MisalignedSlice)")
    s.reject("st015-f6-single", "ST-015", raw(hdr(("t", ent("F6_E3M2", [1], 0, 1))), b"\0"),
             notes="F6_E3M2 [1]: 6 bits")

    s.reject("st016-f4-odd-row", "ST-016", raw(hdr(("t", ent("F4", [2, 1], 0, 1))), b"\0"),
             notes="F4 [2,1]: 8 bits in total, but each row is half a byte (torch's float4_e2m1fn_x2 cannot load it)")
    s.reject("st016-f6-row", "ST-016", raw(hdr(("t", ent("F6_E2M3", [2, 2], 0, 3))), b"\0\0\0"),
             notes="F6_E2M3 [2,2]: 24 bits in total, rows of 12 bits")

    s.reject("st017-negative", "ST-017", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[-1,3]}}', d4),
             notes="negative data offset")
    s.reject("st017-float", "ST-017", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4.0]}}', d4),
             notes="float data offset")
    s.reject("st017-three", "ST-017", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4,4]}}', d4),
             notes="three data offsets")
    s.reject("st017-one", "ST-017", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[4]}}', d4),
             notes="one data offset")
    s.reject("st017-end-before-begin", "ST-017",
             raw(hdr(("a", ent("U8", [0], 4, 0)), ("b", ent("U8", [4], 0, 4))), d4),
             notes="data_offsets [4, 0]: end before begin")
    s.reject("st017-two-to-64", "ST-017", raw('{"t":{"dtype":"U8","shape":[0],"data_offsets":[18446744073709551616,0]}}'),
             notes="offset 2^64 does not fit u64")

    s.reject("st018-span-mismatch", "ST-018", raw(hdr(("t", ent("U16", [4], 0, 4))), d4),
             notes="U16 [4] needs 8 bytes, offsets span 4 (TensorInvalidInfo)")
    s.reject("st018-u64-max-offsets", "ST-018",
             raw(hdr(("t", ent("U8", [4], 0, 4)), ("z", ent("U8", [0], 4, U64_MAX))), d4),
             notes="a zero-size tensor whose offsets end at 2^64-1")

    s.reject("st019-hole", "ST-019", raw(hdr(("a", ent("U8", [2], 0, 2)), ("b", ent("U8", [2], 4, 6))), bytes(6)),
             notes="bytes [2,4) belong to no tensor (anti-polyglot)")
    s.reject("st019-hole-at-start", "ST-019", raw(hdr(("a", ent("U8", [4], 4, 8))), bytes(8)),
             notes="the first tensor starts at 4, not 0")
    s.reject("st019-overlap", "ST-019", raw(hdr(("a", ent("U8", [4], 0, 4)), ("b", ent("U8", [4], 2, 6))), bytes(6)),
             notes="tensors overlap on [2,4)")
    s.reject("st019-alias", "ST-019", raw(hdr(("a", ent("U8", [4], 0, 4)), ("b", ent("I8", [4], 0, 4))), d4),
             notes="two names alias the same bytes")

    s.reject("st020-truncated", "ST-020", raw(hdr(("t", ent("F32", [4], 0, 16))), bytes(12)),
             notes="the tensor needs 16 bytes, the file holds 12 (MetadataIncompleteBuffer)")
    s.reject("st020-no-data", "ST-020", raw(hdr(t4)), notes="the header is all there is")

    s.reject("st021-trailing-bytes", "ST-021", raw(hdr(t4), d4 + b"\xde\xad"),
             notes="2 bytes after the last tensor (MetadataIncompleteBuffer)")
    s.reject("st021-data-without-tensors", "ST-021", raw("{}", b"PK\x03\x04"),
             notes="no tensors, yet the buffer holds bytes (a polyglot's payload)")

    dup = raw('{"t":' + json.dumps(ent("U8", [4], 0, 4)) + ',"t":' + json.dumps(ent("I8", [4], 0, 4)) + "}", d4)
    s.reject("st022-duplicate-u8-then-i8", "ST-022", dup,
             notes="the same name twice with the same offsets, U8 then I8: the crate keeps the last (I8); "
                   "first-wins readers see U8")
    last = [v for k, v in safetensors.deserialize(dup) if k == "t"][0]["dtype"]
    assert last == "I8", last
    dupsame = raw('{"t":' + json.dumps(ent("U8", [4], 0, 4)) + ',"t":' + json.dumps(ent("U8", [4], 0, 4)) + "}", d4)
    s.reject("st022-duplicate-identical", "ST-022", dupsame, notes="the same entry twice")
    dupoff = raw('{"t":' + json.dumps(ent("U8", [4], 0, 4)) + ',"t":' + json.dumps(ent("U8", [4], 4, 8)) + "}", bytes(8))
    s.reject_compat("st022-duplicate-other-offsets-compat", "ST-019", dupoff,
                    fname="st022-duplicate-other-offsets.safetensors", notes="the same name with other offsets: last wins, so [0,4) is a hole (the crate: InvalidOffset, issue #401)")
    s.out.case(FAMILY, "st022-duplicate-other-offsets", verdict="reject", reject_rule="ST-022", layout="safetensors",
               files={"st022-duplicate-other-offsets.safetensors": dupoff},
               input="st022-duplicate-other-offsets.safetensors", rules=["ST-022"], source=HAND,
               extra={"crate": crate(dupoff)}, notes="strict: the duplicate itself")
    s.covered["ST-022"].append("st/st022-duplicate-other-offsets")

    s.reject("st023-metadata-duplicate-key", "ST-023", raw(hdr(t4, meta='{"a":"1","a":"2"}'), d4),
             notes="__metadata__ holds key \"a\" twice (the crate keeps the last)")

    # LIMIT: 2,000,001 values (shape entries of a zero-size tensor the crate accepts).
    vals = ",".join(["0"] * 2_000_001)
    s.reject("st024-too-many-values", "ST-024", raw('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"__x__":{"dtype":"U8","shape":[' + vals + '],"data_offsets":[4,4]}}', d4),
             notes="a header of 4 MB holding 2,000,001 shape entries: over packcheck's 2,000,000-value limit")
    s.reject("st027-rank-9", "ST-027", raw(hdr(("t", ent("U8", [1] * 9, 0, 1))), b"\0"),
             notes="rank 9 is over packcheck's limit of 8 (the crate has none)")


# ---------------------------------------------------------------------------------------------
# sharded folders

def gen_sharded(s: St):
    rng = np.random.default_rng(7)
    shard1 = {"model.embed.weight": numpy_array(rng, "F32", (4, 3)), "model.layers.0.w": numpy_array(rng, "F16", (2, 2))}
    shard2 = {"model.layers.1.w": numpy_array(rng, "F16", (2, 2)), "lm_head.weight": numpy_array(rng, "F32", (3, 4))}
    n1, n2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    b1, b2 = stnp.save(shard1, metadata={"format": "pt"}), stnp.save(shard2, metadata={"format": "pt"})
    for b in (b1, b2):
        assert crate(b) == "accept"
    total = sum(a.nbytes for a in list(shard1.values()) + list(shard2.values()))

    def index(wm, extra=None):
        d = {"metadata": {"total_size": total}, "weight_map": dict(sorted(wm.items()))}
        d.update(extra or {})
        return (json.dumps(d, indent=2) + "\n").encode()

    wm = {**{k: n1 for k in shard1}, **{k: n2 for k in shard2}}
    src = f"{SRC} safetensors.numpy.save per shard; index in transformers' model.safetensors.index.json form"
    idx = "model.safetensors.index.json"
    s.folder("sharded-valid", {n1: b1, n2: b2, idx: index(wm)}, verdict="pass",
             rules=["ST-030", "ST-031", "ST-032", "ST-033", "ST-034"], source=src,
             notes="two shards, every tensor named in weight_map with its shard")
    s.folder("sharded-no-index", {n1: b1, n2: b2}, verdict="pass", rules=["ST-034"], source=src,
             notes="two shards without an index: every *.safetensors is read")

    s.folder("st030-index-not-json", {n1: b1, n2: b2, idx: b'{"weight_map": {'}, verdict="reject", rule="ST-030",
             rules=["ST-030"], source=src, notes="the index is truncated JSON")
    s.folder("st030-no-weight-map", {n1: b1, n2: b2, idx: index({}, {"weight_map": None})}, verdict="reject",
             rule="ST-030", rules=["ST-030"], source=src, notes="weight_map is null")
    s.folder("st030-value-not-string", {n1: b1, n2: b2, idx: index({**wm, "lm_head.weight": 2})}, verdict="reject",
             rule="ST-030", rules=["ST-030"], source=src, notes="a weight_map value is a number")
    dupidx = index(wm).replace(b'"weight_map": {', b'"weight_map": {\n    "lm_head.weight": "' + n1.encode() + b'",', 1)
    assert dupidx.count(b'"lm_head.weight"') == 2
    s.folder("st030-duplicate-key", {n1: b1, n2: b2, idx: dupidx}, verdict="reject", rule="ST-030",
             rules=["ST-030"], source=src, notes="weight_map names lm_head.weight twice (shard 1, then shard 2): "
                                                 "json.load keeps the last, cJSON-like readers the first")
    gone = {**wm, **{k: "model-00003-of-00002.safetensors" for k in shard2}}
    s.folder("st031-missing-shard", {n1: b1, n2: b2, idx: index(gone)}, verdict="reject", rule="ST-031",
             rules=["ST-031"], source=src, notes="weight_map names a shard file that does not exist")
    trav = {**wm, "lm_head.weight": "../" + n2}
    s.folder("st031-path-traversal", {n1: b1, n2: b2, idx: index(trav)}, verdict="reject", rule="ST-031",
             rules=["ST-031"], source=src, notes="a shard named ../model-00002-of-00002.safetensors (mediapipe #6278)")
    wrong = {**wm, "lm_head.weight": n1}
    s.folder("st032-wrong-shard", {n1: b1, n2: b2, idx: index(wrong)}, verdict="reject", rule="ST-032",
             rules=["ST-032"], source=src, notes="weight_map puts lm_head.weight in shard 1; it lives in shard 2")
    ghost = {**wm, "model.layers.2.w": n2}
    s.folder("st032-ghost-tensor", {n1: b1, n2: b2, idx: index(ghost)}, verdict="reject", rule="ST-032",
             rules=["ST-032"], source=src, notes="weight_map names a tensor no shard holds")
    left = {k: v for k, v in wm.items() if k != "model.layers.1.w"}
    s.folder("st033-tensor-left-out", {n1: b1, n2: b2, idx: index(left)}, verdict="reject", rule="ST-033",
             rules=["ST-033"], source=src, notes="model.layers.1.w is in shard 2 but not in weight_map")
    b2dup = stnp.save({**shard2, "model.layers.0.w": shard1["model.layers.0.w"]}, metadata={"format": "pt"})
    s.folder("st034-duplicate-across-shards", {n1: b1, n2: b2dup}, verdict="reject", rule="ST-034",
             rules=["ST-034"], source=src, notes="model.layers.0.w is in both shards (no index)")


def gen_sidecars(s: St):
    """CFG-001: a sidecar config beside a valid container must be one JSON object."""
    rng = np.random.default_rng(11)
    b = stnp.save({"model.norm.weight": numpy_array(rng, "F32", (4,))}, metadata={"format": "pt"})
    src = f"{SRC} safetensors.numpy.save; the sidecar written by hand"
    s.folder("cfg001-config-truncated", {"model.safetensors": b, "config.json": b'{"quantization_config": {"bits": 4'},
             verdict="reject", rule="CFG-001", rules=["CFG-001"], source=src, notes="config.json is truncated JSON")
    s.folder("cfg001-config-array", {"model.safetensors": b, "quantize_config.json": b"[4, 128]\n"},
             verdict="reject", rule="CFG-001", rules=["CFG-001"], source=src, notes="quantize_config.json is an array")
    s.folder("cfg001-config-valid", {"model.safetensors": b, "config.json": b'{"model_type": "llama"}\n'},
             verdict="pass", rules=["CFG-001"], source=src, notes="a config.json with no quantization_config: a plain container")


def generate(out):
    s = St(out)
    gen_valid(s)
    gen_negative(s)
    gen_sharded(s)
    gen_sidecars(s)
    # Every ST rule of the catalogue has a case, or says in `no_fixture` why it cannot.
    exempt = rules_without_fixture()
    missing = sorted(r for r in s.rules if r.startswith("ST-") and r not in s.covered and r not in exempt)
    assert not missing, f"ST rules without a case: {missing}"
