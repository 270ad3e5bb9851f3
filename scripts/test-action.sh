#!/bin/sh
# The GitHub Action (action.yml) and the pre-commit hook, run here without a GitHub runner: the README's
# action example on a copy of two valid checkpoints (passes, writes SARIF), the same with a rejected
# GGUF added (annotations, SARIF results, the action fails), certify mode with a correct and a
# refusing reader, and scripts/pre-commit-validate.sh on the same files.
# usage: scripts/test-action.sh BUILD_DIR  (an existing RelWithDebInfo build of this clone: the action's
# build-dir input, so its build step is incremental and the folder keeps its own path)
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
build=$(cd "${1:-build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/packcheck-action.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "test-action: FAIL: $*" >&2; exit 1; }

mkdir -p "$work/ok/models" "$work/bad/models"
cp -r fixtures/awq/autoawq-gemm-g32-random "$work/ok/models/awq-model"
rm "$work/ok/models/awq-model/expect.json"
cp fixtures/llama/llama-q8-0/model.gguf "$work/ok/models/llama-q8-0.gguf"
cp -r "$work/ok/models/." "$work/bad/models/"
cp fixtures/gguf/alignment-0/bad.gguf "$work/bad/models/alignment-0.gguf"

echo "== the README example on two valid checkpoints"
python3 scripts/run-action-locally.py --action-dir "$repo" --input "build-dir=$build" --workdir "$work/ok" --readme README.md \
    >"$work/ok.log" 2>&1 || { cat "$work/ok.log"; fail "the action failed on valid checkpoints"; }
grep -q '"exit-code": "0"' "$work/ok.log" || { cat "$work/ok.log"; fail "no exit-code 0 output"; }
jq -e '.version == "2.1.0" and (.runs[0].results | map(select(.level == "error")) | length) == 0' "$work/ok/packcheck.sarif" >/dev/null \
    || fail "packcheck.sarif is not a clean SARIF 2.1.0 file"

echo "== the README example with a rejected GGUF added"
if python3 scripts/run-action-locally.py --action-dir "$repo" --input "build-dir=$build" --workdir "$work/bad" --readme README.md \
    >"$work/bad.log" 2>&1; then cat "$work/bad.log"; fail "the action passed a rejected checkpoint"; fi
grep -q '^::error file=.*alignment-0.gguf.*GGUF-012' "$work/bad.log" || { cat "$work/bad.log"; fail "no GGUF-012 annotation"; }
grep -q 'upload-sarif@v3. needs GitHub' "$work/bad.log" || fail "the SARIF upload step did not run after the failure"
jq -e '[.runs[].results[] | select(.ruleId == "GGUF-012")] | length > 0' "$work/bad/packcheck.sarif" >/dev/null \
    || fail "no GGUF-012 result in the SARIF file"

echo "== certify mode: a correct reader (PARTIAL run, passes) and a reader that refuses everything (fails)"
user=""
[ "$(id -u)" = 0 ] && user="--reader-user root"  # the reader script lives in this clone, maybe under a 0700 home
for r in correct reject_all; do
    rc=0
    python3 scripts/run-action-locally.py --action-dir "$repo" --input "build-dir=$build" --workdir "$work/ok" \
        --input mode=certify --input "reader=$repo/validator/tests/readers/$r.sh $build/packcheck {input} {output}" \
        --input "args=--only llama/llama-q8-0 --only gguf/alignment-0 $user" --input sarif=certify.sarif \
        >"$work/$r.log" 2>&1 || rc=$?
    case "$r:$rc" in
        correct:0|reject_all:1) ;;
        *) cat "$work/$r.log"; fail "certify with $r.sh: action exit $rc" ;;
    esac
done
grep -q '^::error title=packcheck certify: rejected-valid::llama/llama-q8-0' "$work/reject_all.log" || { cat "$work/reject_all.log"; fail "no certify annotation"; }
jq -e '.runs[0].results[0].ruleId == "certify/rejected-valid"' "$work/ok/certify.sarif" >/dev/null || fail "certify SARIF lacks the result"
[ -f "$work/ok/certify-certify.html" ] || fail "no certify HTML report"

echo "== the pre-commit hook"
PATH="$build:$PATH" scripts/pre-commit-validate.sh "$work/ok/models/awq-model/model.safetensors" \
    "$work/ok/models/awq-model/config.json" "$work/ok/models/llama-q8-0.gguf" >"$work/hook.log" 2>&1 \
    || { cat "$work/hook.log"; fail "the hook refused valid checkpoints"; }
grep -c ': pass (' "$work/hook.log" | grep -q '^2$' || { cat "$work/hook.log"; fail "the hook did not validate the folder once and the GGUF once"; }
rc=0
PATH="$build:$PATH" scripts/pre-commit-validate.sh "$work/bad/models/alignment-0.gguf" >"$work/hook.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/hook.log"; fail "the hook exited $rc on a rejected GGUF (want 1)"; }
echo "test-action: all passed"
