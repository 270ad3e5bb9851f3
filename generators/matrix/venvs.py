"""Where each (reader, version) lives and how it is installed: one venv (or npm folder) per release
under MATRIX_VENVS, outside the repository. Readers on torch share one torch venv (`torch/`, made
first: torch, numpy, safetensors, transformers and compressed-tensors' own dependencies) through a
.pth file, so a release costs its own wheel only; the venv's site-packages come before the .pth
entry, so its release shadows whatever the torch venv holds."""
import glob
import os
import subprocess
import sys

TORCH_BASE = ["torch==2.15.0", "numpy==2.4.6", "safetensors==0.8.0", "transformers==5.24.0",
              "compressed-tensors==0.20.1", "accelerate==1.15.0", "psutil==7.2.2"]


def folder(reader, version, root):
    return os.path.join(root, f"{reader['slug']}-{version}")


def site_packages(venv):
    found = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))
    return found[0] if found else None


def spec(reader, version):
    """What a ready venv was made from: a changed plan entry makes it not ready (reinstalled)."""
    i = reader["install"]
    return " ".join([i["base"], "deps" if i.get("deps", True) else "no-deps"] + [p.format(v=version) for p in i["packages"]])


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


def torch_base(root, log):
    base = os.path.join(root, "torch")
    if os.path.exists(os.path.join(base, ".matrix-ready")):
        return base
    subprocess.run([sys.executable, "-m", "venv", base], check=True)
    if pip(base, TORCH_BASE, log):
        return None
    open(os.path.join(base, ".matrix-ready"), "w").close()
    return base


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
            rc = pip(d, pkgs if how.get("deps", True) else ["--no-deps", *pkgs], log)
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
