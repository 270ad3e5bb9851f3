"""Validation of many checkpoints (or every shard of a big one) over Ray tasks: `pip install
packcheck[ray]`. No scheduler here: each task runs the packaged binary on a batch of inputs with
`--jsonl` and returns its per-input records; records from any number of tasks, runs or machines
merge without coordination because each names its files by SHA-256 (with hash=True).

    import ray, packcheck.scale
    ray.init()                                  # local; ray.init(address="ray://head:10001") on a cluster
    records = packcheck.scale.validate_many(paths, hash=True)
    by_key = packcheck.scale.findings_by_key(records)   # {(file sha256, tensor, rule): result}

Every node needs packcheck installed (e.g. runtime_env={"pip": ["packcheck==0.1.0"]})."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ._binary import PackcheckError, run


def validate_records(paths: Sequence[str], *, profile: str = "strict", hash: bool = True,
                     args: Sequence[str] = ()) -> List[Dict[str, Any]]:
    """One CLI run over `paths` with --jsonl: its records, in input order (what each Ray task does)."""
    cmd = ["validate", "--jsonl", "--quiet", "--profile", profile, "--no-progress", *args]
    if hash:
        cmd.append("--hash")
    cmd += ["--", *map(os.fspath, paths)]  # "--": a path is never read as an option (--report=json:victim)
    proc = run(cmd, ok_codes=(0, 1, 2, 3))
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
