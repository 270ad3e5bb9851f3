#!/bin/sh
# Start node only for .gguf inputs (node's start-up costs seconds on a loaded machine; every other
# input is out of scope for @huggingface/gguf and refused here, exit 1, as the adapter itself would).
case "$1" in
    *.gguf) exec node "$(dirname "$0")/hf_gguf_reader.mjs" "$@" ;;
    *) echo "refused: not a GGUF file: out of scope" >&2; exit 1 ;;
esac
