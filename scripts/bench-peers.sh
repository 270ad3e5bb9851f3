#!/bin/sh
# The peers benchmark (issues 18, 29): packcheck side by side with ggml, gguf-py, compressed-tensors,
# AutoAWQ, bitsandbytes, mlx (CPU), transformers' FP8 dequantization, openssl, sha256sum, cat and
# safetensors (py and crate) on the same inputs. Writes
# reports/bench-peers.{json,md,svg}. A benchmark, never run in CI; the peers live in their own
# cached venvs and build folders (PEERS_CACHE, PEERS_VENV*), built once and reused.
#   scripts/bench-peers.sh [bench_peers.py options, e.g. --reps 7 --skip scaling]
# Environment:
#   PEERS_CACHE     build folders (ggml, the safetensors crate, the ggml worker); /work/cache by default
#   PEERS_VENV      venv with torch, compressed-tensors >= 0.18, transformers, gguf, safetensors, numpy,
#                   autoawq, bitsandbytes (its CPU backend) and mlx (its CPU wheel)
#   PEERS_VENV017   venv with compressed-tensors 0.17.1 (the ct-legacy layout's last release)
#   PEERS_BASE_VENV an existing venv whose site-packages the two venvs may reuse (a .pth file)
#                   instead of installing torch again (the generators' /work/venvs/ct)
#   PEERS_TMP       scratch for inputs (several GB at the default sizes; deleted as it goes)
#   PEERS_GGML_BUILD an existing static ggml build folder (holding ggml/src/libggml-base.a, from the
#                   same llama-cpp-python sdist) to link the ggml worker against instead of building
#                   the shared library
# A peer whose packages cannot be installed (no torch wheel reachable, say) is left out of the run;
# the reports name it in "left_out" and no old figure of it is kept.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PEERS_CACHE:-/work/cache}
VENV=${PEERS_VENV:-/work/venvs/peers}
VENV017=${PEERS_VENV017:-/work/venvs/peers-ct017}
BASE=${PEERS_BASE_VENV:-/work/venvs/ct}
TMP=${PEERS_TMP:-/tmp/pc-peers}
LLAMA_CPP_PY=0.3.36   # ggml as vendored in llama-cpp-python's sdist
[ "${CI:-}" = true ] && { echo "bench-peers: a benchmark, not run in CI" >&2; exit 0; }

# packcheck itself (Release with debug info, as shipped)
[ -x "$ROOT/build/packcheck-peer-decode" ] || {
    nice -n 10 cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    nice -n 10 cmake --build "$ROOT/build" -j2 >/dev/null
}

# A venv: reuse BASE's packages through a .pth when it exists, else install the pins; the numpy-only
# peers (gguf-py, safetensors) first, so that a missing torch leaves out only the torch peers.
LEFT_OUT=""
mkvenv() { # dir, packages installed on top without dependencies
    dir=$1; shift
    [ -x "$dir/bin/python" ] && return 0
    python3 -m venv "$dir"
    if [ -x "$BASE/bin/python" ]; then
        "$BASE/bin/python" -c 'import site; print(site.getsitepackages()[0])' > "$("$dir/bin/python" -c 'import site; print(site.getsitepackages()[0])')/base.pth"
    else
        "$dir/bin/pip" install -q safetensors==0.8.0 gguf==0.19.0 numpy==2.4.6
        "$dir/bin/pip" install -q torch==2.15.0 compressed-tensors==0.20.1 transformers==5.25.0 || return 1
    fi
    "$dir/bin/pip" install -q --no-deps "$@" || return 1
}
mkvenv "$VENV" autoawq==0.2.9 || true
"$VENV/bin/python" -c 'import torch' 2>/dev/null ||
    LEFT_OUT="the torch peers (compressed-tensors, AutoAWQ, compressed-tensors NVFP4): torch could not be installed here;"
# bitsandbytes' CPU backend and mlx's CPU wheel, each a peer of its own (installed once, pinned);
# one that does not import afterwards is left out, with the reason, and its rows say so
"$VENV/bin/python" -c 'import bitsandbytes' 2>/dev/null || "$VENV/bin/pip" install -q --no-deps bitsandbytes==0.50.2 || true
"$VENV/bin/python" -c 'import mlx.core' 2>/dev/null || "$VENV/bin/pip" install -q "mlx[cpu]==0.32.4" || true
for m in "bitsandbytes:bitsandbytes 0.50.2 (NF4/FP4)" "mlx.core:mlx 0.32.4 on CPU (affine 4-bit)" \
         "transformers.integrations.finegrained_fp8:transformers' FP8 dequantization"; do
    "$VENV/bin/python" -c "import ${m%%:*}" 2>/dev/null ||
        LEFT_OUT="$LEFT_OUT ${m#*:}: it does not import here;"
done
PY017=""
if "$VENV/bin/python" -c 'import torch' 2>/dev/null && mkvenv "$VENV017" compressed-tensors==0.17.1 psutil==7.2.2; then
    PY017="--py017 $VENV017/bin/python"
