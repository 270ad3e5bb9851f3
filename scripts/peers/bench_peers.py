"""The peers benchmark (issue 18): packcheck against what a user would run instead, side by side.

Run by scripts/bench-peers.sh (which builds the peers first); never in CI: it is a benchmark and
nothing here asserts a time. Writes reports/bench-peers.json ({"tasks": [{"task", "packcheck_gbps",
"peers": [{"name", "version", "threads", "gbps"}], "ratio_vs_fastest_peer_1t",
"ratio_vs_fastest_peer_all"}], plus "machine", "scaling" and per-task detail), reports/bench-peers.md
and reports/bench-peers.svg.

Method, the same for every contender: the same input bytes (written once here), outputs checked
identical to packcheck's before anything is timed (a peer that differs is listed, never ranked),
one warm-up, then REPS repetitions interleaved contender by contender (rotating order), medians.
Decode tasks time the decode call alone inside long-lived workers (no process start, input
already in memory); whole-checkpoint and header tasks time whole processes (wall seconds, peak RSS
from wait4). Single-threaded rows (1 thread each) and all-threads rows (packcheck on every core;
each peer at its own best: torch and the ggml harness on every core, single-threaded tools as they
are) are ranked separately; one-thread decode rows are timed in process CPU seconds (on this
shared machine a preempted run would otherwise count as slow), all-threads rows in wall seconds. GB/s = bytes of packcheck's logical output (codes 1 B, f32 4 B) per
second for decode tasks, bytes of the checkpoint read per second for whole-checkpoint tasks.

Adding a format: one DECODE entry (kernel name of packcheck-peer-decode, a make_input function,
the peers as (worker, peer name) pairs) and, for a Python peer, one PEERS entry in py_worker.py and
its name in PY_PEERS (the versions recorded); a NOTES entry says what each side runs.
"""
import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import svg  # noqa: E402

SHAPES = {"4096x4096": (4096, 4096), "14336x4096": (14336, 4096), "moe-8x2048x4096": (8 * 2048, 4096)}


# ---------------------------------------------------------------------------------------------
# Inputs: random but valid packed bytes, the same file for every contender.
# ---------------------------------------------------------------------------------------------
def rng(seed):
    return np.random.default_rng(seed)


def make_q4_0(path, rows, cols):
    import gguf  # blocks written by gguf-py's own quantizer from random weights
    x = rng(1).standard_normal((rows, cols), dtype=np.float32)
    gguf.quants.quantize(x, gguf.GGMLQuantizationType.Q4_0).tofile(path)


def make_gguf_blocks(elems, nbytes, nscales, at, e8m0=False):
    """Random blocks of a GGUF type (elems per block, nbytes each) whose nscales fp16 scales from byte
    `at` are finite, normal and of either sign (the oracle's and ggml's arithmetic is then all finite);
    MXFP4's E8M0 byte is kept in 2^-20 .. 2^20. Every other bit pattern is a valid block."""
    def make(path, rows, cols):
        r = rng(5)
        n = rows * cols // elems
        b = r.integers(0, 256, (n, nbytes), dtype=np.uint8)
        for f in range(nscales):
            h = (r.uniform(2.0 ** -12, 2.0, n) * r.choice([-1, 1], n)).astype(np.float16)
            b[:, at + 2 * f:at + 2 * f + 2] = h.view(np.uint8).reshape(n, 2)
        if e8m0:
            b[:, 0] = r.integers(107, 148, n, dtype=np.uint8)
        b.tofile(path)
    return make


