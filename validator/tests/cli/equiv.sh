# packcheck equiv (CONTRACT 7): every corpus case whose expect.json has an "equiv" block is run through
# the command, and its exit code and first-difference rule are held to the expectation; plus usage.
PC=$1 SRC=$2 TMP=$(mktemp -d)
. "$SRC/validator/tests/cli/lib.inc"
ncases=0
for ej in "$SRC"/fixtures/*/*/expect.json; do
    grep -q '"equiv": {' "$ej" || continue
    dir=$(dirname "$ej")
    # The block is a top-level key (two-space indent); its own fields sit at four spaces. Two spellings:
    # {source, target, verdict, rule} and the GPTQ/AWQ pairs' {a, b, equal}.
    block=$(sed -n '/^  "equiv": {/,/^  }/p' "$ej")
    field() { printf '%s\n' "$block" | sed -n "s/^    \"$1\": \"\([^\"]*\)\".*/\1/p" | head -1; }
    verdict=$(field verdict) rule=$(field rule) src=$(field source) dst=$(field target) tol=$(field tolerance)
    [ -n "$src" ] || src=$(field a)
    [ -n "$dst" ] || dst=$(field b)
    if [ -z "$verdict" ]; then
        case $(printf '%s\n' "$block" | sed -n 's/^    "equal": \([a-z]*\).*/\1/p') in
            true) verdict=equal ;; false) verdict=differ ;;
        esac
    fi
    set -- "$PC" equiv "$dir/$src" "$dir/$dst" --report json:"$TMP/eq.json" --report md:"$TMP/eq.md"
    [ -n "$tol" ] && set -- "$@" --tolerance "$tol"
    ncases=$((ncases + 1))
    case $verdict in
        equal) expect_rc 0 "${dir#$SRC/fixtures/} equal" -- "$@" ;;
        differ)
            expect_rc 1 "${dir#$SRC/fixtures/} differ" -- "$@"
            [ -n "$rule" ] && expect_grep "^first difference: $rule " "$TMP/out" "${dir#$SRC/fixtures/} differs by $rule"
            expect_grep "\"verdict\":	\"differ\"" "$TMP/eq.json" "${dir#$SRC/fixtures/} json verdict" ;;
        *) echo "FAIL: $ej: equiv verdict \"$verdict\""; fails=$((fails + 1)) ;;
    esac
done
checks=$((checks + 1)); [ "$ncases" -gt 0 ] || { echo "FAIL: no equiv case in the corpus"; fails=$((fails + 1)); }
NV=$SRC/fixtures/nvfp4
expect_rc 2 "equiv with one input" -- "$PC" equiv "$NV/modelopt-export"
expect_rc 2 "equiv with three inputs" -- "$PC" equiv "$NV/modelopt-export" "$NV/modelopt-export" "$NV/modelopt-export"
expect_rc 2 "equiv bad tolerance" -- "$PC" equiv --tolerance ulp:x "$NV/modelopt-export" "$NV/modelopt-export"
expect_rc 2 "equiv unknown option" -- "$PC" equiv --frob "$NV/modelopt-export" "$NV/modelopt-export"
expect_rc 2 "equiv unreadable target" -- "$PC" equiv "$NV/modelopt-export" "$TMP/missing"
expect_rc 0 "equiv self" -- "$PC" equiv "$NV/modelopt-export" "$NV/modelopt-export"
expect_grep "tolerance exact" "$TMP/out" "a same-format pair defaults to exact"
C=$NV/equiv-modelopt-to-ct-converter
expect_rc 0 "converter output, default tolerance" -- "$PC" equiv "$C/source" "$C/target"
expect_grep "tolerance ulp:4" "$TMP/out" "the naming pair defaults to ulp:4"
expect_rc 1 "converter output, --tolerance exact" -- "$PC" equiv --tolerance exact "$C/source" "$C/target"
expect_grep "^first difference: EQ-003 " "$TMP/out" "exact weights differ by the reciprocal's rounding"
expect_rc 0 "converter output, reverse direction" -- "$PC" equiv "$C/target" "$C/source"
expect_rc 0 "abs tolerance" -- "$PC" equiv --tolerance abs:1e-3 "$C/source" "$C/target"
# gpt-oss MXFP4 -> llama.cpp's GGUF (the GGUF module's pair_map): equal up to the sign of zero only.
G=$SRC/fixtures/mxfp4/equiv-gptoss-vs-gguf
# The pair's default tolerance is ulp:0 (gguf_pairs.c pair_detect); --tolerance exact shows why.
expect_rc 0 "gpt-oss -> GGUF, default (ulp:0)" -- "$PC" equiv "$G/source" "$G/target/model.gguf"
expect_grep "tolerance ulp:0" "$TMP/out" "the pair's default tolerance is ulp:0"
expect_rc 1 "gpt-oss -> GGUF, exact" -- "$PC" equiv --tolerance exact "$G/source" "$G/target/model.gguf"
expect_grep "^first difference: EQ-003 .* is -0 (0x80000000) in source, 0 (0x00000000) in target: 0 ULP" "$TMP/out" "E2M1 code 8: -0 in transformers, +0 in ggml"
expect_rc 1 "GGUF -> gpt-oss: the map is declared one way" -- "$PC" equiv "$G/target/model.gguf" "$G/source"
expect_grep "^first difference: EQ-001 " "$TMP/out" "without a map the names must be equal"
# Across layouts: compressed-tensors 0.17.1 (word-aligned) and 0.20.1 (dense) wrote the same probes.
for b in 3 4 5 6 7; do
    L=$SRC/fixtures/ct/legacy-b$b-probes D=$SRC/fixtures/ct/dense-b$b-probes
    [ -d "$L" ] && [ -d "$D" ] || continue
    expect_rc 0 "ct-legacy vs ct-dense $b-bit probes" -- "$PC" equiv "$L" "$D"
done
finish
