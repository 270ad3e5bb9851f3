#!/bin/sh
# Install what the C build and its tests need, from Debian's packages. Idempotent: installs only what
# is missing; as root it runs apt-get, otherwise it prints the command to run.
#   scripts/install-deps.sh          what the build and `packcheck corpus` need (scripts/main.sh)
#   scripts/install-deps.sh --test   also what only the tests need (scripts/test.sh): clang and its
#                                    sanitizer/fuzzer runtimes, chromium, python3-venv, jq, zip,
#                                    node and cargo when none is installed
# Optional build dependencies, installed unless PACKCHECK_OPTIONAL_DEPS=0: libcurl4-openssl-dev (URL
# inputs: validate https://..., hf://...) and libsqlite3-dev (validate --cache). The build without them
# works and says so when a URL or --cache is used.
# Another apt-get or dpkg holding the lock (apt-get exits 100) is waited for, not a failure.
set -eu
test_deps=0
[ "${1:-}" = --test ] && test_deps=1
APT_GET=${PACKCHECK_APT_GET:-apt-get}     # overridable for the script's own test
LOCK_WAIT=${PACKCHECK_APT_LOCK_WAIT:-10}  # seconds between attempts while the lock is held
LOCK_TRIES=${PACKCHECK_APT_LOCK_TRIES:-60}
need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake ninja-build gcc pkg-config libcjson-dev libssl-dev; do
    have_pkg "$p" || need="$need $p"
done
if [ "${PACKCHECK_OPTIONAL_DEPS:-1}" = 1 ]; then
    for p in libcurl4-openssl-dev libsqlite3-dev; do
        have_pkg "$p" || need="$need $p"
    done
fi
if [ "$test_deps" = 1 ]; then
    # jq: the action's certify SARIF and its test; zip/unzip: the OSS-Fuzz seed corpora.
    for p in clang libclang-rt-14-dev jq zip unzip; do
        have_pkg "$p" || need="$need $p"
    done
    # node and cargo for the npm package and the Rust crate (packages/): any install on PATH (or
    # rustup's ~/.cargo/bin) is used; Debian's nodejs (18) and cargo (rustc 1.63) are enough otherwise.
    if [ "${PACKCHECK_PACKAGE_TESTS:-1}" = 1 ]; then
        command -v node >/dev/null 2>&1 || need="$need nodejs"
        command -v cargo >/dev/null 2>&1 || [ -x "${HOME:-/root}/.cargo/bin/cargo" ] || need="$need cargo"
    fi
    # python3 + venv only for the fixture regeneration check (scripts/regen-check.sh); the C build never needs it.
    if [ "${PACKCHECK_REGEN_TESTS:-1}" = 1 ]; then
        if ! command -v python3 >/dev/null 2>&1; then need="$need python3 python3-venv"
        elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then need="$need python3-venv"; fi
    fi
    if [ "${PACKCHECK_BROWSER_TESTS:-1}" = 1 ]; then
        have_pkg chromium || need="$need chromium"
        # zlib for pc_png_colours, which reads the browser tests' screenshots (banner colours)
        have_pkg zlib1g-dev || need="$need zlib1g-dev"
    fi
fi
[ -z "$need" ] && exit 0

# apt_get ARGS...: apt-get, waiting while another apt-get/dpkg holds its lock. apt's own
# DPkg::Lock::Timeout covers the dpkg lock; the lists lock of `update` is retried here.
apt_get() {
    err=$(mktemp)
    tries=0
    while :; do
        if "$APT_GET" -o DPkg::Lock::Timeout="$LOCK_WAIT" "$@" 2>"$err"; then rm -f "$err"; return 0; else rc=$?; fi
        if [ "$rc" = 100 ] && grep -qi 'lock' "$err" && [ "$tries" -lt "$LOCK_TRIES" ]; then
            tries=$((tries + 1))
            echo "install-deps: another apt-get or dpkg holds the lock; waiting ($tries/$LOCK_TRIES)" >&2
            sleep "$LOCK_WAIT"
            continue
        fi
        cat "$err" >&2
        rm -f "$err"
        return "$rc"
    done
}

if [ "$(id -u)" = 0 ]; then
    echo "install-deps: installing$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt_get install -y -qq --no-install-recommends $need >/dev/null
else
    echo "install-deps: missing packages; run: sudo apt-get install -y$need" >&2
    exit 1
fi
