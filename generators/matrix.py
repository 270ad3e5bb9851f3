#!/usr/bin/env python3
"""The reader matrix (issue 28): every upstream reader of generators/matrix.json across its releases and
environments, certified against the corpus, appended to reports/matrix/history.jsonl, pages rebuilt.

    generators/matrix.py                 install, run the anchors, bisect, rebuild the pages (resumable)
    generators/matrix.py install         make the missing venvs / npm folders (MATRIX_VENVS)
    generators/matrix.py run             certify every (reader, anchor version, environment) not yet in
                                         the history for this corpus digest, packcheck version and adapter
    generators/matrix.py bisect          run the versions between two neighbours that disagree, on the
                                         cases that disagree only, until every change sits between two
                                         adjacent releases
    generators/matrix.py pages           reports/matrix/index.{html,json} and one JSON per reader
    generators/matrix.py discover        list releases newer than the plan's (--write adds them to
                                         generators/matrix.json as anchors: the weekly workflow)
options: --reader SLUG (repeatable), --version V (repeatable), --all-versions (run every version, not
only the anchors), --case ID (repeatable: run only these cases, recorded as a partial line), --jobs N (local process pool, default 2), --address ADDR (Ray through
packcheck.scale instead of the local pool; every node needs the venvs and the repository at the
same paths).
env: MATRIX_VENVS (default ~/.cache/packcheck/matrix/venvs), MATRIX_CERTS (full certify reports,
default ~/.cache/packcheck/matrix/certs), READER_USER (certify --reader-user, default root: the venvs' interpreter may
live where nobody cannot run it).

A run certifies the cases that exercise a rule family the reader claims (every other case is out of
its scope: its adapter refuses it unread). Each task is independent: one `packcheck certify` of one
(reader, version, environment), its full
report kept under MATRIX_CERTS and a compact record appended to the history (history.py). A run
that is interrupted loses only the tasks in flight; rerunning skips every recorded key.
"""
import argparse
import concurrent.futures as cf
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "matrix"))

import history  # noqa: E402
import plan  # noqa: E402
import venvs  # noqa: E402


def certify_command(reader, version, env, cases, paths):
    """The `packcheck certify` argv of one (reader, version, environment[, cases]) run."""
    cert = paths["cert"]
    cmd = [paths["packcheck"], "certify", "--corpus", "fixtures", "--name", plan.run_name(reader, version, env),
           "--timeout", str(reader["timeout"]), "--jobs", str(paths.get("certify_jobs", 1)), "--reader-user", os.environ.get("READER_USER", "root"),
           "--reader", venvs.reader_command(reader, version, env, paths["venvs"]), "--report", "json:" + cert + ".part"]
    if reader["mode"] == "container-only":
        cmd.append("--container-only")
    cmd += reader.get("scope", []) + ["--reader-path", paths["venvs"]]  # a venv's .pth reaches the shared torch venv
    for c in cases or ():
        cmd += ["--case", c]
    for f in () if cases else reader.get("only") or plan.scope_filters(paths["root"], reader["claims"]):
        cmd += ["--only", f]
    return cmd


def certify_task(task):
    """One certify run (a process-pool or Ray task): returns the compact history record or an error."""
    reader, version, env, cases, paths = task
    os.chdir(paths["root"])
    cert = paths["cert"]
    os.makedirs(os.path.dirname(cert), exist_ok=True)
    cmd = certify_command(reader, version, env, cases, paths)
    bound = int(os.environ.get("READER_BOUND", "5400"))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=bound)
    except subprocess.TimeoutExpired:
        return {"error": f"{plan.run_name(reader, version, env)}: past READER_BOUND {bound} s"}
    if p.returncode > 1 or not os.path.exists(cert + ".part"):
        return {"error": f"{plan.run_name(reader, version, env)}: certify exit {p.returncode}: {p.stdout[-600:]}"}
    os.replace(cert + ".part", cert)
    return history.record_from_certificate(cert, reader, version, env, cases, paths["root"])


def run_tasks(tasks, jobs, address):
    """Run every task independently: a local process pool, or Ray tasks through packcheck.scale."""
    if address:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from packcheck import scale
        yield from scale.run_tasks(certify_task, tasks, address=address)
        return
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(certify_task, t): t for t in tasks}
        for f in cf.as_completed(futures):
            yield f.result()


def task_for(reader, version, env, cases, args, digest):
    cert = os.path.join(args.certs, digest[:12], f"{reader['slug']}-{version}-{env}-{history.adapter_digest(reader, ROOT)[:8]}" +
                        (f"-bisect-{history.cases_key(cases)}" if cases else "") + ".json")
    paths = {"root": ROOT, "cert": cert, "venvs": args.venvs, "packcheck": os.path.join(ROOT, "build", "packcheck")}
    return (reader, version, env, cases, paths)


def environment_failed(rec, cert):
    """A run in which every case died on the same import error is the venv's failure, not the
    reader's: it is recorded marked (history.is_result is false: no page counts it, the next run
    repeats its key), its certify report is set aside so a rerun does not record it again from the
    kept copy, and the run counts as failed. True when it was one."""
    if not rec.get("environment_failure"):
        return False
    history.append(rec)
    if cert and os.path.exists(cert):
        os.replace(cert, cert + ".environment-failure")
    print(f"matrix: {rec['reader']} {rec['version']} [{rec['environment']}]: ENVIRONMENT FAILURE, not a reader "
          f"result: every case failed with {rec['environment_failure']!r} (reinstall: generators/matrix.py install)",
          file=sys.stderr)
    return True


