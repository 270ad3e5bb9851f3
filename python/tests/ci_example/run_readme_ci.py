"""Run the README's CI example (the block between the ci-example markers) in a copy of this
folder, with the packcheck already installed in this venv standing in for `pip install packcheck`.
usage: run_readme_ci.py README.md WORKDIR"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


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
        print(f"-- {cmd}", flush=True)
        # the venv's bin first on PATH: packcheck, python and python3 are the installed ones
        rc = subprocess.run(cmd, shell=True, cwd=work, env=env,
                            stdout=subprocess.DEVNULL if "certify" in cmd else None).returncode
        if rc != 0:
            sys.exit(f"README CI step failed (exit {rc}): {cmd}")
    for f in ("certify.xml", "certify.html", "certify.json", "packcheck-pytest.xml"):
        assert (work / f).is_file(), f
    print(f"README CI example: {len(steps)} steps ran")


if __name__ == "__main__":
    main()