def make_words(bits, legacy):
    def make(path, rows, cols):
        if legacy:  # floor(32/b) fields per word, the dead top bits zero
            pf = 32 // bits
            w = rng(2).integers(0, 1 << (pf * bits), (rows, -(-cols // pf)), dtype=np.int64)
        else:       # every bit pattern is valid when cols*b fills whole words
            w = rng(2).integers(0, 1 << 32, (rows, cols * bits // 32), dtype=np.int64)
        w.astype(np.uint32).view(np.int32).tofile(path)
    return make


def make_awq(path, rows, cols):
    rng(3).integers(0, 1 << 32, (rows, cols // 8), dtype=np.int64).astype(np.uint32).tofile(path)


def make_nvfp4(path, rows, cols):
    r = rng(4)
    with open(path, "wb") as f:
        f.write(r.integers(0, 256, rows * cols // 2, dtype=np.uint8).tobytes())
        f.write(r.uniform(2.0 ** -10, 8.0, rows * cols // 16).astype(np.float32).tobytes())


def make_bnb4(path, rows, cols):
    """bitsandbytes 4-bit: random packed bytes (every nibble is a code), f32 absmax per 64 elements."""
    r = rng(6)
    with open(path, "wb") as f:
        f.write(r.integers(0, 256, rows * cols // 2, dtype=np.uint8).tobytes())
        f.write(r.uniform(2.0 ** -8, 4.0, rows * cols // 64).astype(np.float32).tobytes())


def make_mlx4(path, rows, cols):
    """MLX affine 4-bit: random U32 words, f32 scales and biases of either sign per group of 64."""
    r = rng(7)
    g = rows * cols // 64
    with open(path, "wb") as f:
        f.write(r.integers(0, 1 << 32, rows * cols // 8, dtype=np.int64).astype(np.uint32).tobytes())
        for _ in range(2):
            f.write((r.uniform(2.0 ** -10, 1.0, g) * r.choice([-1, 1], g)).astype(np.float32).tobytes())


def make_fp8(block):
    """E4M3 bytes, random but never NaN (S.1111.111: its payload would make the identity check moot),
    then f32 scales: a [ceil(rows/128), ceil(cols/128)] grid or one per row."""
    def make(path, rows, cols):
        r = rng(8)
        w = r.integers(0, 256, rows * cols, dtype=np.uint8)
        w[(w & 0x7F) == 0x7F] ^= 1
        n = (rows + 127) // 128 * ((cols + 127) // 128) if block else rows
        with open(path, "wb") as f:
            f.write(w.tobytes())
            f.write(r.uniform(2.0 ** -14, 2.0 ** -4, n).astype(np.float32).tobytes())
    return make


def make_ct_f32(path, rows, cols):
    """compressed-tensors int4 group 128: ct-dense-4 words, then f32 scales [rows, cols/128]."""
    make_words(4, False)(path, rows, cols)
    with open(path, "ab") as f:
        f.write(rng(9).uniform(2.0 ** -12, 2.0 ** -2, rows * cols // 128).astype(np.float32).tobytes())


# task name -> (packcheck-peer-decode kernel, make_input, [(worker, peer), ...], output bytes per
# element, shapes (None: all of SHAPES))
DECODE = {
    "q4_0-f32": ("q4_0-f32", make_q4_0, [("ggml", "ggml to_float"), ("py", "gguf-py")], 4, None),
    "ct-dense-4": ("ct-dense-4", make_words(4, False), [("py", "compressed-tensors")], 1, None),
    "ct-legacy-3": ("ct-legacy-3", make_words(3, True), [("py017", "compressed-tensors-0.17")], 1, None),
    "awq-4": ("awq-4", make_awq, [("py", "autoawq")], 1, None),
    "nvfp4-f32": ("nvfp4-f32", make_nvfp4, [("py", "compressed-tensors-nvfp4")], 4, None),
    "ct-dense-3": ("ct-dense-3", make_words(3, False), [("py", "compressed-tensors")], 1, ["4096x4096"]),
    "ct-legacy-6": ("ct-legacy-6", make_words(6, True), [("py017", "compressed-tensors-0.17")], 1, ["4096x4096"]),
    # whole f32 dequantization by each library's own path (not only the codes)
    "ct-dense-4-f32": ("ct-dense-4-f32", make_ct_f32, [("py", "compressed-tensors-decompress")], 4, None),
    "bnb-nf4-f32": ("bnb-nf4-f32", make_bnb4, [("py", "bitsandbytes-nf4")], 4, None),
    "bnb-fp4-f32": ("bnb-fp4-f32", make_bnb4, [("py", "bitsandbytes-fp4")], 4, ["4096x4096"]),
    "mlx-4-f32": ("mlx-4-f32", make_mlx4, [("py", "mlx")], 4, None),
    "fp8-block-f32": ("fp8-block-f32", make_fp8(True), [("py", "transformers-fp8-block")], 4, None),
    "fp8-channel-f32": ("fp8-channel-f32", make_fp8(False), [("py", "transformers-fp8-channel")], 4, ["4096x4096"]),
}
# What each side of a whole-f32 row runs (both allocate a fresh f32 result inside the timing and read
# the whole input file: packed weights and their f32 scales); the reports print it under the table.
NOTES = {
    "ct-dense-4-f32": "packcheck: the 4-bit stream unpack kernel, then the int4 affine dequant kernel of "
                      "formats/quark/kernels.h with unsigned codes and zero point 8, i.e. f32(u - 8) * scale, one rounding "
                      "(ct.c's own decode computes the same with a plain per-group loop, not this kernel); compressed-tensors: "
                      "PackedQuantizationCompressor.decompress (unpack_from_int32 to int8, then its dequantize into a "
                      "tensor of the scale's dtype, f32), symmetric int4, group 128",
    "bnb-nf4-f32": "packcheck: the bnb4 unpack kernel, then the bnb4 dequant kernel (table[code] * absmax); bitsandbytes: "
                   "functional.dequantize_4bit with a QuantState (blocksize 64, f32 absmax, dtype f32), its CPU backend's "
                   "C kernel into a fresh torch.empty, OpenMP threads set to the row's thread count",
    "bnb-fp4-f32": "as bnb-nf4-f32 with bitsandbytes' own FP4 table (code 8 is +0.0 in packcheck and in bitsandbytes' "
                   "vectorised CPU kernel; its scalar CPU kernel, used without AVX-512, gives -0.0 and would differ)",
    "mlx-4-f32": "packcheck: the 4-bit stream unpack kernel, then the MLX affine kernel in f32 (rT(rT(s * q) + b)); mlx: "
                 "mlx.core.dequantize(w, scales, biases, group_size=64, bits=4) on the CPU device, evaluated inside the "
                 "timing (mlx is lazy); mlx's CPU dequantize runs on one thread",
    "fp8-block-f32": "packcheck: the FP8 dequant kernel with 128x128 blocks; transformers: "
                     "integrations.finegrained_fp8.Fp8Dequantize._dequantize_one(weight, weight_scale_inv, f32), the "
                     "load-time dequantization (dequantize=True), which converts the weight to f32 and multiplies by the "
                     "broadcast scale grid (two f32 tensors of the output's size)",
    "fp8-channel-f32": "as fp8-block-f32 with one scale per output row: packcheck's FP8 kernel with 1 x COLS blocks, "
                       "transformers' Fp8Dequantize with a [rows, 1] scale grid",
}
# Python peers of the "py" worker whose version the reports record
PY_PEERS = ["gguf-py", "compressed-tensors", "autoawq", "compressed-tensors-nvfp4", "compressed-tensors-decompress",
            "bitsandbytes-nf4", "bitsandbytes-fp4", "mlx", "transformers-fp8-block", "transformers-fp8-channel"]
# The other GGUF block types packcheck decodes fast, against ggml's own to_float (dequantize_row_<type>);
# block layouts (elements, bytes, fp16 scales, their offset) as formats/gguf_blocks_bench.c.
for _t, _e, _b, _n, _at in (("q8_0", 32, 34, 1, 0), ("q4_k", 256, 144, 2, 0), ("q6_k", 256, 210, 1, 208),
                            ("q5_k", 256, 176, 2, 0), ("iq4_xs", 256, 136, 1, 0), ("mxfp4", 32, 17, 0, 0),
                            ("q4_1", 32, 20, 2, 0), ("q5_0", 32, 22, 1, 0), ("q2_k", 256, 84, 2, 80),
                            ("q3_k", 256, 110, 1, 108), ("iq4_nl", 32, 18, 1, 0),
                            ("iq2_xxs", 256, 66, 1, 0), ("iq2_xs", 256, 74, 1, 0), ("iq2_s", 256, 82, 1, 0),
                            ("iq3_xxs", 256, 98, 1, 0), ("iq3_s", 256, 110, 1, 0), ("iq1_s", 256, 50, 1, 0),
                            ("iq1_m", 256, 56, 0, 0), ("tq1_0", 256, 54, 1, 52), ("tq2_0", 256, 66, 1, 64)):
    DECODE[_t + "-f32"] = (_t + "-f32", make_gguf_blocks(_e, _b, _n, _at, e8m0=_t == "mxfp4"),
                           [("ggml", "ggml to_float")], 4, ["4096x4096"])


# ---------------------------------------------------------------------------------------------
# Workers: long-lived processes speaking "KERNEL INPUT ROWS COLS THREADS [OUT]" -> seconds.
# ---------------------------------------------------------------------------------------------
class Worker:
    def __init__(self, argv, prefix=""):
        self.prefix = prefix
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line):
        self.p.stdin.write(self.prefix + line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def median(v):
    return statistics.median(v) if v else None


def sha_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def run_decode(args, workers, versions, ncpu):
    tasks = []
    for tname in args.decode:
        kernel, make, peers, ebytes, shapes = DECODE[tname]
        for sname in [s for s in args.shapes if shapes is None or s in shapes]:
            rows, cols = SHAPES[sname]
            inp = os.path.join(args.tmp, "%s-%s.bin" % (tname, sname))
            make(inp, rows, cols)
            out_bytes = rows * cols * ebytes
            in_bytes = os.path.getsize(inp)  # every contender reads all of its input
            contenders = [("packcheck", "packcheck", "pc")] + [(w, p, w) for w, p in peers if w in workers]
            if "pc-reused" in workers:  # the reused-buffer figure, beside and labelled, never ranked
                contenders.insert(1, ("packcheck", REUSED, "pc-reused"))
            if "pc-touch" in workers and ebytes == 4:  # the page faults of a fresh f32 result alone, beside
                contenders.insert(1, ("packcheck", TOUCH, "pc-touch"))
            for w, name in (("pc-write", WRITE), ("pc-memcpy", MEMCPY)):  # the machine's own limits, beside
                if w in workers and ebytes == 4:
                    contenders.insert(1, ("packcheck", name, w))
            # identity first: every contender's output against packcheck's
            ref = None
            status = {}
            for name, peer, w in contenders:
                o = os.path.join(args.tmp, "out-%s.bin" % w)
                r = workers[w].ask(req(w, peer, kernel, inp, rows, cols, 1) + " " + o)
                if r.startswith("error"):
                    status[(name, peer)] = r
                elif peer in (TOUCH, WRITE, MEMCPY):  # not a decode: nothing to compare
                    status[(name, peer)] = "ok"
                else:
                    d = sha_file(o)
                    ref = ref or d
                    status[(name, peer)] = "ok" if d == ref else "output differs from packcheck's"
                os.unlink(o)
            rows_out = []
            for threads in sorted({1, ncpu}):
                live = [(n, p, w) for n, p, w in contenders if status[(n, p)] == "ok"
                        and not (threads > 1 and p in SINGLE_THREADED)]
                times = {(n, p): [] for n, p, w in live}
                cpu = {(n, p): [] for n, p, w in live}
                for n, p, w in live:  # warm-up at this thread count
                    workers[w].ask(req(w, p, kernel, inp, rows, cols, threads))
                for rep in range(args.reps):
                    k = rep % len(live) if live else 0
                    for n, p, w in live[k:] + live[:k]:
                        r = workers[w].ask(req(w, p, kernel, inp, rows, cols, threads))
                        if not r.startswith("error"):
                            times[(n, p)].append(float(r.split()[0]))
                            cpu[(n, p)].append(float(r.split()[1]))
                for n, p, w in live:
                    t = times[(n, p)]
                    if t:
                        # one thread: CPU seconds (a preempted run is not counted as slower);
                        # all threads: wall seconds (the parallel speed-up is the point)
                        s = cpu[(n, p)] if threads == 1 else t
                        rows_out.append({"name": p, "threads": threads, "seconds": t, "cpu_seconds": cpu[(n, p)],
                                         "clock": "cpu" if threads == 1 else "wall", "bytes_read": in_bytes,
                                         "footing": FOOTING.get(p, "equal"),
                                         "gbps": out_bytes / median(s) / 1e9,
                                         "gbps_wall": out_bytes / median(t) / 1e9,
                                         "min_max_gbps": [out_bytes / max(s) / 1e9, out_bytes / min(s) / 1e9]})
            os.unlink(inp)
            extra = {"kind": "decode", "format": tname, "shape": sname, "output_bytes": out_bytes}
            if tname in NOTES:
                extra["note"] = NOTES[tname]
            tasks.append(finish_task("decode %s %s" % (tname, sname), rows_out, versions, status, extra))
            print(summary_line(tasks[-1]), flush=True)
    return tasks


# numpy element-wise code and mlx's CPU dequantize: one thread whatever the machine has
SINGLE_THREADED = {"gguf-py", "mlx"}
# packcheck decoding into one output buffer faulted in once outside the timing and reused: a figure
# no loader gets (a loader allocates each tensor's result), reported beside the equal-footing row
REUSED = "packcheck (reused buffer)"
# allocate the same fresh result and write one byte per page, no decode: the first-touch page faults
# alone, beside, never ranked. Not a bound: faulting in a tight loop measured slower per page than the
# same faults spread through a decode (packcheck's q4_0 decode beat it by 1.2x), so the ceiling of a
# row comes from packcheck's own fresh and reused-buffer times instead (ceiling_1t)
TOUCH = "page faults alone (alloc + one write per page)"
# every byte of the output written into a reused buffer with plain 32-byte stores, no decode: the
# fastest any decoder can put its result in memory on this machine; and memcpy of the output's size
# between two reused buffers (the figure the issue asks beside a physical limit)
WRITE = "output written alone (reused buffer, no decode)"
MEMCPY = "memcpy of the output (reused buffers)"
FOOTING = {REUSED: "reused-buffer", TOUCH: "faults-only", WRITE: "write-only", MEMCPY: "memcpy"}


def req(w, peer, kernel, inp, rows, cols, threads):
    if w.startswith("py"):
        return "%s %s %s %d %d %d" % (peer, kernel, inp, rows, cols, threads)
    return "%s %s %d %d %d" % (kernel, inp, rows, cols, threads)


def finish_task(name, rows, versions, status, extra):
    """Ratios come from equal-footing rows only; a reused-buffer row goes to "beside"."""
    pc = [r for r in rows if r["name"] == "packcheck"]
    beside = [r for r in rows if r.get("footing", "equal") != "equal"]
    peers = [r for r in rows if r["name"] != "packcheck" and r.get("footing", "equal") == "equal"]
    wall = lambda r: r.get("gbps_wall", r["gbps"])  # noqa: E731
    pc1 = next((r["gbps"] for r in pc if r["threads"] == 1), None)
    pcn = wall(max(pc, key=lambda r: r["threads"])) if pc else None  # packcheck on every core
    p1 = max((r["gbps"] for r in peers if r["threads"] == 1), default=None)
    pn = max((wall(r) for r in peers), default=None)  # each peer's best row, wall clock
    t = {"task": name, "packcheck_gbps": pc1,
         "packcheck_gbps_all": pcn,
         "peers": [{"name": r["name"], "version": versions.get(r["name"], "?"), "threads": r["threads"],
                    "gbps": r["gbps"], "gbps_wall": wall(r), "clock": r.get("clock", "wall"),
                    "min_max_gbps": r["min_max_gbps"], "footing": "equal", "bytes_read": r.get("bytes_read")} for r in peers],
         "beside": [{"name": r["name"], "threads": r["threads"], "gbps": r["gbps"], "clock": r.get("clock", "wall"),
                     "min_max_gbps": r["min_max_gbps"], "footing": r["footing"], "bytes_read": r.get("bytes_read")} for r in beside],
         "ratio_vs_fastest_peer_1t": pc1 / p1 if pc1 and p1 else None,
         "ratio_vs_fastest_peer_all": pcn / pn if pcn and pn else None,
         "faults_gbps_1t": next((r["gbps"] for r in beside if r["name"] == TOUCH and r["threads"] == 1), None),
         "write_gbps_1t": next((r["gbps"] for r in beside if r["name"] == WRITE and r["threads"] == 1), None),
         "memcpy_gbps_1t": next((r["gbps"] for r in beside if r["name"] == MEMCPY and r["threads"] == 1), None),
         "reused_gbps_1t": next((r["gbps"] for r in beside if r["name"] == REUSED and r["threads"] == 1), None),
         "ceiling_1t": ceiling(pc1, next((r["gbps"] for r in beside if r["name"] == REUSED and r["threads"] == 1), None), p1),
         "packcheck_rows": [{"threads": r["threads"], "gbps": r["gbps"], "gbps_wall": wall(r), "clock": r.get("clock", "wall"),
                             "min_max_gbps": r["min_max_gbps"], "footing": "equal", "bytes_read": r.get("bytes_read")} for r in pc],
         "not_ranked": {("%s" % p): s for (n, p), s in status.items() if s != "ok"}}
    # bytes each side read (the largest of its rows: a tool reads the same bytes at any thread count)
    t["bytes_read"] = {}
    for r in pc + peers:
        if r.get("bytes_read") is not None:
            t["bytes_read"][r["name"]] = max(t["bytes_read"].get(r["name"], 0), r["bytes_read"])
    # "equal": every ranked side allocates its output inside its timing (decode) or runs as a whole
    # process (checkpoint, header), and every side read the same bytes (within 1 %); otherwise the
    # task says which bytes each side read and its ratio is per byte of the input, not like for like
    br = list(t["bytes_read"].values())
    t["footing"] = "equal" if not br or max(br) <= min(br) * 1.01 else "unequal-bytes-read"
    t.update(extra)
    return t


def summary_line(t):
    f = lambda x: "-" if x is None else "%.2f" % x  # noqa: E731
    return "%-44s packcheck %s GB/s (all %s); vs fastest peer: 1t %sx, all %sx" % (
        t["task"], f(t["packcheck_gbps"]), f(t["packcheck_gbps_all"]),
        f(t["ratio_vs_fastest_peer_1t"]), f(t["ratio_vs_fastest_peer_all"]))


# ---------------------------------------------------------------------------------------------
# Whole-process tasks: wall seconds and peak RSS per run (wait4), interleaved.
# ---------------------------------------------------------------------------------------------
def run_proc(argv, env=None):
    """Wall seconds, peak RSS (bytes) and exit code of one run. The peak comes from GNU time,
    started from this process: a child spawned straight from here would have the driver's own
    resident memory in its ru_maxrss (Linux keeps the pre-exec high-water mark)."""
    rss = os.path.join(TMP_RSS[0], "rss.%d" % os.getpid())
    t0 = time.perf_counter()
    rc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + argv, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, env=env).returncode
    dt = time.perf_counter() - t0
    with open(rss) as fh:
        kb = int(fh.read().split()[-1])
    os.unlink(rss)
    return dt, kb * 1024, rc


TMP_RSS = ["/tmp"]


def bytes_read(argv, env):
    """Bytes the process and its children got from read()/pread() (Linux rchar, summed over the
    reaped children by the shell), from one untimed run. mmap'd reads are not counted; Python
    peers also count their own module files (a few MB)."""
    io = os.path.join(TMP_RSS[0], "io.%d" % os.getpid())
    rc = subprocess.run(["sh", "-c", '"$@" >/dev/null 2>&1; r=$?; cat /proc/$$/io > "$0"; exit $r', io] + argv,
                        env=env).returncode
    n = None
    with open(io) as fh:
        for line in fh:
            if line.startswith("rchar:"):
                n = int(line.split()[1])
    os.unlink(io)
    return n, rc


def proc_task(name, nbytes, contenders, reps, versions, extra, ok_codes=(0,)):
    """contenders: [(name, threads, argv, env)]; the first is packcheck."""
    times = {i: [] for i in range(len(contenders))}
    rss = {i: 0 for i in range(len(contenders))}
    nread = {}
    bad = {}
    for i, (n, th, argv, env) in enumerate(contenders):  # warm-up (also the page cache), bytes read
        nread[i], rc = bytes_read(argv, env)
        if rc not in ok_codes:
            bad[i] = "exit %d" % rc
    live = [i for i in range(len(contenders)) if i not in bad]
    for rep in range(reps):
        k = rep % len(live)
        for i in live[k:] + live[:k]:
            n, th, argv, env = contenders[i]
            dt, m, rc = run_proc(argv, env)
            times[i].append(dt)
            rss[i] = max(rss[i], m)
    rows = []
    for i in live:
        n, th, argv, env = contenders[i]
        t = times[i]
        rows.append({"name": n, "threads": th, "seconds": t, "gbps": nbytes / median(t) / 1e9, "bytes_read": nread[i],
                     "min_max_gbps": [nbytes / max(t) / 1e9, nbytes / min(t) / 1e9],
                     "median_s": median(t), "peak_rss_mb": rss[i] / 1e6})
    status = {(contenders[i][0], contenders[i][0]): s for i, s in bad.items()}
    t = finish_task(name, rows, versions, status, extra)
    t["rows"] = [{k: r[k] for k in ("name", "threads", "median_s", "gbps", "peak_rss_mb", "bytes_read")} for r in rows]
    print(summary_line(t), flush=True)
    return t


def pc_env(threads):
    e = dict(os.environ)
    if threads:
        e["PACKCHECK_THREADS"] = str(threads)
    return e


def st_files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".safetensors"))


def run_checkpoint(args, versions, ncpu):
    pcb = os.path.join(args.build, "packcheck")
    gen = os.path.join(args.build, "packcheck-gen-ckpt")
    tasks = []
    d = os.path.join(args.tmp, "ckpt")
    subprocess.run([gen, d, "--size", args.ckpt_size, "--bits", "4", "--shard", "1G"], check=True, stdout=subprocess.DEVNULL)
    files = st_files(d)
    nbytes = sum(os.path.getsize(f) for f in files)
    py = args.python
    safe_open = [py, os.path.join(HERE, "st_read_all.py")] + files
    info = {"kind": "checkpoint", "checkpoint": "ct-dense 4-bit, %s (%d bytes, %d shards)" % (args.ckpt_size, nbytes, len(files))}
    openssl_par = ["sh", "-c", 'printf "%s\\n" "$@" | xargs -P ' + str(ncpu) + ' -n 1 openssl dgst -sha256', "sh"] + files
    tasks.append(proc_task("validate --hash (%s checkpoint)" % args.ckpt_size, nbytes, [
        ("packcheck", 1, [pcb, "validate", "--hash", "--quiet", d], pc_env(1)),
        ("packcheck", ncpu, [pcb, "validate", "--hash", "--quiet", d], pc_env(0)),
        ("openssl dgst -sha256", 1, ["openssl", "dgst", "-sha256"] + files, None),
        ("openssl dgst -sha256", ncpu, openssl_par, None),
        ("sha256sum", 1, ["sha256sum"] + files, None),
    ], args.reps, versions, info))
    tasks.append(proc_task("validate (%s checkpoint)" % args.ckpt_size, nbytes, [
        ("packcheck", 1, [pcb, "validate", "--quiet", d], pc_env(1)),
        ("packcheck", ncpu, [pcb, "validate", "--quiet", d], pc_env(0)),
        ("cat > /dev/null", 1, ["sh", "-c", 'cat "$@" > /dev/null', "sh"] + files, None),
        ("safetensors safe_open (every tensor)", 1, safe_open, None),
    ], args.reps, versions, info))
    shutil.rmtree(d)
    # unpack writes the whole logical view (codes + f32: 5 bytes per 4-bit code, ~10x the input),
    # so it runs on a smaller checkpoint, into tmpfs
    d = os.path.join(args.tmp, "ckpt-small")
    subprocess.run([gen, d, "--size", args.unpack_size, "--bits", "4", "--shard", "1G"], check=True, stdout=subprocess.DEVNULL)
    files = st_files(d)
    nbytes = sum(os.path.getsize(f) for f in files)
    out = os.path.join(args.shm, "pc-peers-unpack.safetensors")
    info = {"kind": "checkpoint", "checkpoint": "ct-dense 4-bit, %s (%d bytes), output to tmpfs" % (args.unpack_size, nbytes)}
    tasks.append(proc_task("unpack (%s checkpoint)" % args.unpack_size, nbytes, [
        ("packcheck", ncpu, [pcb, "unpack", d, "--out", out], pc_env(0)),
        ("safetensors safe_open (every tensor)", 1, [py, os.path.join(HERE, "st_read_all.py")] + files, None),
    ], args.reps, versions, info))
    if os.path.exists(out):
        os.unlink(out)
    shutil.rmtree(d)
    return tasks


def run_headers(args, versions):
    pcb = os.path.join(args.build, "packcheck")
    py = args.python
    tasks = []
    # a 1M-tensor safetensors header and a 150k-tensor sharded index (plain F16 tensors)
    one = os.path.join(args.tmp, "hdr-1m")
    subprocess.run([py, os.path.join(HERE, "make_headers.py"), "st", one, str(args.header_tensors)], check=True)
    f = st_files(one)[0]
    nbytes = os.path.getsize(f)
    c = [("packcheck", 1, [pcb, "validate", "--quiet", one], pc_env(1)),
         ("safetensors (py) safe_open keys", 1, [py, os.path.join(HERE, "st_keys.py"), f], None)]
    if args.st_crate:
        c.append(("safetensors crate read_metadata", 1, [args.st_crate, f], None))
    t = proc_task("header pass, %d-tensor safetensors" % args.header_tensors, nbytes, c, args.reps, versions,
                  {"kind": "header", "tensors": args.header_tensors}, ok_codes=(0, 1))
    rc = run_proc(c[0][2], c[0][3])[2]
    if rc:  # packcheck refuses before building the tree: its LIMIT on JSON values (ST-024)
        t["note"] = "packcheck exits %d here: ST-024 (LIMIT, at most 2,000,000 JSON values, ~180k tensors) refuses the header before parsing it; its row times that refusal" % rc
    tasks.append(t)
    shutil.rmtree(one)
    one = os.path.join(args.tmp, "hdr-150k")
    subprocess.run([py, os.path.join(HERE, "make_headers.py"), "st", one, str(args.index_tensors)], check=True)
    f = st_files(one)[0]
    c = [("packcheck", 1, [pcb, "validate", "--quiet", one], pc_env(1)),
         ("safetensors (py) safe_open keys", 1, [py, os.path.join(HERE, "st_keys.py"), f], None)]
    if args.st_crate:
        c.append(("safetensors crate read_metadata", 1, [args.st_crate, f], None))
    tasks.append(proc_task("header pass, %d-tensor safetensors" % args.index_tensors, os.path.getsize(f), c, args.reps, versions,
                           {"kind": "header", "tensors": args.index_tensors}))
    shutil.rmtree(one)
    idx = os.path.join(args.tmp, "hdr-index")
    subprocess.run([py, os.path.join(HERE, "make_headers.py"), "index", idx, str(args.index_tensors)], check=True)
    files = st_files(idx)
    nbytes = sum(os.path.getsize(x) for x in files) + os.path.getsize(os.path.join(idx, "model.safetensors.index.json"))
    c = [("packcheck", 1, [pcb, "validate", "--quiet", idx], pc_env(1)),
         ("safetensors (py) safe_open keys", 1, [py, os.path.join(HERE, "st_keys.py"), "--index", idx], None)]
    if args.st_crate:
        c.append(("safetensors crate read_metadata", 1, [args.st_crate] + files, None))
    tasks.append(proc_task("header pass, %d-tensor index" % args.index_tensors, nbytes, c, args.reps, versions,
                           {"kind": "header", "tensors": args.index_tensors}))
    shutil.rmtree(idx)
    g = os.path.join(args.tmp, "hdr-gguf")
    subprocess.run([py, os.path.join(HERE, "make_headers.py"), "gguf", g, str(args.index_tensors)], check=True)
    gf = os.path.join(g, "model.gguf")
    tasks.append(proc_task("header pass, %d-tensor GGUF" % args.index_tensors, os.path.getsize(gf), [
        ("packcheck", 1, [pcb, "validate", "--quiet", gf], pc_env(1)),
        ("gguf-py GGUFReader", 1, [py, os.path.join(HERE, "gguf_read.py"), gf], None),
    ], args.reps, versions, {"kind": "header", "tensors": args.index_tensors}))
    shutil.rmtree(g)
    return tasks


# ---------------------------------------------------------------------------------------------
# Scaling: time and peak RSS against checkpoint size and tensor count (packcheck alone).
# ---------------------------------------------------------------------------------------------
def run_scaling(args):
    pcb = os.path.join(args.build, "packcheck")
    gen = os.path.join(args.build, "packcheck-gen-ckpt")
    py = args.python
    out = {"size": [], "tensors": []}
    for size in args.scale_sizes:
        d = os.path.join(args.tmp, "scale-%s" % size)
        subprocess.run([gen, d, "--size", size, "--bits", "4", "--shard", "1G"], check=True, stdout=subprocess.DEVNULL)
        nbytes = sum(os.path.getsize(f) for f in st_files(d))
        for mode in (["--hash"], []):
            argv = [pcb, "validate", "--quiet"] + mode + [d]
            run_proc(argv)
            r = [run_proc(argv) for _ in range(args.reps)]
            out["size"].append({"size": size, "bytes": nbytes, "mode": "validate " + " ".join(mode),
                                "median_s": median([x[0] for x in r]), "peak_rss_mb": max(x[1] for x in r) / 1e6})
            print("scaling", out["size"][-1], flush=True)
        shutil.rmtree(d)
    for n in args.scale_tensors:
        d = os.path.join(args.tmp, "scale-n%d" % n)
        subprocess.run([py, os.path.join(HERE, "make_headers.py"), "st", d, str(n)], check=True)
        argv = [pcb, "validate", "--quiet", d]
        run_proc(argv)
        r = [run_proc(argv) for _ in range(args.reps)]
        out["tensors"].append({"tensors": n, "header_bytes": os.path.getsize(st_files(d)[0]), "exit": r[0][2],
                               "median_s": median([x[0] for x in r]), "peak_rss_mb": max(x[1] for x in r) / 1e6})
        print("scaling", out["tensors"][-1], flush=True)
        shutil.rmtree(d)
    return out


# ---------------------------------------------------------------------------------------------
# Machine record and reports.
# ---------------------------------------------------------------------------------------------
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return "?"


def machine():
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    fam = sh("grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2").strip()
    model = sh("grep -m1 '^model\\s*:' /proc/cpuinfo | cut -d: -f2").strip()
    return {"cpu": "%s (family %s model %s)" % (cpu, fam, model), "cores": os.cpu_count(),
            "kernel": platform.release(), "libc": " ".join(platform.libc_ver()),
            "openssl": sh("openssl version"), "sha256sum": sh("sha256sum --version | head -1"),
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def write_md(path, doc):
    m = doc["machine"]
    f = lambda x, d=2: "-" if x is None else ("%.*f" % (d, x))  # noqa: E731
    L = ["# packcheck against its peers", "",
         "Generated by `scripts/bench-peers.sh` (%s). Machine: %s, %d cores, Linux %s, %s, %s. "
         "Load average %s at the start, %s at the end (the machine is shared: absolute GB/s move, "
         "same-run ratios much less). %d interleaved repetitions after one warm-up, medians." % (
             m["date"], m["cpu"], m["cores"], m["kernel"], m["libc"], m["openssl"],
             doc["load_start"], doc["load_end"], doc["reps"]), "",
         "Ratio = packcheck's GB/s / the fastest peer's GB/s (> 1: packcheck faster). `1t`: everyone on "
         "one thread; `all`: packcheck on every core against each peer's best row (a single-threaded "
         "tool counts as it is).", "",
         "Footing: **equal** = every side allocates its output inside its timing (decode: packcheck's "
         "result buffer is allocated and first touched inside the timed call, as numpy, torch and the ggml "
         "harness do) and reads the same input bytes; only equal-footing rows are ranked. Every side allocates "
         "through glibc's malloc and frees its result after the call, so glibc recycles a result below its "
         "32 MiB mmap ceiling (the int8 codes rows) into the next call for every side alike, and maps a "
         "64 MiB f32 result afresh on every call for every side. `unequal-bytes-read`: "
         "the sides read different bytes (column `bytes read`: Linux rchar of the process and its children, "
         "mmap'd reads not counted), so the ratio is per byte of the checkpoint, not like for like. "
         "`packcheck reused buffer` decodes into one output buffer faulted in once outside the timing: a "
         "lower bound no loader gets, shown beside, never ranked. `page faults alone` allocates the same "
         "fresh f32 result and writes one byte per 4 KiB page, no decode (beside, never ranked). `ceiling 1t` "
         "is the best ratio any decoder could reach against the fastest peer when it pays the fresh result's "
         "page faults as packcheck does: the peer's time / (packcheck's fresh-result time - its reused-buffer "
         "time), all same-run one-thread medians. `output written alone` writes every byte of the f32 result "
         "into a reused buffer with plain 32-byte stores and no decode: the fastest any decoder can put its "
         "result in memory here; `memcpy` copies the output's size between two reused buffers (both beside, "
         "never ranked). A ranked decode row below 2x says why under the table: a ceiling below 2x, or the "
         "decode speed 2x would need (beside the page faults) against the output written alone.", ""]
    if doc.get("left_out"):
        L += ["Left out of this run: " + doc["left_out"], ""]
    L += ["| task | footing | bytes read (packcheck / peers) | packcheck 1t GB/s | packcheck all GB/s | peers (threads: GB/s) | ratio 1t | ratio all | packcheck reused buffer 1t GB/s (not ranked) | page faults alone 1t GB/s (not ranked) | output written alone / memcpy 1t GB/s (not ranked) | ceiling 1t |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in doc["tasks"]:
        peers = "; ".join("%s %s (%dt): %s" % (p["name"], p["version"].split(" ")[0], p["threads"], f(p["gbps"], 3))
                          for p in t["peers"])
        if t.get("not_ranked"):
            peers += "; not ranked: " + "; ".join("%s (%s)" % kv for kv in t["not_ranked"].items())
        br = t.get("bytes_read", {})
        mb = lambda n: "-" if n is None else ("%.1f MB" % (n / 1e6) if n >= 1e5 else "%d B" % n)  # noqa: E731
        reads = "%s / %s" % (mb(br.get("packcheck")), ", ".join("%s %s" % (k, mb(v)) for k, v in br.items() if k != "packcheck") or "-")
        reused = next((r["gbps"] for r in t.get("beside", []) if r["threads"] == 1 and r["footing"] == "reused-buffer"), None)
        lim, of = t.get("faults_gbps_1t"), f(t.get("ceiling_1t"))
        wm = "-" if t.get("write_gbps_1t") is None else "%s / %s" % (f(t.get("write_gbps_1t")), f(t.get("memcpy_gbps_1t")))
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            t["task"], t.get("footing", "?"), reads, f(t["packcheck_gbps"]), f(t["packcheck_gbps_all"]),
            peers, f(t["ratio_vs_fastest_peer_1t"]), f(t["ratio_vs_fastest_peer_all"]), f(reused), f(lim), wm, of))
    L += [""] + ["- %s: %s" % (t["task"], t["note"]) for t in doc["tasks"] if t.get("note")]
    L += ["- %s: %s" % (t["task"], w) for t in doc["tasks"] for w in [below_two(t)] if w]
    L += ["", "Versions: " + "; ".join("%s %s" % kv for kv in sorted(doc["versions"].items())), ""]
    for t in doc["tasks"]:
        if t.get("rows"):
            L.append("- %s: " % t["task"] + "; ".join("%s %dt %.3f s%s" % (r["name"], r["threads"], r["median_s"],
                     ", peak %.1f MB" % r["peak_rss_mb"] if "peak_rss_mb" in r else "") for r in t["rows"]))
    sc = doc.get("scaling")
    if sc:
        L += ["", "## Scaling (packcheck alone)", "", "| checkpoint | mode | median s | GB/s | peak RSS MB |", "|---|---|---|---|---|"]
        for r in sc["size"]:
            L.append("| %s (%d B) | %s | %.3f | %.2f | %.1f |" % (r["size"], r["bytes"], r["mode"], r["median_s"], r["bytes"] / r["median_s"] / 1e9, r["peak_rss_mb"]))
        L += ["", "| tensors | header bytes | exit | median s | us per tensor | peak RSS MB |", "|---|---|---|---|---|---|"]
        for r in sc["tensors"]:
            L.append("| %d | %d | %d | %.3f | %.2f | %.1f |" % (r["tensors"], r["header_bytes"], r["exit"], r["median_s"], r["median_s"] / r["tensors"] * 1e6, r["peak_rss_mb"]))
    L += ["", "![throughput per task and contender](bench-peers.svg)", ""]
    with open(path, "w") as fh:
        fh.write("\n".join(L))


def ceiling(pc_fresh, pc_reused, peer):
    """The ratio to `peer` (GB/s) that a decoder paying the fresh result's page faults cannot pass:
    those faults cost packcheck's fresh-result time less its reused-buffer time (per byte), and any
    decoder pays at least them."""
    if not (pc_fresh and pc_reused and peer) or pc_reused <= 1.1 * pc_fresh:
        return None  # no page faults to bound: glibc recycled the result (the codes rows)
    return (1 / peer) / (1 / pc_fresh - 1 / pc_reused)


def decode_needed_for_two(t):
    """The speed (GB/s of output) packcheck's decode itself would need for 2x the fastest one-thread
    peer, under the ceiling's model (fresh-result time = its page faults + the decode, the faults
    costing fresh - reused): None when the faults alone already take more than half the peer's time."""
    pc1, reused = t.get("packcheck_gbps"), t.get("reused_gbps_1t")
    p1 = max((p["gbps"] for p in t["peers"] if p["threads"] == 1), default=None)
    if not (pc1 and reused and p1) or reused <= pc1:
        return None
    budget = 1 / (2 * p1) - (1 / pc1 - 1 / reused)  # seconds per GB left for the decode
    return 1 / budget if budget > 0 else None


def below_two(t):
    """Why a ranked decode row is below 2x the fastest one-thread peer: its ceiling (see ceiling()),
    or, where the ceiling is above 2x, the decode speed 2x would need against the machine's own
    write speed (the output written alone, no decode) and memcpy."""
    r, c = t.get("ratio_vs_fastest_peer_1t"), t.get("ceiling_1t")
    if r is None or r >= 2 or not t["task"].startswith("decode"):
        return None
    p1 = max((p for p in t["peers"] if p["threads"] == 1), key=lambda p: p["gbps"])
    if c is None:
        return "%.2fx %s, below 2x; no ceiling measured for this output" % (r, p1["name"])
    if c < 2:
        return ("%.2fx %s of a %.2fx ceiling: the fresh result's page faults alone take %.0f%% of %s's time, "
                "so 2x is out of reach for any decoder that allocates its result in 4 KiB pages" % (r, p1["name"], c, 100 / c, p1["name"]))
    need, write, mem = decode_needed_for_two(t), t.get("write_gbps_1t"), t.get("memcpy_gbps_1t")
    if need and write and need > write:
        return ("%.2fx %s of a %.2fx ceiling: 2x would need the decode itself, beside the fresh result's page faults, "
                "at %.1f GB/s of output, faster than this machine writes the output alone with no decode (%.1f GB/s; "
                "memcpy of the output %.1f GB/s; packcheck's decode into a reused buffer %.1f GB/s): a physical limit"
                % (r, p1["name"], c, need, write, mem or 0, t["reused_gbps_1t"]))
    return ("%.2fx %s, below 2x with a %.2fx ceiling: packcheck falls short here (2x needs its decode at %s GB/s, "
            "the output written alone runs at %s GB/s)" % (r, p1["name"], c, "%.1f" % need if need else "?", "%.1f" % write if write else "?"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tmp", default="/tmp/pc-peers")
    ap.add_argument("--shm", default="/dev/shm")
    ap.add_argument("--out", default=os.path.join(ROOT, "reports"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--decode", nargs="*", default=list(DECODE))
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES))
    ap.add_argument("--ggml-worker")
    ap.add_argument("--py017", help="python of a venv with compressed-tensors 0.17.x (ct-legacy peers)")
    ap.add_argument("--st-crate", help="the safetensors crate's read_metadata binary")
    ap.add_argument("--ckpt-size", default="2G")
    ap.add_argument("--unpack-size", default="256M")
    ap.add_argument("--header-tensors", type=int, default=1 << 20)
    ap.add_argument("--index-tensors", type=int, default=150000)
    ap.add_argument("--scale-sizes", nargs="*", default=["1G", "2G"])
    ap.add_argument("--scale-tensors", nargs="*", type=int, default=[1000, 10000, 100000, 150000, 1000000])
    ap.add_argument("--skip", nargs="*", default=[], choices=["decode", "checkpoint", "headers", "scaling"])
    ap.add_argument("--left-out", default="", help="what this run leaves out and why (recorded in the reports)")
    args = ap.parse_args()
    args.python = sys.executable
    os.makedirs(args.tmp, exist_ok=True)
    TMP_RSS[0] = args.tmp
    ncpu = os.cpu_count()
    doc = {"machine": machine(), "load_start": "%.2f %.2f %.2f" % os.getloadavg(), "reps": args.reps, "tasks": [],
           "method": "footing equal: both sides allocate their output inside the timing; bytes_read per side "
                     "(decode: the input file, read whole by every side; processes: Linux rchar)",
           "left_out": args.left_out}
    workers = {"pc": Worker([os.path.join(args.build, "packcheck-peer-decode")]),
               "pc-reused": Worker([os.path.join(args.build, "packcheck-peer-decode"), "--reuse"]),
               "pc-touch": Worker([os.path.join(args.build, "packcheck-peer-decode"), "--touch"]),
               "pc-write": Worker([os.path.join(args.build, "packcheck-peer-decode"), "--write"]),
               "pc-memcpy": Worker([os.path.join(args.build, "packcheck-peer-decode"), "--memcpy"]),
               "py": Worker([sys.executable, os.path.join(HERE, "py_worker.py")])}
    if args.ggml_worker:
        workers["ggml"] = Worker([args.ggml_worker])
    if args.py017:
        workers["py017"] = Worker([args.py017, os.path.join(HERE, "py_worker.py")])
    versions = {"packcheck": sh("git -C %s describe --always --dirty" % ROOT),
                "ggml to_float": os.environ.get("GGML_VERSION", "?"),
                "openssl dgst -sha256": sh("openssl version"), "sha256sum": sh("sha256sum --version | head -1"),
                "cat > /dev/null": sh("cat --version | head -1")}
    for w, peers in (("py", PY_PEERS), ("py017", ["compressed-tensors-0.17"])):
        for p in peers:
            if w in workers:
                v = workers[w].ask("version %s" % p)
                versions[p] = v
    versions["safetensors (py) safe_open keys"] = versions["safetensors safe_open (every tensor)"] = sh(
        "%s -c 'import safetensors;print(safetensors.__version__)'" % sys.executable)
    versions["gguf-py GGUFReader"] = versions.get("gguf-py", "?")
    versions["safetensors crate read_metadata"] = os.environ.get("ST_CRATE_VERSION", "?")
    if "decode" not in args.skip:
        doc["tasks"] += run_decode(args, workers, versions, ncpu)
    for w in workers.values():
        w.close()
    if "checkpoint" not in args.skip:
        doc["tasks"] += run_checkpoint(args, versions, ncpu)
    if "headers" not in args.skip:
        doc["tasks"] += run_headers(args, versions)
    if "scaling" not in args.skip:
        doc["scaling"] = run_scaling(args)
    doc["load_end"] = "%.2f %.2f %.2f" % os.getloadavg()
    doc["versions"] = versions
    doc["peak_rss_driver_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench-peers.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
    write_md(os.path.join(args.out, "bench-peers.md"), doc)
    svg.write(os.path.join(args.out, "bench-peers.svg"), doc)


if __name__ == "__main__":
    main()
