#!/usr/bin/env python3
"""I/O-bound commands against the tool that does only their I/O: reports/bench-io.md.

  unpack    `packcheck unpack CKPT --out X` (writes the logical view, fsyncs, renames) against
            `dd if=/dev/zero of=Y bs=1M count=<same bytes> iflag=count_bytes conv=fsync` and against
            `dd if=VIEW of=Y bs=1M conv=fsync` (a copy of unpack's own output, hot in the page cache)
  --hash    `packcheck validate --hash --quiet FILE` (one thread) against `openssl dgst -sha256 FILE`

Equal footing: the same bytes written (dd writes exactly unpack's output size, to the same file
system, and both fsync) or the same file hashed (in the page cache: one untimed warm-up read).
Contenders alternate, each run is a fresh process; times come from wait4 (wall, user + sys CPU,
peak RSS). Before every unpack/dd run the previous outputs are removed and `sync` runs, untimed.
Medians with min-max; the load average is recorded at start and end (the machine is shared).

usage: scripts/bench_io.py [--build build] [--tmp /tmp/pc-io] [--reps 7] [--out reports/bench-io.md]
                           [--unpack-size 50M] [--hash-sizes 450M 1G 1700M] [--skip unpack|hash]
                           [--baseline OTHER_BUILD --baseline-label TEXT]
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    """Run cmd, return (wall s, cpu s, user s, sys s, peak RSS MB); raise on failure."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(cmd, stdout=null, env=env)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s exited %d" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_utime, ru.ru_stime, ru.ru_maxrss / 1024.0


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def stats(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt(xs, unit="s"):
    m, lo, hi = stats(xs)
    return "%.3f [%.3f-%.3f]" % (m, lo, hi)


def ratio(a, b):
    """Median of per-pair ratios a_i / b_i (pairs ran back to back) with its min-max."""
    rs = [x / y for x, y in zip(a, b) if y > 0]
    m, lo, hi = stats(rs)
    return "%.2fx [%.2f-%.2f]" % (m, lo, hi)


def gen(build, d, size):
    if os.path.isdir(d):
        shutil.rmtree(d)
    subprocess.run([os.path.join(build, "packcheck-gen-ckpt"), d, "--size", size, "--bits", "4", "--shard", "64G"],
                   check=True, stdout=subprocess.DEVNULL)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".safetensors"))


def bench_unpack(args, pcb, rows):
    d = os.path.join(args.tmp, "unpack-in")
    gen(args.build, d, args.unpack_size)
    out, dd_out = os.path.join(args.tmp, "unpack.safetensors"), os.path.join(args.tmp, "dd.bin")
    env = dict(os.environ)
    env.pop("PACKCHECK_THREADS", None)
    run([pcb, "unpack", d, "--out", out], env)  # warm-up; also gives the byte count
    nbytes = os.path.getsize(out)
    dd = ["dd", "if=/dev/zero", "of=" + dd_out, "bs=1M", "count=%d" % nbytes, "iflag=count_bytes", "conv=fsync", "status=none"]
    # dd from /dev/zero is the target's baseline; a virtual disk may take zeros faster than data, so
    # dd copying the view itself (hot in the page cache, read + write) is timed beside it
    view = os.path.join(args.tmp, "view-src.safetensors")
    shutil.copyfile(out, view)
    dd_view = ["dd", "if=" + view, "of=" + dd_out, "bs=1M", "conv=fsync", "status=none"]
    res = {"unpack": [], "dd": [], "ddv": [], "base": []}
    for i in range(args.reps):
        order = [("unpack", [pcb, "unpack", d, "--out", out]), ("dd", dd), ("ddv", dd_view)]
        if args.baseline:
            order.insert(1, ("base", [os.path.join(args.baseline, "packcheck"), "unpack", d, "--out", out]))
        if i % 2:
            order.reverse()
        for name, cmd in order:
            for f in (out, dd_out):
                if os.path.exists(f):
                    os.unlink(f)
            subprocess.run(["sync"], check=True)
            res[name].append(run(cmd, env))
    for f in (out, dd_out, view):
        if os.path.exists(f):
            os.unlink(f)
    shutil.rmtree(d)
    task = "unpack, ct-dense 4-bit %s (%.0f MB written)" % (args.unpack_size, nbytes / 1e6)
    rows.append((task, res["unpack"], "dd if=/dev/zero conv=fsync, same byte count", res["dd"], "wall"))
    rows.append((task, res["unpack"], "dd if=VIEW conv=fsync (copies unpack's output, hot)", res["ddv"], "wall"))
    if args.baseline:
        rows.append((task, res["unpack"], "packcheck unpack, baseline build (%s)" % args.baseline_label, res["base"], "wall"))


