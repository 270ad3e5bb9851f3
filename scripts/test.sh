#!/bin/sh
# Every test: the CTest suite in a normal build, the JSON differential against Python's parser, the
# light-venv fixture regeneration check (gen_st) and the compat-profile differential against the real
# safetensors reader (generators/diff_st.py), the reader matrix's consistency (history vs pages,
# standard-library Python, no venv), the portable no-SIMD build, the Python package, the Rust crate and
# npm package of the corpus with their sample readers, the GitHub Action and pre-commit hook run
# locally, the CTest suite again under ASan+UBSan (with the fuzz seeds replayed), each fuzz harness for
# a bounded time (FUZZ_SECONDS, default 30) and the OSS-Fuzz build with a short run of each fuzzer it
# built (OSS_FUZZ_SECONDS, default 8). Stops at the first failing stage, whose last line names the
# stage, how many things failed and of what kind (scripts/stage.sh). Readers certified against the
# whole corpus (the README's CI example) get a per-case timeout calibrated on this machine, stated in
# the output (python/tests/ci_example/run_readme_ci.py), so a busy machine is not a failure.
set -eu
cd "$(dirname "$0")/.."
. scripts/stage.sh
scripts/install-deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)
# rustup's cargo is in ~/.cargo/bin, which a non-login shell may not have on PATH.
PATH="$PATH:${HOME:-/root}/.cargo/bin"

build_and_ctest() {
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build
    ctest --test-dir build --output-on-failure -j "$jobs"
}
run_stage "build (RelWithDebInfo) and CTest" build_and_ctest

json_differential() {
    python3 validator/tests/fuzz/json_differential.py build/validator/tests/pc_json_reads
    python3 generators/regen.py --only gen_json_reads --check   # its cases need no venv (~1 s)
}
run_stage "JSON differential: packcheck's reading of sidecar JSON against Python's json.loads (seeded mutants)" json_differential

echo "   (regenerate the safetensors fixtures with generators/gen_st.py in a light venv, compare byte for byte;"
echo "    then packcheck --profile compat against the real safetensors reader on seeded mutants)"
run_stage "regenerate gen_st fixtures, compat differential" scripts/regen-check.sh --diff build/packcheck gen_st

matrix_pages() {
    python3 generators/matrix/test_matrix.py
    python3 generators/matrix/pages.py --check
}
run_stage "reader matrix: history logic tests, and the committed pages are what reports/matrix/history.jsonl gives" matrix_pages

nosimd() {
    cmake -S . -B build-nosimd -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACKCHECK_NO_SIMD=ON >/dev/null
    cmake --build build-nosimd
    ctest --test-dir build-nosimd --output-on-failure -j "$jobs" -R 'test_|corpus_kernels'
}
run_stage "portable build without SIMD (-DPACKCHECK_NO_SIMD=ON): kernels against the oracles, the corpus" nosimd

run_stage "Python package: wheel, API, pytest plugin, sample loader, SARIF schema, README CI example" scripts/test-python.sh

rust_crate() {
    CARGO_TARGET_DIR="$(pwd)/build-rust" cargo test --offline --locked --quiet \
        --manifest-path packages/rust/packcheck-corpus/Cargo.toml
}
run_stage "Rust crate packages/rust/packcheck-corpus: cargo test (no dependencies, offline) with its GGUF Q8_0 sample reader" rust_crate

npm_package() { (cd packages/npm/packcheck-corpus && node --test --test-reporter=dot test/); }
run_stage "npm package packages/npm/packcheck-corpus: node --test with its GGUF Q8_0 sample reader" npm_package

run_stage "the GitHub Action (action.yml, its run: steps executed locally) and the pre-commit hook" scripts/test-action.sh build

asan() {
    CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPACKCHECK_SANITIZE=ON -DPACKCHECK_FUZZ=ON >/dev/null
    cmake --build build-asan
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs"
}
run_stage "build with ASan+UBSan (clang) and CTest" asan

# The fuzz budget: 30 s per harness (8 harnesses); every harness's seeds were already replayed under
# ASan by CTest, and the OSS-Fuzz stage below runs each fuzzer again as OSS-Fuzz builds it.
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
        if ! "$fz" $dictopt -max_total_time="${FUZZ_SECONDS:-30}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$work/" "$work" "$seeds" >"$work/log" 2>&1; then
            tail -n 60 "$work/log"
            echo "fuzz: $name found a crash; artifacts in $work"
            return 1
        fi
        tail -n 8 "$work/log"
        rm -rf "$work"
    done
}
run_stage "fuzz smoke (${FUZZ_SECONDS:-30} s per harness)" fuzz_smoke

run_stage "OSS-Fuzz: oss-fuzz/projects/packcheck/build.sh with OSS-Fuzz's environment, each fuzzer on its seed zip" scripts/oss-fuzz-smoke.sh
echo "all test stages passed"
