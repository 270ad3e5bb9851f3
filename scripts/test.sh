#!/bin/sh
# Every test: the CTest suite in a normal build, the light-venv fixture regeneration check (gen_st) and
# the compat-profile differential against the real safetensors reader (generators/diff_st.py),
# the CTest suite again under ASan+UBSan (with the fuzz seeds replayed), then each fuzz harness for a
# bounded time (FUZZ_SECONDS, default 60). Exits non-zero on the first failing stage.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (RelWithDebInfo) and CTest"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== JSON differential: packcheck's reading of sidecar JSON against Python's json.loads (seeded mutants)"
python3 validator/tests/fuzz/json_differential.py build/validator/tests/pc_json_reads
python3 generators/regen.py --only gen_json_reads --check   # its cases need no venv (~1 s)

echo "== regenerate the safetensors fixtures (generators/gen_st.py, light venv) and compare byte for byte;"
echo "   then packcheck --profile compat against the real safetensors reader on seeded mutants"
scripts/regen-check.sh --diff build/packcheck gen_st

echo "== portable build without SIMD (-DPACKCHECK_NO_SIMD=ON): kernels against the oracles, the corpus"
cmake -S . -B build-nosimd -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACKCHECK_NO_SIMD=ON >/dev/null
cmake --build build-nosimd
ctest --test-dir build-nosimd --output-on-failure -j "$jobs" -R 'test_kernels|corpus_kernels'

echo "== Python package: wheel, API, pytest plugin, sample loader, SARIF schema, README CI example"
scripts/test-python.sh

echo "== build with ASan+UBSan (clang) and CTest"
CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPACKCHECK_SANITIZE=ON -DPACKCHECK_FUZZ=ON >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== fuzz smoke (${FUZZ_SECONDS:-60} s per harness)"
for fz in build-asan/validator/tests/fuzz/fuzz_*; do
    [ -x "$fz" ] || continue
    name=$(basename "$fz")
    seeds=validator/tests/fuzz/corpus/${name#fuzz_}
    work=$(mktemp -d)
    dict=validator/tests/fuzz/${name#fuzz_}.dict
    dictopt=""
    [ -f "$dict" ] && dictopt="-dict=$dict"
    echo "-- $name (seeds: $seeds${dictopt:+, $dict})"
    # shellcheck disable=SC2086
    if ! "$fz" $dictopt -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work" "$seeds" >"$work/log" 2>&1; then
        tail -n 60 "$work/log"
        echo "fuzz: $name found a crash; artifacts in $work" >&2
        exit 1
    fi
    tail -n 8 "$work/log"
    rm -rf "$work"
done
echo "all test stages passed"
