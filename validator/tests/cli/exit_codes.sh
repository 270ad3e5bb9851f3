# Exit codes and report keys of the commands (CONTRACT 1 and 2).
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
SMALL=$SRC/fixtures/st/small-ct/small-ct.safetensors

for c in validate unpack rules corpus certify equiv bench; do
    expect_rc 0 "$c --help" -- "$PC" "$c" --help
done
expect_rc 2 "no command" -- "$PC"
expect_rc 2 "unknown command" -- "$PC" frobnicate
expect_rc 2 "validate unknown option" -- "$PC" validate --frob "$SMALL"
expect_rc 2 "validate without input" -- "$PC" validate
expect_rc 2 "validate missing path" -- "$PC" validate "$TMP/does-not-exist"
expect_rc 2 "validate bad profile" -- "$PC" validate --profile lax "$SMALL"
expect_rc 2 "validate bad report spec" -- "$PC" validate --report xml:"$TMP/r" "$SMALL"
expect_rc 0 "validate small-ct" -- "$PC" validate "$SMALL" --report json:"$TMP/r.json" --report junit:"$TMP/r.xml" --report md:"$TMP/r.md" --report html:"$TMP/r.html"
for k in '"packcheck_version"' '"inputs"' '"path"' '"format"' '"verdict"' '"results"' '"rule"' '"status"' '"tensor"' '"message"'; do
    expect_grep "$k" "$TMP/r.json" "json report key $k"
done
expect_grep '"format":	"safetensors"' "$TMP/r.json" "small-ct is a plain container"
expect_grep '<testcase' "$TMP/r.xml" "junit testcases"
expect_grep '| ST-001 | pass' "$TMP/r.md" "markdown rule table"
expect_grep 'id="matrix"' "$TMP/r.html" "html matrix"
printf 'abc' >"$TMP/short.safetensors"
expect_rc 1 "validate 3-byte file" -- "$PC" validate "$TMP/short.safetensors"
expect_grep 'ST-001' "$TMP/out" "3-byte file names ST-001"
expect_rc 2 "unpack without --out" -- "$PC" unpack "$SMALL"
: >"$TMP/stale.safetensors"
expect_rc 1 "unpack a rejected input" -- "$PC" unpack "$TMP/short.safetensors" --out "$TMP/stale.safetensors"
checks=$((checks + 1)); [ -e "$TMP/stale.safetensors" ] && { echo "FAIL: unpack left an output behind"; fails=$((fails + 1)); }
expect_rc 0 "unpack a plain container" -- "$PC" unpack "$SMALL" --out "$TMP/view.safetensors"
expect_rc 0 "the logical view validates" -- "$PC" validate "$TMP/view.safetensors"
expect_rc 0 "bundled corpus" -- "$PC" corpus
expect_rc 2 "corpus of a non-corpus" -- "$PC" corpus "$TMP"
finish
