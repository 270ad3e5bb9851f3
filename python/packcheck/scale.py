"""Validation of many checkpoints (or every shard of a big one) over Ray tasks: `pip install
packcheck[ray]`. No scheduler here: each task runs the packaged binary on a batch of inputs with
`--jsonl` and returns its per-input records; records from any number of tasks, runs or machines
merge without coordination because each names its files by SHA-256 (with hash=True).

    import ray, packcheck.scale
    ray.init()                                  # local; ray.init(address="ray://head:10001") on a cluster
    records = packcheck.scale.validate_many(paths, hash=True)
    by_key = packcheck.scale.findings_by_key(records)   # {(file sha256, tensor, rule): result}

Every node needs packcheck installed (e.g. runtime_env={"pip": ["packcheck==0.1.0"]}).

Hub-scale runs over URLs and repos (`https://...`, `hf://ORG/REPO[@REV]`) go through `scan`: one task
per input on Ray (or, without Ray, a local process pool), the verdict cache shared (`cache=`, an
SQLite file every worker can reach), per-host limits on concurrent tasks and on their start rate,
and results appended to a JSONL file that a rerun resumes from:

    summary = packcheck.scale.scan(["hf://org/model-a", "https://mirror/x/model.gguf"], "out.jsonl",
                                   cache="verdicts.db", tier="header", backend="ray")
    keyed = packcheck.scale.load_results("out.jsonl")    # {(digest, tensor, rule): result}"""
from __future__ import annotations

import json
import os
import time
from collections import Counter, deque
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple
from urllib.parse import urlparse

from ._binary import PackcheckError, run


def validate_records(paths: Sequence[str], *, profile: str = "strict", hash: bool = True,
                     args: Sequence[str] = (), env: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    """One CLI run over `paths` with --jsonl: its records, in input order (what each Ray task does).
    `env` adds environment variables for the run (HF_ENDPOINT, PACKCHECK_HTTP_*)."""
    cmd = ["validate", "--jsonl", "--quiet", "--profile", profile, "--no-progress", *args]
    if hash:
        cmd.append("--hash")
    cmd += ["--", *map(os.fspath, paths)]  # "--": a path is never read as an option (--report=json:victim)
    proc = run(cmd, ok_codes=(0, 1, 2, 3), env={**os.environ, **env} if env else None)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if len(records) != len(paths):
        raise PackcheckError(f"packcheck validate gave {len(records)} records for {len(paths)} inputs: {proc.stderr.strip()}")
    return records


def validate_many(paths: Iterable[Any], *, profile: str = "strict", hash: bool = True, batch: int = 1,
                  args: Sequence[str] = (), num_cpus: float = 1, ray_options: Optional[Dict[str, Any]] = None
                  ) -> List[Dict[str, Any]]:
    """Validate every path (a checkpoint, a folder or one shard) in Ray tasks of `batch` inputs each
    and return the per-input records in input order. Uses the running Ray (ray.init() first for a
    cluster address); starts a local one when none is running."""
    try:
        import ray
    except ImportError as e:  # the core package never needs Ray
        raise ImportError("packcheck.scale needs Ray: pip install 'packcheck[ray]'") from e
    paths = [os.fspath(p) for p in paths]
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=num_cpus, **(ray_options or {}))(validate_records)
    chunks = [paths[i:i + max(1, batch)] for i in range(0, len(paths), max(1, batch))]
    futures = [task.remote(c, profile=profile, hash=hash, args=tuple(args)) for c in chunks]
    out: List[Dict[str, Any]] = []
    for recs in ray.get(futures):
        out.extend(recs)
    return out


def file_key(record: Dict[str, Any]) -> str:
    """What a record is about: its file's SHA-256 (several files: their digests joined with '+'),
    or its path when it was validated without --hash."""
    shas = sorted(f.get("sha256", "") for f in record.get("files") or [] if f.get("sha256"))
    if not shas:  # a remote input: its files' ETags (the Hub's ETag of an LFS file is its SHA-256)
        shas = sorted(f["etag"].strip('"').removeprefix("W/").strip('"') for f in record.get("files") or [] if f.get("etag"))
    return "+".join(shas) if shas else record.get("path", "")