else
    LEFT_OUT="$LEFT_OUT compressed-tensors 0.17.1 (ct-legacy): needs torch;"
fi

# ggml's CPU library, shared between engineers: the first takes the lock, the others wait for DONE.
GGML=$CACHE/ggml
if [ -n "${PEERS_GGML_BUILD:-}" ]; then :
elif [ ! -e "$GGML/DONE" ]; then
    if mkdir "$CACHE/ggml.lock" 2>/dev/null; then
        SRC=$CACHE/src/llama_cpp_python-$LLAMA_CPP_PY
        [ -d "$SRC" ] || (cd "$CACHE/src" 2>/dev/null || mkdir -p "$CACHE/src" && cd "$CACHE/src" &&
            "$VENV/bin/pip" download -q --no-binary :all: --no-deps llama-cpp-python==$LLAMA_CPP_PY -d . &&
            tar xzf llama_cpp_python-$LLAMA_CPP_PY.tar.gz)
        G=$SRC/vendor/llama.cpp/ggml
        [ -e "$G/ggml.pc.in" ] || : > "$G/ggml.pc.in"   # the sdist lacks this unused template
        nice -n 10 cmake -S "$G" -B "$GGML/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
            -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_OPENMP=OFF -DGGML_NATIVE=OFF \
            -DCMAKE_INSTALL_PREFIX="$GGML/install" >/dev/null
        nice -n 10 cmake --build "$GGML/build" -j2 >/dev/null
        cmake --install "$GGML/build" >/dev/null
        echo "$LLAMA_CPP_PY" > "$GGML/LLAMA_CPP_PYTHON_VERSION"
        touch "$GGML/DONE"
    else
        echo "bench-peers: waiting for another build of ggml ($GGML/DONE)" >&2
        while [ ! -e "$GGML/DONE" ]; do sleep 10; done
    fi
fi
mkdir -p "$CACHE/pc-peers"
GW=$CACHE/pc-peers/ggml_worker
if [ -n "${PEERS_GGML_BUILD:-}" ]; then # static ggml-base (built with OpenMP, which quantize uses)
    B=$PEERS_GGML_BUILD
    INC=$(sed -n 's/^ggml_SOURCE_DIR:STATIC=//p' "$B/CMakeCache.txt")/include
    [ "$GW" -nt "$ROOT/scripts/peers/ggml_worker.c" ] ||
        cc -O2 -I"$INC" "$ROOT/scripts/peers/ggml_worker.c" "$B/ggml/src/libggml-base.a" -lstdc++ -lgomp -lm -lpthread -o "$GW"
    LCP=$(echo "$INC" | sed -n 's|.*/llama_cpp_python-\([^/]*\)/.*|\1|p')
    export GGML_VERSION="libggml-base, static (llama-cpp-python ${LCP:-?} sdist)"
else
    [ "$GW" -nt "$ROOT/scripts/peers/ggml_worker.c" ] ||
        cc -O2 -I"$GGML/install/include" "$ROOT/scripts/peers/ggml_worker.c" -L"$GGML/install/lib" \
            -Wl,-rpath,"$GGML/install/lib" -lggml-base -lpthread -o "$GW"
fi

# The safetensors crate's header pass.
ST=$CACHE/pc-peers/st-crate/release/st-header-peer
[ -x "$ST" ] || (cd "$ROOT/scripts/peers/st-crate" && CARGO_TARGET_DIR=$CACHE/pc-peers/st-crate nice -n 10 cargo build -q --release -j1) || {
    ST=""; LEFT_OUT="$LEFT_OUT the safetensors crate (read_metadata): it did not build here;"; }

so=$(ls "$GGML/install/lib/" 2>/dev/null | sed -n 's/^libggml-base\.so\.\([0-9]*\.[0-9]*\.[0-9]*\)$/\1/p')
lcp=$(cat "$GGML/LLAMA_CPP_PYTHON_VERSION" 2>/dev/null || sed -n 's/^llama-cpp-python \([^ ]*\).*/\1/p' "$GGML/VERSION" 2>/dev/null || true)
[ -n "${PEERS_GGML_BUILD:-}" ] || export GGML_VERSION="libggml-base $so (llama-cpp-python ${lcp:-?} sdist)"
export ST_CRATE_VERSION="$(grep -A1 'name = "safetensors"' "$ROOT/scripts/peers/st-crate/Cargo.lock" 2>/dev/null | sed -n 's/version = "\(.*\)"/\1/p')"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
# shellcheck disable=SC2086
nice -n 10 "$VENV/bin/python" "$ROOT/scripts/peers/bench_peers.py" --build "$ROOT/build" --tmp "$TMP" \
    --ggml-worker "$GW" $PY017 ${ST:+--st-crate "$ST"} --left-out "$LEFT_OUT" "$@"
