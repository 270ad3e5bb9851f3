"""Lay out cases as DIR/<family>/<case>/{files, expect.json} and pin them in MANIFEST.sha256."""
import hashlib
import json
import os

from pcgen.accounting import tensor_accounting


def sha256_bytes(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


class Corpus:
    def __init__(self, root: str):
        self.root = root
        self.ids = set()

    def case(self, family: str, name: str, *, source: str, verdict: str, files: dict,
             input: str = ".", reject_rule=None, reject_family=None, layout=None, rules=(),
             modules=None, profile=None, notes=None, extra=None):
        """Write one case. `files` maps a relative path to bytes, or to a dict/list (written as JSON)."""
        cid = f"{family}/{name}"
        if cid in self.ids:
            raise ValueError(f"duplicate case {cid}")
        if verdict not in ("pass", "reject", "either", "unchecked"):
            raise ValueError(verdict)
        if verdict == "reject" and not (reject_rule or reject_family):
            raise ValueError(f"{cid}: a reject case names its rule or family")
        self.ids.add(cid)
        d = os.path.join(self.root, family, name)
        os.makedirs(d, exist_ok=True)
        for rel, data in files.items():
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if not isinstance(data, (bytes, bytearray)):
                data = (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()
            with open(p, "wb") as f:
                f.write(data)
        expect = {"case": cid, "source": source, "input": input, "verdict": verdict,
                  "reject_rule": reject_rule, "reject_family": reject_family,
                  "layout": layout, "rules": list(rules), "modules": modules or {}}
        if profile:
            expect["profile"] = profile
        if notes:
            expect["notes"] = notes
        if extra:
            expect.update(extra)
        if verdict in ("pass", "unchecked"):
            expect["tensors"] = tensor_accounting(d, input, modules)
            # An accepted case holding tensors no module decodes (a container case's I8 or F8
            # tensor, a GGUF type without a module) is stated `unchecked`, never `pass`.
            expect["verdict"] = "unchecked" if expect["tensors"]["unchecked"] else "pass"
        with open(os.path.join(d, "expect.json"), "w") as f:
            json.dump(expect, f, indent=2, sort_keys=True)
            f.write("\n")
        return d


def module_pin(shape, bits, codes_u8: bytes, weight_f32: bytes) -> dict:
    """The expect.json entry of one module: hashes of the raw little-endian logical view."""
    return {"shape": list(shape), "bits": bits,
            "codes_sha256": sha256_bytes(codes_u8), "weight_f32_sha256": sha256_bytes(weight_f32)}


def write_manifest(root: str) -> None:
    lines = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, root)
            if rel == "MANIFEST.sha256":
                continue
            with open(p, "rb") as f:
                lines.append(f"{sha256_bytes(f.read())}  {rel}")
    lines.sort(key=lambda l: l[66:])
    with open(os.path.join(root, "MANIFEST.sha256"), "w") as f:
        f.write("\n".join(lines) + "\n")


def folder_files(d: str) -> dict:
    """Every file below folder d as {relative path: bytes}, sorted: an exported model folder as a case's files."""
    out = {}
    for root, dirs, names in os.walk(d):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


def folder_tensors(d: str) -> dict:
    """Every tensor of the *.safetensors files of folder d (torch), in file-name order."""
    from safetensors.torch import load_file
    out = {}
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".safetensors"):
            out.update(load_file(os.path.join(d, fn)))
    return out
