#!/usr/bin/env python3
"""Build the matrix pages from the history alone (standard library only, byte-for-byte reproducible):
    reports/matrix/index.json     readers: [{name, language, runs: [{version, environment, corpus_digest,
                                  passed, exercised, certificate}], regressions: [{case, finding,
                                  first_bad, last_good}], ...}]
    reports/matrix/<slug>.json    one reader: the same, plus every case's status per release
    reports/matrix/index.html     the reader x release x family grid
usage: pages.py [--check | --text]   (--check: exit 1 when the committed files differ from what the
       history gives; --text: print the grid and the regressions as plain text, write nothing)
"""
import html
import json
import os
import re
import sys

import history
from plan import version_key

ROOT = history.ROOT
OUT = os.path.join(ROOT, "reports", "matrix")
FAIL = ("wrong-output", "rejected-valid", "accepted-invalid", "crash", "timeout", "tampered")


def findings_by_case(slug):
    """{case: finding path} from reports/findings/<slug>-<version>-<n>.md, by the case ids they name."""
    d = os.path.join(ROOT, "reports", "findings")
    out = {}
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if not re.match(re.escape(slug) + r"-[0-9][0-9.]*-[0-9]+\.md$", f):
            continue
        with open(os.path.join(d, f)) as fh:
            # a case named as its folder (`fixtures/ct/legacy-b3-k12-no-version/`) counts too
            for case in re.findall(r"\b(?:fixtures/)?([a-z0-9]+/[a-z0-9][a-z0-9_.-]*[a-z0-9])\b", fh.read()):
                out.setdefault(case, "reports/findings/" + f)
    return out


def results_only(lines):
    """The lines that are reader results (an environment failure is listed apart, never counted)."""
    return [r for r in lines if history.is_result(r)]


def newest_digest(lines):
    """The corpus digest of the newest result line (an environment failure's digest says nothing)."""
    res = results_only(lines)
    return res[-1]["corpus_digest"] if res else None


def digests_newest_first(lines):
    out = []
    for r in reversed(results_only(lines)):
        if r["corpus_digest"] not in out:
            out.append(r["corpus_digest"])
    return out


def runs_of(reader, lines):
    """Latest line per (version, environment, corpus digest, cases run), in release order; full runs
    before the partial ones (bisection, targeted) of a release."""
    last = {}
    for r in results_only(lines):
        last[(r["version"], r["environment"], r["corpus_digest"], r.get("cases_key", ""))] = r
    envs = reader["environments"]
    rows = sorted(last.values(), key=lambda r: (version_key(r["version"]), envs.index(r["environment"])
                                                if r["environment"] in envs else 99, r["partial"], r["corpus_digest"],
                                                r.get("cases_key", "")))
    return rows


def answers(s, version, case):
    return history.status_of(s.get(version, {}), case) is not None


def changes(reader, lines, findings):
    """Regressions (pass -> failure), fixes (failure -> pass) and other changes between neighbouring
    releases that answered for a case, per environment, within one corpus digest (a case's fixture can
    change between corpora). Every digest of the history counts, newest first: a change seen on an
    older corpus stays known (with its corpus_digest) until a newer corpus answers that case at both
    of its releases. Environment failures answer nothing. (Only the newest digest counted once:
    compressed-tensors' 0.17.1 -> 0.18.0 regression, seen by partial runs on one corpus, vanished when
    two broken-venv full runs landed on the next.)"""
    order = sorted(reader["versions"], key=version_key)
    regs, fixes, other, newer = [], [], [], []
    for digest in digests_newest_first(lines):
        cur = history.current([r for r in lines if r["corpus_digest"] == digest])
        fails = {}
        for r in sorted(cur, key=lambda r: r["partial"], reverse=True):
            for c, f in r["failures"].items():
                fails[(r["version"], r["environment"], c)] = f
        for env in reader["environments"]:
            for c, a, b, sa, sb in history.transitions(reader, env, cur):
                if any(answers(st[env], a, c) and answers(st[env], b, c) for st in newer):
                    continue  # a newer corpus measured this case at both releases: its answer stands
                item = {"case": c, "environment": env, "last_good" if sa == "pass" else "before": a,
                        "first_bad" if sa == "pass" else "after": b, "from": sa, "to": sb,
                        "bisected": order.index(b) - order.index(a) == 1, "corpus_digest": digest}
                f = fails.get((b, env, c)) or fails.get((a, env, c)) or {}
                if f.get("diagnosis"):
                    item["diagnosis"] = f["diagnosis"]
                if c in findings:
                    item["finding"] = findings[c]
                (regs if sa == "pass" and sb in FAIL else fixes if sb == "pass" and sa in FAIL else other).append(item)
        newer.append({env: history.statuses(reader, env, cur) for env in reader["environments"]})
    return regs, fixes, other


