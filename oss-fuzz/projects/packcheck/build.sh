#!/bin/bash -eu
# OSS-Fuzz build script for packcheck: the library with OSS-Fuzz's $CC/$CFLAGS, each
# validator/tests/fuzz/fuzz_*.c linked with $LIB_FUZZING_ENGINE (libFuzzer, AFL++ or honggfuzz),
# a seed corpus per fuzzer from the committed seeds plus the packcheck corpus's hostile cases (the
# input files of every `reject` case in the form the fuzzer reads), and the dictionaries.
# Inputs (set by OSS-Fuzz): CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE SRC OUT WORK.
src=${PACKCHECK_SRC:-$SRC/packcheck}
build=$WORK/packcheck-build

# The library: instrumented by $CFLAGS; no sanitizer or fuzzer options of packcheck's own CMake, and
# none of the optional network / cache dependencies (no fuzzer reaches URL inputs; OSS-Fuzz's runner
# image would not carry libcurl or SQLite for a static link).
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="$CFLAGS" -DPACKCHECK_SANITIZE=OFF -DPACKCHECK_FUZZ=OFF \
    -DPACKCHECK_WITH_CURL=OFF -DPACKCHECK_WITH_SQLITE=OFF >/dev/null
cmake --build "$build" --target packcheck_lib

# cJSON: compiled from source with the instrumentation when the Dockerfile cloned it, else the
# system library (a local smoke build; OSS-Fuzz's runner image would not have it).
if [ -f "$SRC/cJSON/cJSON.c" ]; then
    $CC $CFLAGS -c "$SRC/cJSON/cJSON.c" -o "$WORK/cJSON.o"
    cjson=("$WORK/cJSON.o")
else
    cjson=(-lcjson)
fi
# OpenSSL's libcrypto statically, so the fuzzers run on the bare runner image.
crypto_a="$(pkg-config --variable=libdir libcrypto)/libcrypto.a"
if [ -f "$crypto_a" ]; then crypto=("$crypto_a" -ldl); else crypto=(-lcrypto); fi

for f in "$src"/validator/tests/fuzz/fuzz_*.c; do
    name=$(basename "$f" .c)
    $CC $CFLAGS -D_GNU_SOURCE -I"$src/validator/include" -I"$src/validator/src" -c "$f" -o "$WORK/$name.o"
    $CXX $CXXFLAGS "$WORK/$name.o" -o "$OUT/$name" "$build/libpackcheck.a" "${cjson[@]}" "${crypto[@]}" \
        $LIB_FUZZING_ENGINE -lm -lpthread
done

# Seeds: the committed ones, then the corpus's reject cases.
seeds=$WORK/seeds
rm -rf "$seeds"
for d in "$src"/validator/tests/fuzz/corpus/*/; do
    mkdir -p "$seeds/$(basename "$d")"
    cp "$d"* "$seeds/$(basename "$d")/"
done
mkdir -p "$seeds/gguf" "$seeds/st_header" "$seeds/ct" "$seeds/config_json" "$seeds/nvfp4"
for expect in "$src"/fixtures/*/*/expect.json; do
    grep -q '"verdict": "reject"' "$expect" || continue
    case_dir=$(dirname "$expect")
    fam=$(basename "$(dirname "$case_dir")")
    id="$fam-$(basename "$case_dir")"
    for g in "$case_dir"/*.gguf; do [ -f "$g" ] && cp "$g" "$seeds/gguf/corpus-$id-$(basename "$g")"; done
    st=("$case_dir"/*.safetensors)
    [ -f "${st[0]}" ] || continue
    cp "${st[0]}" "$seeds/st_header/corpus-$id"
    # fuzz_nvfp4: first byte picks the sidecar (0 none, 1 compressed-tensors, 2 ModelOpt), then the file
    if [ "$fam" = nvfp4 ]; then { printf '\000'; cat "${st[0]}"; } >"$seeds/nvfp4/corpus-$id"; fi
    [ -f "$case_dir/config.json" ] || continue
    # fuzz_ct: config.json, one NUL, the safetensors file
    if [ "$fam" = ct ] && [ ${#st[@]} = 1 ]; then
        { cat "$case_dir/config.json"; printf '\000'; cat "${st[0]}"; } >"$seeds/ct/corpus-$id"
    fi
    # fuzz_config_json: first byte 0 = config.json, then its bytes
    { printf '\000'; cat "$case_dir/config.json"; } >"$seeds/config_json/corpus-$id"
done
for d in "$seeds"/*/; do
    name=fuzz_$(basename "$d")
    [ -x "$OUT/$name" ] || continue
    rm -f "$OUT/${name}_seed_corpus.zip"
    (cd "$d" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
done
for dict in "$src"/validator/tests/fuzz/*.dict; do
    cp "$dict" "$OUT/fuzz_$(basename "$dict")"
done