def bench_hash(args, pcb, rows):
    env = dict(os.environ)
    env["PACKCHECK_THREADS"] = "1"
    for size in args.hash_sizes:
        d = os.path.join(args.tmp, "hash-" + size)
        files = gen(args.build, d, size)
        f = files[0]
        nbytes = os.path.getsize(f)
        run(["cat", f])  # into the page cache
        res = {"pc": [], "ossl": []}
        for i in range(args.reps):
            order = [("pc", [pcb, "validate", "--hash", "--quiet", f]), ("ossl", ["openssl", "dgst", "-sha256", f])]
            if i % 2:
                order.reverse()
            for name, cmd in order:
                res[name].append(run(cmd, env if name == "pc" else None))
        shutil.rmtree(d)
        rows.append(("validate --hash, 1 thread, %.2f GB file" % (nbytes / 1e9), res["pc"], "openssl dgst -sha256", res["ossl"], "cpu"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tmp", default="/tmp/pc-io")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(ROOT, "reports", "bench-io.md"))
    ap.add_argument("--unpack-size", default="50M")
    ap.add_argument("--hash-sizes", nargs="*", default=["450M", "1G", "1700M"])
    ap.add_argument("--skip", nargs="*", default=[], choices=["unpack", "hash"])
    ap.add_argument("--baseline", help="build folder of another packcheck whose unpack is timed alongside (before/after)")
    ap.add_argument("--baseline-label", default="before")
    args = ap.parse_args()
    pcb = os.path.join(args.build, "packcheck")
    os.makedirs(args.tmp, exist_ok=True)
    start = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load0 = loadavg()
    rev = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
    rows = []
    if "unpack" not in args.skip:
        bench_unpack(args, pcb, rows)
    if "hash" not in args.skip:
        bench_hash(args, pcb, rows)
    load1 = loadavg()
    lines = [
        "# unpack and --hash against the tools that do only their I/O",
        "",
        "Generated by `scripts/bench_io.py %s` (%s, packcheck %s, %d cores). Load average %s at the start, %s at the end: "
        "the machine is shared with other jobs, so absolute times move; the ratios are of runs made back to back." % (
            " ".join(sys.argv[1:]) or "(defaults)", start, rev, os.cpu_count(), load0, load1),
        "",
        "Each cell: median [min-max] of %d alternated runs, seconds (wall: elapsed; CPU: user + sys of the process and its "
        "children). Ratio: median of the per-pair ratios packcheck / peer, on the metric the target is set in "
        "(unpack: wall <= 1.5x dd; --hash: CPU <= 1.0x openssl), with their min-max." % args.reps,
        "",
        "| task | packcheck wall | packcheck CPU (user / sys) | packcheck peak RSS MB | peer | peer wall | peer CPU (user / sys) | ratio wall | ratio CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for task, a, peer, b, _ in rows:
        col = lambda xs, i: [x[i] for x in xs]
        lines.append("| %s | %s | %s (%.2f / %.2f) | %.0f | %s | %s | %s (%.2f / %.2f) | %s | %s |" % (
            task, fmt(col(a, 0)), fmt(col(a, 1)), stats(col(a, 2))[0], stats(col(a, 3))[0], max(col(a, 4)),
            peer, fmt(col(b, 0)), fmt(col(b, 1)), stats(col(b, 2))[0], stats(col(b, 3))[0],
            ratio(col(a, 0), col(b, 0)), ratio(col(a, 1), col(b, 1))))
    lines += [
        "",
        "unpack decodes ct and GGUF-block modules in row slices of 256 Ki elements into two reused, pre-faulted slots "
        "(harness/lv_writer.c); a second thread pwrites each slice while the next decodes, and every 8 MiB of each output "
        "stream is handed to writeback (sync_file_range), so the closing fsync waits for the tail only. Peak RSS is bounded by "
        "2 x 256 Ki elements x 5 bytes (2.5 MiB, or two rows when a row is longer) plus what validation holds, plus 5 bytes "
        "per element of the largest module of a format without row slicing (decoded whole into one reused buffer); CTest "
        "cli_memory_bound checks it (unpack within 8 MiB of validate's peak on 1024 x 4096 modules).",
        "",
        "dd from /dev/zero is the target's baseline; dd copying unpack's own output (hot in the page cache) is shown "
        "beside it because a virtual disk may store zeros faster than data. The --hash rows use one thread "
        "(PACKCHECK_THREADS=1) against the single-threaded openssl, on one file already in the page cache.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out != "-":
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
