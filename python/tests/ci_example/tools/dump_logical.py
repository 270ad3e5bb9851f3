#!/usr/bin/env python3
"""A loader's dump tool, as the README's CI example calls it: write the logical view of INPUT to
OUTPUT and exit 0, or exit 1 to refuse INPUT. A real loader reads the checkpoint with its own code
here; this stand-in asks packcheck's reference decoder, so the example certifies."""
import os
import sys

import packcheck

if __name__ == "__main__":
    exe = str(packcheck.binary_path())
    os.execv(exe, [exe, "unpack", sys.argv[1], "--out", sys.argv[2]])
