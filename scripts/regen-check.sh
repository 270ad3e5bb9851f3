#!/bin/sh
# regen-check.sh [--diff PACKCHECK] GEN...: regenerate the fixtures of the named generators in a light
# venv built from generators/requirements-st.txt and compare them byte for byte with fixtures/
# (regen.py --check). With --diff, also run generators/diff_st.py: packcheck --profile compat against
# the real safetensors reader on 2000 seeded mutants of the st/ fixtures (DIFF_CASES to change).
# Only generators whose venv is light enough for CI belong here (gen_st: safetensors + numpy, no torch).
# The venv lives in build/venv-st and is rebuilt when the requirements file changes. The stage is
# skipped, with a message saying so, only when there is no python3 or the package index is unreachable;
# any other failure (pip error, a differing byte) fails it.
set -eu
cd "$(dirname "$0")/.."
req=generators/requirements-st.txt
venv=${PACKCHECK_ST_VENV:-build/venv-st}
if ! command -v python3 >/dev/null 2>&1; then
    echo "regen-check: SKIPPED: no python3 on this machine (the C build and tests do not need it)"
    exit 0
fi
index_reachable() {
    url=${PIP_INDEX_URL:-https://pypi.org/simple/}
    python3 - "$url" <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1].rstrip("/") + "/safetensors/", timeout=15)
except Exception as e:
    print(f"regen-check: {sys.argv[1]} unreachable: {e}", file=sys.stderr)
    sys.exit(1)
PY
}
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    if ! "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"; then
        if ! index_reachable; then
            rm -rf "$venv"
            echo "regen-check: SKIPPED: pip cannot reach the package index, so $req cannot be installed"
            exit 0
        fi
        echo "regen-check: pip install -r $req failed" >&2
        exit 1
    fi
    cp "$req" "$venv/requirements.txt"
fi
diff=""
if [ "${1:-}" = --diff ]; then diff=$2; shift 2; fi
args=""
for g in "$@"; do args="$args --only $g"; done
# shellcheck disable=SC2086
"$venv/bin/python" generators/regen.py $args --check
if [ -n "$diff" ]; then
    "$venv/bin/python" generators/diff_st.py --packcheck "$diff" --cases "${DIFF_CASES:-2000}"
fi
