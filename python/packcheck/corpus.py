"""The corpus shipped in the package: its version and MANIFEST digest, its cases, and each case's
expected logical view as numpy arrays.

The view comes from the C tool (`packcheck unpack`, the same decoder `packcheck corpus` holds to
the pins) and is checked here against the SHA-256 pins of the case's expect.json before it is
returned, so what a test compares with is the pinned view, byte for byte."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from ._binary import PACKAGE_DIR, PackcheckError, run

PathLike = Union[str, "os.PathLike[str]"]


def root(corpus: Optional[PathLike] = None) -> Path:
    """The corpus folder: `corpus`, else $PACKCHECK_CORPUS, else the one inside this package (the
    same rule the binary follows: share/packcheck/fixtures beside bin/)."""
    if corpus is not None:
        return Path(corpus)
    env = os.environ.get("PACKCHECK_CORPUS")
    return Path(env) if env else PACKAGE_DIR / "share" / "packcheck" / "fixtures"


def version(corpus: Optional[PathLike] = None) -> str:
    """The corpus version (VERSION, MAJOR.MINOR.PATCH; fixtures/CHANGELOG.md), "" when unversioned."""
    p = root(corpus) / "VERSION"
    return p.read_text().strip() if p.is_file() else ""


def manifest_sha256(corpus: Optional[PathLike] = None) -> str:
    """SHA-256 of MANIFEST.sha256, which pins every file: the corpus's exact identity."""
    return hashlib.sha256((root(corpus) / "MANIFEST.sha256").read_bytes()).hexdigest()


@dataclass(frozen=True)
class ModuleView:
    """One quantized weight of the logical view (CONTRACT 3): codes U8 and weight F32, [out, in]
    (or [E, out, in]). Either may be None when the corpus pins only the other."""
    prefix: str
    shape: Tuple[int, ...]
    bits: int
    codes: Any = field(repr=False, default=None)    # numpy.ndarray, uint8
    weight: Any = field(repr=False, default=None)   # numpy.ndarray, float32


class PinMismatch(AssertionError):
    """The decoded view does not match the corpus pins (a broken install or corpus)."""


