#!/bin/sh
# Build the ggml adapter against the shared ggml build (/work/cache/ggml, see below), once.
# ggml itself: the llama.cpp vendored in `pip download --no-binary :all: --no-deps llama-cpp-python`,
# only ggml's CPU library (cmake -S vendor/llama.cpp/ggml ... -DGGML_OPENMP=OFF -DGGML_NATIVE=OFF,
# nice, -j2; the sdist lacks ggml/ggml.pc.in, an empty one is created), installed in
# /work/cache/ggml/install; /work/cache/ggml/DONE marks it complete (the first engineer who needs it
# takes /work/cache/ggml.lock and builds; the others wait for DONE).
set -eu
G=${GGML_PREFIX:-/work/cache/ggml/install}
OUT=${1:-/work/cache/ggml/ggml_reader}
[ -e "$(dirname "$G")/DONE" ] || { echo "ggml not built yet ($G)" >&2; exit 2; }
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$G/include" "$(dirname "$0")/ggml_reader.c" "$(dirname "$0")/st_write.c" \
   -L"$G/lib" -Wl,-rpath,"$G/lib" -lggml-base -o "$OUT"
echo "$OUT"
