# CLI conventions (issue 17): -V, --select/--ignore, --warnings-as-errors, GitHub Actions
# annotations, colour only on a terminal (NO_COLOR, --color), progress on stderr, rules ID.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
F=$SRC/fixtures
BAD=$F/awq/neg-bits-8          # rejected by AWQ-001
WARN=$F/awq/warn-zero-scale    # passes with an AWQ-009 warning
unset GITHUB_ACTIONS NO_COLOR PACKCHECK_PROGRESS_AFTER

expect_rc 0 "-V" -- "$PC" -V
cp "$TMP/out" "$TMP/v1"
expect_rc 0 "--version" -- "$PC" --version
checks=$((checks + 1)); cmp -s "$TMP/out" "$TMP/v1" || { echo "FAIL: -V and --version differ"; fails=$((fails + 1)); }
expect_grep "^packcheck [0-9]" "$TMP/v1" "-V prints the version"

# --select / --ignore (a rule left out does not make its tensors checked: --allow-unchecked for exit 0)
expect_rc 1 "the AWQ-001 case rejects" -- "$PC" validate "$BAD" --quiet
expect_rc 0 "--ignore AWQ-001" -- "$PC" validate "$BAD" --quiet --allow-unchecked --ignore AWQ-001 --report json:"$TMP/ign.json"
tr -d '\n\t ' <"$TMP/ign.json" >"$TMP/ign.flat"
expect_grep '"rule":"AWQ-001","status":"skip"' "$TMP/ign.flat" "an ignored rule reports skip"
expect_rc 0 "--ignore AWQ (a family)" -- "$PC" validate "$BAD" --quiet --allow-unchecked --ignore AWQ
expect_rc 0 "--select ST,CFG" -- "$PC" validate "$BAD" --quiet --allow-unchecked --select ST,CFG
expect_rc 1 "--select AWQ-001 --select ST" -- "$PC" validate "$BAD" --quiet --select AWQ-001 --select ST
expect_rc 1 "--select AWQ --ignore AWQ-009 keeps AWQ-001" -- "$PC" validate "$BAD" --quiet --select AWQ --ignore AWQ-009
expect_rc 2 "--ignore of an unknown rule" -- "$PC" validate "$BAD" --quiet --ignore AWQ-999
expect_grep "AWQ-999: no such rule" "$TMP/err" "names the unknown rule"
expect_rc 2 "--select without a value" -- "$PC" validate "$BAD" --select

# --warnings-as-errors
expect_rc 0 "a warning passes" -- "$PC" validate "$WARN" --quiet
expect_rc 1 "--warnings-as-errors" -- "$PC" validate "$WARN" --quiet --warnings-as-errors --report json:"$TMP/wae.json"
tr -d '\n\t ' <"$TMP/wae.json" >"$TMP/wae.flat"
expect_grep '"rule":"AWQ-009","status":"fail"' "$TMP/wae.flat" "the warning is reported as a failure"
expect_grep '"verdict":"reject"' "$TMP/wae.flat" "and the input as rejected"
expect_rc 0 "--warnings-as-errors --ignore AWQ-009" -- "$PC" validate "$WARN" --quiet --warnings-as-errors --ignore AWQ-009

