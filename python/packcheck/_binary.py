"""Where the packaged C binary is, and running it."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Sequence

PACKAGE_DIR = Path(__file__).resolve().parent


class PackcheckError(RuntimeError):
    """The tool could not do its job (exit 2): usage, unreadable path, corpus pins broken."""


def binary_path() -> Path:
    """The packcheck binary: $PACKCHECK_BINARY, else the one inside this package (packcheck/bin/)."""
    env = os.environ.get("PACKCHECK_BINARY")
    p = Path(env) if env else PACKAGE_DIR / "bin" / "packcheck"
    if not p.is_file():
        raise PackcheckError(f"packcheck binary not found at {p} (reinstall the package or set PACKCHECK_BINARY)")
    return p


def run(args: Sequence[str], *, ok_codes: Sequence[int] = (0, 1), env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `packcheck ARGS...`, capturing text output; an exit code outside ok_codes raises PackcheckError."""
    proc = subprocess.run([str(binary_path()), *args], capture_output=True, text=True, env=env)
    if proc.returncode not in ok_codes:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise PackcheckError(f"packcheck {' '.join(args[:1])} exited {proc.returncode}: " + (msg[-1] if msg else "no message"))
    return proc
