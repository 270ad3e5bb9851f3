# GPTQ and AWQ through the commands: validate, unpack (the logical view passes validate), profiles.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
F=$SRC/fixtures

expect_rc 0 "validate a GPTQ v1 checkpoint" -- "$PC" validate "$F/gptq/autogptq-v1-4bit-sym-g32-patterned" --report json:"$TMP/g.json"
expect_grep '"format":	"gptq-v1"' "$TMP/g.json" "GPTQ v1 format name"
expect_rc 0 "validate a GPTQ v2 checkpoint" -- "$PC" validate "$F/gptq/gptqmodel-v2-4bit-asym-descact-g32-random" --report json:"$TMP/g2.json"
expect_grep '"format":	"gptq-v2"' "$TMP/g2.json" "GPTQ v2 format name"
expect_rc 0 "validate an AWQ checkpoint" -- "$PC" validate "$F/awq/autoawq-gemm-g32-random" --report json:"$TMP/a.json"
expect_grep '"format":	"awq-gemm"' "$TMP/a.json" "AWQ format name"

expect_rc 0 "unpack GPTQ" -- "$PC" unpack "$F/gptq/autogptq-v1-3bit-asym-descact-g16-random" --out "$TMP/g.safetensors"
expect_rc 0 "the GPTQ logical view validates" -- "$PC" validate "$TMP/g.safetensors"
expect_grep 'q_proj.codes' "$TMP/g.safetensors" "GPTQ logical view holds M.codes"
expect_rc 0 "unpack AWQ (two modules)" -- "$PC" unpack "$F/awq/autoawq-gemm-g32-two-modules-bias" --out "$TMP/a.safetensors"
expect_grep 'o_proj.weight' "$TMP/a.safetensors" "AWQ logical view holds the second module"

expect_rc 1 "mislabelled v2-as-gptq is rejected" -- "$PC" validate "$F/gptq/neg-mislabelled-v2-as-gptq-4bit"
expect_grep 'GPTQ-012' "$TMP/out" "mislabelling names GPTQ-012"
expect_grep 'mislabelled' "$TMP/out" "mislabelling says so"
expect_rc 1 "unpack refuses the v1 overflow under strict" -- "$PC" unpack "$F/gptq/autogptq-v1-4bit-asym-zero0" --out "$TMP/z.safetensors"
checks=$((checks + 1)); [ -e "$TMP/z.safetensors" ] && { echo "FAIL: unpack left an output behind"; fails=$((fails + 1)); }
expect_rc 0 "unpack decodes the v1 overflow under compat" -- "$PC" unpack "$F/gptq/autogptq-v1-4bit-asym-zero0" --profile compat --out "$TMP/z.safetensors"
expect_rc 1 "AWQ gemv is named unsupported" -- "$PC" validate "$F/awq/neg-version-gemv"
expect_grep 'AWQ-002' "$TMP/out" "gemv names AWQ-002"
expect_rc 0 "--config overrides: a v2 file read with its own config" -- "$PC" validate "$F/gptq/neg-mislabelled-v2-as-gptq-4bit" --config "$F/gptq/gptqmodel-v2-4bit-sym-g32-patterned/config.json"
# Every broken repack of the equiv pairs is a valid checkpoint on its own: only a comparison sees it.
for b in "$F"/equiv/*/target; do
    expect_rc 0 "equiv target validates: $b" -- "$PC" validate "$b"
done
rm -rf "$TMP"
finish
