# A reader declares its scope (issue 32 item 6): `certify --format gguf --layout q8_0` runs only the
# cases a Q8_0 GGUF reader claims (block types read from the GGUF headers), the rest are
# `unsupported` (coverage: neither pass nor failure, listed in the JSON, counted on the terminal and
# the HTML page); `corpus --list --layout/--format` shows the same selection.
PC=$1 SRC=$2 BIN=$3 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
chmod 755 "$TMP"
expect_rc 0 "corpus --list --layout q8_0 --format gguf" -- "$PC" corpus --list --format gguf --layout q8_0
expect_grep '^gq/q8_0-d-inf	reject	gguf	q8_0$' "$TMP/out" "a Q8_0 negative case is listed with its block type"
expect_grep '^llama/llama-q8-0	pass	gguf	q8_0$' "$TMP/out" "a Q8_0 llama file is listed"
checks=$((checks + 1))
bad=$(awk -F'\t' '$3 != "gguf" || ($4 != "" && $4 != "q8_0")' "$TMP/out")
[ -z "$bad" ] || { echo "FAIL: cases outside the scope listed: $bad" | head -3; fails=$((fails + 1)); }
inscope=$(wc -l <"$TMP/out")

# packcheck itself as a Q8_0-only GGUF reader: certified for that scope, the rest unsupported.
expect_rc 0 "certify with a declared scope" -- "$PC" certify --reader "$PC read {input} {output} --profile {profile}" --format gguf --layout q8_0 \
    --report json:"$TMP/s.json" --report html:"$TMP/s.html"
expect_grep "certify: declared scope (--layout/--format): $inscope of [0-9]* cases in scope, [0-9]* unsupported (coverage, neither pass nor failure)" "$TMP/out" "coverage line"
expect_grep 'CERTIFIED for its declared scope' "$TMP/out" "certified for the scope, said so"
checks=$((checks + 1))
if grep -q '^rejected-valid\|^crash' "$TMP/out"; then echo "FAIL: a case outside the scope was run and failed"; fails=$((fails + 1)); fi
expect_grep '"outcome":	"unsupported"' "$TMP/s.json" "JSON lists unsupported cases"
expect_grep '"case":	"gq/iq4_nl-d-inf",' "$TMP/s.json" "an IQ4_NL case is among them"
expect_grep 'id="scope">Declared scope: format gguf layout q8_0. Coverage: ' "$TMP/s.html" "HTML shows the coverage"
expect_rc 2 "--layout with no value" -- "$PC" certify --reader "x {input} {output}" --layout
rm -rf "$TMP"
finish
