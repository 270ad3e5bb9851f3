"""Generators whose library lives in another venv re-run themselves there, writing into the same
corpus folder, and report the case ids they wrote (one JSON list on the last stdout line)."""
import importlib
import json
import os
import subprocess
import sys

from pcgen.corpus import Corpus


class NeedsVenv(RuntimeError):
    """The generator's venv is missing: regen.py skips it with this message."""


def run_in_venv(script, venv, out, what):
    """Run `script` (a gen_*.py file) with the venv's python, adding the ids it wrote to `out`."""
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        raise NeedsVenv(f"{os.path.basename(script)} needs {what}: no venv at {venv}")
    script = os.path.abspath(script)
    r = subprocess.run([py, script, out.root], cwd=os.path.dirname(script), capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise RuntimeError(f"{os.path.basename(script)}: the {what} venv at {venv} failed")
    for cid in json.loads(r.stdout.strip().splitlines()[-1]):
        out.ids.add(cid)


def importable(*modules):
    """Do all of `modules` import here? (Which interpreter a generator must run under.)"""
    try:
        for m in modules:
            importlib.import_module(m)
        return True
    except ImportError:
        return False


def here_or_in_venv(script, venv, out, what, modules, generate):
    """generate(out) in this interpreter when `modules` import, else `script` under the venv's python."""
    if importable(*modules):
        return generate(out)
    run_in_venv(script, venv, out, what)


def venv_main(generate):
    """The `__main__` side of run_in_venv: generate into argv[1], print the ids."""
    c = Corpus(sys.argv[1])
    generate(c)
    print(json.dumps(sorted(c.ids)))
