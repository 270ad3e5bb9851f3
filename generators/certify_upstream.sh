#!/bin/sh
# Certify real upstream readers against the bundled corpus and regenerate reports/:
#   reports/UPSTREAM.md, reports/upstream.{html,json}   results table (reader x rule family) and matrix
#   reports/upstream/<reader>.{json,md,html}             each reader's certificate
#   reports/upstream/<reader>.expect-fail.txt            its expected failures, each with its cause
#   reports/SELFTEST.md, reports/selftest.html           the self-test readers' kill matrix
# usage: generators/certify_upstream.sh [--update]   (--update rewrites the expected-failure lists
#        from this run, keeping the reasons already written; new entries get the diagnosis as reason)
# Readers run from the Python venvs under /work/venvs (VENVS=... to move them): see each adapter in
# generators/readers/ for the library functions it calls.
set -u
cd "$(dirname "$0")/.."
VENVS=${VENVS:-/work/venvs}
UPDATE=""
[ "${1:-}" = "--update" ] && UPDATE=--update-expect
PC=build/packcheck
[ -x "$PC" ] || { cmake -S . -B build -G Ninja >/dev/null && cmake --build build -j2 >/dev/null; } || exit 2
mkdir -p reports/upstream
TIMEOUT=${CERTIFY_TIMEOUT:-180}
status=0
LOG=$(mktemp)

version() { "$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))" 2>/dev/null; }

certify() { # SLUG NAME VENV ADAPTER [TIMEOUT]
    slug=$1 name=$2 venv=$3 adapter=$4 tmo=${5:-$TIMEOUT}
    [ -x "$venv/bin/python" ] || { echo "certify_upstream: $venv missing; skipping $name" >&2; return; }
    xf=reports/upstream/$slug.expect-fail.txt
    [ -e "$xf" ] || [ -n "$UPDATE" ] || : >"$xf"
    echo "== $name"
    "$PC" certify --corpus fixtures --name "$name" --timeout "$tmo" \
        --reader "$venv/bin/python generators/readers/$adapter {input} {output}" \
        --expect-fail "$xf" $UPDATE \
        --report json:reports/upstream/$slug.json --report md:reports/upstream/$slug.md \
        --report html:reports/upstream/$slug.html >"$LOG" 2>&1
    rc=$?
    tail -1 "$LOG"
    # 0 certified (failures all expected), 1 not (a new failure or a stale expected failure)
    case $rc in 0) ;; 1) status=1 ;; *) status=2 ;; esac

}

v=$(version "$VENVS/ct" compressed-tensors); certify ct-$v "compressed-tensors $v" "$VENVS/ct" ct_reader.py
v=$(version "$VENVS/ct017" compressed-tensors); [ -n "$v" ] && certify ct-$v "compressed-tensors $v" "$VENVS/ct017" ct_reader.py
v=$(version "$VENVS/ct" gguf); certify gguf-$v "gguf $v (gguf-py)" "$VENVS/ct" gguf_reader.py 30  # no torch: fast, and one case hangs it
v=$(version "$VENVS/gptqawq" autoawq); certify autoawq-$v "AutoAWQ $v" "$VENVS/gptqawq" autoawq_reader.py
v=$(version "$VENVS/gptqawq" gptqmodel); certify gptqmodel-$v "GPTQModel $v" "$VENVS/gptqawq" gptqmodel_reader.py
v=$(version "$VENVS/ct" safetensors); certify safetensors-$v "safetensors $v" "$VENVS/ct" safetensors_reader.py 60

"$PC" certify --combine reports/upstream/*.json --report md:reports/UPSTREAM.md \
    --report html:reports/upstream.html --report json:reports/upstream.json || status=2

# The self-test readers (validator/tests/readers): the kill matrix proving the corpus tells them apart.
B=build/validator/tests R=validator/tests/readers T=$(mktemp -d)
if [ -x "$B/pc_mutate" ]; then
    run() { "$PC" certify --corpus fixtures --name "$1" --reader "$2" --report json:"$T/$1.json" >/dev/null; }
    run "correct (packcheck unpack)" "sh $R/correct.sh $PC {input} {output}"
    run reject-all "sh $R/reject_all.sh {input} {output}"
    run accept-all "sh $R/accept_all.sh $B/pc_mutate {input} {output}"
    run crasher "sh $R/crasher.sh {input} {output}"
    for bug in $("$B/pc_mutate" --list); do run "mutant $bug" "sh $R/mutant.sh $bug $PC $B/pc_mutate {input} {output}"; done
    "$PC" certify --combine "$T"/*.json --report md:reports/SELFTEST.md --report html:reports/selftest.html || status=2
fi
rm -rf "$T" "$LOG"
echo "certify_upstream: reports/ regenerated (status $status)"
exit $status
