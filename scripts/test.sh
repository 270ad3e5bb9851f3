#!/bin/sh
# Every test: the CTest suite in a normal build, the light-venv fixture regeneration check (gen_st) and
# the compat-profile differential against the real safetensors reader (generators/diff_st.py),
# the CTest suite again under ASan+UBSan (with the fuzz seeds replayed), then each fuzz harness for a
# bounded time (FUZZ_SECONDS, default 60). Stops at the first failing stage, whose last line names the
# stage, how many things failed and of what kind (scripts/stage.sh). Readers certified against the
# whole corpus (the README's CI example) get a per-case timeout calibrated on this machine, stated in
# the output (python/tests/ci_example/run_readme_ci.py), so a busy machine is not a failure.
set -eu
cd "$(dirname "$0")/.."
. scripts/stage.sh
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)

build_and_ctest() {
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build
    ctest --test-dir build --output-on-failure -j "$jobs"
}
run_stage "build (RelWithDebInfo) and CTest" build_and_ctest

echo "   (regenerate the safetensors fixtures with generators/gen_st.py in a light venv, compare byte for byte;"
echo "    then packcheck --profile compat against the real safetensors reader on seeded mutants)"
run_stage "regenerate gen_st fixtures, compat differential" scripts/regen-check.sh --diff build/packcheck gen_st

nosimd() {
    cmake -S . -B build-nosimd -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACKCHECK_NO_SIMD=ON >/dev/null
    cmake --build build-nosimd
    ctest --test-dir build-nosimd --output-on-failure -j "$jobs" -R 'test_kernels|corpus_kernels'
}
run_stage "portable build without SIMD (-DPACKCHECK_NO_SIMD=ON): kernels against the oracles, the corpus" nosimd

run_stage "Python package: wheel, API, pytest plugin, sample loader, SARIF schema, README CI example" scripts/test-python.sh

asan() {
    CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPACKCHECK_SANITIZE=ON -DPACKCHECK_FUZZ=ON >/dev/null
    cmake --build build-asan
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs"
}
run_stage "build with ASan+UBSan (clang) and CTest" asan

fuzz_smoke() {
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
            echo "fuzz: $name found a crash; artifacts in $work"
            return 1
        fi
        tail -n 8 "$work/log"
        rm -rf "$work"
    done
}
run_stage "fuzz smoke (${FUZZ_SECONDS:-60} s per harness)" fuzz_smoke
echo "all test stages passed"
