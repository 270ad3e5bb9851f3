"""The matrix plan (generators/matrix.json): which readers, which releases, which environments."""
import hashlib
import json
import os
import re


def readers(root, slugs=()):
    with open(os.path.join(root, "generators", "matrix.json")) as f:
        rs = json.load(f)["readers"]
    unknown = set(slugs) - {r["slug"] for r in rs}
    if unknown:
        raise SystemExit(f"matrix: unknown reader(s) {sorted(unknown)}")
    return [r for r in rs if not slugs or r["slug"] in slugs]


def version_key(v):
    """Release order: numeric fields compared as numbers (0.14.0.1 < 0.15.0)."""
    return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.+-]", v))


def selected_versions(reader, wanted=(), every=False):
    vs = reader["versions"] if every or wanted else reader["anchors"]
    return [v for v in vs if not wanted or v in wanted]


def run_name(reader, version, env):
    return f"{reader['name']} {version} [{env}]"


def corpus_digest(root):
    """sha256 of fixtures/MANIFEST.sha256: the corpus a run was judged against."""
    with open(os.path.join(root, "fixtures", "MANIFEST.sha256"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def packcheck_version(root):
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        m = re.search(r"project\(packcheck VERSION ([0-9.]+)", f.read())
    return m.group(1) if m else "unknown"
