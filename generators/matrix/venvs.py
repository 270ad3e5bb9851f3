"""Where each (reader, version) lives and how it is installed: one venv (or npm folder) per release
under MATRIX_VENVS, outside the repository. Readers on torch share one torch venv (`torch/`, made
first: torch, numpy, safetensors, transformers and compressed-tensors' own dependencies) through a
.pth file, so a release costs its own wheel only; the venv's site-packages come before the .pth
entry, so its release shadows whatever the torch venv holds.

A venv is ready only when it is complete: install "deps" is true (pip resolves everything), false
(--no-deps: the release's own wheel only) or "missing" (--no-deps, then every requirement that `pip
check` finds not installed at all, e.g. compressed-tensors' loguru, is installed: the shared torch venv
is never replaced by a second torch); "import" names modules the venv must import afterwards. A
venv without them fails at install, not in the middle of a run as 29 "refused a valid input"."""
import glob
import os
import re
import subprocess
import sys

TORCH_BASE = ["torch==2.15.0", "numpy==2.4.6", "safetensors==0.8.0", "transformers==5.24.0",
              "compressed-tensors==0.20.1", "accelerate==1.15.0", "psutil==7.2.2"]


def folder(reader, version, root):
    return os.path.join(root, f"{reader['slug']}-{version}")


def site_packages(venv):
    found = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))
    return found[0] if found else None


def deps_mode(reader):
    d = reader["install"].get("deps", True)
    if d not in (True, False, "missing"):
        raise SystemExit(f"matrix: {reader.get('slug', '?')}: install deps must be true, false or \"missing\", not {d!r}")
    return {True: "deps", False: "no-deps", "missing": "missing-deps"}[d]


def spec(reader, version):
    """What a ready venv was made from: a changed plan entry makes it not ready (reinstalled)."""
    i = reader["install"]
    return " ".join([i["base"], deps_mode(reader)] + [p.format(v=version) for p in i["packages"]]
                    + ["import:" + m for m in i.get("import", ())])


def ready(reader, version, root):
    p = os.path.join(folder(reader, version, root), ".matrix-ready")
    if not os.path.exists(p):
        return False
    with open(p) as f:
        return f.read().strip() == spec(reader, version)


def reader_command(reader, version, env, root):
    """The certify --reader command of one (reader, version, environment)."""
    d = folder(reader, version, root)
    adapter = os.path.join("generators", "readers", reader["adapter"])
    if reader["install"]["base"] == "npm":
        return f"env HF_GGUF_DIR={d} sh {adapter} {{input}} {{output}}"
    return f"env PC_READER_ENV={env} {d}/bin/python {adapter} {{input}} {{output}}"


def pip(venv, args, log):
    return subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--disable-pip-version-check", "-q", *args],
                          stdout=log, stderr=subprocess.STDOUT).returncode


def missing_requirements(venv):
    """The requirement names `pip check` reports as not installed at all (a version conflict with the
    shared torch venv is left alone: replacing torch or transformers per release is what the shared
    venv avoids, and the release's own code is what the matrix measures)."""
    p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "check", "--disable-pip-version-check"],
                       capture_output=True, text=True)
    return sorted(set(re.findall(r"requires ([A-Za-z0-9_.-]+), which is not installed", p.stdout)))


def imports_ok(venv, modules, log):
    """The venv's interpreter imports every module named in the plan (0 when it does)."""
    if not modules:
        return 0
    code = "; ".join(f"import {m}" for m in modules)
    return subprocess.run([os.path.join(venv, "bin", "python"), "-c", code], stdout=log, stderr=subprocess.STDOUT).returncode


def torch_base(root, log):
    """The shared torch venv; its marker holds TORCH_BASE, so a changed list remakes it (a venv made
    from an older list, without compressed-tensors' loguru, once passed as ready)."""
    base = os.path.join(root, "torch")
    marker, want = os.path.join(base, ".matrix-ready"), " ".join(TORCH_BASE)
    if os.path.exists(marker) and open(marker).read().strip() == want:
        return base
    if not os.path.exists(os.path.join(base, "bin", "pip")):
        subprocess.run([sys.executable, "-m", "venv", base], check=True)
    if pip(base, TORCH_BASE, log):
        return None
    with open(marker, "w") as f:
        f.write(want + "\n")
    return base


def pip_packages(d, how, pkgs, log):
    """pip install one release by the plan's deps mode (see the module docstring)."""
    mode = how.get("deps", True)
    rc = pip(d, pkgs if mode is True else ["--no-deps", *pkgs], log)
    if rc == 0 and mode == "missing":
        need = missing_requirements(d)
        if need:
            log.write(f"matrix: installing the missing requirements {' '.join(need)}\n")
            log.flush()
            rc = pip(d, need, log)
        if rc == 0 and missing_requirements(d):
            log.write(f"matrix: still missing after install: {' '.join(missing_requirements(d))}\n")
            rc = 1
    return rc


def install(reader, version, root):
    """Make one release's venv (idempotent); returns 0 when it is ready."""
    d = folder(reader, version, root)
    if ready(reader, version, root):
        return 0
    os.makedirs(root, exist_ok=True)
    how = reader["install"]
    pkgs = [p.format(v=version) for p in how["packages"]]
    with open(d + ".log", "w") as log:
        if how["base"] == "npm":
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "package.json"), "w") as f:
                f.write('{"private": true}\n')
            rc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", *pkgs], cwd=d,
                                stdout=log, stderr=subprocess.STDOUT).returncode
        else:
            subprocess.run([sys.executable, "-m", "venv", "--clear", d], check=True)
            if how["base"] == "torch":
                base = torch_base(root, log)
                if not base:
                    return 1
                with open(os.path.join(site_packages(d), "zz_matrix_torch.pth"), "w") as f:
                    f.write(site_packages(base) + "\n")
            rc = pip_packages(d, how, pkgs, log)
            if rc == 0:
                rc = imports_ok(d, how.get("import"), log)
    if rc == 0:
        with open(os.path.join(d, ".matrix-ready"), "w") as f:
            f.write(spec(reader, version) + "\n")
    return rc


def install_all(readers, wanted, every, root):
    bad = 0
    for r in readers:
        for v in (r["versions"] if every else r["anchors"]):
            if wanted and v not in wanted:
                continue
            rc = install(r, v, root)
            print(f"matrix: install {r['name']} {v}: {'ready' if rc == 0 else 'FAILED (see ' + folder(r, v, root) + '.log)'}")
            bad |= rc != 0
    return bad
