# compressed-tensors pack-quantized through the commands: validate reports the layout and per-rule
# results, unpack writes a logical view that itself validates, a legacy checkpoint claimed as dense
# (or the reverse) is rejected by CT-012, and an ambiguous layout is a warning, not a failure.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
CT=$SRC/fixtures/ct

expect_rc 0 "validate a dense checkpoint" -- "$PC" validate "$CT/dense-b3-group32-asym" --report json:"$TMP/d.json"
expect_grep '"format":	"ct-dense"' "$TMP/d.json" "dense format name"
expect_grep '"rule":	"CT-003"' "$TMP/d.json" "CT-003 reported"
expect_rc 0 "validate a legacy checkpoint" -- "$PC" validate "$CT/legacy-b5-group16-asym" --report json:"$TMP/l.json"
expect_grep '"format":	"ct-legacy"' "$TMP/l.json" "legacy format name"
expect_rc 0 "unpack dense" -- "$PC" unpack "$CT/dense-b4-block-asym" --out "$TMP/view.safetensors"
expect_rc 0 "the logical view validates" -- "$PC" validate "$TMP/view.safetensors"
expect_grep 'down_proj.codes' "$TMP/view.safetensors" "view holds M.codes"
expect_grep 'down_proj.weight' "$TMP/view.safetensors" "view holds M.weight"

# The same dense 5-bit bytes, once with the truth and once claiming the legacy version.
sed 's/"version": "0.20.1"/"version": "0.17.1"/' "$CT/dense-b5-probes/config.json" >"$TMP/legacy-claim.json"
expect_rc 0 "dense 5-bit as written" -- "$PC" validate "$CT/dense-b5-probes"
expect_rc 1 "dense 5-bit claimed legacy" -- "$PC" validate "$CT/dense-b5-probes" --config "$TMP/legacy-claim.json"
expect_grep 'CT-012' "$TMP/out" "dense read as legacy names CT-012"
sed 's/"version": "0.17.1"/"version": "0.20.1"/' "$CT/legacy-b7-probes/config.json" >"$TMP/dense-claim.json"
expect_rc 1 "legacy 7-bit claimed dense" -- "$PC" validate "$CT/legacy-b7-probes" --config "$TMP/dense-claim.json"
expect_rc 1 "unpack refuses it" -- "$PC" unpack "$CT/legacy-b7-probes" --config "$TMP/dense-claim.json" --out "$TMP/no.safetensors"
checks=$((checks + 1)); [ -e "$TMP/no.safetensors" ] && { echo "FAIL: unpack left an output behind"; fails=$((fails + 1)); }

expect_rc 0 "ambiguous layout is a warning" -- "$PC" validate "$CT/legacy-b3-k12-no-version" --report md:"$TMP/a.md"
expect_grep 'CT-013 | warn' "$TMP/a.md" "CT-013 warns"
expect_grep 'assumed ct-legacy' "$TMP/a.md" "the warning says which layout was assumed"
rm -rf "$TMP"
finish
