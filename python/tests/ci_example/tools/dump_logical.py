#!/usr/bin/env python3
"""A loader's dump tool, as the README's CI example calls it: write the logical view of INPUT to
OUTPUT and exit 0, or exit 1 to refuse INPUT. A real loader reads the checkpoint with its own code
here; this stand-in asks packcheck's reference decoder (like validator/tests/readers/correct.sh:
tensors it does not decode are left out, and an input with nothing to decode is refused)."""
import subprocess
import sys

import packcheck

if __name__ == "__main__":
    rc = subprocess.run([str(packcheck.binary_path()), "unpack", sys.argv[1], "--out", sys.argv[2],
                         "--allow-unchecked"], stdout=subprocess.DEVNULL).returncode
    sys.exit(1 if rc == 3 else rc)
