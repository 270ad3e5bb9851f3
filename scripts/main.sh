#!/bin/sh
# The main job: build packcheck, then validate the bundled corpus and print the per-rule report.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
exec ./build/packcheck corpus fixtures --report json:build/corpus-report.json --report html:build/corpus-report.html "$@"
