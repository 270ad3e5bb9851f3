"""The `packcheck` console script: the packaged C binary, exec'd with the same arguments."""
from __future__ import annotations

import os
import sys

from ._binary import PackcheckError, binary_path


def main() -> None:
    try:
        exe = str(binary_path())
    except PackcheckError as e:
        print(f"packcheck: {e}", file=sys.stderr)
        sys.exit(2)
    os.execv(exe, [exe, *sys.argv[1:]])
