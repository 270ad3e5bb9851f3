# What a first-time user reads on the terminal (issue 32 items 4, 5, 8): identical findings across
# modules once with their count and first instances, no unchecked line for a tensor of a module that
# failed, rule titles on failure lines and under -v, one `packcheck rules RULE` hint; --color and
# NO_COLOR on every command; `packcheck --help` lists exit 3; a missing path said once, plainly.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
GEN=$(dirname "$PC")/packcheck-gen-ckpt
ESC=$(printf '\033')

# 4. One wrong num_bits in the config: the same CT-004 finding on every module.
"$GEN" "$TMP/ck" --size 4M --hidden 128 --inter 256 --bits 4 --group 32 >/dev/null
sed -i 's/"num_bits": *4/"num_bits": 8/' "$TMP/ck/config.json"
expect_rc 1 "wrong num_bits rejects" -- "$PC" validate "$TMP/ck"
expect_grep '^  CT-004   fail  x 276 modules, first model.layers.0.mlp.gate_proj.weight_packed @[0-9]*: packed width 16 does not fit K = 128 at 8 bits' "$TMP/out" "276 identical findings on one line"
expect_grep '^  CT-004   fail  x 46 modules, first model.layers.0.mlp.down_proj.weight_packed' "$TMP/out" "the other shape's group"
expect_grep '^           also model.layers.0.mlp.up_proj.weight_packed @[0-9]*, model.layers.0.self_attn.k_proj.weight_packed @[0-9]* and 273 more' "$TMP/out" "first instances named"
checks=$((checks + 1))
n=$(wc -l <"$TMP/out")
[ "$n" -le 8 ] || { echo "FAIL: $n lines for one config mistake (want <= 8)"; fails=$((fails + 1)); }
# The full list stays in the reports.
"$PC" validate "$TMP/ck" --report json:"$TMP/ck.json" >/dev/null
checks=$((checks + 1))
n=$(grep -c '"status":	"fail"' "$TMP/ck.json")
[ "$n" = 322 ] || { echo "FAIL: the JSON report has $n failures, expected all 322"; fails=$((fails + 1)); }

# 4. A GPTQ module rejected for its bits: its g_idx is unchecked as a consequence, not listed.
cp -r "$SRC/fixtures/gptq/autogptq-v1-3bit-asym-descact-g16-random" "$TMP/q"
sed -i 's/"bits": *3/"bits": 8/' "$TMP/q/quantize_config.json"
expect_rc 1 "gptq bits 8 rejects" -- "$PC" validate "$TMP/q"
checks=$((checks + 1))
if grep -q '^  unchecked .*g_idx' "$TMP/out"; then echo "FAIL: the failed module's g_idx is listed as unchecked"; fails=$((fails + 1)); fi
expect_grep '(1 unchecked tensor of modules that failed above not listed' "$TMP/out" "the consequential unchecked tensor is counted"

# 5. Rule titles on failure lines and under -v; one hint naming `packcheck rules RULE`.
expect_grep 'GPTQ-005 fail  model.layers.0.self_attn.q_proj.qweight @688: .*  \[tensor shapes agree\]$' "$TMP/out" "failure line carries the rule title"
checks=$((checks + 1))
n=$(grep -c '^hint: `packcheck rules GPTQ-005`' "$TMP/out")
[ "$n" = 1 ] || { echo "FAIL: the rules hint appears $n times (want once)"; fails=$((fails + 1)); }
expect_rc 0 "valid -v" -- "$PC" validate -v "$SRC/fixtures/awq/autoawq-gemm-g32-allmax"
expect_grep '^  ST-001   pass  \[file holds the 8-byte header length\]' "$TMP/out" "-v lines carry titles"

# 8. Colour: verdicts coloured with --color always, never with NO_COLOR or into a pipe; every command.
expect_rc 1 "--color always" -- "$PC" validate --color always "$TMP/q"
expect_grep "${ESC}\[1;31mreject" "$TMP/out" "validate colours the verdict"
expect_rc 1 "NO_COLOR" -- env NO_COLOR=1 "$PC" validate "$TMP/q"
checks=$((checks + 1))
if grep -q "$ESC" "$TMP/out"; then echo "FAIL: colour despite NO_COLOR"; fails=$((fails + 1)); fi
expect_rc 0 "corpus --color never" -- "$PC" corpus --color never --version
expect_rc 0 "corpus --color always" -- "$PC" corpus --color always
expect_grep "^corpus: ${ESC}\[32m[0-9]* passed, 0 failed" "$TMP/out" "corpus colours its verdict"
expect_rc 0 "unpack takes --color" -- "$PC" unpack --color=never "$SRC/fixtures/awq/autoawq-gemm-g32-allmax" --out "$TMP/v.safetensors"
expect_rc 2 "bad --color value" -- "$PC" corpus --color sometimes --version
expect_grep 'color wants auto, always or never' "$TMP/err" "bad --color says what it wants"

# 8. --help lists exit 3; a missing path is reported once, without a format, without the path twice.
expect_rc 0 "--help" -- "$PC" --help
expect_grep '3 nothing failed but a quantized tensor was not checked' "$TMP/out" "--help lists exit 3"
expect_rc 2 "missing path" -- "$PC" validate "$TMP/nope"
expect_grep "^$TMP/nope: error, " "$TMP/out" "verdict line without a format"
checks=$((checks + 1))
n=$(cat "$TMP/out" "$TMP/err" | grep -c 'no such file')
[ "$n" = 1 ] || { echo "FAIL: the missing path is reported $n times"; cat "$TMP/out" "$TMP/err"; fails=$((fails + 1)); }
checks=$((checks + 1))
if grep -q "$TMP/nope: $TMP/nope\|(safetensors)" "$TMP/out" "$TMP/err"; then echo "FAIL: path doubled or labelled safetensors"; fails=$((fails + 1)); fi
rm -rf "$TMP"
finish
