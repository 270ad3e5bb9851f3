"""`packcheck.certify`: run `packcheck certify` and read its JSON report as dataclasses. The
outcomes, the first differing element and the diagnosis all come from the C harness."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from ._binary import PackcheckError, run

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class FirstDiff:
    """The first element where the reader's view differs: module, tensor (codes/weight), flat index,
    coordinates, expected and got values."""
    module: str
    tensor: str
    index: int
    at: Tuple[int, ...]
    expected: Any
    got: Any

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "FirstDiff":
        return cls(module=d.get("module", ""), tensor=d.get("tensor", ""), index=int(d.get("index", -1)),
                   at=tuple(d.get("at") or ()), expected=d.get("expected"), got=d.get("got"))

    def __str__(self) -> str:
        at = ", ".join(map(str, self.at))
        return f"{self.module}.{self.tensor}[{at}] (flat index {self.index}): expected {self.expected}, got {self.got}"


@dataclass(frozen=True)
class Diagnosis:
    """The known reader bug whose simulation equals the reader's output (diagnose.c)."""
    bug: str
    title: str
    detail: str = ""
    also: Tuple[str, ...] = ()

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Diagnosis":
        return cls(bug=d.get("bug", ""), title=d.get("title", ""), detail=d.get("detail", ""),
                   also=tuple(x if isinstance(x, str) else x.get("bug", "") for x in d.get("also") or ()))


@dataclass(frozen=True)
class CaseOutcome:
    """One case of a certify run: pass, wrong-output, accepted-invalid, rejected-valid, crash, timeout."""
    case: str
    expected: str
    outcome: str
    status: str
    detail: str = ""
    first_diff: Optional[FirstDiff] = None
    diagnosis: Optional[Diagnosis] = None
    raw: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "CaseOutcome":
        fd, dg = d.get("first_diff"), d.get("diagnosis")
        return cls(case=d.get("case", ""), expected=d.get("expected", ""), outcome=d.get("outcome", ""),
                   status=d.get("status", ""), detail=d.get("detail", ""),
                   first_diff=FirstDiff.from_json(fd) if isinstance(fd, dict) else None,
                   diagnosis=Diagnosis.from_json(dg) if isinstance(dg, dict) else None, raw=d)

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"

    def explain(self) -> str:
        """The lines `packcheck certify` would show for this case."""
        lines = [f"packcheck case {self.case} (expected {self.expected}): {self.outcome}"
                 + (f": {self.detail}" if self.detail else "")]
        if self.first_diff:
            lines.append(f"  first differing element: {self.first_diff}")
        if self.diagnosis:
            d = self.diagnosis
            lines.append(f"  diagnosis: {d.bug} ({d.title})" + (f": {d.detail}" if d.detail else "")
                         + (f"; also matches {', '.join(d.also)}" if d.also else ""))
        elif self.outcome == "wrong-output":
            lines.append("  diagnosis: no known reader bug matches")
        return "\n".join(lines)


@dataclass(frozen=True)
class CertifyReport:
    certified: bool
    exit_code: int
    corpus_version: str
    manifest_sha256: str
    cases: Tuple[CaseOutcome, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: Dict[str, Any], exit_code: int) -> "CertifyReport":
        return cls(certified=exit_code == 0, exit_code=exit_code, corpus_version=d.get("corpus_version", ""),
                   manifest_sha256=d.get("manifest_sha256", ""),
                   cases=tuple(CaseOutcome.from_json(c) for c in d.get("cases", [])), raw=d)

    def outcome(self, case_id: str) -> CaseOutcome:
        for c in self.cases:
            if c.case == case_id:
                return c
        raise KeyError(case_id)

    @property
    def failures(self) -> Tuple[CaseOutcome, ...]:
        return tuple(c for c in self.cases if c.status == "fail")


def certify(reader: str, *, corpus: Optional[PathLike] = None, cases: Sequence[str] = (), only: Sequence[str] = (),
            expect_fail: Optional[PathLike] = None, profile: str = "strict", timeout: Optional[float] = None,
            ulp: int = 0, jobs: Optional[int] = None, name: Optional[str] = None,
            reports: Sequence[str] = ()) -> CertifyReport:
    """Certify a reader command ('CMD {input} {output}') against the corpus (default: the packaged
    one). cases: exact ids (--case); only: id substrings (--only); reports: extra "FMT:PATH"."""
    with tempfile.TemporaryDirectory(prefix="packcheck-certify-") as tmp:
        out = Path(tmp) / "certify.json"
        args = ["certify", "--reader", reader, "--profile", profile, "--report", f"json:{out}"]
        if corpus is not None:
            args += ["--corpus", os.fspath(corpus)]
        for c in cases:
            args += ["--case", c]
        for o in only:
            args += ["--only", o]
        if expect_fail is not None:
            args += ["--expect-fail", os.fspath(expect_fail)]
        if timeout is not None:
            args += ["--timeout", str(timeout)]
        if ulp:
            args += ["--ulp", str(ulp)]
        if jobs is not None:
            args += ["--jobs", str(jobs)]
        if name is not None:
            args += ["--name", name]
        for r in reports:
            args += ["--report", r]
        proc = run(args, ok_codes=(0, 1, 2))
        if proc.returncode == 2 or not out.is_file():
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            raise PackcheckError("packcheck certify: harness error: " + (msg[-1] if msg else "no message"))
        return CertifyReport.from_json(json.loads(out.read_text()), proc.returncode)
