#!/bin/sh
# Install what the C build and its tests need, from Debian's packages. Idempotent: installs only what
# is missing; as root it runs apt-get, otherwise it prints the command to run.
set -eu
need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake ninja-build gcc clang pkg-config libcjson-dev libssl-dev libclang-rt-14-dev; do
    have_pkg "$p" || need="$need $p"
done
# python3 + venv only for the fixture regeneration check (scripts/regen-check.sh); the C build never needs it.
if [ "${PACKCHECK_REGEN_TESTS:-1}" = 1 ]; then
    if ! command -v python3 >/dev/null 2>&1; then need="$need python3 python3-venv"
    elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then need="$need python3-venv"; fi
fi
if [ "${PACKCHECK_BROWSER_TESTS:-1}" = 1 ]; then
    have_pkg chromium || need="$need chromium"
fi
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "install-deps: installing$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need >/dev/null
else
    echo "install-deps: missing packages; run: sudo apt-get install -y$need" >&2
    exit 1
fi