def environment_failures(lines):
    """Runs that measured a broken venv (every case refused with one import error): listed, not counted."""
    return [{"version": r["version"], "environment": r["environment"], "corpus_digest": r["corpus_digest"],
             "date": r["date"], "error": r["environment_failure"], "cases": len(r["results"]),
             "certificate": r["certificate"]} for r in lines if not history.is_result(r)]


def env_differences(reader, lines):
    """Cases whose status differs between environments at one release (the environment axis)."""
    envs = reader["environments"]
    if len(envs) < 2:
        return []
    digest = newest_digest(lines)
    cur = history.current([r for r in lines if r["corpus_digest"] == digest])
    st = {e: history.statuses(reader, e, cur) for e in envs}
    out = []
    for v in sorted({v for s in st.values() for v in s}, key=version_key):
        cases = sorted({c for e in envs for c in st[e].get(v, {}) if c != "*"})
        for c in cases:
            got = {e: history.status_of(st[e].get(v, {}), c) for e in envs}
            if None not in got.values() and len(set(got.values())) > 1:
                out.append({"version": v, "case": c, "statuses": got})
    return out


def reader_entry(reader, lines, findings):
    runs = runs_of(reader, lines)
    regs, fixes, other = changes(reader, lines, findings)
    return {
        "name": reader["name"], "slug": reader["slug"], "language": reader["language"], "mode": reader["mode"],
        "claims": reader["claims"], "versions": reader["versions"], "environments": reader["environments"],
        "json": f"reports/matrix/{reader['slug']}.json",
        "runs": [{"version": r["version"], "environment": r["environment"], "corpus_digest": r["corpus_digest"],
                  "packcheck_version": r["packcheck_version"], "date": r["date"], "passed": r["passed"],
                  "exercised": r["exercised"], "certificate": r["certificate"], "families": r["families"],
                  "partial": r["partial"], "cases_run": len(r["cases_requested"]) if r["partial"] else None}
                 for r in runs],
        "bisection_runs": sum(1 for r in results_only(lines) if r["partial"]),
        "environment_failures": environment_failures(lines),
        "regressions": regs, "fixes": fixes, "changes": other,
        "environment_differences": env_differences(reader, lines),
    }


def case_table(reader, lines):
    """{case: {"version [env]": status}} on the newest digest (full and bisection lines)."""
    digest = newest_digest(lines)
    cur = history.current([r for r in lines if r["corpus_digest"] == digest])
    out = {}
    for env in reader["environments"]:
        for v, s in history.statuses(reader, env, cur).items():
            for c, st in s.items():
                if c != "*":
                    out.setdefault(c, {})[f"{v} [{env}]"] = st
    return {c: dict(sorted(d.items())) for c, d in sorted(out.items())}


def diagnoses(lines):
    """{"version [env]": {case: failure}} of the newest digest's lines (diagnosis, families)."""
    digest = newest_digest(lines)
    out = {}
    for r in sorted(history.current([r for r in lines if r["corpus_digest"] == digest]), key=lambda r: r["partial"], reverse=True):
        d = out.setdefault(f'{r["version"]} [{r["environment"]}]', {})
        d.update(r["failures"])
    return out


def build(readers, recs):
    """{relative path: bytes} of every page."""
    entries, files, tables = [], {}, {}
    for rd in readers:
        lines = [r for r in recs if r["slug"] == rd["slug"]]
        if not lines:
            continue
        finds = findings_by_case(rd["slug"])
        e = reader_entry(rd, lines, finds)
        entries.append(e)
        tables[rd["slug"]] = (case_table(rd, lines), finds, diagnoses(lines))
        files[f"{rd['slug']}.json"] = dump(dict(e, cases=tables[rd["slug"]][0]))
    idx = {"kind": "packcheck-reader-matrix", "history": "reports/matrix/history.jsonl",
           "history_lines": len(recs), "readers": entries}
    files["index.json"] = dump(idx)
    files["index.html"] = render_html(idx, tables).encode()
    return files


