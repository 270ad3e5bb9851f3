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


def scope_filters(root, claims):
    """certify --only filters covering scope_cases: the fixture folders holding any of them ("ct/"),
    since certify takes at most 32 filters; the other cases of those folders are refused unread."""
    return sorted({c.split("/")[0] + "/" for c in scope_cases(root, claims)})


def scope_cases(root, claims):
    """The corpus cases that exercise a family the reader claims (expect.json `rules`, CT-010 -> CT):
    the cases a run certifies. Every other case is out of the reader's scope and its adapter would
    refuse it unread, so running it tells nothing and costs a process start on a loaded machine."""
    fx = os.path.join(root, "fixtures")
    out = []
    for fam in sorted(os.listdir(fx)):
        d = os.path.join(fx, fam)
        if not os.path.isdir(d):
            continue
        for case in sorted(os.listdir(d)):
            p = os.path.join(d, case, "expect.json")
            if not os.path.exists(p):
                continue
            with open(p) as f:
                e = json.load(f)
            if {r.rsplit("-", 1)[0] for r in e.get("rules") or ()} & set(claims):
                out.append(e.get("case") or f"{fam}/{case}")
    return out


def published(reader):
    """The releases the registry lists for the reader's package (pip index / npm view), or None."""
    import subprocess
    pkg = reader["install"]["packages"][0]
    if reader["install"]["base"] == "npm":
        name = pkg.rsplit("@", 1)[0]
        p = subprocess.run(["npm", "view", name, "versions", "--json"], capture_output=True, text=True)
        return json.loads(p.stdout) if p.returncode == 0 else None
    name = pkg.split("==")[0]
    p = subprocess.run([os.sys.executable, "-m", "pip", "index", "versions", name], capture_output=True, text=True)
    m = re.search(r"Available versions: (.*)", p.stdout)
    return [v.strip() for v in m.group(1).split(",")] if m else None


def discover(root, write=False):
    """Releases newer than each reader's newest planned one (final releases only); with write, they
    are appended to generators/matrix.json as versions and anchors (the weekly workflow's first step)."""
    path = os.path.join(root, "generators", "matrix.json")
    with open(path) as f:
        doc = json.load(f)
    found = {}
    for r in doc["readers"]:
        pub = published(r) or []
        newest = max(r["versions"], key=version_key)
        new = sorted((v for v in pub if re.fullmatch(r"[0-9.]+", v) and version_key(v) > version_key(newest)), key=version_key)
        if new:
            found[r["slug"]] = new
            r["versions"] += new
            r["anchors"] += new
    if write and found:
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return found
