# scripts/test.sh ends a failing stage with one line naming the stage, the count and the kind of
# failure (scripts/stage.sh; issue 32 item 1): a CTest stage names how many tests failed and which,
# the README CI certify step its outcome counts, anything else its exit code and last line. A stage
# stops at its first failing command, and the script stops at the first failing stage.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
cat >"$TMP/run.sh" <<EOS
set -eu
. "$SRC/scripts/stage.sh"
fake_ctest() {
    echo "The following tests FAILED:"
    echo "	 12 - cli_certify (Timeout)"
    echo "	 40 - test_gguf (Failed)"
    echo "98% tests passed, 2 tests failed out of 171"
    return 8
}
certify_step() { echo "README CI certify step failed: 46 timeout, 1 crash; command: packcheck certify ..."; return 1; }
two_commands() { echo one; false; echo "not reached"; }
ok() { echo fine; }
run_stage "fine" ok
run_stage "\$1" "\$2"
echo "after the failing stage"
EOS
expect_rc 8 "a failing ctest stage" -- sh "$TMP/run.sh" "build and CTest" fake_ctest
expect_grep '^test.sh: FAILED stage "build and CTest": 2 of 171 tests failed: cli_certify (Timeout), test_gguf (Failed)$' "$TMP/out" "ctest: count and kinds"
checks=$((checks + 1)); [ "$(tail -1 "$TMP/out")" = 'test.sh: FAILED stage "build and CTest": 2 of 171 tests failed: cli_certify (Timeout), test_gguf (Failed)' ] || { echo "FAIL: not the last line"; fails=$((fails + 1)); }
expect_rc 1 "a failing certify step" -- sh "$TMP/run.sh" "Python package" certify_step
expect_grep '^test.sh: FAILED stage "Python package": README CI certify step failed: 46 timeout, 1 crash' "$TMP/out" "certify: outcome counts"
expect_rc 1 "a stage stops at its first failing command" -- sh "$TMP/run.sh" "two" two_commands
checks=$((checks + 1)); if grep -q "not reached\|after the failing stage" "$TMP/out"; then echo "FAIL: ran past a failure"; fails=$((fails + 1)); fi
expect_grep '^test.sh: FAILED stage "two": exit 1; last line: one$' "$TMP/out" "other stages: exit code and last line"
# test.sh runs its stages through run_stage.
expect_grep '^run_stage "build (RelWithDebInfo) and CTest" build_and_ctest' "$SRC/scripts/test.sh" "test.sh uses run_stage"
rm -rf "$TMP"
finish
