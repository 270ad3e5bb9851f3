"""Run the README's CI example (the block between the ci-example markers) in a copy of this
folder, with the packcheck already installed in this venv standing in for `pip install packcheck`.
usage: run_readme_ci.py README.md WORKDIR"""
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_TIMEOUT = 10.0   # certify's own default, seconds per case
SCALE = 20               # the calibrated limit: the slowest of three runs of one case, times this
CALIBRATION_CASE = "awq/autoawq-gemm-g32-random"


def run_steps(readme: str):
    block = readme.split("<!-- ci-example:begin", 1)[1].split("<!-- ci-example:end", 1)[0]
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)- run: (.*)$", lines[i])
        i += 1
        if not m:
            continue
        cmd = m.group(2)
        if cmd.strip() == ">":
            parts = []
            while i < len(lines) and lines[i].startswith(m.group(1) + "    "):
                parts.append(lines[i].strip())
                i += 1
            cmd = " ".join(parts)
        yield cmd


def reader_of(cmd: str):
    """The --reader template of a `packcheck certify` command line, or None."""
    args = shlex.split(cmd)
    for i, a in enumerate(args):
        if a == "--reader" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--reader="):
            return a.split("=", 1)[1]
    return None


def calibrate(reader: str, cwd, env, case_input: str, runs: int = 3):
    """The per-case timeout for this machine as it is now: the reader on one small valid case, `runs`
    times; the slowest run times SCALE, never below certify's default. Returns (timeout, slowest).
    A busy machine gets a longer limit, and the log says so (never silently)."""
    slowest = 0.0
    with tempfile.TemporaryDirectory(prefix="packcheck-calibrate-") as tmp:
        for k in range(runs):
            out = os.path.join(tmp, f"view{k}.safetensors")
            cmd = reader.replace("{input}", shlex.quote(case_input)).replace("{output}", shlex.quote(out)).replace("{profile}", "strict")
            t0 = time.monotonic()
            subprocess.run(cmd, shell=True, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            slowest = max(slowest, time.monotonic() - t0)
    return max(DEFAULT_TIMEOUT, math.ceil(slowest * SCALE)), slowest


def certify_failure(work: Path) -> str:
    """What a failed certify step got wrong, by outcome: '46 timeout, 1 crash'."""
    try:
        counts = json.loads((work / "certify.json").read_text()).get("counts", {})
    except (OSError, ValueError):
        return "no certify.json written"
    bad = [f"{int(counts[k])} {k}" for k in ("wrong-output", "accepted-invalid", "rejected-valid", "crash", "timeout", "tampered", "stale")
           if counts.get(k)]
    return ", ".join(bad) or f"{int(counts.get('unexpected', 0))} unexpected"


def main():
    readme, work = Path(sys.argv[1]).read_text(), Path(sys.argv[2])
    shutil.copytree(Path(__file__).resolve().parent, work, dirs_exist_ok=True)
    bindir = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    steps = list(run_steps(readme))
    assert any(s.startswith("pip install packcheck") for s in steps), "the example installs the pip package"
    for cmd in steps:
        if cmd.startswith("pip install"):
            print(f"-- skipped (the wheel is installed): {cmd}")
            continue
        if cmd.startswith("packcheck certify") and os.geteuid() == 0:
            # as root, certify runs readers as nobody (--reader-user), and the stand-in reader then does
            # not find this venv's packcheck; a CI runner's user is not root, so the README has no such option
            cmd += " --reader-user root"
        reader = reader_of(cmd) if cmd.startswith("packcheck certify") else None
        if reader and "--timeout" not in cmd:
            import packcheck.corpus
            limit, slowest = calibrate(reader, work, env, str(packcheck.corpus.case(CALIBRATION_CASE).input))
            print(f"-- calibration: the reader took {slowest:.2f} s on {CALIBRATION_CASE} (slowest of 3 runs); "
                  f"certify --timeout {limit:.0f} s ({SCALE}x, at least the default {DEFAULT_TIMEOUT:.0f} s)", flush=True)
            cmd += f" --timeout {limit:.0f}"
        print(f"-- {cmd}", flush=True)
        # the venv's bin first on PATH: packcheck, python and python3 are the installed ones
        rc = subprocess.run(cmd, shell=True, cwd=work, env=env,
                            stdout=subprocess.DEVNULL if "certify" in cmd else None).returncode
        if rc != 0:
            what = f"README CI certify step failed: {certify_failure(work)}" if "certify" in cmd else f"README CI step failed (exit {rc})"
            sys.exit(f"{what}; command: {cmd}")
    for f in ("certify.xml", "certify.html", "certify.json", "packcheck-pytest.xml"):
        assert (work / f).is_file(), f
    print(f"README CI example: {len(steps)} steps ran")


if __name__ == "__main__":
    main()