@dataclass(frozen=True)
class Case:
    """One corpus case: its input, the expected verdict and rule, and the pinned view."""
    id: str
    dir: Path
    input: Path
    verdict: str
    reject_rule: Optional[str]
    reject_family: Optional[str]
    layout: Optional[str]
    rules: Tuple[str, ...]
    expect: Dict[str, Any] = field(repr=False, compare=False)
    corpus: Path = field(repr=False, compare=False, default=Path("."))
    format: str = "safetensors"          # the container: "gguf" or "safetensors"
    layouts: Tuple[str, ...] = ()        # every layout the case holds (a GGUF case: its block types)

    @property
    def profile(self) -> str:
        """The profile the case's verdict holds in ("strict" unless expect.json says otherwise)."""
        return self.expect.get("profile") or "strict"

    @property
    def family(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    @property
    def pins(self) -> Dict[str, Dict[str, Any]]:
        return self.expect.get("modules") or {}

    def expected_view(self) -> Dict[str, ModuleView]:
        """The pinned logical view, by module prefix ({} when the case pins no module, e.g. a reject
        case). Raises PinMismatch when the decoded bytes differ from the pins."""
        if not self.pins:
            return {}
        from . import _safetensors
        import numpy as np

        self.verify_pinned()  # what is decoded and what it is held to are the manifest's bytes

        with tempfile.TemporaryDirectory(prefix="packcheck-view-") as tmp:
            out = Path(tmp) / "view.safetensors"
            proc = run(["unpack", "--out", str(out), "--profile", self.profile, "--allow-unchecked", "--", str(self.input)],
                       ok_codes=(0, 1, 3))
            if proc.returncode != 0 or not out.is_file():
                raise PinMismatch(f"{self.id}: the case pins a view but packcheck unpack refused it: {proc.stderr.strip()}")
            tensors = _safetensors.read(out)
        views: Dict[str, ModuleView] = {}
        for prefix, pin in sorted(self.pins.items()):
            codes, weight = tensors.get(prefix + ".codes"), tensors.get(prefix + ".weight")
            for what, arr, key in (("codes", codes, "codes_sha256"), ("weight", weight, "weight_f32_sha256")):
                want = pin.get(key)
                if want is None:
                    continue
                got = hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest() if arr is not None else "missing"
                if got != want:
                    raise PinMismatch(f"{self.id}: {prefix}.{what}: sha256 {got} != pinned {want}")
            shape = tuple(pin.get("shape") or (codes.shape if codes is not None else weight.shape))
            views[prefix] = ModuleView(prefix=prefix, shape=shape, bits=int(pin.get("bits", 0)),
                                       codes=codes if pin.get("codes_sha256") else None,
                                       weight=weight if pin.get("weight_f32_sha256") else None)
        return views

    def verify_pinned(self) -> None:
        """Every file of the case folder, expect.json included, has the SHA-256 MANIFEST.sha256 pins
        for it, the manifest lists no file the folder lacks, and the expect.json this Case was loaded
        from is still those bytes. Raises PinMismatch otherwise: an edited expect.json (pins changed
        to fit a wrong decoder) or input must not be served as the expected view."""
        pins = _manifest(self.corpus)
        prefix = self.id + "/"
        want = {rel[len(prefix):]: sha for rel, sha in pins.items() if rel.startswith(prefix)}
        have = {}
        for p in sorted(self.dir.rglob("*")):
            if p.is_symlink() or not p.is_file():
                if p.is_symlink():
                    raise PinMismatch(f"{self.id}: {p.relative_to(self.dir)} is a link, not a pinned file")
                continue
            have[p.relative_to(self.dir).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
        for rel in sorted(set(want) | set(have)):
            if want.get(rel) != have.get(rel):
                raise PinMismatch(f"{self.id}/{rel}: sha256 {have.get(rel, 'missing')} != manifest {want.get(rel, 'not pinned')}")
        if json.loads((self.dir / "expect.json").read_bytes()) != self.expect:
            raise PinMismatch(f"{self.id}: expect.json changed since the case was loaded")

    def check(self, view: Any, *, ulp: int = 0):
        """Hold a reader's output for this case to the corpus, the way `packcheck certify` does:
        see packcheck.testing.check_view."""
        from .testing import check_view
        return check_view(self, view, ulp=ulp)


def _manifest(corpus: Path) -> Dict[str, str]:
    """MANIFEST.sha256 as {relative path: sha256}."""
    out: Dict[str, str] = {}
    for line in (Path(corpus) / "MANIFEST.sha256").read_text().splitlines():
        sha, sep, rel = line.partition("  ")
        if sep:
            out[rel] = sha
    return out


def _component(s: str) -> bool:
    """One plain path component: no separator, not empty, "." or "..", no NUL."""
    return bool(s) and s not in (".", "..") and "/" not in s and "\\" not in s and "\0" not in s


_SCOPES: Dict[str, Dict[str, Tuple[str, Tuple[str, ...]]]] = {}


def _scopes(corpus: Path) -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """Each case's container format and layouts, from `packcheck corpus --list` (the binary reads the
    GGUF headers for their block types; nothing is parsed twice). Cached per corpus."""
    key = str(corpus)
    if key not in _SCOPES:
        out: Dict[str, Tuple[str, Tuple[str, ...]]] = {}
        for line in run(["corpus", "--list", str(corpus)], ok_codes=(0,)).stdout.splitlines():
            parts = line.split("\t")
            if len(parts) == 4:
                out[parts[0]] = (parts[2], tuple(x for x in parts[3].split(",") if x))
        _SCOPES[key] = out
    return _SCOPES[key]


def _load_case(corpus: Path, family: str, name: str) -> Optional[Case]:
    # A case id is FAMILY/NAME, two plain components: "ct//abs/path" or "../x" must not reach a
    # folder outside the corpus, nor may a case folder that is a link leading out of it.
    if not (_component(family) and _component(name)):
        raise ValueError(f"{family}/{name}: a case id is FAMILY/NAME, two plain folder names")
    d = corpus / family / name
    base = Path(corpus).resolve()
    if d.exists() and base not in d.resolve().parents:
        raise ValueError(f"{family}/{name}: the case folder resolves outside the corpus {base}")
    ep = d / "expect.json"
    if not ep.is_file():
        return None
    e = json.loads(ep.read_text())
    inp = e.get("input") or "."
    cid = f"{family}/{name}"
    fmt, layouts = _scopes(corpus).get(cid, ("safetensors", ()))
    # A GGUF case's layout is its block type(s) ("q8_0"; "q4_0,q4_1,q8_0" when mixed), not the container.
    layout = ",".join(layouts) if fmt == "gguf" and layouts else e.get("layout")
    return Case(id=cid, dir=d, input=(d / inp) if inp != "." else d, verdict=e.get("verdict", ""),
                reject_rule=e.get("reject_rule"), reject_family=e.get("reject_family"), layout=layout,
                rules=tuple(e.get("rules") or ()), expect=e, corpus=corpus, format=fmt, layouts=layouts)


def _in_scope(c: Case, layout: Any, format: Any) -> bool:
    """As `packcheck certify --layout/--format`: every layout of the case declared (a case naming none,
    a container case, is in any layout scope), its container among the formats."""
    if format is not None and c.format not in ([format] if isinstance(format, str) else list(format)):
        return False
    if layout is None:
        return True
    want = {x.lower() for x in ([layout] if isinstance(layout, str) else list(layout))}
    return all(x in want for x in c.layouts)


def cases(family: Optional[str] = None, verdict: Optional[str] = None, *, rule: Optional[str] = None,
          layout: Any = None, format: Any = None, corpus: Optional[PathLike] = None) -> List[Case]:
    """The corpus's cases, sorted by id. family: a folder ("awq", "ct", "gguf", ...) or a list of
    them; verdict: "pass", "reject" or "either"; rule: cases rejecting by that rule ID; layout: a
    reader's declared layouts ("q8_0", ["q4_0", "q8_0"], "awq-gemm"; a GGUF case's layouts are its
    block types), format: "gguf" or "safetensors" (or a list), selected as certify --layout/--format."""
    base = root(corpus)
    if not (base / "MANIFEST.sha256").is_file():
        raise PackcheckError(f"{base} is not a corpus (no MANIFEST.sha256)")
    fams = [family] if isinstance(family, str) else list(family) if family is not None else \
        sorted(p.name for p in base.iterdir() if p.is_dir())
    out: List[Case] = []
    for fam in fams:
        fd = base / fam
        if not fd.is_dir():
            raise ValueError(f"no family {fam!r} in {base}")
        for name in sorted(p.name for p in fd.iterdir() if p.is_dir()):
            c = _load_case(base, fam, name)
            if c is None or (verdict is not None and c.verdict != verdict) or (rule is not None and c.reject_rule != rule):
                continue
            if not _in_scope(c, layout, format):
                continue
            out.append(c)
    return sorted(out, key=lambda c: c.id)


def case(case_id: str, *, corpus: Optional[PathLike] = None) -> Case:
    """One case by its id ("awq/autoawq-gemm-g32-random")."""
    fam, _, name = case_id.partition("/")
    c = _load_case(root(corpus), fam, name)
    if c is None:
        raise KeyError(case_id)
    return c
