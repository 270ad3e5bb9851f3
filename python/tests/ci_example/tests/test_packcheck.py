"""A loader's conformance test, as the README's CI example runs it: every AWQ case of the
packaged corpus, valid ones read to the pinned view, invalid ones refused."""
import subprocess
import sys
from pathlib import Path

import pytest

import packcheck

TOOL = Path(__file__).resolve().parent.parent / "tools" / "dump_logical.py"


def logical_view(path, tmp_path):
    out = tmp_path / "view.safetensors"
    if subprocess.run([sys.executable, str(TOOL), str(path), str(out)]).returncode != 0:
        return None  # refused
    return out


@pytest.mark.packcheck(family="awq")
def test_awq_conformance(packcheck_case, tmp_path):
    packcheck.testing.assert_view(packcheck_case, logical_view(packcheck_case.input, tmp_path))