def execute(tasks, args):
    """Run the tasks, append each record as it lands (resumable), say what failed. A task whose full
    certify report is already kept (a run interrupted after certify finished) is recorded from it."""
    failed = 0
    kept = [t for t in tasks if os.path.exists(t[4]["cert"])]
    for reader, version, env, cases, paths in kept:
        rec = history.record_from_certificate(paths["cert"], reader, version, env, cases, ROOT)
        if environment_failed(rec, paths["cert"]):
            failed += 1
            continue
        history.append(rec)
        print(f"matrix: {rec['reader']} {rec['version']} [{rec['environment']}]: recorded from the kept report")
    tasks = [t for t in tasks if t not in kept]
    certs = {(t[0]["slug"], t[1], t[2], history.cases_key(t[3])): t[4]["cert"] for t in tasks}
    for rec in run_tasks(tasks, args.jobs, args.address):
        if "error" in rec:
            failed += 1
            print("matrix: " + rec["error"], file=sys.stderr)
            continue
        if environment_failed(rec, certs.get((rec["slug"], rec["version"], rec["environment"], rec["cases_key"]))):
            failed += 1
            continue
        history.append(rec)
        print(f"matrix: {rec['reader']} {rec['version']} [{rec['environment']}]"
              f"{' (partial: ' + str(len(rec['cases_requested'])) + ' cases)' if rec['partial'] else ''}: {rec['passed']}/{rec['exercised']} exercised cases pass")
    return failed


def cmd_run(args, readers):
    digest, pcv = plan.corpus_digest(ROOT), plan.packcheck_version(ROOT)
    done = history.keys(history.load(), digest, pcv)
    tasks = []
    for r in readers:
        for v in plan.selected_versions(r, args.version, args.all_versions):
            if not venvs.ready(r, v, args.venvs):
                print(f"matrix: {r['name']} {v}: no venv (run install first); skipped", file=sys.stderr)
                continue
            for e in r["environments"]:
                if (r["slug"], v, e, history.adapter_digest(r, ROOT), history.cases_key(args.case[:32])) not in done:
                    tasks.append(task_for(r, v, e, args.case[:32] or None, args, digest))
    print(f"matrix: {len(tasks)} runs to do (corpus {digest[:12]}, packcheck {pcv})")
    return execute(tasks, args)


def cmd_bisect(args, readers):
    """Bisect every change between two run neighbours over the releases between them, on the
    changed cases only: each round runs the middle release; stops when every change is adjacent."""
    digest, pcv = plan.corpus_digest(ROOT), plan.packcheck_version(ROOT)
    failed, tried = 0, set()
    for _ in range(8):  # log2 of any window here
        recs = history.current(history.load(), digest, pcv)
        tasks = []
        for r in readers:
            for env in r["environments"]:
                for v, cases in history.bisect_targets(r, env, recs):
                    if not venvs.ready(r, v, args.venvs):
                        continue
                    for i in range(0, len(cases), 32):  # certify takes at most 32 --case
                        chunk = cases[i:i + 32]
                        if (r["slug"], v, env, tuple(chunk)) not in tried:
                            tried.add((r["slug"], v, env, tuple(chunk)))
                            tasks.append(task_for(r, v, env, chunk, args, digest))
        if not tasks:
            break
        for t in tasks:  # fewer tasks than workers: each certify runs its cases in parallel instead
            t[4]["certify_jobs"] = max(1, args.jobs // len(tasks))
        print(f"matrix: bisect round: {len(tasks)} runs")
        failed += execute(tasks, args)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", nargs="?", default="all", choices=["all", "install", "run", "bisect", "pages", "discover"])
    ap.add_argument("--reader", action="append", default=[])
    ap.add_argument("--version", action="append", default=[])
    ap.add_argument("--all-versions", action="store_true")
    ap.add_argument("--case", action="append", default=[], help="run: only these cases (a partial line, at most 32)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--address", default=None)
    ap.add_argument("--write", action="store_true", help="discover: add the new releases to generators/matrix.json")
    args = ap.parse_args()
    cache = os.path.join(os.path.expanduser("~"), ".cache", "packcheck", "matrix")
    args.venvs = os.path.abspath(os.environ.get("MATRIX_VENVS", os.path.join(cache, "venvs")))
    args.certs = os.path.abspath(os.environ.get("MATRIX_CERTS", os.path.join(cache, "certs")))
    if args.step == "discover":
        for slug, vs in plan.discover(ROOT, args.write).items():
            print(f"matrix: {slug}: new releases {', '.join(vs)}" + (" (added)" if args.write else ""))
        return 0
    readers = plan.readers(ROOT, args.reader)
    status = 0
    if args.step in ("all", "install"):
        status |= venvs.install_all(readers, args.version, True, args.venvs)
    if args.step in ("all", "run", "bisect", "pages") and args.step != "pages":
        if not os.access(os.path.join(ROOT, "build", "packcheck"), os.X_OK):
            sys.exit("matrix: build/packcheck missing: cmake -S . -B build -G Ninja && cmake --build build")
    if args.step in ("all", "run"):
        status |= cmd_run(args, readers) != 0
    if args.step in ("all", "bisect"):
        status |= cmd_bisect(args, readers) != 0
    if args.step in ("all", "pages", "run", "bisect"):
        subprocess.run([sys.executable, os.path.join(HERE, "matrix", "pages.py")], check=True)
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