def dump(obj):
    return (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode()


def cell(fam, run, fails):
    if fam not in run["families"]:
        return '<td class="na">-</td>'
    p, e = run["families"][fam]
    if p == e:
        return f'<td class="ok">{p}/{e}</td>'
    items = "".join(f'<li><a href="../../fixtures/{html.escape(c)}/">{html.escape(c)}</a> {html.escape(o)}'
                    + (f' <i>{html.escape(f["diagnosis"])}</i>' if f.get("diagnosis") else "")
                    + (f' <a href="../../{html.escape(f["finding"])}">finding</a>' if f.get("finding") else "") + "</li>"
                    for c, o, f in fails if fam in f.get("families", ()))
    return f'<td class="bad"><details><summary>{p}/{e}</summary><ul>{items}</ul></details></td>'


def render_reader(e, cases, findings, diags):
    fams = sorted({f for r in e["runs"] for f in r["families"]})
    out = [f'<h2 id="{e["slug"]}">{html.escape(e["name"])} <small>({html.escape(e["language"])}, {e["mode"]}; '
           f'<a href="{e["slug"]}.json">{e["slug"]}.json</a>)</small></h2>',
           "<table><tr><th>release</th><th>environment</th><th>corpus</th><th>passed / exercised</th>"
           + "".join(f"<th>{html.escape(f)}</th>" for f in fams) + "</tr>"]
    for r in e["runs"]:
        key = f'{r["version"]} [{r["environment"]}]'
        fails = [(c, st[key], {k: v for k, v in (("finding", findings.get(c)), ("diagnosis", diags.get(key, {}).get(c, {}).get("diagnosis")),
                                                 ("families", diags.get(key, {}).get(c, {}).get("families"))) if v})
                 for c, st in cases.items() if st.get(key) not in (None, "pass", "out-of-scope")]
        part = f' <small>(partial: {r["cases_run"]} cases)</small>' if r["partial"] else ""
        out.append(f'<tr><td>{r["version"]}{part}</td><td>{r["environment"]}</td><td><code>{r["corpus_digest"][:12]}</code></td>'
                   f'<td>{r["passed"]} / {r["exercised"]}</td>' + "".join(cell(f, r, fails) for f in fams) + "</tr>")
    out.append("</table>")
    for title, key in (("Regressions (last good -> first bad)", "regressions"), ("Fixes", "fixes"), ("Other changes", "changes")):
        rows = e[key]
        if not rows:
            continue
        out.append(f"<h3>{title}</h3><table><tr><th>case</th><th>environment</th><th>from</th><th>to</th><th>status</th><th>diagnosis</th><th>finding</th><th>corpus</th></tr>")
        for x in rows:
            a, b = x.get("last_good", x.get("before")), x.get("first_bad", x.get("after"))
            out.append(f'<tr><td><a href="../../fixtures/{html.escape(x["case"])}/">{html.escape(x["case"])}</a></td><td>{x["environment"]}</td>'
                       f'<td>{a} ({x["from"]})</td><td>{b}{"" if x["bisected"] else " (not bisected)"}</td><td>{x["to"]}</td>'
                       f'<td>{html.escape(x.get("diagnosis", ""))}</td><td>'
                       + (f'<a href="../../{html.escape(x["finding"])}">{html.escape(os.path.basename(x["finding"]))}</a>' if x.get("finding") else "")
                       + f'</td><td><code>{x["corpus_digest"][:12]}</code></td></tr>')
        out.append("</table>")
    if e["environment_failures"]:
        out.append("<h3>Environment failures (not reader results: every case died on one import error; not counted)</h3>"
                   "<table><tr><th>release</th><th>environment</th><th>corpus</th><th>cases</th><th>error</th></tr>")
        for x in e["environment_failures"]:
            out.append(f'<tr><td>{x["version"]}</td><td>{x["environment"]}</td><td><code>{x["corpus_digest"][:12]}</code></td>'
                       f'<td>{x["cases"]}</td><td><code>{html.escape(x["error"])}</code></td></tr>')
        out.append("</table>")
    if e["environment_differences"]:
        out.append("<h3>Environment differences (same release)</h3><table><tr><th>release</th><th>case</th>"
                   + "".join(f"<th>{env}</th>" for env in e["environments"]) + "</tr>")
        for d in e["environment_differences"]:
            out.append(f'<tr><td>{d["version"]}</td><td><a href="../../fixtures/{html.escape(d["case"])}/">{html.escape(d["case"])}</a></td>'
                       + "".join(f'<td>{d["statuses"].get(env, "")}</td>' for env in e["environments"]) + "</tr>")
        out.append("</table>")
    return "\n".join(out)


def render_html(idx, tables):
    body = []
    for e in idx["readers"]:
        body.append(render_reader(e, *tables[e["slug"]]))
    return ("<!doctype html><meta charset=utf-8><title>packcheck reader matrix</title>\n<style>"
            "body{font:14px sans-serif;margin:1em 2em}table{border-collapse:collapse;margin:.5em 0}"
            "td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}.ok{background:#dfd}.bad{background:#fdd}"
            ".na{color:#999}details ul{margin:0;padding-left:1.2em}</style>\n"
            "<h1>Readers across releases and environments</h1>\n"
            f"<p>Built from <code>history.jsonl</code> ({idx['history_lines']} runs) by <code>generators/matrix.py pages</code>. "
            "Each cell: cases exercising that rule family (one the reader claims, not refused as out of scope) and passed; "
            "a red cell lists its failing cases with the certify diagnosis. Regressions are located between the last "
            "release that passed and the first that failed, bisected over the releases in the window.</p>\n"
            + "\n".join(body) + "\n")


def text(idx):
    out = []
    for e in idx["readers"]:
        fams = sorted({f for r in e["runs"] for f in r["families"]})
        out.append(f'{e["name"]} ({e["language"]}, {e["mode"]}); families {" ".join(fams)}')
        for r in e["runs"]:
            cells = " ".join(f'{f}:{r["families"][f][0]}/{r["families"][f][1]}' if f in r["families"] else f"{f}:-" for f in fams)
            part = f'  (partial: {r["cases_run"]} cases)' if r["partial"] else ""
            out.append(f'  {r["version"]:>9} [{r["environment"]}] corpus {r["corpus_digest"][:8]}  {r["passed"]}/{r["exercised"]}  {cells}{part}')
        for x in e["regressions"]:
            out.append(f'  regression {x["case"]} [{x["environment"]}]: last good {x["last_good"]}, first bad {x["first_bad"]}'
                       f'{"" if x["bisected"] else " (not bisected)"} -> {x["to"]}' + (f' ({x["diagnosis"]})' if x.get("diagnosis") else "")
                       + f' [corpus {x["corpus_digest"][:8]}]')
        for x in e["fixes"]:
            out.append(f'  fix {x["case"]} [{x["environment"]}]: {x["from"]} up to {x["before"]}, pass from {x["after"]}'
                       f' [corpus {x["corpus_digest"][:8]}]')
        for x in e["environment_failures"]:
            out.append(f'  environment failure {x["version"]} [{x["environment"]}] corpus {x["corpus_digest"][:8]}: '
                       f'{x["cases"]} cases, {x["error"]} (not counted)')
        for x in e["environment_differences"]:
            out.append(f'  environments differ at {x["version"]} on {x["case"]}: ' + ", ".join(f"{k} {v}" for k, v in sorted(x["statuses"].items())))
    return "\n".join(out)


def main():
    import plan
    readers = plan.readers(ROOT)
    recs = history.load()
    files = build(readers, recs)
    if "--text" in sys.argv[1:]:
        print(text(json.loads(files["index.json"])))
        return 0
    if "--check" in sys.argv[1:]:
        bad = []
        for name, data in files.items():
            p = os.path.join(OUT, name)
            if not os.path.exists(p) or open(p, "rb").read() != data:
                bad.append(name)
        extra = sorted(set(f for f in os.listdir(OUT) if f.endswith((".json", ".html"))) - set(files)) if os.path.isdir(OUT) else []
        if bad or extra:
            print("matrix pages: not what history.jsonl gives: " + ", ".join(bad + extra)
                  + " (rebuild: generators/matrix.py pages)", file=sys.stderr)
            return 1
        print(f"matrix pages: {len(files)} files consistent with {len(recs)} history lines")
        return 0
    os.makedirs(OUT, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"matrix pages: {len(files)} files from {len(recs)} history lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
