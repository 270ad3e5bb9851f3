# `packcheck read INPUT OUTPUT`: packcheck as a reader under certify's protocol (issue 32 item 7):
# exit 0 after writing the view, 1 to refuse (a rejected input, or nothing decodable: unpack's exit
# 3 would be a crash to certify), and certify counts it as a reader that passes.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
chmod 755 "$TMP"
F=$SRC/fixtures
expect_rc 0 "read a valid case" -- "$PC" read "$F/gq/mixed-q4_0-q4_1-q8_0/model.gguf" "$TMP/v.safetensors"
checks=$((checks + 1)); [ -s "$TMP/v.safetensors" ] || { echo "FAIL: no view written"; fails=$((fails + 1)); }
expect_rc 1 "nothing decodable is a refusal" -- "$PC" read "$F/gguf/unchecked-q8_k/model.gguf" "$TMP/u.safetensors"
expect_rc 1 "a rejected input is a refusal" -- "$PC" read "$F/gq/iq4_nl-d-inf/model.gguf" "$TMP/r.safetensors"
expect_rc 0 "read --help" -- "$PC" read --help
expect_grep "certify's protocol" "$TMP/out" "read --help says what it is for"
expect_rc 0 "packcheck --help lists read" -- "$PC" --help
expect_grep '^  read ' "$TMP/out" "read is a listed command"
expect_rc 0 "certify packcheck read on the GGUF families" -- "$PC" certify --reader "$PC read {input} {output} --profile {profile}" --only gguf/ --only q40/
expect_grep 'PARTIAL (--only: not a certificate): [0-9]* run, [0-9]* pass, 0 expected failures, 0 unexpected failures' "$TMP/out" "every case passes"
checks=$((checks + 1))
if grep -q '^crash' "$TMP/out"; then echo "FAIL: certify counts packcheck read as crashing"; grep '^crash' "$TMP/out" | head -3; fails=$((fails + 1)); fi
rm -rf "$TMP"
finish
