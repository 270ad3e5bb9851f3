# Sourced by scripts/test.sh: run_stage NAME CMD... runs one stage with its output shown and kept, and
# when it fails ends with one line naming the stage, how many things failed and of what kind, so the
# last line of a failed run says why (issue 32 item 1):
#   test.sh: FAILED stage "build (RelWithDebInfo) and CTest": 2 of 171 tests failed: cli_certify (Timeout), test_gguf (Failed)
#   test.sh: FAILED stage "Python package ...": README CI certify step: 46 timeout, 1 crash
#   test.sh: FAILED stage "fuzz smoke": exit 1; last line: fuzz: fuzz_gguf found a crash; artifacts in /tmp/...
# Then exits with the stage's status.

# stage_summary LOG RC: the count and kind of failure found in a stage's log.
stage_summary() {
    if grep -q 'tests failed out of' "$1"; then
        line=$(grep 'tests failed out of' "$1" | tail -1)
        failed=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) tests failed out of \([0-9][0-9]*\).*/\1 of \2/p')
        names=$(sed -n '/The following tests FAILED:/,$p' "$1" | sed -n 's/^[[:space:]]*[0-9][0-9]* - \(.*\)$/\1/p' | head -8 | paste -sd, - | sed 's/,/, /g')
        echo "$failed tests failed: $names"
    elif grep -q '^README CI .*step failed' "$1"; then
        grep '^README CI .*step failed' "$1" | tail -1
    else
        last=$(grep -v '^[[:space:]]*$' "$1" | tail -1)
        echo "exit $2; last line: $last"
    fi
}

run_stage() {
    name=$1
    shift
    echo "== $name"
    log=$(mktemp)
    # the stage's own status, not tee's (POSIX sh has no pipefail): kept in a file; the stage itself
    # runs under set -e, so its first failing command ends it
    ( set +e; ( set -e; "$@" ); echo $? >"$log.rc" ) 2>&1 | tee "$log"
    rc=$(cat "$log.rc" 2>/dev/null || echo 1)
    rm -f "$log.rc"
    if [ "$rc" != 0 ]; then
        echo "test.sh: FAILED stage \"$name\": $(stage_summary "$log" "$rc")"
        rm -f "$log"
        exit "$rc"
    fi
    rm -f "$log"
}
