# GGUF inputs end to end: verdicts, rule IDs with tensor and offset in the message, the logical
# view of Q4_0 tensors, and refusal to unpack a rejected file.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
G=$SRC/fixtures/gguf

expect_rc 0 "valid Q4_0 file" -- "$PC" validate "$G/q4_0-shapes/model.gguf" --report json:"$TMP/r.json"
expect_grep '"format":	"gguf"' "$TMP/r.json" "format is gguf"
expect_rc 0 "F32 and Q8_0 only: the Q8_0 tensor is decoded" -- "$PC" validate "$G/no-q4_0/model.gguf"
expect_rc 3 "a Q8_K tensor is unchecked, not passed" -- "$PC" validate "$G/unchecked-q8_k/model.gguf" --report json:"$TMP/q8k.json"
expect_grep '"scheme":	"GGUF Q8_K"' "$TMP/q8k.json" "names the GGUF block type"
expect_rc 0 "an IQ2_XXS tensor is decoded" -- "$PC" validate "$G/checked-iq2_xxs/model.gguf"
expect_rc 1 "IQ1_M assembled scale NaN" -- "$PC" validate "$SRC/fixtures/gq/iq1_m-d-nonfinite/model.gguf"
expect_grep 'GQ-002.*x.weight @' "$TMP/out" "names rule, tensor and offset"
expect_rc 0 "a Q4_K_M-shaped llama file is checked end to end" -- "$PC" validate "$SRC/fixtures/gq/q4_k_m-shaped/model.gguf"
expect_rc 1 "Q4_1 m = NaN" -- "$PC" validate "$SRC/fixtures/gq/q4_1-m-nan/model.gguf"
expect_grep 'GQ-002.*x.weight @.*m = 0x7e00' "$TMP/out" "names rule, tensor, offset and the field"
expect_rc 1 "byte-swapped version" -- "$PC" validate "$G/version-byte-swapped/bad.gguf"
expect_grep 'GGUF-038.*big-endian' "$TMP/out" "says the file is big-endian (GGUF-038, packcheck's LIMIT in strict)"
expect_rc 1 "byte-swapped version under compat (ggml refuses it)" -- "$PC" validate --profile compat "$G/version-byte-swapped/bad.gguf"
expect_grep 'GGUF-038 fail' "$TMP/out" "GGUF-038 is a MUST failure under compat"
expect_rc 1 "CVE-2026-27940 file" -- "$PC" validate "$G/mem-size-cve-2026-27940/bad.gguf"
expect_grep 'GGUF-025' "$TMP/out" "names GGUF-025"
expect_rc 1 "d = inf" -- "$PC" validate "$SRC/fixtures/q40/d-inf/model.gguf"
expect_grep 'Q40-002.*x.weight @' "$TMP/out" "names rule, tensor and offset"
expect_rc 1 "bad magic in a .gguf file" -- "$PC" validate "$G/magic-bad/bad.gguf"
expect_grep 'GGUF-001' "$TMP/out" "names GGUF-001"
expect_rc 0 "unpack Q4_0" -- "$PC" unpack "$G/q4_0-shapes/model.gguf" --out "$TMP/view.safetensors"
expect_rc 0 "the logical view validates" -- "$PC" validate "$TMP/view.safetensors"
expect_rc 1 "unpack a rejected GGUF" -- "$PC" unpack "$SRC/fixtures/q40/d-nan/model.gguf" --out "$TMP/no.safetensors"
checks=$((checks + 1)); [ -e "$TMP/no.safetensors" ] && { echo "FAIL: unpack left an output behind"; fails=$((fails + 1)); }
expect_rc 0 "strict SHOULD rules only warn" -- "$PC" validate "$G/key-not-snake-case/model.gguf"
expect_grep 'GGUF-032 warn' "$TMP/out" "a key not in snake case warns"
expect_rc 0 "compat turns them off" -- "$PC" validate --profile compat "$G/key-not-snake-case/model.gguf"
expect_rc 1 "bool 2 is invalid under strict (docs/gguf.md)" -- "$PC" validate "$G/bool-2/bad.gguf"
expect_grep 'GGUF-031' "$TMP/out" "names GGUF-031"
expect_rc 0 "bool 2 passes under compat (ggml reads it as true)" -- "$PC" validate --profile compat "$G/bool-2/bad.gguf"
rm -rf "$TMP"
finish
