#!/usr/bin/env python3
"""Rewrite fixtures/MANIFEST.sha256 from the files present (plain Python, no venv needed).
Run after adding cases by hand or after a merge; `packcheck corpus` then checks every pin."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcgen.corpus import write_manifest  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
write_manifest(root)
print(f"pinned {root}/MANIFEST.sha256")
