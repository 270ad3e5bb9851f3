# scripts/install-deps.sh: waits for the dpkg/apt lock instead of failing, and installs the test-only
# packages (clang runtimes, chromium) only with --test (scripts/test.sh), never for scripts/main.sh.
# apt-get, dpkg-query and id are stand-ins on PATH: nothing is installed.
PC=$1 SRC=$2 TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/validator/tests/cli/lib.inc"
mkdir "$TMP/bin"
cat >"$TMP/bin/dpkg-query" <<'EOS'
#!/bin/sh
exit 1
EOS
cat >"$TMP/bin/id" <<'EOS'
#!/bin/sh
echo 0
EOS
# Fails with apt's lock message (exit 100) while $TMP/locked-N files remain, then logs its arguments.
cat >"$TMP/bin/apt-get" <<EOS
#!/bin/sh
for f in "$TMP"/locked-*; do
    [ -e "\$f" ] || break
    rm "\$f"
    echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
    exit 100
done
if [ -e "$TMP/broken" ]; then echo "E: Unable to locate package frob" >&2; exit 100; fi
echo "\$*" >>"$TMP/apt.log"
EOS
chmod +x "$TMP/bin/"*
run() { PATH="$TMP/bin:$PATH" PACKCHECK_APT_LOCK_WAIT=0 PACKCHECK_REGEN_TESTS=0 sh "$SRC/scripts/install-deps.sh" "$@"; }

expect_rc 0 "main: installs the build packages" -- run
expect_grep 'install -y -qq --no-install-recommends cmake ninja-build gcc pkg-config libcjson-dev libssl-dev libcurl4-openssl-dev libsqlite3-dev$' "$TMP/apt.log" "only the build packages (and the optional ones)"
checks=$((checks + 1)); if grep -q 'clang\|chromium' "$TMP/apt.log"; then echo "FAIL: main installed test-only packages"; fails=$((fails + 1)); fi
rm "$TMP/apt.log"
expect_rc 0 "--test: also the test-only packages" -- run --test
expect_grep 'libsqlite3-dev clang libclang-rt-14-dev jq zip unzip\( nodejs\)\?\( cargo\)\? chromium zlib1g-dev$' "$TMP/apt.log" "clang runtimes, jq, zip, chromium with --test"
rm "$TMP/apt.log"
# no node and no cargo anywhere: Debian's nodejs and cargo
mkdir "$TMP/bare"
for t in sh dpkg-query id apt-get grep cat rm mktemp sleep; do
    [ -x "$TMP/bin/$t" ] && ln -s "$TMP/bin/$t" "$TMP/bare/$t" || ln -s "$(command -v "$t")" "$TMP/bare/$t"
done
expect_rc 0 "--test without node or cargo" -- env PATH="$TMP/bare" HOME="$TMP" PACKCHECK_APT_LOCK_WAIT=0 PACKCHECK_REGEN_TESTS=0 "$TMP/bare/sh" "$SRC/scripts/install-deps.sh" --test
expect_grep ' nodejs cargo chromium zlib1g-dev$' "$TMP/apt.log" "nodejs and cargo when none is installed"
rm "$TMP/apt.log"
expect_rc 0 "PACKCHECK_OPTIONAL_DEPS=0: no libcurl, no SQLite" -- env PACKCHECK_OPTIONAL_DEPS=0 PATH="$TMP/bin:$PATH" PACKCHECK_APT_LOCK_WAIT=0 PACKCHECK_REGEN_TESTS=0 sh "$SRC/scripts/install-deps.sh"
expect_grep 'libcjson-dev libssl-dev$' "$TMP/apt.log" "the optional packages are left out"
rm "$TMP/apt.log"
touch "$TMP/locked-1" "$TMP/locked-2" "$TMP/locked-3"
expect_rc 0 "another apt-get holds the lock: wait, then install" -- run
expect_grep 'waiting (3/60)' "$TMP/err" "the waits are announced"
expect_grep 'install' "$TMP/apt.log" "it installed after the lock was released"
rm "$TMP/apt.log"
touch "$TMP/broken"
expect_rc 100 "any other apt-get failure is not waited on" -- run
expect_grep 'Unable to locate package' "$TMP/err" "apt's message is shown"
finish
