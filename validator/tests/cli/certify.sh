# packcheck certify (CONTRACT 5): the reader protocol, outcomes, expected-failure lists, reports,
# on a small corpus built here (one valid, one invalid, one either case) and on the bundled one.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
R=$SRC/validator/tests/readers
MUT=$BIN/pc_mutate

# A corpus that needs no format module: the seed's small-ct (unchecked: its I32 tensor has no config,
# so a reader may accept or refuse it), valid-metadata (pass), a 3-byte file (reject, ST-001), and an
# empty-header file (either).
C=$TMP/corpus
mkdir -p "$C/st/small-ct" "$C/st/valid-metadata" "$C/st/short" "$C/st/either-empty"
cp "$SRC/fixtures/st/small-ct/"* "$C/st/small-ct/"
cp "$SRC/fixtures/st/valid-metadata/"* "$C/st/valid-metadata/"
printf 'abc' >"$C/st/short/short.safetensors"
cat >"$C/st/short/expect.json" <<'J'
{"case": "st/short", "source": "hand-written", "input": "short.safetensors", "verdict": "reject",
 "reject_rule": "ST-001", "reject_family": null, "layout": null, "rules": ["ST-001"], "modules": {}}
J
printf '\010\000\000\000\000\000\000\000{}      ' >"$C/st/either-empty/e.safetensors"
cat >"$C/st/either-empty/expect.json" <<'J'
{"case": "st/either-empty", "source": "hand-written", "input": "e.safetensors", "verdict": "either",
 "reject_rule": null, "reject_family": null, "layout": null, "rules": ["ST-001"], "modules": {}}
