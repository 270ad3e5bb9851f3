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
expect_grep 'install -y -qq --no-install-recommends cmake ninja-build gcc pkg-config libcjson-dev libssl-dev$' "$TMP/apt.log" "only the build packages"
checks=$((checks + 1)); if grep -q 'clang\|chromium' "$TMP/apt.log"; then echo "FAIL: main installed test-only packages"; fails=$((fails + 1)); fi
rm "$TMP/apt.log"
expect_rc 0 "--test: also the test-only packages" -- run --test
expect_grep 'libssl-dev clang libclang-rt-14-dev chromium zlib1g-dev$' "$TMP/apt.log" "clang runtimes, chromium and zlib (screenshot pixels) with --test"
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
