#!/bin/sh
# Builds the fuzzers the way OSS-Fuzz does (oss-fuzz/projects/packcheck/build.sh with OSS-Fuzz's
# environment for libFuzzer + AddressSanitizer, $SRC/$OUT/$WORK temporary, no Docker) and runs each
# one on its seed corpus zip for OSS_FUZZ_SECONDS (default 8) with its dictionary, as OSS-Fuzz's
# run_fuzzer would. Exit 1 when the build fails, a fuzzer or seed zip is missing, or a fuzzer crashes.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
secs=${OSS_FUZZ_SECONDS:-8}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/packcheck-ossfuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/out" "$tmp/work"
ln -s "$repo" "$tmp/src/packcheck"
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
start=$(date +%s)
env SRC="$tmp/src" OUT="$tmp/out" WORK="$tmp/work" CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 \
    bash -eu oss-fuzz/projects/packcheck/build.sh >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; echo "oss-fuzz: build.sh failed" >&2; exit 1; }
echo "oss-fuzz: build.sh built $(ls "$tmp/out" | grep -c '^fuzz_[a-z_]*$') fuzzers in $(( $(date +%s) - start )) s"
n=0
for fz in validator/tests/fuzz/fuzz_*.c; do
    name=$(basename "$fz" .c)
    bin="$tmp/out/$name"
    [ -x "$bin" ] || { echo "oss-fuzz: $name was not built" >&2; exit 1; }
    [ -f "$tmp/out/${name}_seed_corpus.zip" ] || { echo "oss-fuzz: no $name seed corpus" >&2; exit 1; }
    corpus="$tmp/work/corpus-$name"
    mkdir -p "$corpus"
    unzip -q -o "$tmp/out/${name}_seed_corpus.zip" -d "$corpus"
    dict=""
    [ -f "$tmp/out/$name.dict" ] && dict="-dict=$tmp/out/$name.dict"
    # shellcheck disable=SC2086
    if ! (cd "$tmp/work" && "$bin" $dict -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$tmp/work/" "$corpus") >"$tmp/$name.log" 2>&1; then
        tail -n 60 "$tmp/$name.log"
        mkdir -p "$repo/build-oss-fuzz-artifacts"
        cp "$tmp/work/"crash-* "$tmp/work/"leak-* "$tmp/work/"timeout-* "$repo/build-oss-fuzz-artifacts/" 2>/dev/null || true
        echo "oss-fuzz: $name found a crash (artifacts in build-oss-fuzz-artifacts/)" >&2
        exit 1
    fi
    echo "-- $name: $(ls "$corpus" | wc -l) seeds; $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$tmp/$name.log" | grep -o '[0-9]*$') runs in ${secs} s"
    n=$((n + 1))
done
echo "oss-fuzz: $n fuzzers built by build.sh and run ${secs} s each"