J
# A case rejected only by packcheck's own LIMIT (GGUF-013, alignment 2 MiB): either answer is right.
mkdir -p "$C/gguf/alignment-2mib" && cp "$SRC/fixtures/gguf/alignment-2mib/"* "$C/gguf/alignment-2mib/"
(cd "$C" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C/MANIFEST.sha256"

certify() { "$PC" certify --corpus "$C" "$@"; }
outcome_of() { # CASE REPORT -> the case's outcome
    tr -d '\n\t ' <"$2" | grep -o "\"case\":\"$1\",\"expected\":\"[a-z]*\"[^}]*\"outcome\":\"[a-z-]*\"" | sed 's/.*"outcome":"//; s/"$//'
}
expect_outcome() { # CASE REPORT WANT
    checks=$((checks + 1)); got=$(outcome_of "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1 in $2: outcome '$got', expected '$3'"; fails=$((fails + 1)); }
}

expect_rc 2 "certify without --reader" -- "$PC" certify
expect_rc 2 "template without {output}" -- "$PC" certify --reader 'cat {input}'
expect_rc 2 "bad timeout" -- "$PC" certify --reader 'x {input} {output}' --timeout abc
expect_rc 2 "update-expect without a list" -- certify --reader 'x {input} {output}' --update-expect
expect_rc 2 "update-expect on a partial run" -- certify --reader 'x {input} {output}' --expect-fail "$TMP/x.txt" --update-expect --only small

# The correct reader certifies, here and on the bundled corpus.
expect_rc 0 "correct reader certifies" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --report json:"$TMP/ok.json" --report md:"$TMP/ok.md" --report junit:"$TMP/ok.xml" --report html:"$TMP/ok.html"
expect_outcome st/small-ct "$TMP/ok.json" pass
expect_outcome st/short "$TMP/ok.json" pass
expect_outcome st/either-empty "$TMP/ok.json" pass
for k in '"manifest_sha256"' '"executable_sha256"' '"command"' '"rules"' '"families"' '"certified":	true' '"reader"'; do
    expect_grep "$k" "$TMP/ok.json" "certify json has $k"
done
expect_grep "$(sha256sum "$C/MANIFEST.sha256" | cut -c1-64)" "$TMP/ok.json" "report names the corpus by its MANIFEST digest"
expect_grep "$(sha256sum "$R/correct.sh" | cut -c1-64)" "$TMP/ok.json" "report pins the reader script"
expect_grep 'CERTIFIED' "$TMP/ok.md" "markdown verdict"
expect_grep '| ST-001 |' "$TMP/ok.md" "markdown rule rollup"
expect_grep '<testcase classname="certify" name="st/small-ct"' "$TMP/ok.xml" "junit case"
expect_grep 'id="matrix"' "$TMP/ok.html" "html matrix"
expect_rc 0 "correct reader on the bundled corpus" -- "$PC" certify --reader "sh $R/correct.sh $PC {input} {output}" --report json:"$TMP/bundled.json"
expect_rc 0 "correct reader on the bundled corpus, compat profile" -- "$PC" certify --profile compat --reader "sh $R/correct.sh $PC {input} {output} {profile}"
expect_rc 2 "bad profile" -- "$PC" certify --profile lax --reader "x {input} {output}"

# Each wrong reader is told apart, with the right outcome.
expect_rc 1 "reject-all is not certified" -- certify --reader "sh $R/reject_all.sh {input} {output}" --report json:"$TMP/rej.json"
expect_outcome st/valid-metadata "$TMP/rej.json" rejected-valid
expect_outcome st/small-ct "$TMP/rej.json" pass
expect_outcome st/short "$TMP/rej.json" pass
expect_outcome st/either-empty "$TMP/rej.json" pass
expect_rc 1 "accept-all is not certified" -- certify --reader "sh $R/accept_all.sh $MUT {input} {output}" --report json:"$TMP/acc.json"
expect_outcome st/short "$TMP/acc.json" accepted-invalid
expect_outcome gguf/alignment-2mib "$TMP/acc.json" pass
expect_grep "GGUF-013 is packcheck's own LIMIT" "$TMP/acc.json" "a LIMIT-only rejection accepted is either, and says why"
# A LIMIT in one profile only (GGUF-038, big-endian v3: strict LIMIT, compat MUST) is judged in the run's profile.
C2=$TMP/corpus-be
mkdir -p "$C2/gguf/big-endian-gguf-py" && cp "$SRC/fixtures/gguf/big-endian-gguf-py/"* "$C2/gguf/big-endian-gguf-py/"
(cd "$C2" && find . -type f ! -name MANIFEST.sha256 | sed 's|^\./||' | sort | xargs sha256sum) >"$C2/MANIFEST.sha256"
# (Both runs are uncertified: no valid case passed. The outcome of the one case is what is tested.)
expect_rc 1 "a corpus of one reject case certifies nothing" -- "$PC" certify --corpus "$C2" --reader "sh $R/accept_all.sh $MUT {input} {output}" --report json:"$TMP/be.json"
expect_outcome gguf/big-endian-gguf-py "$TMP/be.json" pass
expect_grep "GGUF-038 is packcheck's own LIMIT" "$TMP/be.json" "strict: GGUF-038 is a LIMIT"
expect_rc 1 "accepting it under compat is accepted-invalid (ggml refuses it)" -- "$PC" certify --corpus "$C2" --profile compat --reader "sh $R/accept_all.sh $MUT {input} {output}" --report json:"$TMP/be-compat.json"
expect_outcome gguf/big-endian-gguf-py "$TMP/be-compat.json" accepted-invalid
expect_rc 1 "crasher is not certified" -- certify --reader "sh $R/crasher.sh {input} {output}" --report json:"$TMP/crash.json"
expect_outcome st/small-ct "$TMP/crash.json" crash
expect_outcome st/short "$TMP/crash.json" crash
expect_rc 1 "exit 2 is a crash, not a refusal" -- certify --reader "exit 2; {input} {output}" --report json:"$TMP/two.json"
expect_outcome st/short "$TMP/two.json" crash
expect_rc 1 "a sanitizer report is a crash even with exit 1" -- certify --reader "echo '==1==ERROR: AddressSanitizer: heap-buffer-overflow' >&2; exit 1; {input} {output}" --report json:"$TMP/asan.json"
expect_outcome st/short "$TMP/asan.json" crash
expect_rc 1 "garbage output is wrong-output" -- certify --reader "printf xyz > {output}; : {input}" --report json:"$TMP/garbage.json"
expect_outcome st/small-ct "$TMP/garbage.json" wrong-output
expect_rc 1 "no output file is wrong-output" -- certify --reader "true {input} {output}" --report json:"$TMP/none.json"
expect_outcome st/small-ct "$TMP/none.json" wrong-output

MARK=pc-certify-test-$$
expect_rc 1 "hanger times out" -- certify --timeout 1 --reader "sh $R/hanger.sh $MARK {input} {output}" --report json:"$TMP/hang.json"
expect_outcome st/small-ct "$TMP/hang.json" timeout
expect_outcome st/short "$TMP/hang.json" timeout
checks=$((checks + 1))
sleep 0.2
if ps -eo args | grep -v grep | grep -q "hanger-$MARK"; then
    echo "FAIL: the hanger's process group was left running"; ps -eo pid,pgid,args | grep "hanger-$MARK" | grep -v grep
    fails=$((fails + 1))
fi

# Interrupted: packcheck kills the readers' process groups before it leaves (exit 2).
"$PC" certify --corpus "$C" --timeout 100 --reader "sh $R/hanger.sh int-$MARK {input} {output}" >"$TMP/int.out" 2>&1 &
P=$!
sleep 1
kill -TERM "$P"
wait "$P"
rc=$?
checks=$((checks + 1))
[ "$rc" = 2 ] || { echo "FAIL: interrupted certify exit $rc, expected 2"; fails=$((fails + 1)); }
sleep 0.2
checks=$((checks + 1))
if ps -eo args | grep -v grep | grep -q "hanger-int-$MARK"; then echo "FAIL: an interrupted run left its readers running"; fails=$((fails + 1)); fi

# Expected failures: listed failures are fine, stale entries fail the run.
printf '# reject-all refuses everything\nst/valid-metadata rejected-valid  # refuses valid files too\n' >"$TMP/xf.txt"
# (reject-all with its one valid case listed still reads nothing: never certified, issue 12 item 14)
expect_rc 1 "listed failure is expected, but no valid case passed" -- certify --reader "sh $R/reject_all.sh {input} {output}" --expect-fail "$TMP/xf.txt" --report junit:"$TMP/xf.xml"
expect_grep 'expected failure (rejected-valid)' "$TMP/xf.xml" "junit shows the expected failure"
expect_grep 'no valid case passed' "$TMP/out" "the verdict says why"
expect_grep 'valid cases passed per family: st 0/1' "$TMP/out" "valid cases per family"
expect_rc 1 "stale entry fails the run" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --expect-fail "$TMP/xf.txt"
expect_grep 'STALE' "$TMP/out" "stale entry is named"
printf 'st/small-ct crash\n' >"$TMP/xf2.txt"
expect_rc 1 "a listed case failing differently fails the run" -- certify --reader "sh $R/reject_all.sh {input} {output}" --expect-fail "$TMP/xf2.txt"
printf 'st/no-such-case\n' >"$TMP/xf3.txt"
expect_rc 1 "an entry naming no case is stale" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --expect-fail "$TMP/xf3.txt"
printf 'st/small-ct bogus-outcome\n' >"$TMP/xf4.txt"
expect_rc 2 "malformed list is a harness error" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --expect-fail "$TMP/xf4.txt"
# --update-expect absorbs failures into the list but never certifies in the same run (item 14).
SOMETIMES="sh -c 'case \$1 in *short*) kill -SEGV \$\$;; esac; exec sh $R/correct.sh $PC \$1 \$2' x {input} {output}"
expect_rc 1 "update-expect rewrites the list, not certified in the same run" -- certify --reader "$SOMETIMES" --expect-fail "$TMP/new.txt" --update-expect
expect_grep '^st/short crash' "$TMP/new.txt" "rewritten list has short"
expect_grep '1 unexpected or stale failure absorbed' "$TMP/out" "the count absorbed is printed"
expect_grep 'NOT CERTIFIED' "$TMP/out" "update-expect run is not certified"
expect_rc 0 "the rewritten list certifies the same reader" -- certify --reader "$SOMETIMES" --expect-fail "$TMP/new.txt"
expect_rc 1 "a crasher with a list absorbing everything is still not certified" -- certify --reader "sh $R/crasher.sh {input} {output}" --expect-fail "$TMP/all.txt" --update-expect
expect_rc 1 "... nor on the next run" -- certify --reader "sh $R/crasher.sh {input} {output}" --expect-fail "$TMP/all.txt"
# An --update-expect run's report predates the list it wrote: --render --expect-fail re-judges it.
expect_rc 1 "update run with a report" -- certify --reader "$SOMETIMES" --expect-fail "$TMP/new2.txt" --update-expect --report json:"$TMP/upd.json"
expect_rc 0 "re-judged against the written list" -- "$PC" certify --render "$TMP/upd.json" --expect-fail "$TMP/new2.txt" --report json:"$TMP/rej2.json"
expect_grep '"status":	"expected-fail"' "$TMP/rej2.json" "re-judged cases are expected failures"
expect_grep '"certified":	true' "$TMP/rej2.json" "re-judged report certified"
printf '' >"$TMP/empty.txt"
expect_rc 0 "re-judged against an empty list" -- "$PC" certify --render "$TMP/upd.json" --expect-fail "$TMP/empty.txt" --report json:"$TMP/rej3.json"
expect_grep '"certified":	false' "$TMP/rej3.json" "without the list the failures are unexpected"
expect_rc 0 "a partial run" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --only valid-metadata --report json:"$TMP/part.json"
expect_grep '"partial":	true' "$TMP/part.json" "partial run is marked"
expect_grep 'PARTIAL' "$TMP/out" "a partial run says PARTIAL, not CERTIFIED"
expect_grep '"verdict":	"partial"' "$TMP/part.json" "partial verdict in json"
expect_grep '"certified":	false' "$TMP/part.json" "a partial run is not a certificate"
expect_rc 2 "a run that ran no case is an error" -- certify --reader "sh $R/correct.sh $PC {input} {output}" --only no-such-case

# Container-only mode: a reader that writes no view passes the valid case on its verdict alone, and
# accepting the invalid one is still accepted-invalid; without the mode the missing view is wrong-output.
expect_rc 1 "container-only: accepting an invalid case fails" -- certify --container-only --reader "true {input} {output}" --report json:"$TMP/co.json"
expect_outcome st/small-ct "$TMP/co.json" pass
expect_outcome st/short "$TMP/co.json" accepted-invalid
expect_grep '"container_only":	true' "$TMP/co.json" "container-only run is marked"
expect_rc 1 "without --container-only a missing view is a failure" -- certify --reader "true {input} {output}" --report json:"$TMP/noco.json"
expect_outcome st/small-ct "$TMP/noco.json" wrong-output
printf 'st/short accepted-invalid # a container reader that accepts everything\n' >"$TMP/xfco.txt"
expect_rc 0 "container-only with its expected failure certifies" -- certify --container-only --reader "true {input} {output}" --expect-fail "$TMP/xfco.txt" --report json:"$TMP/co2.json"
# The public matrix: --readers annotates rows; --check-matrix holds it to the certificates.
mkdir -p "$TMP/mx/reports/upstream"
cp "$TMP/co2.json" "$TMP/mx/reports/upstream/true-1.json"
printf '{"readers": [{"certificate": "reports/upstream/true-1.json", "version": "1", "language": "sh", "claims": ["ST"], "findings": ""}]}\n' >"$TMP/mx/meta.json"
(cd "$TMP/mx" && "$PC" certify --combine reports/upstream/true-1.json --readers meta.json --report json:reports/upstream.json --report md:reports/UPSTREAM.md --report html:reports/upstream.html) >/dev/null 2>&1
expect_grep '| container-only | helper | none | ST | `' "$TMP/mx/reports/UPSTREAM.md" "matrix row: mode, claims, verdict"
expect_grep '"certificate_sha256"' "$TMP/mx/reports/upstream.json" "matrix row names its certificate digest"
expect_grep 'href="#fail-0-ST"' "$TMP/mx/reports/upstream.html" "a non-passing family cell links to its cases"
expect_grep 'href="upstream/true-1.html#case-st/short"' "$TMP/mx/reports/upstream.html" "a non-passing case links into the certificate"
(cd "$TMP/mx" && "$PC" certify --check-matrix reports/upstream.json) >/dev/null 2>&1
rc=$?; checks=$((checks + 1)); [ $rc = 0 ] || { echo "FAIL: fresh matrix: --check-matrix exit $rc, expected 0"; fails=$((fails + 1)); }
printf ' ' >>"$TMP/mx/reports/upstream/true-1.json"
(cd "$TMP/mx" && "$PC" certify --check-matrix reports/upstream.json) >/dev/null 2>&1
rc=$?; checks=$((checks + 1)); [ $rc = 1 ] || { echo "FAIL: edited certificate: --check-matrix exit $rc, expected 1"; fails=$((fails + 1)); }

# A corpus that does not match its pins is a harness error.
printf 'x' >>"$C/st/short/short.safetensors"
expect_rc 2 "broken pins stop the run" -- certify --reader "sh $R/correct.sh $PC {input} {output}"

# Several readers combined into one matrix; a saved report rendered again.
expect_rc 0 "combine" -- "$PC" certify --combine "$TMP/ok.json" "$TMP/rej.json" "$TMP/crash.json" --report md:"$TMP/m.md" --report html:"$TMP/m.html" --report junit:"$TMP/m.xml" --report json:"$TMP/m.json"
expect_grep '| ST |' "$TMP/m.md" "results table has a family column"
expect_grep 'id="results"' "$TMP/m.html" "matrix html results table"
expect_grep '"kind":	"certify-matrix"' "$TMP/m.json" "matrix json"
expect_rc 0 "render" -- "$PC" certify --render "$TMP/rej.json" --report html:"$TMP/r.html"
expect_grep 'NOT CERTIFIED' "$TMP/r.html" "rendered verdict"
expect_rc 2 "render of a non-report" -- "$PC" certify --render "$C/st/short/expect.json"
rm -rf "$TMP"
finish