def findings_by_key(records: Iterable[Dict[str, Any]]) -> Dict[Tuple[str, str, str], Dict[str, Any]]:
    """Every failed or warned rule of the records, keyed by (file key, tensor, rule): the merge of
    records from any runs is the union of these dicts."""
    out: Dict[Tuple[str, str, str], Dict[str, Any]] = {}
    for rec in records:
        k = file_key(rec)
        for r in rec.get("results") or []:
            if r.get("status") in ("fail", "warn"):
                out[(k, r.get("tensor", ""), r["rule"])] = r
    return out


def run_tasks(func: Any, items: Sequence[Any], *, address: Optional[str] = None, num_cpus: float = 1,
              ray_options: Optional[Dict[str, Any]] = None) -> Iterable[Any]:
    """Run `func(item)` for every item as an independent Ray task and yield the results as they finish
    (the reader matrix's certify runs: generators/matrix.py --address). `address` is handed to
    ray.init ("auto", "ray://head:10001"); None starts a local Ray when none is running."""
    try:
        import ray
    except ImportError as e:  # the core package never needs Ray
        raise ImportError("packcheck.scale needs Ray: pip install 'packcheck[ray]'") from e
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=num_cpus, **(ray_options or {}))(func)
    pending = [task.remote(item) for item in items]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


# ------------------------------------------------------------------------------------------------
# Hub-scale runs: scan()
# ------------------------------------------------------------------------------------------------

def host_of(name: str) -> str:
    """The host a task's requests go to (what the per-host limits count): the URL's host, the Hub
    endpoint's for hf://, "local" for a path."""
    if name.startswith("hf://"):
        name = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if name.startswith(("http://", "https://")):
        return urlparse(name).netloc
    return "local"


def _validate_one(name: str, args: Sequence[str], env: Optional[Dict[str, str]], profile: str) -> Dict[str, Any]:
    """One input in one CLI run (a task): its record, or an error record when the CLI could not run."""
    try:
        return validate_records([name], profile=profile, hash=False, args=args, env=env)[0]
    except (PackcheckError, OSError) as e:
        return {"path": name, "verdict": "error", "error": str(e), "results": []}


