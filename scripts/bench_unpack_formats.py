#!/usr/bin/env python3
"""unpack of non-ct formats, this build against a baseline build and `dd conv=fsync` of the same bytes.

Issue 29: formats with a row decoder (pc_format.decode_rows) are unpacked in row slices into two
reused, pre-faulted slots; a format without one is decoded whole into a buffer of its largest
module. This times `packcheck unpack` on synthetic checkpoints of real module shapes for formats
whose layouts differ most (DeepSeek FP8 with 128 x 128 block scales, bytes per element; GPTQ 4-bit,
whose view rows are qweight's columns), and on corpus fixtures (fixture-sized: process start
dominates). Each contender runs `--reps` times, alternating, each a fresh process; before each run
the previous outputs are removed and `sync` runs, untimed. Times from wait4 (wall, user + sys CPU,
peak RSS). Medians with min-max, the load average at start and end (the machine may be shared).

The synthetic data is random (FP8 bytes with the NaN patterns 0x7F/0xFF moved to 0x7E/0xFE, GPTQ
words random, symmetric v1 zeros 0x77777777, scales of 1.0 / 0.0625): unpack's work does not depend
on the values. Pure Python, nothing outside the standard library.

usage: scripts/bench_unpack_formats.py --baseline OTHER_BUILD [--build build] [--tmp /tmp/pc-uf]
                                       [--reps 5] [--shape 11008x4096] [--modules 2]
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, rss_tool):
    """(wall s, user + sys CPU s, peak RSS MB). The peak comes from pc_peak_rss (a small C parent):
    a child forked from Python starts with Python's high-water mark, which would hide small peaks."""
    t0 = time.perf_counter()
    p = subprocess.Popen([rss_tool] + cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s exited %d" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime, int(out.split()[-1]) / 1024.0


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def med(xs):
    return "%.3f [%.3f-%.3f]" % (statistics.median(xs), min(xs), max(xs))


def ratio(a, b):
    rs = [x / y for x, y in zip(a, b) if y > 0]
    return "%.2fx [%.2f-%.2f]" % (statistics.median(rs), min(rs), max(rs))


def write_st(path, tensors):
    """tensors: list of (name, dtype, shape, bytes)."""
    hdr, off = {}, 0
    for name, dt, shape, data in tensors:
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(data)]}
        off += len(data)
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for _, _, _, data in tensors:
            f.write(data)


def rand(n):
    return os.urandom(n)


def gen_fp8(d, N, K, modules):
    os.makedirs(d)
    nan_free = bytes.maketrans(b"\x7f\xff", b"\x7e\xfe")
    gr, gc = -(-N // 128), -(-K // 128)
    ts = []
    for i in range(modules):
        p = "model.layers.%d.mlp.down_proj" % i
        ts.append((p + ".weight", "F8_E4M3", [N, K], rand(N * K).translate(nan_free)))
        ts.append((p + ".weight_scale_inv", "F32", [gr, gc], struct.pack("<f", 1.0) * (gr * gc)))
    write_st(os.path.join(d, "model.safetensors"), ts)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                           "weight_block_size": [128, 128]}}, f)


def gen_gptq(d, N, K, modules):
    os.makedirs(d)
    g = 128
    ts = []
    for i in range(modules):
        p = "model.layers.%d.mlp.down_proj" % i
        ts.append((p + ".qweight", "I32", [K // 8, N], rand(K // 8 * N * 4)))
        ts.append((p + ".qzeros", "I32", [K // g, N // 8], b"\x77" * (K // g * N // 8 * 4)))
        ts.append((p + ".scales", "F16", [K // g, N], struct.pack("<e", 0.0625) * (K // g * N)))
        ts.append((p + ".g_idx", "I32", [K], b"".join(struct.pack("<i", k // g) for k in range(K))))
    write_st(os.path.join(d, "model.safetensors"), ts)
    with open(os.path.join(d, "quantize_config.json"), "w") as f:
        json.dump({"bits": 4, "group_size": g, "desc_act": False, "sym": True, "quant_method": "gptq",
                   "checkpoint_format": "gptq", "static_groups": False}, f)


def bench(label, d, builds, reps, tmp, rows, rss_tool):
    out = os.path.join(tmp, "view.safetensors")
    dd_out = os.path.join(tmp, "dd.bin")
    run([os.path.join(builds[0][1], "packcheck"), "unpack", d, "--out", out], rss_tool)  # warm-up, byte count
    nbytes = os.path.getsize(out)
    dd = ["dd", "if=/dev/zero", "of=" + dd_out, "bs=1M", "count=%d" % nbytes, "iflag=count_bytes", "conv=fsync", "status=none"]
    order = [(name, [os.path.join(b, "packcheck"), "unpack", d, "--out", out]) for name, b in builds] + [("dd", dd)]
    res = {name: [] for name, _ in order}
    for i in range(reps):
        for name, cmd in (order if i % 2 == 0 else order[::-1]):
            for f in (out, dd_out):
                if os.path.exists(f):
                    os.unlink(f)
            subprocess.run(["sync"], check=True)
            res[name].append(run(cmd, rss_tool))
    for f in (out, dd_out):
        if os.path.exists(f):
            os.unlink(f)
    rows.append((label, nbytes, res))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--tmp", default="/tmp/pc-uf")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--shape", default="11008x4096")
    ap.add_argument("--modules", type=int, default=2)
    a = ap.parse_args()
    N, K = (int(x) for x in a.shape.split("x"))
    if os.path.isdir(a.tmp):
        shutil.rmtree(a.tmp)
    os.makedirs(a.tmp)
    gen_fp8(os.path.join(a.tmp, "fp8"), N, K, a.modules)
    gen_gptq(os.path.join(a.tmp, "gptq"), N, K, a.modules)
    builds = [("after", a.build), ("before", a.baseline)]
    load0 = loadavg()
    rows = []
    for label, d in [("fixture fp8/deepseek-fp8-rows-1000", os.path.join(ROOT, "fixtures/fp8/deepseek-fp8-rows-1000")),
                     ("fixture gptq/autogptq-v1-3bit-asym-descact-g16-random", os.path.join(ROOT, "fixtures/gptq/autogptq-v1-3bit-asym-descact-g16-random")),
                     ("synthetic DeepSeek FP8 %d x [%d, %d]" % (a.modules, N, K), os.path.join(a.tmp, "fp8")),
                     ("synthetic GPTQ 4-bit g128 %d x [%d, %d]" % (a.modules, N, K), os.path.join(a.tmp, "gptq"))]:
        bench(label, d, builds, a.reps, a.tmp, rows, os.path.join(a.build, "validator", "tests", "pc_peak_rss"))
    load1 = loadavg()
    print("load average at start %s, at end %s; %d runs each, alternating; medians [min-max]\n" % (load0, load1, a.reps))
    print("| input | MB written | after wall s | before wall s | after / before wall | after / dd wall | after CPU s | before CPU s | after peak RSS MB | before peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, nbytes, r in rows:
        w = {k: [x[0] for x in v] for k, v in r.items()}
        c = {k: [x[1] for x in v] for k, v in r.items()}
        m = {k: [x[2] for x in v] for k, v in r.items()}
        print("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, nbytes / 1e6, med(w["after"]), med(w["before"]), ratio(w["after"], w["before"]), ratio(w["after"], w["dd"]),
            med(c["after"]), med(c["before"]), med(m["after"]), med(m["before"])))
    shutil.rmtree(a.tmp)


if __name__ == "__main__":
    main()
