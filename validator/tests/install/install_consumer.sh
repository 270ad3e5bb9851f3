#!/bin/sh
# `cmake --install` into a temp prefix, then build consumer.c against it with pkg-config (shared
# library with the README's plain command, and packcheck-static) and with find_package (shared and static), run each on a valid and an invalid fixture of
# the installed corpus, and check the installed binary finds that corpus (also after the prefix is
# moved), never the source tree.   usage: install_consumer.sh BUILD_DIR SOURCE_DIR CC CMAKE
BUILD=$1 SRC=$2 CC=$3 CMAKE=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/validator/tests/cli/lib.inc"
P=$TMP/prefix
expect_rc 0 "cmake --install" -- "$CMAKE" --install "$BUILD" --prefix "$P"
for f in bin/packcheck include/packcheck.h lib/libpackcheck.a lib/pkgconfig/packcheck.pc lib/pkgconfig/packcheck-static.pc \
         lib/cmake/packcheck/packcheckConfig.cmake lib/cmake/packcheck/packcheckConfigVersion.cmake \
         share/packcheck/fixtures/MANIFEST.sha256; do
    checks=$((checks + 1))
    [ -f "$P/$f" ] || { echo "FAIL: $f not installed"; fails=$((fails + 1)); }
done
# The shared library: real file with the full version, soname link, dev link.
so=$(ls "$P"/lib/libpackcheck.so.*.*.* 2>/dev/null | head -1)
checks=$((checks + 1))
if [ -z "$so" ] || [ ! -L "$P/lib/libpackcheck.so.1" ] || [ ! -L "$P/lib/libpackcheck.so" ]; then
    echo "FAIL: libpackcheck.so.X.Y.Z with its soname and dev links"; ls -l "$P/lib"; fails=$((fails + 1))
fi
if command -v readelf >/dev/null; then
    readelf -d "$so" > "$TMP/dyn"
    expect_grep 'SONAME.*libpackcheck.so.1' "$TMP/dyn" "soname"
fi

VALID=share/packcheck/fixtures/awq/autoawq-gemm-g32-random
INVALID=share/packcheck/fixtures/awq/neg-bits-8
WANT=$(sed -n 's/.*"reject_rule": *"\([^"]*\)".*/\1/p' "$P/$INVALID/expect.json")

UNCHECKED=share/packcheck/fixtures/gguf/unchecked-q8_k

# pkg-config, shared library, exactly the README's command: the .pc's rpath lets it run from this
# non-system prefix with no LD_LIBRARY_PATH.
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
unset LD_LIBRARY_PATH
expect_rc 0 "pkg-config --modversion" -- pkg-config --modversion packcheck
expect_rc 0 "build against pkg-config" -- sh -c "$CC -std=c11 -Wall -Wextra -Werror '$SRC/validator/tests/install/consumer.c' \
    \$(pkg-config --cflags --libs packcheck) -o '$TMP/consumer_pc'"
expect_rc 0 "pkg-config consumer, valid case" -- "$TMP/consumer_pc" "$P/$VALID" pass
expect_rc 0 "pkg-config consumer, $WANT case" -- "$TMP/consumer_pc" "$P/$INVALID" "$WANT"
expect_grep "^$WANT fail" "$TMP/out" "the finding names $WANT"
# No finding is not clean: a folder of tensors packcheck does not decode is unchecked, and says so.
expect_rc 0 "pkg-config consumer, unchecked case" -- "$TMP/consumer_pc" "$P/$UNCHECKED" unchecked
expect_grep '^format=gguf verdict=unchecked tensors: [0-9]* checked, [0-9]* plain, [1-9][0-9]* unchecked' "$TMP/out" "the accounting and the verdict unchecked, not pass"
expect_grep '^unchecked ' "$TMP/out" "each unchecked tensor is named"
if command -v ldd >/dev/null; then
    ldd "$TMP/consumer_pc" > "$TMP/ldd"
    expect_grep "libpackcheck.so.1 => $P/lib/" "$TMP/ldd" "the consumer loads the installed library"
fi

# pkg-config, static library: the packcheck-static module links libpackcheck.a (also with --static).
expect_rc 0 "build against pkg-config packcheck-static" -- sh -c "$CC -std=c11 -Wall -Wextra -Werror '$SRC/validator/tests/install/consumer.c' \
    \$(pkg-config --static --cflags --libs packcheck-static) -o '$TMP/consumer_pc_static'"
expect_rc 0 "static pkg-config consumer, valid case" -- "$TMP/consumer_pc_static" "$P/$VALID" pass
expect_rc 0 "static pkg-config consumer, $WANT case" -- "$TMP/consumer_pc_static" "$P/$INVALID" "$WANT"
if command -v ldd >/dev/null; then
    ldd "$TMP/consumer_pc_static" > "$TMP/ldd"
    checks=$((checks + 1))
    if grep -q libpackcheck "$TMP/ldd"; then echo "FAIL: the packcheck-static consumer loads libpackcheck.so"; fails=$((fails + 1)); fi
fi

# find_package, shared and static.
expect_rc 0 "configure the find_package consumer" -- "$CMAKE" -S "$SRC/validator/tests/install" -B "$TMP/cbuild" \
    -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC"
expect_rc 0 "build the find_package consumer" -- "$CMAKE" --build "$TMP/cbuild"
for kind in shared static; do
    expect_rc 0 "find_package consumer ($kind), valid case" -- "$TMP/cbuild/consumer_$kind" "$P/$VALID" pass
    expect_rc 0 "find_package consumer ($kind), $WANT case" -- "$TMP/cbuild/consumer_$kind" "$P/$INVALID" "$WANT"
done
expect_grep "$P/share/packcheck/fixtures" "$TMP/cbuild/corpus_dir.txt" "packcheck_CORPUS_DIR"

# The installed binary uses the installed corpus, also after the prefix moves; PACKCHECK_CORPUS wins.
unset PACKCHECK_CORPUS
expect_rc 0 "installed corpus --version" -- "$P/bin/packcheck" corpus --version
expect_grep "$P/share/packcheck/fixtures" "$TMP/out" "installed binary finds the installed corpus"
mv "$P" "$TMP/moved"
expect_rc 0 "moved prefix: corpus --version" -- "$TMP/moved/bin/packcheck" corpus --version
expect_grep "$TMP/moved/share/packcheck/fixtures" "$TMP/out" "moved binary finds the moved corpus"
rm -rf "$TMP/moved/share/packcheck"
expect_rc 2 "no installed corpus: an error, not the source tree" -- "$TMP/moved/bin/packcheck" corpus --version
expect_grep "no corpus found" "$TMP/err" "names the problem"
expect_rc 0 "PACKCHECK_CORPUS" -- env PACKCHECK_CORPUS="$SRC/fixtures" "$TMP/moved/bin/packcheck" corpus --version
expect_grep "$SRC/fixtures" "$TMP/out" "PACKCHECK_CORPUS is used"
finish
