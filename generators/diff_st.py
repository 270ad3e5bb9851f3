#!/usr/bin/env python3
"""Differential check of the compat profile against the real reader (venv: requirements-st.txt).

Mutates the bundled st/ fixtures (bytes, JSON tokens, whitespace, \\u escapes, whole-field edits, data
length) with a seeded RNG, hands every mutant to `safetensors.deserialize` and to
`packcheck validate --profile compat`, and fails when they disagree on accept/reject. Mutants that
packcheck rejects only by a LIMIT rule (ST-002, ST-024, ST-027: packcheck's own bounds) are not
counted as disagreements.

  python generators/diff_st.py --packcheck build/packcheck [--cases 2000] [--seed 1]
"""
import argparse
import glob
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

import safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
LIMITS = {"ST-002", "ST-024", "ST-027"}
TOKENS = [b'"dtype"', b'"shape"', b'"data_offsets"', b'"__metadata__"', b'"U8"', b'"F4"', b'"F6_E2M3"', b'"BF16"',
          b"null", b"[]", b"{}", b"0", b"-0", b"1", b"4", b"8", b"18446744073709551615", b"1e2", b" ", b"\t", b"\n",
          b",", b":", b'"', b"\\u0000", b'"a"', b'""', b"[0,4]", b"[4]", b"[2,1]", b"1e400", b"1e308",
          b"123456789012345678901234567890", b"-1.5e-400", b'"\\ud83d\\ude00"', b'"\\ud800"', b"[[[[[[[[", b"]]]]]]]]"]
FIELD_VALUES = [[0, 4], [4], [2, 1], [], [0], "U8", "F4", "I8", [0, 0], [1, 2, 3]]


def header_span(b):
    hl = struct.unpack("<Q", b[:8])[0]
    return hl, min(8 + hl, len(b))


def mutate_once(rng, b):
    if len(b) < 9:
        return b
    hl, hend = header_span(b)
    if hl >= 2**40 or hend <= 9:
        return b + bytes(rng.randint(1, 4))
    k = rng.random()
    if k < 0.3:                                   # one random byte in the header
        i = rng.randrange(8, hend)
        b[i] = rng.randrange(256)
        return b
    if k < 0.6:                                   # a JSON token over a few bytes
        i, t = rng.randrange(8, hend), rng.choice(TOKENS)
        j = min(hend, i + rng.randint(0, 4))
        b[i:j] = t
        b[:8] = struct.pack("<Q", hl + len(t) - (j - i))
        return b
    if k < 0.75:                                  # whitespace-ish byte, or a letter as \uXXXX
        i = rng.randrange(9, hend)
        if rng.random() < 0.5:
            t = bytes([rng.choice(b" \t\n\r\x0b\x0c\x00")])
            b[i:i] = t
        elif 0x61 <= b[i] <= 0x7A:
            t = ("\\u%04x" % b[i]).encode()
            b[i:i + 1] = t
            t = t[1:]
        else:
            t = b""
        b[:8] = struct.pack("<Q", hl + len(t))
        return b
    if k < 0.85:                                  # data length: trailing bytes or truncation
        if rng.random() < 0.5 or len(b) <= 9:
            return b + bytes(rng.randint(1, 4))
        del b[-rng.randint(1, min(4, len(b) - 8)):]
        return b
    try:                                          # one field of one tensor entry rewritten
        h = json.loads(bytes(b[8:hend]).decode())
        names = [n for n in h if n != "__metadata__"]
        if names:
            e = h[rng.choice(names)]
            if isinstance(e, dict):
                e[rng.choice(["dtype", "shape", "data_offsets"])] = rng.choice(FIELD_VALUES)
        txt = json.dumps(h, separators=(",", ":")).encode()
        return bytearray(struct.pack("<Q", len(txt)) + txt + bytes(b[hend:]))
    except Exception:
        return b


def crate_accepts(b):
    try:
        safetensors.deserialize(b)
        return True, ""
    except Exception as e:
        return False, str(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packcheck", required=True)
    ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(HERE), "fixtures"))
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    seeds = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(a.fixtures, "st", "*", "*.safetensors")))
             if os.path.getsize(p) < 4096]
    tmp = tempfile.mkdtemp(prefix="packcheck-diff-st-")
    try:
        crate, paths = {}, []
        for i in range(a.cases):
            b = bytearray(rng.choice(seeds))
            for _ in range(1 if rng.random() < 0.7 else 2):
                b = mutate_once(rng, b)
            p = os.path.join(tmp, "m%05d.safetensors" % i)
            with open(p, "wb") as f:
                f.write(b)
            crate[p] = crate_accepts(bytes(b))
            paths.append(p)
        report = os.path.join(tmp, "report.json")
        rc = subprocess.run([a.packcheck, "validate", "--quiet", "--profile", "compat", "--report", "json:" + report]
                            + paths, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc not in (0, 1, 3):  # 3: accepted, with tensors no quantization module decodes
            print(f"diff_st: packcheck exited {rc}")
            return 1
        with open(report) as f:
            doc = json.load(f)
        bad = 0
        for inp in doc["inputs"]:
            p = inp["path"]
            fails = {x["rule"] for x in inp["results"] if x["status"] == "fail"}
            ours = inp["verdict"] in ("pass", "unchecked")  # unchecked: the container was accepted
            theirs, why = crate[p]
            if ours != theirs and not (fails & LIMITS):
                bad += 1
                if bad <= 10:
                    print(f"diff_st: {os.path.basename(p)}: packcheck {inp['verdict']} {sorted(fails)}, crate "
                          f"{'accepts' if theirs else 'rejects: ' + why}")
                    shutil.copy(p, os.path.join(os.getcwd(), "diff_st-" + os.path.basename(p)))
        acc = sum(1 for v in crate.values() if v[0])
        print(f"diff_st: {a.cases} mutants (seed {a.seed}; the crate accepts {acc}): {bad} disagreements with "
              f"packcheck --profile compat")
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