# GitHub Actions annotations, with the runner's escaping in properties (a path with , and :)
expect_rc 1 "no annotations outside Actions" -- "$PC" validate "$BAD" --quiet
checks=$((checks + 1)); ! grep -q '^::' "$TMP/out" || { echo "FAIL: annotations without GITHUB_ACTIONS"; fails=$((fails + 1)); }
mkdir -p "$TMP/a,b:c" && cp "$BAD"/* "$TMP/a,b:c/"
expect_rc 1 "annotations" -- env GITHUB_ACTIONS=true "$PC" validate "$TMP/a,b:c" "$WARN" --quiet
expect_grep "^::error file=$TMP/a%2Cb%3Ac,title=AWQ-001 bits is 4::config.json: " "$TMP/out" "an error annotation, escaped"
expect_grep "^::warning file=$WARN,title=AWQ-009 " "$TMP/out" "a warning annotation"
expect_rc 2 "an unreadable input is annotated" -- env GITHUB_ACTIONS=true "$PC" validate "$TMP/none.safetensors" --quiet
expect_grep "^::error file=$TMP/none.safetensors,title=packcheck%3A unreadable input::" "$TMP/out" "unreadable input annotation"

# Colour: never into a pipe; a terminal (script(1)) gets it unless NO_COLOR; --color overrides.
esc=$(printf '\033')
has_esc() { grep -q "$esc\[" "$1"; }
expect_rc 0 "rules ID into a pipe" -- "$PC" rules AWQ-001
checks=$((checks + 1)); ! has_esc "$TMP/out" || { echo "FAIL: colour into a pipe"; fails=$((fails + 1)); }
expect_grep "negative fixtures: awq/neg-bits-8" "$TMP/out" "rules ID lists the negative fixtures"
expect_rc 0 "--color always" -- "$PC" rules AWQ-001 --color always
checks=$((checks + 1)); has_esc "$TMP/out" || { echo "FAIL: --color always without colour"; fails=$((fails + 1)); }
expect_rc 2 "rules of an unknown ID" -- "$PC" rules XX-001
if command -v script >/dev/null; then
    script -qec "'$PC' rules AWQ-001" /dev/null >"$TMP/tty" 2>&1 </dev/null
    checks=$((checks + 1)); has_esc "$TMP/tty" || { echo "FAIL: no colour on a terminal"; fails=$((fails + 1)); }
    NO_COLOR=1 script -qec "'$PC' rules AWQ-001" /dev/null >"$TMP/tty" 2>&1 </dev/null
    checks=$((checks + 1)); ! has_esc "$TMP/tty" || { echo "FAIL: colour despite NO_COLOR"; fails=$((fails + 1)); }
    script -qec "'$PC' rules AWQ-001 --color never" /dev/null >"$TMP/tty" 2>&1 </dev/null
    checks=$((checks + 1)); ! has_esc "$TMP/tty" || { echo "FAIL: colour despite --color never"; fails=$((fails + 1)); }
fi

# Progress: silent into a pipe by default; --progress prints the bytes read (no time is asserted).
expect_rc 0 "no progress by default off a terminal" -- "$PC" validate "$F/awq/autoawq-gemm-g32-random" --hash --quiet
checks=$((checks + 1)); [ ! -s "$TMP/err" ] || { echo "FAIL: stderr not empty"; fails=$((fails + 1)); }
expect_rc 0 "--progress" -- env PACKCHECK_PROGRESS_AFTER=0 "$PC" validate "$F/awq/autoawq-gemm-g32-random" --hash --quiet --progress
expect_grep "^validate: [0-9]* / [0-9]* MiB read (" "$TMP/err" "a progress line on stderr"
checks=$((checks + 1)); ! grep -q "MiB read" "$TMP/out" || { echo "FAIL: progress on stdout"; fails=$((fails + 1)); }
expect_rc 0 "--no-progress" -- env PACKCHECK_PROGRESS_AFTER=0 "$PC" validate "$F/awq/autoawq-gemm-g32-random" --hash --quiet --no-progress
checks=$((checks + 1)); [ ! -s "$TMP/err" ] || { echo "FAIL: --no-progress printed"; fails=$((fails + 1)); }
# --jsonl: one compact record per input on stdout, the summary on stderr; with --hash, file digests.
expect_rc 1 "--jsonl" -- "$PC" validate "$BAD" "$WARN" --jsonl --hash
n=$(grep -c '^{"path":' "$TMP/out")
checks=$((checks + 1)); [ "$n" = 2 ] && [ "$(wc -l <"$TMP/out")" = 2 ] || { echo "FAIL: --jsonl wrote $n records"; fails=$((fails + 1)); }
expect_grep '"kind":"validate-input","packcheck_version":"' "$TMP/out" "records name the tool"
expect_grep '"sha256":"[0-9a-f]\{64\}"' "$TMP/out" "records carry file digests"
expect_rc 1 "--report jsonl:PATH" -- "$PC" validate "$BAD" --quiet --report jsonl:"$TMP/r.jsonl"
expect_grep '"verdict":"reject"' "$TMP/r.jsonl" "the jsonl file"
rm -rf "$TMP"
finish
