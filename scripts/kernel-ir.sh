#!/bin/sh
# Instructions per code of every fast kernel and of the oracles, counted by callgrind: deterministic,
# unlike wall time on a shared machine (PERFORMANCE.md 6.5). Usage: scripts/kernel-ir.sh [BUILD_DIR]
# (PACKCHECK_KERNELS=scalar counts the portable set instead.)
set -eu
B=${1:-build}
N=1048576
ir() { # ir NAME FUNCTION: Ir inside FUNCTION (and its callees) per code
    valgrind --tool=callgrind --callgrind-out-file=/tmp/kernel-ir.$$ --toggle-collect="$2" "$B/packcheck-kernel-probe" "$1" $N >/dev/null 2>&1
    total=$(callgrind_annotate /tmp/kernel-ir.$$ 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    rm -f /tmp/kernel-ir.$$
    awk -v t="$total" -v n=$N -v k="$1" 'BEGIN { printf "%-20s %8.3f Ir/code\n", k, t / n }'
}
for b in 1 2 3 4 5 6 7 8; do ir ct-dense-$b pc_stream_unpack_fast; done
for b in 3 5 6 7; do ir ct-legacy-$b pc_wordalign_unpack_fast; done
for b in 2 3 4 8; do ir gptq-$b pc_gptq_unpack_fast; done
ir awq-4 pc_awq_unpack_fast
ir q4_0 pc_q4_0_decode_fast
ir q4_0-f32 pc_q4_0_decode_fast
ir nvfp4-f32 pc_nvfp4_dequant_fast
for k in ct-dense-3 ct-dense-4; do ir ref-$k pc_stream_unpack_ref; done
ir ref-ct-legacy-3 pc_wordalign_unpack_ref
ir ref-gptq-4 pc_gptq_unpack_ref
ir ref-awq-4 pc_awq_unpack_ref
ir ref-q4_0 pc_q4_0_decode_ref
