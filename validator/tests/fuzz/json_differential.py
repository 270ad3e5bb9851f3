#!/usr/bin/env python3
"""JSON differential: packcheck's reading of sidecar JSON against Python's json.loads, the parser every
loader uses (transformers, bitsandbytes' QuantState, compressed-tensors, mlx_lm).

  json_differential.py PC_JSON_READS [--n N] [--seed S] [DIR...]

Inputs: every config.json under fixtures/, the config_json fuzz seeds, files in the DIRs given (e.g. a
fuzzer's output corpus), and N seeded mutants of them (a key repeated in a random object, a key
re-spelt with \\u escapes, a U+0000 put in a string, random byte edits). For each input cJSON accepts,
pc_json_reads' findings must match what Python sees: a duplicate key (object_pairs_hook), a string
holding U+0000, or a refusal (UnicodeDecodeError / JSONDecodeError). Exit 1 on any mismatch."""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


class Pairs(list):
    pass


def dump(v):
    if isinstance(v, Pairs):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    return json.dumps(v)


def objects(v, out):
    if isinstance(v, Pairs):
        out.append(v)
        for _, x in v:
            objects(x, out)
    elif isinstance(v, list):
        for x in v:
            objects(x, out)
    return out


def python_view(data):
    """{'refuse'} or a subset of {'dup', 'nul'}: what json.loads makes of the bytes."""
    found = set()

    def hook(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            found.add("dup")
        if any("\0" in k for k in keys) or any(isinstance(v, str) and "\0" in v for _, v in pairs):
            found.add("nul")
        return dict(pairs)
    try:
        v = json.loads(data.decode("utf-8"), object_pairs_hook=hook)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {"refuse"}

    def strings(x):
        if isinstance(x, str):
            yield x
        elif isinstance(x, list):
            for e in x:
                yield from strings(e)
        elif isinstance(x, dict):
            for e in x.values():
                yield from strings(e)
    if any("\0" in s for s in strings(v)):
        found.add("nul")
    return found


def mutate(rng, data):
    try:
        tree = json.loads(data.decode("utf-8"), object_pairs_hook=Pairs)
    except (UnicodeDecodeError, ValueError, RecursionError):
        tree = None
    objs = objects(tree, []) if tree is not None else []
    kind = rng.randrange(4)
    if objs and kind == 0:
        o = rng.choice(objs)
        if o:
            k, v = rng.choice(o)
            o.insert(rng.randrange(len(o) + 1), (k, rng.choice([v, 0, "x", None, [1], Pairs([("y", 1)])])))
        return dump(tree).encode()
    if objs and kind == 1:
        o = rng.choice(objs)
        if len(o) >= 1:
            i = rng.randrange(len(o))
            k = o[i][0]
            esc = "".join(f"\\u{ord(c):04x}" if rng.random() < 0.5 and ord(c) < 0x10000 else c for c in k)
            text = dump(tree)
            return text.replace(json.dumps(k) + ":", '"' + esc + '":', 1).encode() + (b"" if rng.random() < 0.5 else b"")
    if objs and kind == 2:
        o = rng.choice(objs)
        if o:
            i = rng.randrange(len(o))
            k, v = o[i]
            o[i] = (k + "\0", v) if rng.random() < 0.5 else (k, (v if isinstance(v, str) else "s") + "\0")
        return dump(tree).encode()
    b = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        if not b:
            break
        p = rng.randrange(len(b))
        op = rng.randrange(3)
        if op == 0:
            b[p] = rng.choice(b'\x00\x01\x09\x1f "\\{}[],:0123456789eE.+-uabtnrf\xef\xbb\xbf\xff\x80')
        elif op == 1:
            del b[p]
        else:
            b[p:p] = rng.choice([b'\xef\xbb\xbf', b'\\u0000', b'01', b'"k": 1, ', b' ', b'\x0c'])
    return bytes(b)


def inputs(dirs):
    found = []
    for top, _, files in os.walk(os.path.join(ROOT, "fixtures")):
        for n in files:
            if n.endswith(".json") and n != "expect.json":
                found.append(open(os.path.join(top, n), "rb").read())
    seeds = os.path.join(HERE, "corpus", "config_json")
    for n in sorted(os.listdir(seeds)):
        found.append(open(os.path.join(seeds, n), "rb").read()[1:])  # first byte picks the sidecar
    for d in dirs:
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.path.getsize(p) < (1 << 20):
                found.append(open(p, "rb").read())
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=30)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    base = inputs(a.dirs)
    cases = base + [mutate(rng, rng.choice(base)) for _ in range(a.n)]
    bad, compared, refused_by_c = 0, 0, 0
    with tempfile.TemporaryDirectory(prefix="pc-json-diff-") as tmp:
        paths = []
        for i, c in enumerate(cases):
            p = os.path.join(tmp, f"{i:06d}.json")
            with open(p, "wb") as f:
                f.write(c)
            paths.append(p)
        verdicts = {}
        for i in range(0, len(paths), 500):
            out = subprocess.run([a.tool] + paths[i:i + 500], check=True, capture_output=True).stdout.decode()
            for line in out.splitlines():
                v, p = line.split(" ", 1)
                verdicts[p] = v
        for p, c in zip(paths, cases):
            v = verdicts[p]
            if v == "invalid":
                refused_by_c += 1
                continue
            compared += 1
            c_sees = set(v.split("+")) - {"ok"}
            py = python_view(c)
            want_ok = ("notpy" in c_sees) == ("refuse" in py)
            if "refuse" not in py and "notpy" not in c_sees:
                want_ok = want_ok and ("dup" in c_sees) == ("dup" in py) and ("nul" in c_sees) == ("nul" in py)
            if not want_ok:
                bad += 1
                if bad <= 10:
                    print(f"MISMATCH packcheck={v} python={sorted(py) or ['ok']}: {c[:200]!r}")
    print(f"json differential: {len(cases)} inputs, {compared} compared ({refused_by_c} refused by cJSON), {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