def _result_lines(name: str, rec: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The JSONL lines of one input: every evaluated rule's result keyed by (digest, tensor, rule),
    then the input's own line, written last: it marks the input done for a resumed run."""
    digest = file_key(rec)
    lines = [{"kind": "result", "digest": digest, "tensor": r.get("tensor", ""), "rule": r["rule"],
              "status": r["status"], "message": r.get("message", ""), "input": name}
             for r in rec.get("results") or [] if r.get("status") != "skip"]
    lines.append({"kind": "input", "input": name, "digest": digest, "verdict": rec.get("verdict"),
                  "format": rec.get("format"), "tier": rec.get("tier"), "cached": bool(rec.get("cached")),
                  "bytes_fetched": rec.get("bytes_fetched"), "requests": rec.get("requests"),
                  "error": rec.get("error")})
    return lines


def _done_inputs(out: str) -> set:
    """Inputs a previous run finished (their "input" line is in `out`); a torn last line is ignored."""
    done = set()
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            for line in f:
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                if j.get("kind") == "input" and j.get("verdict") != "error":
                    done.add(j["input"])
    return done


def load_results(out: str) -> Dict[Tuple[str, str, str], Dict[str, Any]]:
    """The results of a JSONL file by (digest, tensor, rule), the last line winning (a resumed
    input's lines repeat the first attempt's)."""
    keyed: Dict[Tuple[str, str, str], Dict[str, Any]] = {}
    with open(out, encoding="utf-8") as f:
        for line in f:
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("kind") == "result":
                keyed[(j["digest"], j["tensor"], j["rule"])] = j
    return keyed


class _LocalPool:
    """scan's local backend: a process pool, each task running the CLI."""

    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor
        self.pool = ProcessPoolExecutor(max_workers=workers)

    def submit(self, *a: Any) -> Any:
        return self.pool.submit(_validate_one, *a)

    def wait_one(self, futures: List[Any]) -> Tuple[Any, Dict[str, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        f = next(iter(done))
        return f, f.result()

    def close(self) -> None:
        self.pool.shutdown()


class _RayPool:
    """scan's Ray backend: one Ray task per input (ray.init() first for a cluster; else a local Ray)."""

    def __init__(self, workers: int, num_cpus: float, ray_options: Optional[Dict[str, Any]]):
        import ray
        self.ray = ray
        if not ray.is_initialized():
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        self.task = ray.remote(num_cpus=num_cpus, **(ray_options or {}))(_validate_one)

    def submit(self, *a: Any) -> Any:
        return self.task.remote(*a)

    def wait_one(self, futures: List[Any]) -> Tuple[Any, Dict[str, Any]]:
        done, _ = self.ray.wait(list(futures), num_returns=1)
        return done[0], self.ray.get(done[0])

    def close(self) -> None:
        pass


def scan(inputs: Iterable[str], out: str, *, cache: Optional[str] = None, tier: str = "full",
         sample_blocks: int = 4, seed: int = 0, profile: str = "strict", backend: str = "auto",
         workers: int = 2, per_host: int = 2, host_interval: float = 0.0, env: Optional[Dict[str, str]] = None,
         args: Sequence[str] = (), num_cpus: float = 1, ray_options: Optional[Dict[str, Any]] = None,
         on_done: Optional[Callable[[str, Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """Validate every input (a URL, hf://ORG/REPO[@REV], or a local path) once, one task each, and
    append its results to the JSONL file `out` (see _result_lines). Inputs `out` already holds as
    done are skipped (resume after an interruption; an input that ended in `error` is retried).

    backend: "ray", "local" (a process pool of `workers`) or "auto" (Ray when importable).
    per_host: at most this many tasks at once per host; host_interval: at least this many seconds
    between two task starts on one host. cache: the SQLite verdict cache every task shares.
    Returns {"done", "skipped", "verdicts": Counter, "bytes_fetched", "requests"}."""
    names = [os.fspath(n) for n in inputs]
    done_before = _done_inputs(out)
    todo = deque(n for n in dict.fromkeys(names) if n not in done_before)
    cli_args = ["--tier", tier, *args]
    if tier == "sample":
        cli_args += ["--sample-blocks", str(sample_blocks), "--seed", str(seed)]
    if cache:
        cli_args += ["--cache", os.fspath(cache)]
    if backend == "auto":
        try:
            import ray  # noqa: F401
            backend = "ray"
        except ImportError:
            backend = "local"
    pool = _RayPool(workers, num_cpus, ray_options) if backend == "ray" else _LocalPool(workers)
    inflight: Dict[Any, Tuple[str, str]] = {}
    busy: Counter = Counter()
    last_start: Dict[str, float] = {}
    summary: Dict[str, Any] = {"done": 0, "skipped": len(set(names)) - len(todo), "verdicts": Counter(),
                               "bytes_fetched": 0, "requests": 0, "backend": backend}
    try:
        with open(out, "a", encoding="utf-8") as sink:
            while todo or inflight:
                now = time.monotonic()
                for _ in range(len(todo)):  # start what the limits allow, in input order per host
                    if len(inflight) >= workers:
                        break
                    name = todo[0]
                    h = host_of(name)
                    if busy[h] < per_host and now - last_start.get(h, -1e18) >= host_interval:
                        todo.popleft()
                        inflight[pool.submit(name, cli_args, env, profile)] = (name, h)
                        busy[h] += 1
                        last_start[h] = now
                    else:
                        todo.rotate(-1)
                if not inflight:
                    time.sleep(min(0.05, host_interval or 0.05))
                    continue
                fut, rec = pool.wait_one(list(inflight))
                name, h = inflight.pop(fut)
                busy[h] -= 1
                sink.write("".join(json.dumps(line, sort_keys=True) + "\n" for line in _result_lines(name, rec)))
                sink.flush()
                summary["done"] += 1
                summary["verdicts"][rec.get("verdict")] += 1
                summary["bytes_fetched"] += rec.get("bytes_fetched") or 0
                summary["requests"] += rec.get("requests") or 0
                if on_done:
                    on_done(name, rec)
    finally:
        pool.close()
    return summary
