#!/bin/sh
# ggml's CPU library as users install it: the llama.cpp vendored in llama-cpp-python's source package
# (pip download --no-binary :all: --no-deps llama-cpp-python==$LCP), only ggml (cmake -S vendor/llama.cpp/ggml,
# CPU backend, no OpenMP, no -march=native), nice, -j2; installed in $CACHE/install. Shared between engineers:
# the first takes $CACHE.lock (mkdir) and builds, touching $CACHE/DONE; the others wait for DONE.
# usage: build_ggml.sh   (CACHE=/work/cache/ggml, LCP=0.3.36)
set -eu
CACHE=${CACHE:-/work/cache/ggml} LCP=${LCP:-0.3.36}
[ -e "$CACHE/DONE" ] && exit 0
if ! mkdir "$CACHE.lock" 2>/dev/null; then
    echo "build_ggml: another build holds $CACHE.lock; waiting for $CACHE/DONE" >&2
    while [ ! -e "$CACHE/DONE" ]; do sleep 10; done
    exit 0
fi
SRCDIR=$(dirname "$CACHE")/src
mkdir -p "$SRCDIR" "$CACHE"
[ -e "$SRCDIR/llama_cpp_python-$LCP.tar.gz" ] || (cd "$SRCDIR" && pip download -q --no-binary :all: --no-deps "llama-cpp-python==$LCP")
[ -d "$SRCDIR/llama_cpp_python-$LCP" ] || tar xzf "$SRCDIR/llama_cpp_python-$LCP.tar.gz" -C "$SRCDIR"
SRC=$SRCDIR/llama_cpp_python-$LCP/vendor/llama.cpp/ggml
# the sdist lacks ggml/ggml.pc.in (a pkg-config template, unused here): an empty one lets CMake configure
[ -e "$SRC/ggml.pc.in" ] || : >"$SRC/ggml.pc.in"
nice -n 10 cmake -S "$SRC" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_OPENMP=OFF -DGGML_NATIVE=OFF -DCMAKE_INSTALL_PREFIX="$CACHE/install"
nice -n 10 cmake --build "$CACHE/build" -j2
cmake --install "$CACHE/build"
echo "$LCP" >"$CACHE/LLAMA_CPP_PYTHON_VERSION"
touch "$CACHE/DONE"
