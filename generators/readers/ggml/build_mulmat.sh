#!/bin/sh
# Build the compute-depth ggml adapter (ggml_mulmat_reader.c) against the shared ggml build (see
# build.sh, build_ggml.sh): ggml-base for GGUF, ggml-cpu for the CPU backend's mul_mat and vec_dot.
set -eu
G=${GGML_PREFIX:-/work/cache/ggml/install}
OUT=${1:-/work/cache/ggml/ggml_mulmat_reader}
[ -e "$(dirname "$G")/DONE" ] || { echo "ggml not built yet ($G)" >&2; exit 2; }
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$G/include" "$(dirname "$0")/ggml_mulmat_reader.c" \
   "$(dirname "$0")/st_write.c" -L"$G/lib" -Wl,-rpath,"$G/lib" -lggml-cpu -lggml-base -o "$OUT"
echo "$OUT"
