#!/bin/sh
# The kernel benchmark reports, one command: `packcheck bench --json` twice in one go, at L2 size
# (128 KiB of output per call: reports/bench.json) and at DRAM size (64 MiB per call, where the
# f32 kernels stream their output: reports/bench-dram.json), then reports/bench.md from both (with
# ggml's figure beside each GGUF type from reports/bench-peers.json when that report exists).
# A benchmark, never run in CI; nothing asserts a time.
#   scripts/bench-kernels.sh [BUILD_DIR]
# Environment: BENCH_DRAM_SAMPLES (default 11) and BENCH_DRAM_BURSTS (default 2) for the 64 MiB run,
# whose literal oracles take about half a second per call.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
[ "${CI:-}" = true ] && { echo "bench-kernels: a benchmark, not run in CI" >&2; exit 0; }
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
"$BUILD/packcheck" bench --json > "$ROOT/reports/bench.json.tmp"
"$BUILD/packcheck" bench --json --size 67108864 --only f32 --samples "${BENCH_DRAM_SAMPLES:-11}" \
    --sample-ms 40 --bursts "${BENCH_DRAM_BURSTS:-2}" > "$ROOT/reports/bench-dram.json.tmp"
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
mv "$ROOT/reports/bench.json.tmp" "$ROOT/reports/bench.json"
mv "$ROOT/reports/bench-dram.json.tmp" "$ROOT/reports/bench-dram.json"
python3 "$ROOT/scripts/bench_md.py" "$ROOT/reports" "$LOAD0" "$LOAD1"
