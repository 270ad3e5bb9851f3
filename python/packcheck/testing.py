"""Holding a reader's output for one case to the corpus, for a loader's own tests.

Nothing is compared here: the view is written to a safetensors file and `packcheck certify --case
ID` runs on it (its reader just copies that file), so the outcome, the first differing element and
the diagnosed bug class are exactly what certify reports for the same output."""
from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from .certify import CaseOutcome, certify
from .corpus import Case, ModuleView
from .corpus import case as _case_by_id

# What a loader hands in: the logical view by tensor name ({"M.codes": uint8, "M.weight": float32}),
# by module ({"M": ModuleView or {"codes": ..., "weight": ...}}), a safetensors file it wrote, or None
# when it refused the input.
View = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def _flatten(view: Mapping[str, Any]) -> dict:
    flat = {}
    for k, v in view.items():
        if isinstance(v, ModuleView):
            v = {"codes": v.codes, "weight": v.weight}
        if isinstance(v, Mapping):
            for part in ("codes", "weight"):
                if v.get(part) is not None:
                    flat[f"{k}.{part}"] = v[part]
        else:
            flat[k] = v
    return flat


def check_view(case: Union[Case, str], view: View, *, ulp: int = 0) -> CaseOutcome:
    """Run certify on exactly this case with `view` as the reader's answer."""
    c = case if isinstance(case, Case) else _case_by_id(case)
    with tempfile.TemporaryDirectory(prefix="packcheck-check-") as tmp:
        # certify run as root drops the reader to an unprivileged user (--reader-user): the copy it
        # makes must be able to read the view
        os.chmod(tmp, 0o755)
        if view is None:
            reader = ": {input} {output}; exit 1"
        else:
            if isinstance(view, (str, os.PathLike)):
                # copied beside ours: the caller's folder (pytest's tmp_path is 0700) may be closed to it
                src = Path(tmp) / "view.safetensors"
                shutil.copyfile(view, src)
                os.chmod(src, 0o644)
            else:
                from . import _safetensors
                src = Path(tmp) / "view.safetensors"
                _safetensors.write(src, _flatten(view))
                os.chmod(src, 0o644)
            reader = f": {{input}}; cp {shlex.quote(str(src))} {{output}}"
        rep = certify(reader, corpus=c.corpus, cases=[c.id], ulp=ulp, name="pytest")
    try:
        return rep.outcome(c.id)
    except KeyError:
        skipped = rep.raw.get("skipped") or []
        why = next((s.get("reason", "") for s in skipped if s.get("case") == c.id), "not run")
        return CaseOutcome(case=c.id, expected=c.verdict, outcome="skipped", status="skip", detail=why)


def assert_view(case: Union[Case, str], view: View, *, ulp: int = 0) -> CaseOutcome:
    """check_view, raising AssertionError with certify's explanation unless the outcome is pass."""
    oc = check_view(case, view, ulp=ulp)
    if not oc.passed and oc.outcome != "skipped":
        raise AssertionError(oc.explain())
    return oc


def assert_refuses(case: Union[Case, str], load: Any, *args: Any, **kw: Any) -> Optional[CaseOutcome]:
    """Call load(case.input, ...) and hold the result (or its exception, as a refusal) to the case."""
    c = case if isinstance(case, Case) else _case_by_id(case)
    try:
        view = load(c.input, *args, **kw)
    except Exception:  # a loader refusing an input is an answer, not a test error
        view = None
    return assert_view(c, view)
