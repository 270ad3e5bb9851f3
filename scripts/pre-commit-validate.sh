#!/bin/sh
# The pre-commit hook (.pre-commit-hooks.yaml): validates the checkpoints among the staged files.
# A file in a folder holding a config (config.json, quantize_config.json, ...) is validated as that
# folder, once, so a shard is checked with the quantization config that gives it meaning; a lone
# .safetensors or .gguf is validated as a file. Exit: packcheck's (0 all pass, 1 rejected, 2 error,
# 3 a quantized tensor unchecked). PACKCHECK_ARGS adds options (e.g. --profile compat).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
pc=$(command -v packcheck 2>/dev/null || true)
if [ -z "$pc" ]; then
    build="${PACKCHECK_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/packcheck-build}"
    if [ ! -x "$build/packcheck" ]; then
        echo "packcheck: building once into $build" >&2
        cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build "$build" --target packcheck >/dev/null
    fi
    pc="$build/packcheck"
fi
targets=$(mktemp)
trap 'rm -f "$targets"' EXIT
for f in "$@"; do
    d=$(dirname "$f")
    if [ -f "$d/config.json" ] || [ -f "$d/quantize_config.json" ] || [ -f "$d/quant_config.json" ] || [ -f "$d/hf_quant_config.json" ]; then
        echo "$d"
    else
        case "$f" in *.safetensors|*.gguf) echo "$f" ;; esac
    fi
done | sort -u >"$targets"
[ -s "$targets" ] || exit 0
set --
while IFS= read -r t; do set -- "$@" "$t"; done <"$targets"
# shellcheck disable=SC2086
exec "$pc" validate ${PACKCHECK_ARGS:-} "$@"
