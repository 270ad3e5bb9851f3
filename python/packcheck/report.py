"""`packcheck.validate`: the validate JSON report (CONTRACT 2) as dataclasses."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

from ._binary import PackcheckError, run

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class RuleResult:
    """One line of an input's results: a rule and what it found (status pass, fail, warn or skip)."""
    rule: str
    status: str
    severity: str = ""
    tensor: str = ""
    message: str = ""
    offset: Optional[int] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "RuleResult":
        off = d.get("offset")
        return cls(rule=d["rule"], status=d["status"], severity=d.get("severity", ""), tensor=d.get("tensor", ""),
                   message=d.get("message", ""), offset=int(off) if off is not None else None)


@dataclass(frozen=True)
class InputReport:
    """One validated input: its format (ct-dense, gptq-v1, ..., gguf, mixed), verdict (pass, reject,
    unchecked, error), the tensor accounting (checked / plain / unchecked counts) and results."""
    path: str
    format: str
    verdict: str
    results: Tuple[RuleResult, ...]
    tensors: Dict[str, int] = field(default_factory=dict)
    unchecked: Tuple[Any, ...] = ()
    raw: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    error: str = ""   # why an input with verdict "error" could not be read ("no such file or folder")

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "InputReport":
        return cls(path=d.get("path", ""), format=d.get("format", ""), verdict=d.get("verdict", ""),
                   results=tuple(RuleResult.from_json(r) for r in d.get("results", [])),
                   tensors=dict(d.get("tensors") or {}), unchecked=tuple(d.get("unchecked") or ()), raw=d,
                   error=d.get("error") or "")

    @property
    def failures(self) -> Tuple[RuleResult, ...]:
        return tuple(r for r in self.results if r.status == "fail")

    @property
    def warnings(self) -> Tuple[RuleResult, ...]:
        return tuple(r for r in self.results if r.status == "warn")

    def status_of(self, rule: str) -> str:
        """fail > warn > pass > skip, as the C tool rolls one rule up."""
        order = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}
        sts = [r.status for r in self.results if r.rule == rule]
        return max(sts, key=lambda s: order.get(s, 0)) if sts else "skip"


@dataclass(frozen=True)
class Report:
    """The whole validate document: one InputReport per input, in the order given."""
    packcheck_version: str
    profile: str
    inputs: Tuple[InputReport, ...]
    exit_code: int
    raw: Dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, d: Dict[str, Any], exit_code: int = 0) -> "Report":
        return cls(packcheck_version=d.get("packcheck_version", ""), profile=d.get("profile", ""),
                   inputs=tuple(InputReport.from_json(i) for i in d.get("inputs", [])), exit_code=exit_code, raw=d)

    @property
    def accepted(self) -> bool:
        """Every input accepted (warnings allowed): the CLI's exit 0."""
        return self.exit_code == 0

    @property
    def verdict(self) -> str:
        """The first input's verdict (the usual single-input call)."""
        return self.inputs[0].verdict if self.inputs else ""


def validate(*paths: PathLike, profile: str = "strict", config: Optional[PathLike] = None,
             hash: bool = False) -> Report:
    """Validate checkpoints (files or folders) with the packaged binary. Every run that writes its
    report gives a Report (an unreadable input has verdict "error" and exit_code 2); a run that
    could not write one (usage error, the binary missing) raises PackcheckError."""
    if not paths:
        raise ValueError("validate() needs at least one path")
    with tempfile.TemporaryDirectory(prefix="packcheck-") as tmp:
        out = Path(tmp) / "report.json"
        args = ["validate", "--profile", profile, "--quiet", "--report", f"json:{out}"]
        if config is not None:
            args += ["--config", os.fspath(config)]  # an option's value: never read as an option
        if hash:
            args.append("--hash")
        args += ["--", *map(os.fspath, paths)]  # "--": a path is never read as an option
        proc = run(args, ok_codes=(0, 1, 2, 3))
        if not out.is_file():
            raise PackcheckError(f"packcheck validate wrote no report: {proc.stderr.strip()}")
        return Report.from_json(json.loads(out.read_text()), exit_code=proc.returncode)
