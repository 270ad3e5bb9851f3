"""The append-only history (reports/matrix/history.jsonl): one JSON line per certify run, keyed by
reader, version, environment, corpus digest, packcheck version and adapter digest. A line is never
rewritten; a rerun of the same key (a new adapter, a new corpus) appends a new line and the newest
line of a key wins. Partial lines (bisection) hold only the cases they ran.

A line with "environment_failure" (the import error every case died with) is a broken venv, not a
reader result: the runner marks it so when it records one, the pages list it apart and count nothing
from it, and its key stays unanswered (the next run repeats it). Two lines recorded before the runner
knew this (compressed-tensors 0.17.1 and 0.18.0, no loguru in the venv) carry the marker added by hand:
the only lines ever rewritten."""
import datetime
import hashlib
import json
import os
import re

from plan import corpus_digest, packcheck_version, version_key

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.path.join(ROOT, "reports", "matrix", "history.jsonl")
OUT_OF_SCOPE = "out of scope"  # what every adapter says when it refuses an input it does not read


def load(path=PATH):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def append(rec, path=PATH):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        f.write(json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def adapter_digest(reader, root=ROOT):
    """sha256 over the adapter and the shared plumbing it imports: a changed adapter is a new key."""
    d = os.path.join(root, "generators", "readers")
    files = [reader["adapter"]] + (["_common.py"] if reader["adapter"].endswith(".py") else ["js/hf_gguf_reader.mjs"])
    return hashlib.sha256("".join(sha256_file(os.path.join(d, f)) for f in files).encode()).hexdigest()


def cases_key(cases):
    return hashlib.sha256("\n".join(sorted(cases)).encode()).hexdigest()[:12] if cases else ""


def is_result(rec):
    """A line that says something about the reader: not an environment failure (a venv that could not
    import the reader at all, every case refused with the same import error)."""
    return not rec.get("environment_failure")


def key(rec):
    return (rec["slug"], rec["version"], rec["environment"], rec["adapter_sha256"], rec.get("cases_key", ""))


def keys(recs, digest, pcv):
    """The keys already answered (an environment failure answers nothing: its key is run again)."""
    return {key(r) for r in recs if r["corpus_digest"] == digest and r["packcheck_version"] == pcv and is_result(r)}


def case_families(case):
    """The rule families a case exercises (its rules' ids up to the last '-': CT-010 -> CT)."""
    return sorted({r.rsplit("-", 1)[0] for r in case.get("rules") or ()})


def exercised(case, claims):
    """A case the reader read: it exercises a family the reader claims, and the reader did not refuse
    it as out of its scope (before the library is used)."""
    return bool(set(case_families(case)) & set(claims)) and OUT_OF_SCOPE not in (case.get("log_tail") or "")


def scrub(text):
    """A reader's message without the paths of the machine it ran on (venvs, interpreter, work dirs):
    the history is committed."""
    text = re.sub(r"/[^\s\"':]*/(site-packages|lib/python3[.0-9]*)/", r"<\1>/", text)
    return re.sub(r"/(?:root|home|tmp|work)[^\s\"':]*", "<path>", text)


IMPORT_ERROR = re.compile(r"^((?:ModuleNotFoundError|ImportError): .*)$", re.M)


def environment_failure(cases):
    """The import error every exercised case of a run failed with, or None. A run whose every case
    dies importing the library (a venv missing one of its dependencies) measured the environment,
    not the reader: the same error on every case, none passed."""
    errors = set()
    for c in cases:
        if c["outcome"] == "pass":
            return None
        found = IMPORT_ERROR.findall(c.get("log_tail") or "")
        if not found:
            return None
        errors.add(scrub(found[-1].strip()))
    return errors.pop() if len(errors) == 1 and len(cases) > 0 else None


def record_from_certificate(cert, reader, version, env, cases, root=ROOT):
    """The compact history line of one certify JSON report."""
    with open(cert) as f:
        rep = json.load(f)
    results, failures, fams = {}, {}, {}
    mine_cases = [c for c in rep["cases"] if exercised(c, reader["claims"])]
    for c in mine_cases:
        results[c["case"]] = c["outcome"]
        mine = [f for f in case_families(c) if f in reader["claims"]]
        for f in mine:
            p, e = fams.get(f, (0, 0))
            fams[f] = [p + (c["outcome"] == "pass"), e + 1]
        if c["outcome"] != "pass":
            diag = c.get("diagnosis") or {}
            failures[c["case"]] = {k: v for k, v in (("diagnosis", diag.get("bug")), ("detail", c.get("detail")),
                                                     ("reader_said", scrub((c.get("log_tail") or "").strip())[-160:]),
                                                     ("families", mine)) if v}
    rec = {
        "reader": reader["name"], "slug": reader["slug"], "language": reader["language"], "version": version,
        "environment": env, "corpus_digest": rep["manifest_sha256"], "packcheck_version": rep["packcheck_version"],
        "adapter_sha256": adapter_digest(reader, root), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "partial": bool(cases), "cases_key": cases_key(cases), "cases_requested": sorted(cases) if cases else None,
        "run": rep["counts"].get("run", 0), "exercised": len(results),
        "passed": sum(1 for o in results.values() if o == "pass"), "families": dict(sorted(fams.items())),
        "certificate": "sha256:" + sha256_file(cert), "results": results, "failures": failures,
    }
    broken = environment_failure(mine_cases)
    if broken:
        rec["environment_failure"] = broken
    return rec


def current(recs, digest=None, pcv=None):
    """The newest line of every key, of the given corpus digest and packcheck version (environment
    failures left out: they are no answer about any case)."""
    out = {}
    for r in filter(is_result, recs):
        if (digest is None or r["corpus_digest"] == digest) and (pcv is None or r["packcheck_version"] == pcv):
            out[(r["slug"], r["version"], r["environment"], r.get("cases_key", ""))] = r
    return list(out.values())


def statuses(reader, env, recs):
    """{version: {case: status}} over the full and partial lines of one reader and environment; a full
    run's unexercised cases read 'out-of-scope', a partial run says only what it ran."""
    by_v = {}
    for r in sorted(recs, key=lambda r: r["partial"], reverse=True):  # full lines last: they win
        if r["slug"] != reader["slug"] or r["environment"] != env:
            continue
        s = by_v.setdefault(r["version"], {})
        if r["partial"]:
            for c in r["cases_requested"] or ():
                s[c] = r["results"].get(c, "out-of-scope")
        else:
            s["*"] = "out-of-scope"
            s.update(r["results"])
    return by_v


def status_of(s, case):
    return s.get(case, s.get("*"))


def transitions(reader, env, recs):
    """Every (case, a, b, status_a, status_b) where the case's status changes between two releases
    a < b that both have an answer for it and no release between them has one."""
    by_v = statuses(reader, env, recs)
    order = [v for v in sorted(reader["versions"], key=version_key) if v in by_v]
    cases = sorted({c for s in by_v.values() for c in s if c != "*"})
    out = []
    for c in cases:
        known = [(v, status_of(by_v[v], c)) for v in order if status_of(by_v[v], c) is not None]
        for (a, sa), (b, sb) in zip(known, known[1:]):
            if sa != sb:
                out.append((c, a, b, sa, sb))
    return out


def bisect_targets(reader, env, recs):
    """[(version, cases)]: the middle release between each disagreeing pair, with the cases to run."""
    order = sorted(reader["versions"], key=version_key)
    want = {}
    for c, a, b, _, _ in transitions(reader, env, recs):
        between = order[order.index(a) + 1:order.index(b)]
        if between:
            want.setdefault(between[len(between) // 2], set()).add(c)
    return [(v, sorted(cs)) for v, cs in sorted(want.items(), key=lambda kv: version_key(kv[0]))]
