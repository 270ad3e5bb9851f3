#!/usr/bin/env python3
"""Regenerate the fixture corpus and compare it with fixtures/ byte for byte.

  python generators/regen.py --check   # regenerate into a temp dir; fail on any difference
  python generators/regen.py --write   # regenerate into fixtures/ (then review the diff)
  python generators/regen.py --only gen_st --check

Each generators/gen_*.py module runs in the venv its REQUIREMENTS names (see generators/README.md).
"""
import argparse
import filecmp
import importlib
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from pcgen.corpus import Corpus, write_manifest  # noqa: E402


def modules():
    return sorted(n[:-3] for n in os.listdir(HERE) if n.startswith("gen_") and n.endswith(".py"))


def diff_trees(a, b):
    out = []
    cmp = filecmp.dircmp(a, b)

    def walk(c, rel):
        for n in c.left_only:
            out.append(f"only in regenerated: {os.path.join(rel, n)}")
        for n in c.right_only:
            out.append(f"only in fixtures: {os.path.join(rel, n)}")
        for n in c.common_files:
            if not filecmp.cmp(os.path.join(c.left, n), os.path.join(c.right, n), shallow=False):
                out.append(f"differs: {os.path.join(rel, n)}")
        for n, sub in c.subdirs.items():
            walk(sub, os.path.join(rel, n))
    walk(cmp, "")
    return out


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true")
    g.add_argument("--write", action="store_true")
    ap.add_argument("--only", action="append", help="generator module(s) to run (default: all)")
    ap.add_argument("--fixtures", default=os.path.join(ROOT, "fixtures"))
    a = ap.parse_args()
    names = a.only or modules()
    tmp = tempfile.mkdtemp(prefix="packcheck-regen-")
    try:
        out = Corpus(tmp)
        for n in names:
            try:
                importlib.import_module(n).generate(out)
            except Exception as e:  # a generator that needs another venv says so and is skipped
                if type(e).__name__ != "NeedsVenv":
                    raise
                print(f"SKIPPED {n}: {e}")
                if a.only:
                    return 2
        # A full run owns whole family folders; a partial run (--only) owns just its cases, since
        # several generators (in different venvs) may write into one family.
        units = sorted(out.ids) if a.only else sorted({cid.split("/")[0] for cid in out.ids})
        if a.write:
            for u in units:
                shutil.rmtree(os.path.join(a.fixtures, u), ignore_errors=True)
                shutil.copytree(os.path.join(tmp, u), os.path.join(a.fixtures, u))
            write_manifest(a.fixtures)
            print(f"wrote {len(out.ids)} cases to {a.fixtures}")
            return 0
        problems = []
        for u in units:
            if not os.path.isdir(os.path.join(a.fixtures, u)):
                problems.append(f"missing in fixtures: {u}")
                continue
            problems += diff_trees(os.path.join(tmp, u), os.path.join(a.fixtures, u))
        for p in problems:
            print(p)
        print(f"regenerated {len(out.ids)} cases: {len(problems)} differences")
        return 1 if problems else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
