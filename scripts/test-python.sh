#!/bin/sh
# The Python package (issue 17): build the wheel with scikit-build-core (the project's CMake, the
# cli and corpus components) in a cached venv, install it, then from outside the source tree run
#   1. python/tests/test_api.py: the API, the corpus pins, certify, the pytest plugin;
#   2. the sample loader suite (python/tests/sample_loader) with the correct AWQ reader: must pass;
#   3. the same suite with the planted awq-order bug: must fail, and every failure must name the
#      first differing element and the diagnosis "awq-order";
#   4. the README's CI example (its run: steps, the built wheel standing in for `pip install`).
# The API tests include --report sarif against the SARIF 2.1.0 schema, taken from the npm package
# @microsoft/jest-sarif (npm pack, SHA-256 pinned below, cached in build/sarif-schema); without npm
# that one test skips and validator/tests/test_sarif.c still checks the structure.
# PACKCHECK_TEST_RAY=1 also installs Ray (the packcheck[ray] extra, large) into the venv and runs
# python/tests/test_scale.py on a local Ray instance; without Ray that test skips.
# python/tests/test_scale_remote.py: packcheck.scale.scan over corpus cases from a loopback server
# (a local process pool; its Ray half with PACKCHECK_TEST_RAY=1).
# The venv (build/venv-py, PACKCHECK_PY_VENV overrides) is rebuilt only when
# python/requirements-test.txt changes; the CMake build of the wheel is kept in build/py-cmake.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
venv=${PACKCHECK_PY_VENV:-build/venv-py}
req=python/requirements-test.txt
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
    echo "-- venv $venv from $req"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    cp "$req" "$venv/requirements.txt"
fi
venv=$(cd "$venv" && pwd)
if [ "${PACKCHECK_TEST_RAY:-0}" = 1 ] && ! "$venv/bin/python" -c "import ray" 2>/dev/null; then
    echo "-- Ray into $venv (PACKCHECK_TEST_RAY=1)"
    "$venv/bin/pip" install -q --disable-pip-version-check "ray==2.60.0"
fi
echo "-- wheel (scikit-build-core, build dir build/py-cmake)"
rm -rf build/wheelhouse
"$venv/bin/pip" wheel . -q --disable-pip-version-check --no-build-isolation --no-deps -w build/wheelhouse \
    --config-settings=build-dir=build/py-cmake
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps build/wheelhouse/packcheck-*.whl
ls -l build/wheelhouse/packcheck-*.whl

sarif_pkg=@microsoft/jest-sarif@1.0.0-beta.0
sarif_sha=2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8
schema=build/sarif-schema/package/lib/schemas/sarif-2.1.0-rtm.5.json
if [ ! -f "$schema" ] && command -v npm >/dev/null; then
    echo "-- SARIF 2.1.0 schema from $sarif_pkg"
    rm -rf build/sarif-schema && mkdir -p build/sarif-schema
    (cd build/sarif-schema && npm pack -q "$sarif_pkg" >/dev/null 2>&1 && tar xzf ./*.tgz) || echo "test-python: npm pack $sarif_pkg failed"
fi
if [ -f "$schema" ] && [ "$(sha256sum "$schema" | cut -c1-64)" = "$sarif_sha" ]; then
    PACKCHECK_SARIF_SCHEMA=$src/$schema
    export PACKCHECK_SARIF_SCHEMA
elif [ -f "$schema" ]; then
    echo "test-python: $schema does not match its pinned SHA-256"; exit 1
else
    echo "test-python: no SARIF schema (npm unreachable): the schema test skips"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"   # `import packcheck` must be the installed wheel, not the source tree
unset PACKCHECK_CORPUS PACKCHECK_BINARY
echo "-- API tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests/test_api.py" "$src/python/tests/test_sarif.py" \
    "$src/python/tests/test_scale.py" "$src/python/tests/test_scale_remote.py" "$src/python/tests/test_ci_example.py"
echo "-- sample loader, correct reader"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests/sample_loader"
echo "-- sample loader, planted bug awq-order (must fail with that diagnosis)"
set +e
SAMPLE_LOADER_BUG=awq-order "$venv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$work/bug.xml" \
    "$src/python/tests/sample_loader" >"$work/bug.log" 2>&1
rc=$?
set -e
tail -n 3 "$work/bug.log"
if [ "$rc" != 1 ]; then echo "test-python: the planted bug run exited $rc, expected 1 (tests failed)"; cat "$work/bug.log"; exit 1; fi
"$venv/bin/python" - "$work/bug.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
failed = [(c.get("name"), (c.find("failure").get("message") or "") + (c.find("failure").text or ""))
          for c in cases if c.find("failure") is not None]
bad = [n for n, m in failed if "diagnosis: awq-order" not in m or "first differing element" not in m]
print(f"planted bug: {len(failed)} cases failed, {len(failed) - len(bad)} with the first differing element and diagnosis awq-order")
if not failed or bad:
    print("test-python: failures without the right diagnosis:", bad)
    sys.exit(1)
PY
echo "-- the README's CI example"
"$venv/bin/python" "$src/python/tests/ci_example/run_readme_ci.py" "$src/README.md" "$work/loader"
echo "python package: all stages passed"
